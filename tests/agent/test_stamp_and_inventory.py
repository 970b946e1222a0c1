"""What an applied object carries, and the inventory's format.

Aspects covered:
- stamping adds the labels, keeps a source path the render wrote (none for a generated
  namespace, which has no source file), sets the source commit,
  drops server-owned fields and status, and never changes its input;
- the content hash ignores the volatile annotations and follows every other change;
- the inventory round-trips through its ConfigMap, sorted, one JSON line per object, and
  compares objects without their version; a line that is not an entry is an error.
"""

from __future__ import annotations

import copy

import pytest
from builders import make_deployment, make_object

from gitfleet.agent import identity, inventory, stamp


def _stamped(doc: dict[str, object], commit: str = "s1") -> dict[str, object]:
    return stamp.stamp(doc, cluster="m1", source_path="works/m1/x.yaml", source_commit=commit)


def test_stamping() -> None:
    doc = make_deployment(annotations={stamp.SOURCE_PATH: "apps/web.yaml"})
    doc["metadata"].update(resourceVersion="7", uid="u", managedFields=[{}], generation=2)
    doc["status"] = {"replicas": 1}
    before = copy.deepcopy(doc)
    out = _stamped(doc)
    assert doc == before
    metadata = out["metadata"]
    assert isinstance(metadata, dict)
    assert metadata["labels"] == {stamp.MANAGED_BY_LABEL: "gitfleet", stamp.CLUSTER_LABEL: "m1"}
    assert metadata["annotations"][stamp.SOURCE_PATH] == "apps/web.yaml"
    assert metadata["annotations"][stamp.SOURCE_COMMIT] == "s1"
    assert "status" not in out
    assert not {"resourceVersion", "uid", "managedFields", "generation"} & set(metadata)


def test_the_rendered_path_is_the_source_path_when_render_wrote_none() -> None:
    assert stamp.annotations_of(_stamped(make_deployment()))[stamp.SOURCE_PATH] == "works/m1/x.yaml"


def test_a_generated_namespace_gets_no_source_path() -> None:
    generated = make_object(
        "v1", "Namespace", "team-b", annotations={stamp.GENERATED_NAMESPACE: "true"}
    )
    assert stamp.SOURCE_PATH not in stamp.annotations_of(_stamped(generated))


def test_the_hash_ignores_the_source_commit_only() -> None:
    first = stamp.annotations_of(_stamped(make_deployment(), "s1"))[stamp.CONTENT_HASH]
    again = stamp.annotations_of(_stamped(make_deployment(), "s2"))[stamp.CONTENT_HASH]
    scaled = stamp.annotations_of(_stamped(make_deployment(replicas=4)))[stamp.CONTENT_HASH]
    noted = stamp.annotations_of(_stamped(make_deployment(annotations={"a": "b"})))
    assert first == again
    assert len({first, scaled, noted[stamp.CONTENT_HASH]}) == 3


def _entry(api_version: str, kind: str, namespace: str, name: str) -> inventory.Entry:
    return inventory.Entry(identity.ObjectRef(api_version, kind, namespace, name), "h")


def test_the_inventory_round_trips() -> None:
    held = inventory.Inventory.of(
        [_entry("v1", "ConfigMap", "shop", "b"), _entry("apps/v1", "Deployment", "shop", "a")]
    )
    configmap = inventory.configmap(held, "m1")
    assert configmap["metadata"]["namespace"] == "gitfleet-system"
    text = configmap["data"]["objects"]
    assert text.splitlines()[0].startswith('{"apiVersion":"apps/v1"')
    assert inventory.decode(configmap) == held


def test_inventory_entries_are_compared_without_version() -> None:
    held = inventory.Inventory.of([_entry("apps/v1beta2", "Deployment", "shop", "a")])
    moved = identity.object_id(identity.ObjectRef("apps/v1", "Deployment", "shop", "a"))
    assert moved in held


@pytest.mark.parametrize(
    "line",
    [
        pytest.param("not json", id="not json"),
        pytest.param('{"apiVersion": "v1"}', id="missing fields"),
        pytest.param(
            '{"apiVersion":"v1","kind":"ConfigMap","namespace":"","name":1,"hash":"h"}',
            id="not a string",
        ),
    ],
)
def test_a_bad_inventory_line_is_an_error(line: str) -> None:
    with pytest.raises(inventory.InventoryError, match="line 1 is not an inventory entry"):
        inventory.decode({"data": {"objects": line + "\n"}})
