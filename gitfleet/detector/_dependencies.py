"""Dependencies follow the workload (Karmada: pkg/dependenciesdistributor).

For every ResourceBinding with `propagateDeps` and a schedule result, the interpreter names the
template's dependencies (ConfigMaps, Secrets, ServiceAccounts, PVCs of its pod template, or
whatever a customization reports, by name or by label selector). Each dependency that exists in
the source gets an attached ResourceBinding in the requirer's namespace, named after the
dependency, with one `requiredBy` snapshot (namespace, name, clusters) per requirer and a label
`resourcebinding.karmada.io/depended-by-<hash of requirer>` holding the requirer's permanent id.
The dependency is then rendered to the union of its own clusters and its requirers' (the binding
controller's `mergeTargetClusters`).

When the dependency is itself claimed by a policy, its binding keeps its own placement and
strategy and only gains the snapshots and labels; an attached binding made for dependencies alone
has no placement (the scheduler ignores it), and takes conflictResolution Overwrite if any
requirer has it (else Abort) and preserveResourcesOnDeletion true if any requirer has it; when
its requirers disagree, a warning at the dependency says so, as Karmada's
DependencyPolicyConflict event does.

A requirer whose dependencies the interpreter gave carries the finalizer
`karmada.io/binding-dependencies-distributor` (Reconcile's addFinalizer), which goes once it no
longer propagates its dependencies. One whose dependencies the interpreter refuses, or no longer
interprets, keeps what the previous render gave it, as Karmada's Reconcile leaves it.

Only ResourceBindings are requirers: Karmada's distributor watches no ClusterResourceBindings.
A requirer made without a schedule result contributes nothing until its spec first changes
(Karmada's distributor is not woken before); after that it propagates its dependencies with no
clusters. Karmada keeps an attached binding whose last requirer went away, with no
snapshots and so no clusters; gitfleet recomputes the whole state and leaves it out.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from gitfleet import errors, interpreter
from gitfleet.detector import _binding, _claim, detection
from gitfleet.model import _codec, config, diagnostic, loaded, meta, policy, selectors, work
from gitfleet.model.template import ResourceKey, ResourceTemplate

Binding = detection.Binding
Ident = tuple[str, str, str]

DEPENDED_BY_PREFIX = "resourcebinding.karmada.io/depended-by-"
DEPENDENCIES_ANNOTATION = "resourcebinding.karmada.io/dependencies"
DISTRIBUTOR_FINALIZER = "karmada.io/binding-dependencies-distributor"
_SAFE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


def reference_key(namespace: str, name: str) -> str:
    """Karmada's GenerateBindingReferenceKey: FNV-32a of `namespace/name` (or `name`), its
    decimal digits mapped onto Kubernetes' safe alphabet."""
    text = f"{namespace}/{name}" if namespace else name
    value = 0x811C9DC5
    for byte in text.encode():
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return "".join(_SAFE_ALPHABET[ord(ch) % len(_SAFE_ALPHABET)] for ch in str(value))


def _ident(b: Binding) -> Ident:
    return (b.KIND, b.namespace, b.name)


def _encode_reference(ref: config.DependentObjectReference) -> dict[str, Any]:
    """Go's json.Marshal of a DependentObjectReference: fields in declaration order, map keys
    sorted."""
    doc: dict[str, Any] = _codec.encode(ref)
    match_labels = doc.get("labelSelector", {}).get("matchLabels")
    if match_labels:
        doc["labelSelector"]["matchLabels"] = dict(sorted(match_labels.items()))
    return doc


def _annotation(refs: Sequence[config.DependentObjectReference], scripted: bool) -> str:
    """The dependencies as Karmada records them on the requirer (recordDependencies): Go's JSON
    of the interpreter's answer, `null` when the native rules found none (a nil slice), `[]`
    when a Lua script returned none."""
    if not refs and not scripted:
        return "null"
    return json.dumps([_encode_reference(r) for r in refs], separators=(",", ":"))


class _Templates:
    """Templates by (group, kind, namespace) and by (group, kind), for lookups by name or label
    selector."""

    def __init__(self, templates: Iterable[ResourceTemplate]) -> None:
        self.by_scope: dict[tuple[str, str, str], list[ResourceTemplate]] = {}
        self.by_kind: dict[tuple[str, str], list[ResourceTemplate]] = {}
        self.by_key: dict[ResourceKey, ResourceTemplate] = {}
        for t in templates:
            self.by_scope.setdefault((t.key.group, t.kind, t.namespace), []).append(t)
            self.by_kind.setdefault((t.key.group, t.kind), []).append(t)
            self.by_key[t.key] = t

    def find(self, ref: config.DependentObjectReference) -> list[ResourceTemplate]:
        """The templates `ref` names. A label selector without a namespace matches templates of
        every namespace, as Karmada lists them through its informer's cluster-wide lister
        (FetchResourceTemplatesByLabelSelector); a name without one names a cluster-scoped
        template only."""
        group = ResourceKey(ref.api_version, ref.kind, ref.namespace, ref.name).group
        scope = self.by_scope.get((group, ref.kind, ref.namespace), [])
        if ref.name:
            return [t for t in scope if t.name == ref.name]
        if ref.label_selector is not None:
            if not ref.namespace:
                scope = self.by_kind.get((group, ref.kind), [])
            return [
                t for t in scope if selectors.label_selector_matches(ref.label_selector, t.labels)
            ]
        return []


def _describe(ref: config.DependentObjectReference) -> str:
    where = f"{ref.namespace}/" if ref.namespace else ""
    what = ref.name or "selector " + json.dumps(_codec.encode(ref.label_selector), sort_keys=True)
    return f"{ref.kind} {where}{what}"


def _requirer_id(b: Binding) -> str:
    return (b.metadata.labels or {}).get(_claim.RB_ID_LABEL) or _claim.permanent_id(*_ident(b))


def _without_attachments(b: Binding) -> Binding:
    """A binding with what a previous distribution wrote removed, to be recomputed (the binding
    itself when there is none: kept bindings stay the same object for the render). The
    dependencies annotation stays: Karmada only ever overwrites it (recordDependencies), so a
    requirer that stops propagating its dependencies keeps the last ones it recorded."""
    found_labels = b.metadata.labels or {}
    if (
        not b.spec.required_by
        and not any(k.startswith(DEPENDED_BY_PREFIX) for k in found_labels)
        and DISTRIBUTOR_FINALIZER not in b.metadata.finalizers
    ):
        return b
    labels = {
        k: v for k, v in (b.metadata.labels or {}).items() if not k.startswith(DEPENDED_BY_PREFIX)
    }
    return dataclasses.replace(
        b,
        metadata=dataclasses.replace(
            b.metadata,
            labels=labels or None,
            finalizers=tuple(f for f in b.metadata.finalizers if f != DISTRIBUTOR_FINALIZER),
        ),
        spec=dataclasses.replace(b.spec, required_by=()),
    )


def _owner_uid(b: Binding | None) -> str | None:
    """The uid of the binding's controller, if it has one."""
    for ref in b.metadata.owner_references if b is not None else ():
        if isinstance(ref, Mapping) and ref.get("controller"):
            return str(ref.get("uid", ""))
    return None


def _owns(b: Binding, template: ResourceTemplate) -> bool:
    """Whether the binding is the template's: for it (its resource), and owned by it where
    both have a uid (Karmada compares the owner reference's uid; a source's templates mostly
    have none)."""
    uid = _owner_uid(b)
    return _binding.same_resource(b, template) and not (uid and template.uid != uid)


def _owned_by_another(b: Binding, template: ResourceTemplate) -> bool:
    """Whether the binding's controller is another object than the template: an earlier one of
    the same name, by uid. Karmada's createOrUpdateAttachedBinding leaves such a binding as it
    is (no snapshot, no label) until the garbage collector has removed it."""
    uid = _owner_uid(b)
    return uid is not None and uid != template.uid


def _effective_conflict(requirers: Sequence[Binding]) -> policy.ConflictResolution:
    if any(r.spec.conflict_resolution == policy.ConflictResolution.OVERWRITE for r in requirers):
        return policy.ConflictResolution.OVERWRITE
    return policy.ConflictResolution.ABORT


def _policy_conflicts(requirers: Sequence[Binding]) -> list[str]:
    """Where the requirers of a binding made for dependencies alone disagree
    (pkg/dependenciesdistributor/policy_utils.go detectAndResolve*, recordEventIfPolicyConflict)."""
    found = []
    overwrite = {
        r.spec.conflict_resolution == policy.ConflictResolution.OVERWRITE for r in requirers
    }
    if len(overwrite) > 1:
        found.append("ConflictResolution conflicted (Overwrite vs Abort)")
    if len({bool(r.spec.preserve_resources_on_deletion) for r in requirers}) > 1:
        found.append("PreserveResourcesOnDeletion conflicted (true vs false)")
    return found


def _conflict_warning(
    dep: ResourceTemplate, requirers: Sequence[Binding]
) -> diagnostic.Diagnostic | None:
    """Karmada's DependencyPolicyConflict event, as a warning at the dependency."""
    reasons = _policy_conflicts(requirers)
    if not reasons:
        return None
    needing = ", ".join(
        loaded.describe(r.spec.resource.kind, r.spec.resource.namespace, r.spec.resource.name)
        for r in sorted(requirers, key=_ident)
    )
    return diagnostic.warning(
        dep.origin,
        f"{loaded.subject(dep)}: dependency policy conflict detected: {'; '.join(reasons)}, "
        f"between the policies of {needing}, which need it; Overwrite and true win, as in "
        "Karmada (DependencyPolicyConflict)",
    )


def _attached(
    template: ResourceTemplate,
    namespace: str,
    requirers: Sequence[Binding],
    previous: Binding | None,
) -> work.ResourceBinding:
    """A binding made for dependencies alone (buildAttachedBinding + createOrUpdate)."""
    name = work.binding_name(template.name, template.kind)
    ident = (work.ResourceBinding.KIND, namespace, name)
    old_meta = previous.metadata if previous is not None else meta.ObjectMeta()
    return work.ResourceBinding(
        metadata=dataclasses.replace(
            old_meta,
            name=name,
            namespace=namespace,
            labels={_claim.RB_ID_LABEL: _claim.permanent_id(*ident)},
            annotations=None,
            finalizers=(_binding.BINDING_FINALIZER,),
            owner_references=(_binding.owner_reference(template),),
        ),
        spec=work.ResourceBindingSpec(
            resource=_binding.resource_reference(template),
            conflict_resolution=_effective_conflict(requirers),
            preserve_resources_on_deletion=any(
                r.spec.preserve_resources_on_deletion for r in requirers
            ),
        ),
        status=previous.status if previous is not None else work.ResourceBindingStatus(),
        origin=template.origin,
    )


def _snapshot_order(requirers: Sequence[Binding], previous: Binding | None) -> list[Binding]:
    """The requirers in the order Karmada keeps their snapshots (mergeBindingSnapshot): those
    the previous render's binding named, in its order, then the new ones in the order they
    were reconciled (`requirers` is in that order): a requirer woken only by the snapshots
    another one wrote on its binding comes after that one, as Karmada's distributor reconciles
    it only then. Karmada appends the new ones of one wave in the order their events come;
    gitfleet takes those by name."""
    known = [(s.namespace, s.name) for s in previous.spec.required_by] if previous else []
    place = {key: i for i, key in enumerate(known)}
    return sorted(requirers, key=lambda r: place.get((r.namespace, r.name), len(place)))


def _attach(b: Binding, requirers: Sequence[Binding], previous: Binding | None) -> Binding:
    labels = dict(b.metadata.labels or {})
    for r in requirers:
        labels[DEPENDED_BY_PREFIX + reference_key(r.namespace, r.name)] = _requirer_id(r)
    snapshots = tuple(
        work.BindingSnapshot(namespace=r.namespace, name=r.name, clusters=r.spec.clusters)
        for r in _snapshot_order(requirers, previous)
    )
    return dataclasses.replace(
        b,
        metadata=dataclasses.replace(b.metadata, labels=dict(sorted(labels.items()))),
        spec=dataclasses.replace(b.spec, required_by=snapshots),
    )


def _reconciled(requirer: Binding, previous: Binding | None) -> bool:
    """Whether Karmada's distributor has reconciled the requirer by now. Its event filter lets a
    new binding through only once it is scheduled (CreateFunc), then every change of its spec
    (UpdateFunc: a new generation). A requirer made before it had a schedule result so waits
    for its first change; from then on it propagates its dependencies even without clusters,
    and their snapshots name none."""
    return bool(requirer.spec.clusters) or (
        _binding.with_generation(requirer, previous).metadata.generation > 1
    )


def _required_anew(ident: Ident, state: _State) -> bool:
    """Whether a requirer not reconciled yet is another one's dependency with snapshots it did
    not have: the distributor writing them gives it a new generation, which wakes the
    distributor for it in turn."""
    entry = state.attachments.get(ident)
    if entry is None or not entry[1]:
        return False
    before = state.prior.get(ident)
    known = (
        {(s.namespace, s.name, s.clusters) for s in before.spec.required_by} if before else set()
    )
    return {(r.namespace, r.name, r.spec.clusters) for r in entry[1].values()} != known


@dataclasses.dataclass
class _State:
    bindings: dict[Ident, Binding]
    attachments: dict[Ident, tuple[ResourceTemplate, dict[Ident, Binding]]]
    reports: list[detection.Dependencies]
    diagnostics: list[diagnostic.Diagnostic]
    prior: dict[Ident, Binding]
    held: dict[tuple[str, str], list[tuple[Binding, work.BindingSnapshot]]]
    """The previous render's snapshots by requirer (namespace, name), with their bindings."""


def _held(
    prior: Iterable[Binding],
) -> dict[tuple[str, str], list[tuple[Binding, work.BindingSnapshot]]]:
    held: dict[tuple[str, str], list[tuple[Binding, work.BindingSnapshot]]] = {}
    for b in prior:
        if b.KIND != work.ResourceBinding.KIND:
            continue
        for snapshot in b.spec.required_by:
            if snapshot.namespace == b.namespace:
                held.setdefault((snapshot.namespace, snapshot.name), []).append((b, snapshot))
    return held


def _hold_finalizer(state: _State, own: Ident) -> None:
    current = state.bindings[own]
    state.bindings[own] = dataclasses.replace(
        current,
        metadata=dataclasses.replace(
            current.metadata,
            finalizers=tuple(sorted({*current.metadata.finalizers, DISTRIBUTOR_FINALIZER})),
        ),
    )


def _require(state: _State, requirer: Binding, dep: ResourceTemplate) -> bool:
    """Records that `requirer` needs `dep` (False when the attached binding's name is taken by
    another template's, or is too long to be a name)."""
    name = work.binding_name(dep.name, dep.kind)
    too_long = _binding.name_problem(dep)
    if too_long is not None:
        where = dep.origin.at("metadata", "name")
        problem = diagnostic.error(
            where, f"{dep.key}: {too_long}; the dependency is not propagated"
        )
        if problem not in state.diagnostics:  # said once, however many workloads need it
            state.diagnostics.append(problem)
        return False
    ident = (work.ResourceBinding.KIND, requirer.namespace, name)
    entry = state.attachments.setdefault(ident, (dep, {}))
    if entry[0].key != dep.key:
        # Karmada updates a binding that is there only for the template owning it, whichever
        # of the two it meets first; with none there, the first one creates and owns it.
        there = state.bindings.get(ident) or state.prior.get(ident)
        refused, taking = dep, entry[0]
        if there is not None and _owns(there, dep) and not _owns(there, entry[0]):
            refused, taking = entry[0], dep
        state.diagnostics.append(
            diagnostic.error(
                refused.origin,
                f"{refused.key}: attached binding {requirer.namespace}/{name} is already "
                f"the binding of {taking.key}; the dependency is not propagated",
            )
        )
        if refused is dep:
            return False
        entry = state.attachments[ident] = (dep, {})
    entry[1][_ident(requirer)] = requirer
    return True


def _keep_previous(requirer: Binding, templates: _Templates, state: _State) -> None:
    """A requirer whose dependencies cannot be interpreted, or no longer have an interpreter
    (its customization went), changes nothing: Karmada's Reconcile fails, or returns, before
    it touches a binding, so the requirer keeps its finalizer and its snapshots, with the
    clusters they named, on the dependencies that still exist."""
    own = _ident(requirer)
    before = state.prior.get(own)
    if before is not None and DISTRIBUTOR_FINALIZER in before.metadata.finalizers:
        _hold_finalizer(state, own)
    for b, snapshot in state.held.get(own[1:], ()):
        r = b.spec.resource
        dep = templates.by_key.get(ResourceKey(r.api_version, r.kind, r.namespace, r.name))
        if dep is not None:
            as_was = dataclasses.replace(
                requirer, spec=dataclasses.replace(requirer.spec, clusters=snapshot.clusters)
            )
            _require(state, as_was, dep)


def _collect(
    requirer: Binding,
    template: ResourceTemplate,
    interp: interpreter.Interpreter,
    templates: _Templates,
    state: _State,
) -> None:
    if not interp.hook_enabled(
        template.api_version, template.kind, interpreter.Operation.INTERPRET_DEPENDENCY
    ):
        _keep_previous(requirer, templates, state)
        return
    try:
        refs = list(interp.get_dependencies(template.body))
    except errors.GitfleetError as error:
        origin = error.origin if isinstance(error, errors.InputError) else template.origin
        state.diagnostics.append(
            diagnostic.error(origin, f"{template.key}: cannot interpret dependencies: {error}")
        )
        _keep_previous(requirer, templates, state)
        return
    own = _ident(requirer)
    _hold_finalizer(state, own)
    attached: list[ResourceKey] = []
    missing: list[str] = []
    for ref in refs:
        found = templates.find(ref)
        if not found:
            missing.append(_describe(ref))
        attached.extend(dep.key for dep in found if _require(state, requirer, dep))
    scripted = interp.scripted(
        template.api_version, template.kind, interpreter.Operation.INTERPRET_DEPENDENCY
    )
    current = state.bindings[own]
    annotations = {
        **(current.metadata.annotations or {}),
        DEPENDENCIES_ANNOTATION: _annotation(refs, scripted),
    }
    state.bindings[own] = dataclasses.replace(
        current,
        metadata=dataclasses.replace(
            current.metadata, annotations=dict(sorted(annotations.items()))
        ),
    )
    state.reports.append(
        detection.Dependencies(
            requirer=detection.BindingRef.of(requirer),
            references=tuple(refs),
            attached=tuple(sorted(set(attached))),
            missing=tuple(missing),
        )
    )


def distribute(
    bindings: Iterable[Binding],
    templates: Iterable[ResourceTemplate],
    interp: interpreter.Interpreter,
    previous: Mapping[ResourceKey, Binding] | None = None,
) -> detection.Distribution:
    """Attach every propagateDeps requirer's dependencies to its clusters.

    `bindings` are scheduled bindings; `templates` the effective templates
    (`Detection.templates`); `previous` the previous render's bindings, whose status an attached
    binding keeps. Pure and deterministic.
    """
    index = _Templates(templates)
    prior = {_ident(b): b for b in (previous or {}).values()}
    state = _State(
        bindings={_ident(b): _without_attachments(b) for b in bindings},
        attachments={},
        reports=[],
        diagnostics=[],
        prior=prior,
        held=_held(prior.values()),
    )
    waiting: dict[Ident, ResourceTemplate] = {}
    for ident in sorted(state.bindings):
        b = state.bindings[ident]
        if b.KIND != work.ResourceBinding.KIND or not b.spec.propagate_deps:
            continue
        r = b.spec.resource
        template = index.by_key.get(ResourceKey(r.api_version, r.kind, r.namespace, r.name))
        if template is not None:
            waiting[ident] = template
    while woken := [
        ident
        for ident in waiting
        if _reconciled(state.bindings[ident], prior.get(ident)) or _required_anew(ident, state)
    ]:
        for ident in woken:
            _collect(state.bindings[ident], waiting.pop(ident), interp, index, state)
    for ident, (dep, requirers) in sorted(state.attachments.items()):
        existing = state.bindings.get(ident)
        if existing is not None and not _binding.same_resource(existing, dep):
            state.diagnostics.append(
                diagnostic.error(
                    dep.origin,
                    f"{dep.key}: binding {ident[1]}/{ident[2]} belongs to another resource; "
                    "the dependency is not propagated",
                )
            )
            continue
        if existing is not None and _owned_by_another(existing, dep):
            state.diagnostics.append(
                diagnostic.error(
                    dep.origin,
                    f"{dep.key}: binding {ident[1]}/{ident[2]} is owned by an earlier "
                    f"{dep.kind} of that name; the dependency is not propagated until that "
                    "binding is gone",
                )
            )
            continue
        wanting = list(requirers.values())
        if existing is None or existing.spec.placement is None:
            existing = _attached(dep, ident[1], wanting, prior.get(ident))
            if (conflict := _conflict_warning(dep, wanting)) is not None:
                state.diagnostics.append(conflict)
        state.bindings[ident] = _attach(existing, wanting, prior.get(ident))
    return detection.Distribution(
        bindings=tuple(
            _binding.with_generation(state.bindings[i], prior.get(i))
            for i in sorted(state.bindings)
        ),
        dependencies=tuple(sorted(state.reports, key=lambda d: d.requirer)),
        diagnostics=tuple(diagnostic.sorted_diagnostics(state.diagnostics)),
    )
