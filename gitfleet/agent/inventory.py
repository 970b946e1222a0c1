"""The inventory: what gitfleet applied to a cluster, kept in the cluster itself.

A ConfigMap `gitfleet-inventory` in namespace `gitfleet-system` lists one object per line
(apiVersion, kind, namespace, name and content hash, as JSON), sorted: as text under
`data.objects` (readable with kubectl) while the list weighs up to `TEXT_MAX`, else gzipped under
`binaryData["objects.gz"]`. A ConfigMap holds at most 1 MiB of values and a line takes about 200
bytes (up to 400 with long names), so text alone would stop a cluster at a few thousand objects:
the sync could record no inventory and so would apply nothing. Gzipped, a line takes about a fifth
of that (its hash does not compress). Pruning works only from
this list: an object gitfleet never applied is never listed, so never deleted, whatever labels
it carries. The inventory is written only when its content changes, so a sync that changes
nothing writes nothing.

An inventory that cannot be read (a line that is not an entry, packed data that does not unpack
or unpacks to more than `UNPACKED_MAX`) stops the sync: deleting from a list that is not
understood could delete the wrong objects.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import zlib
from collections.abc import Iterable, Mapping
from typing import Any

from gitfleet import errors
from gitfleet.agent import identity, kube, stamp

NAMESPACE = "gitfleet-system"
NAME = "gitfleet-inventory"
DATA_KEY = "objects"
PACKED_KEY = "objects.gz"
TEXT_MAX = 512 * 1024
"""The most the list weighs as text (half of what a ConfigMap holds); past it, it is gzipped."""
UNPACKED_MAX = 64 * 1024 * 1024
"""The most packed data may unpack to (a few hundred thousand entries): more is no inventory
the agent wrote, and unpacking it would only take memory."""
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


def _unpack(packed: Any) -> str:
    """The text of a gzipped list, as `binaryData` holds it (base64)."""
    where = f"ConfigMap {NAMESPACE}/{NAME}: binaryData {PACKED_KEY}"
    try:
        raw = base64.b64decode(str(packed), validate=True)
        unzip = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        data = unzip.decompress(raw, UNPACKED_MAX + 1)
        if len(data) > UNPACKED_MAX:
            raise InventoryError(f"{where}: unpacks to more than {UNPACKED_MAX} bytes")
        if not unzip.eof:
            raise ValueError("the gzip data is cut short")
        return data.decode("utf-8")
    except (binascii.Error, zlib.error, ValueError) as exc:
        raise InventoryError(f"{where} does not unpack ({exc})") from exc


def _pack(text: str) -> str:
    """`text` gzipped (no time stamp: the same list packs to the same bytes), in base64."""
    zipper = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    raw = zipper.compress(text.encode("utf-8")) + zipper.flush()
    return base64.b64encode(raw).decode("ascii")


def decode(configmap: Mapping[str, Any]) -> Inventory:
    """The inventory a ConfigMap holds; `InventoryError` if any line is not an entry."""
    packed = (configmap.get("binaryData") or {}).get(PACKED_KEY)
    if packed is not None:
        text = _unpack(packed)
    else:
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
    """The ConfigMap holding `inventory`: as text, or packed when the text is over `TEXT_MAX`
    (applied whole, the other key is then dropped by server-side apply)."""
    text = inventory.text()
    held: dict[str, Any] = (
        {"data": {DATA_KEY: text}}
        if len(text.encode("utf-8")) <= TEXT_MAX
        else {"binaryData": {PACKED_KEY: _pack(text)}}
    )
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": NAME,
            "namespace": NAMESPACE,
            "labels": {stamp.MANAGED_BY_LABEL: stamp.MANAGED_BY},
            "annotations": {stamp.CLUSTER_LABEL: cluster},
        },
        **held,
    }


def read(client: kube.KubeClient, cluster: str | None = None) -> tuple[Inventory, bool]:
    """The cluster's inventory and whether its ConfigMap exists (empty when it does not).
    With `cluster`, `InventoryError` when the inventory was written for another cluster: the
    kubeconfig reaches another member's API server (a file copied or mixed up), and syncing
    both there would have two agents undo each other's work and report one cluster as the
    other."""
    found = client.get(CONFIGMAP, NAMESPACE, NAME)
    if found is None:
        return EMPTY, False
    owner = ((found.get("metadata") or {}).get("annotations") or {}).get(stamp.CLUSTER_LABEL)
    if cluster is not None and isinstance(owner, str) and owner and owner != cluster:
        raise InventoryError(
            f"this API server runs cluster {owner!r}, not {cluster!r}: its ConfigMap "
            f"{NAMESPACE}/{NAME} was written for {owner!r}, so the kubeconfig for {cluster!r} "
            f"reaches another member; nothing is applied. If {cluster!r} is {owner!r} renamed, "
            f"annotate the ConfigMap {stamp.CLUSTER_LABEL}={cluster} (kubectl annotate "
            "--overwrite) to hand it over"
        )
    return decode(found), True


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
