"""What the detector decided, for the scheduler (the bindings) and for people (`gitfleet explain`).

Every template of the source gets one `Decision`: the policy that claims it (or why none does),
every policy that could have and why it lost, and the binding that results. The values here are
plain frozen data, sorted, so two detections of the same input compare and print identically.
"""

from __future__ import annotations

import dataclasses
import enum

from gitfleet.model import config, diagnostic, policy, selectors, work
from gitfleet.model.origin import UNKNOWN, Origin
from gitfleet.model.template import ResourceKey, ResourceTemplate

Binding = work.ResourceBinding | work.ClusterResourceBinding
PropagationPolicyKind = policy.PropagationPolicy | policy.ClusterPropagationPolicy


@dataclasses.dataclass(frozen=True, slots=True, order=True)
class PolicyRef:
    """A (Cluster)PropagationPolicy by kind, namespace and name, with where it is written."""

    kind: str
    namespace: str
    name: str
    origin: Origin = dataclasses.field(default=UNKNOWN, compare=False)

    @classmethod
    def of(cls, obj: PropagationPolicyKind) -> PolicyRef:
        return cls(obj.KIND, obj.namespace, obj.name, obj.origin)

    def __str__(self) -> str:
        where = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind} {where}{self.name}"

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "namespace": self.namespace,
            "name": self.name,
            "origin": str(self.origin),
        }


@dataclasses.dataclass(frozen=True, slots=True, order=True)
class BindingRef:
    """A binding by kind (ResourceBinding or ClusterResourceBinding), namespace and name."""

    kind: str
    namespace: str
    name: str

    @classmethod
    def of(cls, binding: Binding) -> BindingRef:
        return cls(binding.KIND, binding.namespace, binding.name)

    def __str__(self) -> str:
        where = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind} {where}{self.name}"


class Verdict(enum.StrEnum):
    """How one candidate policy fared for one template."""

    WON = "won"
    LOST = "lost"
    NO_MATCH = "no-match"
    IGNORED = "ignored"


@dataclasses.dataclass(frozen=True, slots=True)
class Candidate:
    """One policy considered for a template: its priorities and why it won or lost."""

    policy: PolicyRef
    explicit_priority: int
    implicit_priority: selectors.ImplicitPriority
    verdict: Verdict
    reason: str

    def to_json(self) -> dict[str, object]:
        return {
            "policy": self.policy.to_json(),
            "explicitPriority": self.explicit_priority,
            "implicitPriority": self.implicit_priority.name.lower().replace("_", "-"),
            "verdict": str(self.verdict),
            "reason": self.reason,
        }


class Outcome(enum.StrEnum):
    """What happened to a template's binding."""

    APPLIED = "applied"
    """The binding was built (or refreshed) from the claiming policy."""
    LAZY = "lazy"
    """Kept unchanged: the claiming policy activates lazily and the template did not change."""
    ORPHANED = "orphaned"
    """No policy claims the template any more; the previous binding stays, unclaimed."""
    WAITING = "waiting"
    """The claiming policy's dependentOverrides do not all exist; nothing is applied yet."""
    FAILED = "failed"
    """The binding could not be built (see diagnostics); the previous one stays."""
    UNMATCHED = "unmatched"
    """No policy selects the template: it is not propagated."""
    SKIPPED = "skipped"
    """The detector never propagates this template (reserved group or namespace, ...)."""
    UNCHANGED = "unchanged"
    """Nothing the previous binding was made from changed: it is kept, policies not matched."""


@dataclasses.dataclass(frozen=True, slots=True)
class Decision:
    """Which policy claims one template, why, and the resulting binding (if any)."""

    key: ResourceKey
    origin: Origin
    outcome: Outcome
    message: str
    claim: PolicyRef | None = None
    winner: PolicyRef | None = None
    candidates: tuple[Candidate, ...] = ()
    binding: Binding | None = None

    @classmethod
    def unchanged(cls, template: ResourceTemplate, binding: Binding) -> Decision:
        return cls(
            key=template.key,
            origin=template.origin,
            outcome=Outcome.UNCHANGED,
            message="nothing it was made from changed since the previous render: binding kept",
            binding=binding,
        )

    def to_json(self) -> dict[str, object]:
        return {
            "resource": self.key.to_json(),
            "origin": str(self.origin),
            "outcome": str(self.outcome),
            "message": self.message,
            "claim": self.claim.to_json() if self.claim else None,
            "policy": self.winner.to_json() if self.winner else None,
            "candidates": [c.to_json() for c in self.candidates],
            "binding": str(BindingRef.of(self.binding)) if self.binding else None,
        }


@dataclasses.dataclass(frozen=True, slots=True)
class Seen:
    """A template as a render saw it, where no binding built from it then records it (no
    policy selected it, its binding was kept as it was, or none could be built): its digest,
    and the Lazy policy that claimed it without building its binding.

    Karmada's detector tells a change of a template by its user, which refreshes the binding,
    from a change of its policies, which a Lazy policy does not pass on until the next one. A
    render sees only states, so it compares the template with what the previous render saw:
    the template its fresh binding was built from, or this record. render.yaml lists the
    records under `seen`; the claim lives here because Karmada writes it on the template, and
    gitfleet, which never writes to the source, has no binding to keep it on."""

    key: ResourceKey
    digest: str
    claim: PolicyRef | None = None

    def to_json(self) -> dict[str, object]:
        found: dict[str, object] = {"resource": self.key.to_json(), "digest": self.digest}
        if self.claim is not None:
            found["claimedBy"] = {
                "kind": self.claim.kind,
                "namespace": self.claim.namespace,
                "name": self.claim.name,
            }
        return found

    @classmethod
    def from_json(cls, item: object) -> Seen | None:
        """An entry of render.yaml's `seen` (None: not one)."""
        if not isinstance(item, dict):
            return None
        key, digest, claim = (
            ResourceKey.from_json(item.get("resource")),
            item.get("digest"),
            item.get("claimedBy"),
        )
        if key is None or not isinstance(digest, str):
            return None
        ref = None
        if isinstance(claim, dict):
            kind, namespace, name = (claim.get(f) for f in ("kind", "namespace", "name"))
            if isinstance(kind, str) and isinstance(namespace, str) and isinstance(name, str):
                ref = PolicyRef(kind, namespace, name)
        return cls(key, digest, ref)


@dataclasses.dataclass(frozen=True, slots=True)
class Detection:
    """The detector's result: bindings for the scheduler, decisions for `explain`.

    `templates` are the source's templates with their effective namespace (defaulted or cleared
    as the API server would), which is what every later stage should read; `auto_namespaces`
    are the Namespaces Karmada's namespace controller sends to every cluster without a policy,
    `held_namespaces` those it leaves as they are on the clusters, labelled to skip it.
    """

    bindings: tuple[Binding, ...]
    decisions: tuple[Decision, ...]
    templates: tuple[ResourceTemplate, ...]
    auto_namespaces: tuple[ResourceKey, ...] = ()
    held_namespaces: tuple[ResourceKey, ...] = ()
    diagnostics: tuple[diagnostic.Diagnostic, ...] = ()
    seen: tuple[Seen, ...] = ()
    """What the next render needs to know of the templates no fresh binding records."""

    @property
    def unmatched(self) -> tuple[Decision, ...]:
        """Templates that no policy selects (whether or not an old binding stays)."""
        return tuple(
            d for d in self.decisions if d.outcome in (Outcome.UNMATCHED, Outcome.ORPHANED)
        )

    def decision(self, key: ResourceKey) -> Decision | None:
        for d in self.decisions:
            if d.key == key:
                return d
        return None

    def template(self, key: ResourceKey) -> ResourceTemplate | None:
        for t in self.templates:
            if t.key == key:
                return t
        return None


@dataclasses.dataclass(frozen=True, slots=True)
class Dependencies:
    """One requirer's dependencies: what the interpreter named, what was attached to the
    requirer's clusters, and what the source does not contain."""

    requirer: BindingRef
    references: tuple[config.DependentObjectReference, ...]
    attached: tuple[ResourceKey, ...]
    missing: tuple[str, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class Distribution:
    """The dependencies distributor's result: every binding, attached ones included."""

    bindings: tuple[Binding, ...]
    dependencies: tuple[Dependencies, ...] = ()
    diagnostics: tuple[diagnostic.Diagnostic, ...] = ()
