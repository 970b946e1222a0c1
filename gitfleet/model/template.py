"""Resource templates: any document that is not a Karmada API object, kept raw.

Templates are never mutated; stages that change one (revise replicas, override) deep-copy it.
Whatever they change, the object stays the same object: `identity_change` says how a changed
copy is another one (its apiVersion, kind, namespace, name or generateName differ), which
overrides and interpreter scripts may never do (the rendered path, the agent's check of it,
status and prune all go by the template's identity).
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Generic, TypedDict, TypeVar, cast

from gitfleet.model.origin import Origin


class RawMeta(TypedDict, total=False):
    name: str
    namespace: str
    labels: dict[str, str]
    annotations: dict[str, str]
    uid: str


class RawObject(TypedDict, total=False):
    apiVersion: str
    kind: str
    metadata: RawMeta
    spec: Any
    status: Any


@dataclasses.dataclass(frozen=True, slots=True, order=True)
class ResourceKey:
    """Identity of a template: (apiVersion, kind, namespace, name); sorts deterministically."""

    api_version: str
    kind: str
    namespace: str
    name: str

    @property
    def group(self) -> str:
        return self.api_version.rpartition("/")[0] if "/" in self.api_version else ""

    def __str__(self) -> str:
        where = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind}/{where}{self.name}"

    def to_json(self) -> dict[str, str]:
        return {
            "apiVersion": self.api_version,
            "kind": self.kind,
            "namespace": self.namespace,
            "name": self.name,
        }

    @classmethod
    def from_json(cls, item: Any) -> ResourceKey | None:
        """The key `to_json` wrote (None: not one)."""
        if not isinstance(item, dict):
            return None
        found = [item.get(f) for f in ("apiVersion", "kind", "namespace", "name")]
        if not all(isinstance(f, str) for f in found):
            return None
        return cls(*(str(f) for f in found))


@dataclasses.dataclass(frozen=True, slots=True, weakref_slot=True)
class ResourceTemplate:
    """A plain Kubernetes object from the source repository, with where it was written."""

    body: RawObject
    origin: Origin
    key: ResourceKey = dataclasses.field(init=False, repr=False, compare=False)
    """(apiVersion, kind, namespace, name), kept: every stage looks templates up by it."""
    written_api_version: str = dataclasses.field(default="", repr=False, compare=False)
    """The apiVersion as the source writes it, when the template was converted to another
    version of its group (`model.preferred`); "" when it is in the one written."""

    def __post_init__(self) -> None:
        meta = self.body.get("metadata") or {}
        key = ResourceKey(
            self.body.get("apiVersion", ""),
            self.body.get("kind", ""),
            meta.get("namespace", ""),
            meta.get("name", ""),
        )
        object.__setattr__(self, "key", key)

    @property
    def api_version(self) -> str:
        return self.body.get("apiVersion", "")

    @property
    def kind(self) -> str:
        return self.body.get("kind", "")

    @property
    def metadata(self) -> RawMeta:
        return self.body.get("metadata") or {}

    @property
    def name(self) -> str:
        return self.metadata.get("name", "")

    @property
    def namespace(self) -> str:
        return self.metadata.get("namespace", "")

    @property
    def labels(self) -> dict[str, str]:
        """The labels as Karmada's selectors read them (unstructured `GetLabels`): none when
        `metadata.labels` is not a map of strings, which an override can make it."""
        labels = self.metadata.get("labels")
        if not isinstance(labels, dict) or not all(isinstance(v, str) for v in labels.values()):
            return {}
        return labels

    @property
    def uid(self) -> str:
        return self.metadata.get("uid", "")


def priority_classes(templates: Iterable[ResourceTemplate]) -> dict[str, int]:
    """The value of every `scheduling.k8s.io` PriorityClass among `templates`, by name: what a
    policy's `schedulePriority` (KubePriorityClass) looks up. A class whose `value` is no
    integer counts as none."""
    found = {}
    for t in templates:
        value = t.body.get("value")
        if (
            t.key.kind == "PriorityClass"
            and t.key.group == "scheduling.k8s.io"
            and isinstance(value, int)
            and not isinstance(value, bool)
        ):
            found[t.name] = value
    return found


T = TypeVar("T")


class _Held(weakref.ref[ResourceTemplate]):
    """A template as a memo holds it: not alive, and under the key its entry has."""

    __slots__ = ("key",)
    key: int


class PerTemplate(Generic[T]):
    """What a function of a template alone gives, remembered while the template object lives:
    the source loader hands out the same template objects for unchanged files (and keeps the
    last loads' ones, `source._cache`), so a long-running reconciler computes it once per file
    content, and forgets it with the last load that had the file."""

    def __init__(self, make: Callable[[ResourceTemplate], T]) -> None:
        self._make = make
        self._found: dict[int, tuple[_Held, T]] = {}

    def __call__(self, template: ResourceTemplate) -> T:
        key = id(template)
        found = self._found.get(key)
        if found is not None and found[0]() is template:
            return found[1]
        value = self._make(template)
        held = _Held(template, self._gone)
        held.key = key
        self._found[key] = (held, value)
        return value

    def _gone(self, held: weakref.ref[ResourceTemplate]) -> None:
        key = cast(_Held, held).key
        found = self._found.get(key)
        if found is not None and found[0] is held:
            del self._found[key]


IDENTITY_FIELDS: tuple[tuple[str, ...], ...] = (
    ("apiVersion",),
    ("kind",),
    ("metadata", "namespace"),
    ("metadata", "name"),
    ("metadata", "generateName"),
)
"""The fields that say which object a manifest is."""


def _field(doc: Any, keys: tuple[str, ...]) -> Any:
    for key in keys:
        doc = doc.get(key) if isinstance(doc, Mapping) else None
    return "" if doc is None else doc


def identity_of(doc: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of `doc`'s identity fields alone, to compare a changed `doc` with later."""
    found: dict[str, Any] = {}
    for keys in IDENTITY_FIELDS:
        value = _field(doc, keys)
        if value != "":
            *parents, last = keys
            holder = found
            for key in parents:
                holder = holder.setdefault(key, {})
            holder[last] = value
    return found


def identity_change(before: Mapping[str, Any], after: Any) -> str | None:
    """How `after` stops being the object `before` is (`"kind 'ConfigMap' became 'Secret'"`),
    None when it is the same object. An absent field and an empty one are the same."""
    for keys in IDENTITY_FIELDS:
        old, new = _field(before, keys), _field(after, keys)
        if old != new:
            return f"{'.'.join(keys)} {old!r} became {new!r}"
    return None


def identity_fields_at(pointer: str) -> tuple[str, ...]:
    """The identity fields (dotted) that a JSON pointer names, holds or reaches into: ("kind",)
    for `/kind`, the metadata ones for `/metadata`, all of them for the root `""`."""
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]
    return tuple(
        ".".join(keys)
        for keys in IDENTITY_FIELDS
        if list(keys[: len(tokens)]) == tokens[: len(keys)]
    )
