"""The detector: which (Cluster)PropagationPolicy claims each resource template, and the
ResourceBinding that results (Karmada: pkg/detector).

`detect` runs Karmada's per-template reconcile over a whole source at once, as a pure function.
The claims of the previous render (read from its bindings) play the part of the claim labels
Karmada keeps on templates, so a render moves from one steady state of Karmada's detector to
the next. Scheduling is left to the scheduler: the detector carries the previous schedule result
over untouched. `distribute_dependencies` is Karmada's dependencies distributor, which needs the
schedule result and so runs after the scheduler.

Templates come in with their effective namespace (`model.scope`, which the loader applies).
Private modules: `_filter` (templates never propagated), `_defaults` (Karmada's policy
defaults), `_match` (policy choice), `_claim` (claim metadata and permanent ids), `_binding`
(binding building), `_dependencies` (dependency distribution).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping

from gitfleet import errors, interpreter
from gitfleet.detector import (
    _binding,
    _claim,
    _defaults,
    _dependencies,
    _filter,
    _match,
    detection,
)
from gitfleet.model import diagnostic, objects, policy
from gitfleet.model.template import (
    RawMeta,
    RawObject,
    ResourceKey,
    ResourceTemplate,
    priority_classes,
)

Binding = detection.Binding
Policy = policy.PropagationPolicy | policy.ClusterPropagationPolicy
Unchanged = Callable[[ResourceTemplate, Binding], bool]
Outcome = detection.Outcome


@dataclasses.dataclass(frozen=True, slots=True)
class _Source:
    """The parts of the source the detector reads, indexed once."""

    namespace_policies: Mapping[str, tuple[policy.PropagationPolicy, ...]]
    cluster_policies: tuple[policy.ClusterPropagationPolicy, ...]
    override_names: frozenset[tuple[str, str]]
    cluster_override_names: frozenset[str]
    priority_classes: Mapping[str, int]

    @classmethod
    def of(cls, objs: objects.ObjectSet, templates: Iterable[ResourceTemplate]) -> _Source:
        by_namespace: dict[str, list[policy.PropagationPolicy]] = {}
        for pp in objs.propagation_policies:
            by_namespace.setdefault(pp.namespace, []).append(_defaults.defaulted(pp))
        return cls(
            namespace_policies={ns: tuple(pps) for ns, pps in by_namespace.items()},
            cluster_policies=tuple(
                _defaults.defaulted(c) for c in objs.cluster_propagation_policies
            ),
            override_names=frozenset((o.namespace, o.name) for o in objs.override_policies),
            cluster_override_names=frozenset(o.name for o in objs.cluster_override_policies),
            priority_classes=priority_classes(templates),
        )

    def claimed(self, claim: _claim.Claim) -> Policy | None:
        """The policy a claim names, if it exists and is not being deleted."""
        found: Policy | None = None
        if claim.kind == policy.PropagationPolicy.KIND:
            found = next(
                (
                    p
                    for p in self.namespace_policies.get(claim.namespace, ())
                    if p.name == claim.name
                ),
                None,
            )
        else:
            found = next((p for p in self.cluster_policies if p.name == claim.name), None)
        return None if found is None or _match.being_deleted(found) else found

    def waiting(self) -> bool:
        """Whether a policy waits for a dependentOverride that does not exist."""
        policies: list[Policy] = [*self.cluster_policies]
        for pps in self.namespace_policies.values():
            policies.extend(pps)
        return any(self.missing_overrides(p) for p in policies)

    def missing_overrides(self, obj: Policy) -> list[str]:
        """The policy's dependentOverrides that do not exist
        (helper.IsDependent(Cluster)OverridesPresent)."""
        if isinstance(obj, policy.PropagationPolicy):
            return [
                f"OverridePolicy {obj.namespace}/{name}"
                for name in obj.spec.dependent_overrides
                if (obj.namespace, name) not in self.override_names
            ]
        return [
            f"ClusterOverridePolicy {name}"
            for name in obj.spec.dependent_overrides
            if name not in self.cluster_override_names
        ]


def _unique_templates(
    objs: objects.ObjectSet, diagnostics: list[diagnostic.Diagnostic]
) -> list[ResourceTemplate]:
    """The templates by key; a key defined twice keeps the first."""
    seen: dict[ResourceKey, ResourceTemplate] = {}
    for t in sorted(objs.templates, key=lambda t: (t.origin.path, t.origin.line, t.origin.col)):
        first = seen.get(t.key)
        if first is not None:
            diagnostics.append(
                diagnostic.error(t.origin, f"{t.key} is already defined at ", first.origin)
            )
            continue
        seen[t.key] = t
    return sorted(seen.values(), key=lambda t: t.key)


def _previous_index(previous: Mapping[ResourceKey, Binding]) -> dict[tuple[str, str, str], Binding]:
    return {(b.KIND, b.namespace, b.name): b for b in previous.values()}


def _claims_of(
    template: ResourceTemplate, previous: Binding | None, before: detection.Seen | None
) -> tuple[_claim.Claim, ...]:
    """The claims the template came with: its own, else the lazy claim the previous render
    recorded (newer than its binding, which a Lazy policy leaves alone), else its binding's."""
    found = _claim.read(template.labels, template.metadata.get("annotations") or {})
    if not found and before is not None and before.claim is not None:
        ref = before.claim
        found = (_claim.Claim(ref.kind, ref.namespace, ref.name, ""),)
    if not found and previous is not None:
        found = _claim.read(previous.metadata.labels or {}, previous.metadata.annotations or {})
    return found


def _with_recorded_claim(template: ResourceTemplate, previous: Binding | None) -> ResourceTemplate:
    """The template's labels as Karmada's copy of it carries them: with the claim id labels
    that gitfleet keeps on the previous binding instead (Karmada writes them on both), which
    a label selector may name."""
    if previous is None:
        return template
    labels = template.labels
    recorded = {
        k: v
        for k, v in (previous.metadata.labels or {}).items()
        if k in _claim.CLAIM_LABELS and k not in labels
    }
    return _relabelled(template, {**labels, **recorded}) if recorded else template


def _without_labels(template: ResourceTemplate, dropped: frozenset[str]) -> ResourceTemplate:
    """The template as Karmada matches it afresh once the claims of policies that no longer
    hold it are cleaned up: without their id labels, which a label selector may name
    (CleanupPPClaimMetadata, CleanupCPPClaimMetadata)."""
    labels = template.labels
    if not dropped & labels.keys():
        return template
    return _relabelled(template, {k: v for k, v in labels.items() if k not in dropped})


def _relabelled(template: ResourceTemplate, labels: dict[str, str]) -> ResourceTemplate:
    """A copy of `template` with `labels`, for matching only: the stored template is kept."""
    metadata: RawMeta = {**template.metadata}
    metadata["labels"] = labels
    body: RawObject = {**template.body}
    body["metadata"] = metadata
    return ResourceTemplate(body, template.origin)


class _Detector:
    def __init__(
        self,
        source: _Source,
        interp: interpreter.Interpreter,
        diagnostics: list[diagnostic.Diagnostic],
    ) -> None:
        self.source = source
        self.interp = interp
        self.diagnostics = diagnostics

    def decide(
        self,
        template: ResourceTemplate,
        previous: Binding | None,
        before: detection.Seen | None = None,
    ) -> detection.Decision:
        """The decision for one template; `before` is what the previous render recorded of it
        when its binding does not (`detection.Seen`)."""
        reason = _filter.skip_reason(template)
        base = detection.Decision(
            key=template.key, origin=template.origin, outcome=Outcome.SKIPPED, message=reason or ""
        )
        if reason is not None:
            if previous is not None and previous.spec.placement is not None:
                message = f"{reason}; its previous binding is left as it was"
                return dataclasses.replace(base, message=message, binding=previous)
            return base
        seen = _with_recorded_claim(template, previous)
        claim_ref, claimer, dropped, cleaned = self._holding_claim(seen, previous, before)
        pps = (
            self.source.namespace_policies.get(template.namespace, ()) if template.namespace else ()
        )
        matched = _without_labels(seen, cleaned) if claimer is None else seen
        winner, candidates = _match.choose(matched, pps, self.source.cluster_policies, claimer)
        base = dataclasses.replace(base, claim=claim_ref, candidates=candidates)
        if winner is None:
            return self._unmatched(template, previous, base, dropped)
        if before is not None:
            seen_digest: str | None = before.digest
        else:
            seen_digest = previous.spec.resource.resource_version if previous else None
        return self._apply(
            template,
            previous,
            winner,
            dataclasses.replace(base, winner=detection.PolicyRef.of(winner)),
            dropped,
            seen_digest,
        )

    def _holding_claim(
        self, template: ResourceTemplate, previous: Binding | None, before: detection.Seen | None
    ) -> tuple[detection.PolicyRef | None, Policy | None, str, frozenset[str]]:
        """The claim the template came with, the policy still holding it (None when none does),
        why each claim read before it was dropped, and the claim labels that cleaning them up
        removes. A claim whose policy is gone or no longer selects the template is cleaned up
        alone, and Karmada's next reconcile reads the claim under it, as `_claim.read` orders
        them."""
        first: detection.PolicyRef | None = None
        dropped = []
        cleaned: set[str] = set()
        for claim in _claims_of(template, previous, before):
            ref = detection.PolicyRef(claim.kind, claim.namespace, claim.name)
            first = first or ref
            claimer = self.source.claimed(claim)
            if claimer is None:
                dropped.append(f"its claiming {ref} no longer exists")
            elif not _match.selects(template, claimer):
                dropped.append(f"its claiming {ref} no longer selects it")
            else:
                held = detection.PolicyRef.of(claimer)
                return held, claimer, "; ".join(dropped), frozenset(cleaned)
            cleaned.add(_claim.id_label(claim.kind))
        return first, None, "; ".join(dropped), frozenset(cleaned)

    def _unmatched(
        self,
        template: ResourceTemplate,
        previous: Binding | None,
        base: detection.Decision,
        dropped: str,
    ) -> detection.Decision:
        where = (
            f"no PropagationPolicy in namespace {template.namespace} and no "
            "ClusterPropagationPolicy selects it"
            if template.namespace
            else "no ClusterPropagationPolicy selects it"
        )
        if dropped:
            where = f"{dropped}, and {where}"
        if previous is not None and previous.spec.placement is not None:
            return dataclasses.replace(
                base,
                outcome=Outcome.ORPHANED,
                message=(
                    f"{where}; its binding stays with the previous placement until the template "
                    "is deleted or another policy claims it"
                ),
                binding=_binding.unclaimed(previous),
            )
        if _filter.auto_propagated_namespace(template):
            message = f"{where}; the namespace controller sends it to every cluster"
        else:
            message = f"not propagated: {where}"
        return dataclasses.replace(base, outcome=Outcome.UNMATCHED, message=message)

    def _kept(
        self, base: detection.Decision, previous: Binding | None, outcome: Outcome, message: str
    ) -> detection.Decision:
        """The decision when the winner is not applied (yet): the previous binding stays, without
        the claim of a policy that no longer holds it (Karmada cleaned that up already)."""
        binding = previous
        if previous is not None and base.claim != base.winner:
            binding = _binding.unclaimed(previous) if previous.spec.placement else None
        return dataclasses.replace(base, outcome=outcome, message=message, binding=binding)

    def _apply(
        self,
        template: ResourceTemplate,
        previous: Binding | None,
        winner: Policy,
        base: detection.Decision,
        dropped: str,
        seen_digest: str | None,
    ) -> detection.Decision:
        """Build the winner's binding, unless the winner activates lazily and the template is as
        the previous render saw it (`seen_digest`): Karmada's detector then only claims the
        template, after a change of policies, and leaves its binding, if any, as it was
        (ApplyPolicy on a change not made by the template's user). A claim taken over from
        another policy is the exception: cleaning up that claim is a change of the template,
        which Karmada does not tell from its user's."""
        ref = detection.PolicyRef.of(winner)
        missing = self.source.missing_overrides(winner)
        if missing:
            message = f"{ref} waits for its dependentOverrides: {', '.join(missing)} missing"
            self.diagnostics.append(
                diagnostic.warning(winner.origin.at("spec", "dependentOverrides"), message)
            )
            return self._kept(base, previous, Outcome.WAITING, message)
        if (
            winner.spec.activation_preference == policy.ActivationPreference.LAZY
            and base.claim in (None, ref)
            and seen_digest == _binding.digest(template)
        ):
            if previous is None:
                message = (
                    f"{ref} activates lazily: it claims the template and builds no binding "
                    "until the template changes"
                )
            else:
                message = (
                    f"{ref} activates lazily and the template is unchanged: binding kept as it was"
                )
            return self._kept(base, previous, Outcome.LAZY, message)
        try:
            built = _binding.build(
                template, winner, self.interp, self.source.priority_classes, previous
            )
        except _binding.BuildError as error:
            cause = error.__cause__
            origin = cause.origin if isinstance(cause, errors.InputError) else template.origin
            message = f"{template.key}: {error}"
            self.diagnostics.append(diagnostic.error(origin, message))
            return self._kept(base, previous, Outcome.FAILED, message)
        message = f"{ref} claims it" if base.claim == ref else f"{ref} selects it"
        if dropped:
            message = f"{dropped}; {message}"
        return dataclasses.replace(base, outcome=Outcome.APPLIED, message=message, binding=built)


def _resolve_collisions(
    decisions: list[detection.Decision], diagnostics: list[diagnostic.Diagnostic]
) -> list[detection.Decision]:
    """Two templates whose bindings share a name (e.g. `a-b` Foo and `a` `B-Foo`... or the same
    name in two API groups): the first keeps it; Karmada refuses the second (owner mismatch)."""
    owners: dict[tuple[str, str, str], detection.Decision] = {}
    out = []
    for d in decisions:
        if d.binding is None:
            out.append(d)
            continue
        ident = (d.binding.KIND, d.binding.namespace, d.binding.name)
        first = owners.get(ident)
        if first is None:
            owners[ident] = d
            out.append(d)
            continue
        message = (
            f"{d.key}: its binding {detection.BindingRef.of(d.binding)} is already the binding "
            f"of {first.key}; it is not propagated"
        )
        diagnostics.append(diagnostic.error(d.origin, message))
        out.append(dataclasses.replace(d, outcome=Outcome.FAILED, message=message, binding=None))
    return out


def _seen(
    template: ResourceTemplate, decision: detection.Decision, before: detection.Seen | None
) -> detection.Seen | None:
    """What the next render must know of `template` that its binding does not say (see
    `detection.Seen`): None when a binding built from the template as it is records it."""
    if decision.outcome in (Outcome.APPLIED, Outcome.SKIPPED):
        return None
    if decision.outcome in (Outcome.UNCHANGED, Outcome.WAITING):
        return before  # a waiting template is not processed: Karmada retries its own event
    digest = _binding.digest(template)
    claim = decision.winner if decision.outcome is Outcome.LAZY else None
    built = decision.binding
    if built is not None and built.spec.resource.resource_version == digest:
        labels, annotations = built.metadata.labels or {}, built.metadata.annotations or {}
        claims = [(c.kind, c.namespace, c.name) for c in _claim.read(labels, annotations)]
        if claim is None or claims[:1] == [(claim.kind, claim.namespace, claim.name)]:
            return None
    return detection.Seen(template.key, digest, claim)


def detect(
    objs: objects.ObjectSet,
    interp: interpreter.Interpreter,
    previous: Mapping[ResourceKey, Binding] | None = None,
    unchanged: Unchanged | None = None,
    seen: Iterable[detection.Seen] = (),
) -> detection.Detection:
    """Match every template of `objs` against its policies and build the bindings.

    `previous` holds the bindings of the previous render (any key; they are matched to
    templates by binding kind, namespace and name); their claims are sticky and their schedule
    results are carried over. `unchanged(template, binding)` says that a previous binding is
    still the template's binding because nothing it was made from changed (Karmada's detector
    sees no event then): it is kept as it is, without matching policies again. Only when no
    policy waits for its dependentOverrides, as such a policy warns about every template it
    wins. `seen` is what the previous render recorded of the templates its bindings do not
    record as they were (`Detection.seen`), which Lazy policies read. Pure and deterministic.
    """
    diagnostics: list[diagnostic.Diagnostic] = []
    templates = _unique_templates(objs, diagnostics)
    source = _Source.of(objs, templates)
    index = _previous_index(previous or {})
    detector = _Detector(source, interp, diagnostics)
    if unchanged is not None and source.waiting():
        unchanged = None
    seen_before = {s.key: s for s in seen}
    decisions = []
    for template in templates:
        old = index.get(_binding.identity(template))
        if old is not None and not _binding.same_resource(old, template):
            old = None
        if old is not None and unchanged is not None and unchanged(template, old):
            decisions.append(detection.Decision.unchanged(template, old))
            continue
        decisions.append(detector.decide(template, old, seen_before.get(template.key)))
    decisions = _resolve_collisions(decisions, diagnostics)
    records = (
        _seen(t, d, seen_before.get(t.key)) for t, d in zip(templates, decisions, strict=True)
    )
    bindings = sorted(
        (d.binding for d in decisions if d.binding is not None),
        key=lambda b: (b.KIND, b.namespace, b.name),
    )
    auto = tuple(t for t in templates if _filter.auto_propagated_namespace(t))
    placed = {d.key for d in decisions if d.binding is not None}
    diagnostics += [_synced_anyway(t) for t in auto if t.key in placed]
    return detection.Detection(
        bindings=tuple(bindings),
        decisions=tuple(decisions),
        templates=tuple(templates),
        auto_namespaces=tuple(t.key for t in auto),
        held_namespaces=tuple(t.key for t in templates if _filter.held_namespace(t)),
        diagnostics=tuple(diagnostic.sorted_diagnostics(diagnostics)),
        seen=tuple(r for r in records if r is not None),
    )


def _synced_anyway(namespace: ResourceTemplate) -> diagnostic.Diagnostic:
    """A Namespace a policy places that the namespace controller sends to every cluster all the
    same (Karmada's does too, unless the controller is turned off, which gitfleet has no
    setting for: the label is the way)."""
    return diagnostic.warning(
        namespace.origin,
        f"Namespace {namespace.name}: a propagation policy places it, but the namespace "
        "controller sends it to every cluster all the same, as Karmada's does; label it "
        f'{_filter.SKIP_AUTO_PROPAGATION_LABEL}: "true" for the policy alone to place it',
    )


def distribute_dependencies(
    bindings: Iterable[Binding],
    templates: Iterable[ResourceTemplate],
    interp: interpreter.Interpreter,
    previous: Mapping[ResourceKey, Binding] | None = None,
) -> detection.Distribution:
    """Karmada's dependencies distributor over scheduled bindings (see `_dependencies`):
    dependencies of propagateDeps workloads follow them to their clusters."""
    return _dependencies.distribute(bindings, templates, interp, previous)


def with_generation(binding: Binding, previous: Binding | None) -> Binding:
    """`metadata.generation` as the API server keeps it: 1 for a new binding, one more than the
    previous binding's when the spec changed (whichever stage changed it)."""
    return _binding.with_generation(binding, previous)
