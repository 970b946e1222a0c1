"""Resource templates: any document that is not a Karmada API object, kept raw.

Templates are never mutated; stages that change one (revise replicas, override) deep-copy it.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypedDict

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


@dataclasses.dataclass(frozen=True, slots=True)
class ResourceTemplate:
    """A plain Kubernetes object from the source repository, with where it was written."""

    body: RawObject
    origin: Origin
    key: ResourceKey = dataclasses.field(init=False, repr=False, compare=False)
    """(apiVersion, kind, namespace, name), kept: every stage looks templates up by it."""

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
        return self.metadata.get("labels") or {}

    @property
    def uid(self) -> str:
        return self.metadata.get("uid", "")
