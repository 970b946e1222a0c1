"""How the agent names objects: a `ResourceKey` (apiVersion, kind, namespace, name) says where
to send a request; an `ObjectId` (group, kind, namespace, name) says which object it is.

Pruning and the inventory compare `ObjectId`s, never versions: a manifest moving from
`apps/v1beta2` to `apps/v1` is the same object and must not be deleted as a leftover. Two
`ObjectId`s of different groups may still name one object, on a server that serves a kind in
both (an Ingress in `extensions` and `networking.k8s.io`): `prune.namesakes` finds those
pairs, and the applier tells them apart by uid.
"""

from __future__ import annotations

import dataclasses

from gitfleet.model.template import ResourceKey

ObjectRef = ResourceKey


@dataclasses.dataclass(frozen=True, slots=True, order=True)
class ObjectId:
    group: str
    kind: str
    namespace: str
    name: str

    def __str__(self) -> str:
        kind = f"{self.kind}.{self.group}" if self.group else self.kind
        return f"{kind} {self.namespace}/{self.name}" if self.namespace else f"{kind} {self.name}"


def object_id(ref: ResourceKey) -> ObjectId:
    return ObjectId(ref.group, ref.kind, ref.namespace, ref.name)
