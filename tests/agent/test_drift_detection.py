"""Drift found from field ownership, without any request.

Aspects covered:
- fields gitfleet's apply entry still owns are in sync whatever their value, but for
  `spec.replicas`, which a scale through the subresource changes without taking it on
  Kubernetes 1.20: compared by value always;
- a field another manager took is drift when its value differs, not when it is equal;
- a field gone from the live object is drift;
- keyed list items (`k:{...}`) are matched by key; an item removed by hand is drift;
- an atomic list gitfleet owns is in sync; one another manager took is compared by value;
- set lists (`v:...`);
- a live object without a gitfleet entry is compared by value;
- FieldsV1 trees merge.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gitfleet.agent import drift


def _entry(manager: str, fields: dict[str, Any], operation: str = "Apply") -> dict[str, Any]:
    return {
        "manager": manager,
        "operation": operation,
        "fieldsType": "FieldsV1",
        "fieldsV1": fields,
    }


CONFIG: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "labels": {"tier": "front"}},
    "spec": {
        "replicas": 2,
        "template": {
            "spec": {
                "containers": [{"name": "web", "image": "nginx:1", "args": ["-v"]}],
                "finalizers": ["a"],
            }
        },
    },
}
OWNED: dict[str, Any] = {
    "f:metadata": {"f:labels": {"f:tier": {}}},
    "f:spec": {
        "f:replicas": {},
        "f:template": {
            "f:spec": {
                "f:containers": {
                    'k:{"name":"web"}': {".": {}, "f:name": {}, "f:image": {}, "f:args": {}}
                },
                "f:finalizers": {'v:"a"': {}},
            }
        },
    },
}


def _live(spec_changes: dict[str, Any], entries: list[dict[str, Any]]) -> dict[str, Any]:
    live = copy.deepcopy(CONFIG)
    container = live["spec"]["template"]["spec"]["containers"][0]
    for key, value in spec_changes.items():
        if key == "replicas":
            live["spec"]["replicas"] = value
        elif key == "image":
            container["image"] = value
        elif key == "args":
            container["args"] = value
        elif key == "containers":
            live["spec"]["template"]["spec"]["containers"] = value
        elif key == "labels":
            live["metadata"]["labels"] = value
        elif key == "finalizers":
            live["spec"]["template"]["spec"]["finalizers"] = value
    live["metadata"]["managedFields"] = entries
    return live


def _without(path: tuple[str, ...]) -> dict[str, Any]:
    """OWNED minus one field (another manager took it)."""
    owned = copy.deepcopy(OWNED)
    node = owned
    for key in path[:-1]:
        node = node[key]
    del node[path[-1]]
    return owned


CONTAINER = ("f:spec", "f:template", "f:spec", "f:containers", 'k:{"name":"web"}')


@pytest.mark.parametrize(
    ("changes", "owned", "expected"),
    [
        pytest.param({}, OWNED, [], id="nothing changed"),
        pytest.param({"image": "nginx:2"}, OWNED, [], id="owned field: still gitfleet's"),
        pytest.param({"replicas": 9}, OWNED, ["spec.replicas"], id="owned replicas, scaled"),
        pytest.param(
            {"replicas": 9}, _without(("f:spec", "f:replicas")), ["spec.replicas"], id="taken"
        ),
        pytest.param({}, _without(("f:spec", "f:replicas")), [], id="taken, same value"),
        pytest.param(
            {"labels": {}},
            _without(("f:metadata", "f:labels", "f:tier")),
            ["metadata.labels.tier"],
            id="removed label",
        ),
        pytest.param(
            {"image": "nginx:2"},
            _without((*CONTAINER, "f:image")),
            ["spec.template.spec.containers[web].image"],
            id="keyed item field taken",
        ),
        pytest.param(
            {"containers": [{"name": "sidecar", "image": "x"}]},
            _without(CONTAINER[:-1]),
            ["spec.template.spec.containers"],
            id="keyed list taken",
        ),
        pytest.param({"args": ["-q"]}, OWNED, [], id="atomic list owned"),
        pytest.param(
            {"args": ["-q"]},
            _without((*CONTAINER, "f:args")),
            ["spec.template.spec.containers[web].args"],
            id="atomic list taken",
        ),
        pytest.param(
            {"finalizers": ["b"]},
            _without(("f:spec", "f:template", "f:spec", "f:finalizers")),
            ["spec.template.spec.finalizers"],
            id="set list taken",
        ),
    ],
)
def test_changes(changes: dict[str, Any], owned: dict[str, Any], expected: list[str]) -> None:
    live = _live(changes, [_entry("gitfleet", owned), _entry("kubectl-edit", {}, "Update")])
    assert drift.changes(CONFIG, live) == expected


def test_without_a_gitfleet_entry_values_are_compared() -> None:
    assert drift.changes(CONFIG, _live({}, [])) == []
    assert drift.changes(CONFIG, _live({"replicas": 1}, [])) == ["spec.replicas"]


def test_only_the_apply_entry_of_gitfleet_counts() -> None:
    entries = [_entry("gitfleet", OWNED, "Update"), _entry("other", OWNED)]
    assert drift.owned_fields(_live({}, entries)) is None
    assert drift.owned_fields(_live({}, [_entry("gitfleet", OWNED)])) == OWNED


def test_field_sets_merge() -> None:
    merged = drift.merge_fields({"f:a": {"f:b": {}}}, {"f:a": {"f:c": {}}, "f:d": {}})
    assert merged == {"f:a": {"f:b": {}, "f:c": {}}, "f:d": {}}


def test_a_keyed_item_removed_by_hand_is_drift() -> None:
    config = {
        "spec": {"containers": [{"name": "web", "image": "a"}, {"name": "log", "image": "b"}]}
    }
    web: dict[str, Any] = {'k:{"name":"web"}': {".": {}, "f:name": {}, "f:image": {}}}
    live = {
        "spec": {"containers": [{"name": "web", "image": "a"}]},
        "metadata": {"managedFields": [_entry("gitfleet", {"f:spec": {"f:containers": web}})]},
    }
    assert drift.changes(config, live) == ["spec.containers[log]"]
