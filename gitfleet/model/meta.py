"""Kubernetes meta and core types that Karmada's APIs embed (metav1, corev1)."""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, Self, TypeVar, dataclass_transform

from gitfleet import errors
from gitfleet.model import _codec, labelsyntax, rules
from gitfleet.model._codec import field, internal
from gitfleet.model.origin import UNKNOWN, Origin

_T = TypeVar("_T")


@dataclass_transform(frozen_default=True, kw_only_default=True)
def frozen(cls: type[_T]) -> type[_T]:
    """`@dataclass(frozen=True, slots=True, kw_only=True)`, spelled so that type checkers see
    the generated keyword-only constructor."""
    return dataclasses.dataclass(frozen=True, slots=True, kw_only=True)(cls)


Quantity = str | int | float
"""A Kubernetes resource quantity as written (`"500m"`, `2`, `"1Gi"`)."""


@frozen
class ObjectMeta:
    """Standard object metadata."""

    name: str = field("", doc="Name of the object, unique within its namespace.")
    generate_name: str = field("", doc="Prefix for a server-generated name; gitfleet needs `name`.")
    namespace: str = field("", doc="Namespace of a namespaced object.")
    labels: dict[str, str] | None = field(
        None, doc="Labels; policies and cluster affinities select by them."
    )
    annotations: dict[str, str] | None = field(None, doc="Annotations: non-identifying data.")
    uid: str = field("", doc="Used by the scheduler's tie-breaking, as Karmada does.")
    resource_version: str = field("", doc="Set by an API server; ignored in a source repository.")
    generation: int = field(0, doc="Set by an API server; ignored in a source repository.")
    creation_timestamp: str | None = field(
        None, doc="Set by an API server; ignored in a source repository."
    )
    deletion_timestamp: str | None = field(
        None, doc="Set by an API server; ignored in a source repository."
    )
    deletion_grace_period_seconds: int | None = field(
        None, doc="Set by an API server; ignored in a source repository."
    )
    self_link: str = field("", doc="Deprecated; set by old API servers.")
    finalizers: tuple[str, ...] = field((), doc="Finalizers, as Kubernetes keeps them.")
    owner_references: tuple[Any, ...] = field((), doc="Owners, as Kubernetes keeps them.")
    managed_fields: tuple[Any, ...] = field(
        (), doc="Server-side apply bookkeeping; ignored in a source repository."
    )


@frozen
class LabelSelectorRequirement:
    """One expression of a label selector."""

    key: str = field(doc="The label key the selector applies to.")
    operator: str = field(doc="In, NotIn, Exists or DoesNotExist.")
    values: tuple[str, ...] = field(
        (), doc="Values for In and NotIn (required there); empty for Exists and DoesNotExist."
    )


@frozen
class LabelSelector:
    """A Kubernetes label selector; all of its parts must match."""

    match_labels: dict[str, str] | None = field(
        None, doc="Labels that must all be present with these values."
    )
    match_expressions: tuple[LabelSelectorRequirement, ...] = field(
        (), doc="Expressions that must all hold."
    )
    convertible: bool = internal(True)
    """Whether Kubernetes' conversion takes it (`labelsyntax.converts`); a selector of a policy
    that it does not take matches nothing. Set once here: selectors are matched per template
    and per cluster."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "convertible", labelsyntax.converts(self))


@frozen
class NodeSelectorRequirement:
    """One expression over a key; Karmada's field selectors use it for provider, region, zone."""

    key: str = field(doc="The field or label the expression tests.")
    operator: str = field(doc="In, NotIn, Exists, DoesNotExist, Gt or Lt.")
    values: tuple[str, ...] = field((), doc="Values to compare with.")


@frozen
class NodeSelectorTerm:
    """Expressions that must all match."""

    match_expressions: tuple[NodeSelectorRequirement, ...] = field(())
    match_fields: tuple[NodeSelectorRequirement, ...] = field(())


@frozen
class NodeSelector:
    """Terms of which at least one must match."""

    node_selector_terms: tuple[NodeSelectorTerm, ...] | None = field(
        None,
        doc="The terms; none (Go's nil) when the affinity names none, which a script sees as "
        "no field where an empty list is an empty table.",
    )


@frozen
class Toleration:
    """A corev1 toleration, matched against a Cluster's taints."""

    key: str = field("", doc="Taint key to tolerate; empty with Exists tolerates every taint.")
    operator: str = field("", doc="Exists or Equal (the default).")
    value: str = field("", doc="Taint value to match with Equal.")
    effect: str = field("", doc="NoSchedule, PreferNoSchedule or NoExecute; empty is all.")
    toleration_seconds: int | None = field(None, doc="How long a NoExecute taint is tolerated.")


@frozen
class Taint:
    """A corev1 taint on a Cluster."""

    key: str = field(doc="Taint key.")
    value: str = field("", doc="Taint value.")
    effect: str = field(
        doc="NoSchedule or NoExecute (Karmada refuses PreferNoSchedule on a Cluster).",
        rule=rules.Rule(one_of=("NoSchedule", "NoExecute")),
    )
    time_added: str | None = field(None, doc="When a NoExecute taint was added.")


@frozen
class Condition:
    """A metav1 condition."""

    type: str = field(doc="Condition type, such as Ready.")
    status: str = field(doc="True, False or Unknown.")
    reason: str = field("", doc="Machine-readable reason for the last transition.")
    message: str = field("", doc="Human-readable details.")
    last_transition_time: str | None = field(None, doc="When the status last changed.")
    observed_generation: int = field(0, doc="The generation the condition was computed for.")


Shared = _codec.Shared
"""A memo of decoded values that documents parsed together share (`ApiObject.from_doc`)."""


class ApiObject:
    """What every top-level kind shares: its apiVersion/kind, parsing and its origin."""

    __slots__ = ()
    API_VERSION: ClassVar[str]
    KIND: ClassVar[str]
    NAMESPACED: ClassVar[bool] = False
    metadata: ObjectMeta
    origin: Origin

    @classmethod
    def from_doc(
        cls, doc: dict[str, Any], origin: Origin = UNKNOWN, *, shared: Shared | None = None
    ) -> Self:
        """Parse one document of this kind; `SchemaError` names the first bad field. `shared`:
        a memo of the documents parsed together (see `_codec.decode`)."""
        api_version, kind = doc.get("apiVersion"), doc.get("kind")
        if api_version != cls.API_VERSION or kind != cls.KIND:
            raise errors.SchemaError(
                origin, f"expected {cls.API_VERSION} {cls.KIND}, got {api_version} {kind}"
            )
        obj: Self = _codec.decode(
            cls, doc, origin, ignore=frozenset({"apiVersion", "kind"}), shared=shared
        )
        return dataclasses.replace(obj, origin=origin)  # type: ignore[type-var]

    def to_doc(self) -> dict[str, Any]:
        """The document, as the user would write it (omitempty)."""
        return {"apiVersion": self.API_VERSION, "kind": self.KIND, **_codec.encode(self)}

    @property
    def name(self) -> str:
        return self.metadata.name

    @property
    def namespace(self) -> str:
        return self.metadata.namespace


def origin_field() -> Any:
    """The `origin` field every top-level kind has; not part of the document."""
    return internal(UNKNOWN)


def to_doc(value: object) -> Any:
    """The JSON document of any model value (a placement, a status, ...), omitempty as
    `ApiObject.to_doc` writes whole objects."""
    return _codec.encode(value)
