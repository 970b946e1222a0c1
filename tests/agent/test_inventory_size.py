"""An inventory of many objects fits its ConfigMap, on a simulated and on a real API server.

A ConfigMap holds at most 1 MiB of values, and an inventory line takes about 200 bytes (400 with
long names): as text alone, the inventory of a cluster with a few thousand objects could not be
written, and a sync that cannot record its inventory applies nothing.

Aspects covered:
- up to `TEXT_MAX` the list is text under `data.objects`; a larger one is gzipped under
  `binaryData` and reads back as the same inventory;
- the inventory of 8,000 objects with long names (about 3 MiB as text) is written to the
  cluster and read back whole; once it is small again it is text again, and the packed key is
  gone (server-side apply drops the field gitfleet no longer applies);
- packed data that does not unpack, is cut short, or unpacks to more than `UNPACKED_MAX` is
  an error, as a line that is not an entry is.
"""

from __future__ import annotations

import base64
import gzip
from collections.abc import Iterator
from pathlib import Path

import pytest
import realk8s_session

from gitfleet.agent import identity, inventory, kube

LONG = "x" * 230


def _many(count: int) -> inventory.Inventory:
    namespace = "n" * 63
    return inventory.Inventory.of(
        inventory.Entry(
            identity.ObjectRef("v1", "ConfigMap", namespace, f"c{i:05d}-{LONG}"), f"{i:064x}"
        )
        for i in range(count)
    )


@pytest.fixture(name="member", params=realk8s_session.SERVER_KINDS)
def member_fixture(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[kube.KubeClient]:
    """An administrator's client of a simulated member, or of a server of the tier (whose
    inventory is deleted afterwards: the tier's servers are shared, and an inventory written
    for another cluster name makes agents refuse them)."""
    kubeconfig = realk8s_session.member_kubeconfig(request, tmp_path, realk8s_session.CLUSTERS[-1])
    client = kube.KubeClient(kubeconfig, retry=kube.NO_WAIT)
    try:
        yield client
    finally:
        client.delete(inventory.CONFIGMAP, inventory.NAMESPACE, inventory.NAME)
        client.close()


def test_a_small_inventory_is_text_and_a_large_one_packed() -> None:
    small, large = _many(10), _many(3000)
    assert len(large.text()) > 1024 * 1024
    as_text = inventory.configmap(small, "m1")
    assert as_text["data"][inventory.DATA_KEY] == small.text()
    assert "binaryData" not in as_text
    packed = inventory.configmap(large, "m1")
    assert "data" not in packed
    assert len(packed["binaryData"][inventory.PACKED_KEY]) < inventory.TEXT_MAX
    assert inventory.decode(packed) == large
    assert inventory.configmap(large, "m1") == packed  # the same list, the same bytes


def test_a_large_inventory_is_stored_and_read_back(member: kube.KubeClient) -> None:
    large = _many(8000)
    assert len(large.text()) > 3 * 1024 * 1024
    inventory.write(member, large, "m1", exists=False)
    assert inventory.read(member) == (large, True)
    small = _many(3)
    inventory.write(member, small, "m1", exists=True)
    assert inventory.read(member) == (small, True)
    stored = member.get(inventory.CONFIGMAP, inventory.NAMESPACE, inventory.NAME)
    assert stored is not None and "binaryData" not in stored


def _packed(data: bytes) -> dict[str, object]:
    return {"binaryData": {inventory.PACKED_KEY: base64.b64encode(data).decode()}}


@pytest.mark.parametrize(
    ("data", "why"),
    [
        pytest.param(b"not gzip", "does not unpack", id="not gzip"),
        pytest.param(gzip.compress(b"x" * 1000)[:-20], "does not unpack", id="cut short"),
        pytest.param(
            gzip.compress(b"\n" * (inventory.UNPACKED_MAX + 1)), "unpacks to more", id="too much"
        ),
    ],
)
def test_packed_data_that_is_no_inventory_is_an_error(data: bytes, why: str) -> None:
    with pytest.raises(inventory.InventoryError, match=why):
        inventory.decode(_packed(data))
