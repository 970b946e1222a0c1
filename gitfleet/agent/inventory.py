"""The inventory: what gitfleet applied to a cluster, kept in the cluster itself.

A ConfigMap `gitfleet-inventory` in namespace `gitfleet-system` lists one object per line
(apiVersion, kind, namespace, name and content hash, as JSON), sorted. Pruning works only from
this list: an object gitfleet never applied is never listed, so never deleted, whatever labels
it carries. The inventory is written only when its content changes, so a sync that changes
nothing writes nothing.

An inventory that cannot be read (a line that is not an entry) stops pruning: deleting from a
list that is not understood could delete the wrong objects.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from typing import Any

from gitfleet import errors
from gitfleet.agent import identity, kube, stamp

NAMESPACE = "gitfleet-system"
NAME = "gitfleet-inventory"
DATA_KEY = "objects"
CONFIGMAP = kube.ResourceType("v1", "ConfigMap", "configmaps", namespaced=True)
NAMESPACES = kube.ResourceType("v1", "Namespace", "namespaces", namespaced=False)


class InventoryError(errors.GitfleetError):
    """The inventory ConfigMap holds something that is not an inventory."""


@dataclasses.dataclass(frozen=True, slots=True, order=True)
class Entry:
    ref: identity.ObjectRef
    hash: str

    def encode(self) -> str:
        ref = self.ref
        return json.dumps(
            {
                "apiVersion": ref.api_version,
                "kind": ref.kind,
                "namespace": ref.namespace,
                "name": ref.name,
                "hash": self.hash,
            },
            sort_keys=True,
            separators=(",", ":"),
        )


@dataclasses.dataclass(frozen=True, slots=True)
class Inventory:
    """Entries by object identity."""

    entries: Mapping[identity.ObjectId, Entry]

    @classmethod
    def of(cls, entries: Iterable[Entry]) -> Inventory:
        return cls({identity.object_id(e.ref): e for e in entries})

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, key: object) -> bool:
        return key in self.entries

    def text(self) -> str:
        return "".join(e.encode() + "\n" for e in sorted(self.entries.values()))


EMPTY = Inventory({})


def decode(configmap: Mapping[str, Any]) -> Inventory:
    """The inventory a ConfigMap holds; `InventoryError` if any line is not an entry."""
    text = (configmap.get("data") or {}).get(DATA_KEY, "")
    entries = []
    for number, line in enumerate(str(text).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            ref = identity.ObjectRef(raw["apiVersion"], raw["kind"], raw["namespace"], raw["name"])
            if not all(isinstance(v, str) for v in (*dataclasses.astuple(ref), raw["hash"])):
                raise TypeError("fields must be strings")
        except (ValueError, KeyError, TypeError) as exc:
            raise InventoryError(
                f"ConfigMap {NAMESPACE}/{NAME}: line {number} is not an inventory entry ({exc})"
            ) from exc
        entries.append(Entry(ref, raw["hash"]))
    return Inventory.of(entries)


def configmap(inventory: Inventory, cluster: str) -> dict[str, Any]:
    """The ConfigMap holding `inventory`."""
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": NAME,
            "namespace": NAMESPACE,
            "labels": {stamp.MANAGED_BY_LABEL: stamp.MANAGED_BY},
            "annotations": {stamp.CLUSTER_LABEL: cluster},
        },
        "data": {DATA_KEY: inventory.text()},
    }


def read(client: kube.KubeClient) -> tuple[Inventory, bool]:
    """The cluster's inventory and whether its ConfigMap exists (empty when it does not)."""
    found = client.get(CONFIGMAP, NAMESPACE, NAME)
    return (EMPTY, False) if found is None else (decode(found), True)


def write(client: kube.KubeClient, inventory: Inventory, cluster: str, *, exists: bool) -> None:
    """Store `inventory`; creates the namespace first when the ConfigMap did not exist."""
    if not exists:
        namespace = {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {
                "name": NAMESPACE,
                "labels": {stamp.MANAGED_BY_LABEL: stamp.MANAGED_BY},
            },
        }
        client.apply(NAMESPACES, namespace, manager=stamp.FIELD_MANAGER)
    client.apply(CONFIGMAP, configmap(inventory, cluster), manager=stamp.FIELD_MANAGER)
