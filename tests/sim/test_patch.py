"""The three PATCH formats.

Covers: JSON merge patch (maps merge, null deletes, lists replace); JSON patch (add,
replace, remove, a failing test operation is 422 and changes nothing; one that cannot apply
is the server's generic 422, whatever the reason); strategic merge
patch on the built-in list keys (containers and initContainers by name, env by name, ports
by containerPort, volumes by name, volumeMounts by mountPath), `$patch: delete` of a list
item, finalizers merged as a set; a merged list in the order a real server leaves it (the
patch's items in its order, an item only in the object before the patch item it preceded);
strategic merge patch refused (415) on a custom resource; a patch carrying a stale
resourceVersion is a Conflict; a patch that changes nothing keeps the resourceVersion.
"""

from __future__ import annotations

from typing import Any

import pytest
from simfixture import RunningSim, config_map, failure, status_of

MERGE = "application/merge-patch+json"
JSON = "application/json-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"

POD_SPEC: dict[str, Any] = {
    "initContainers": [{"name": "init", "image": "busybox"}],
    "containers": [
        {
            "name": "app",
            "image": "app:1",
            "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
            "ports": [{"containerPort": 80}, {"containerPort": 443}],
            "volumeMounts": [{"name": "data", "mountPath": "/data"}],
        },
        {"name": "sidecar", "image": "proxy:1"},
    ],
    "volumes": [{"name": "data", "emptyDir": {}}, {"name": "cache", "emptyDir": {}}],
}


@pytest.fixture(name="pod")
def pod_fixture(sim_cluster: RunningSim) -> Any:
    body = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default", "finalizers": ["a.io/x"]},
        "spec": POD_SPEC,
    }
    sim_cluster.resource("v1", "Pod").create(body=body, namespace="default")
    return sim_cluster.resource("v1", "Pod")


def _patch(resource: Any, body: Any, content_type: str) -> Any:
    return resource.patch(name="p", namespace="default", body=body, content_type=content_type)


def test_merge_patch_merges_maps_deletes_nulls_and_replaces_lists(sim_cluster: RunningSim) -> None:
    maps = sim_cluster.resource("v1", "ConfigMap")
    maps.create(body=config_map("p", a="1", b="2"), namespace="default")
    patched = _patch(maps, {"data": {"b": None, "c": "3"}}, MERGE)
    assert patched.data.to_dict() == {"a": "1", "c": "3"}


def test_merge_patch_replaces_containers_whole(pod: Any) -> None:
    patched = _patch(pod, {"spec": {"containers": [{"name": "only", "image": "x"}]}}, MERGE)
    assert [c.name for c in patched.spec.containers] == ["only"]


def test_json_patch_operations(pod: Any) -> None:
    patched = _patch(
        pod,
        [
            {"op": "add", "path": "/metadata/labels", "value": {"tier": "web"}},
            {"op": "replace", "path": "/spec/containers/0/image", "value": "app:2"},
            {"op": "remove", "path": "/spec/containers/1"},
        ],
        JSON,
    )
    assert patched.metadata.labels.tier == "web"
    assert [(c.name, c.image) for c in patched.spec.containers] == [("app", "app:2")]


def test_failing_json_patch_test_changes_nothing(pod: Any) -> None:
    before = pod.get(name="p", namespace="default")
    error = failure(
        lambda: _patch(
            pod,
            [
                {"op": "test", "path": "/spec/containers/0/image", "value": "wrong"},
                {"op": "replace", "path": "/spec/containers/0/image", "value": "app:9"},
            ],
            JSON,
        )
    )
    after = pod.get(name="p", namespace="default")
    assert error.status == 422
    assert after.metadata.resourceVersion == before.metadata.resourceVersion


@pytest.mark.parametrize(
    "operations",
    [
        pytest.param([{"op": "remove", "path": "/metadata/labels/absent"}], id="remove absent"),
        pytest.param([{"op": "test", "path": "/metadata/name", "value": "q"}], id="failed test"),
        pytest.param([{"op": "jump", "path": "/spec"}], id="unknown operation"),
    ],
)
def test_json_patch_that_cannot_apply_is_the_servers_generic_422(
    pod: Any, operations: list[Any]
) -> None:
    """The API server says nothing of why (as kubectl shows: "The request is invalid: the
    server rejected our request due to an error in our request")."""
    status = status_of(failure(lambda: _patch(pod, operations, JSON)))
    assert (status["code"], status["reason"]) == (422, "Invalid")
    assert status["message"] == "the server rejected our request due to an error in our request"
    assert status["details"] == {}


def _container(patched: Any, name: str) -> Any:
    return next(c for c in patched.spec.containers if c.name == name)


def test_strategic_merge_merges_keyed_lists(pod: Any) -> None:
    patched = _patch(
        pod,
        {
            "spec": {
                "initContainers": [{"name": "init", "image": "busybox:2"}],
                "containers": [
                    {
                        "name": "app",
                        "env": [{"name": "B", "value": "two"}, {"name": "C", "value": "3"}],
                        "ports": [{"containerPort": 443, "name": "https"}],
                        "volumeMounts": [{"mountPath": "/data", "readOnly": True}],
                    }
                ],
                "volumes": [{"name": "cache", "emptyDir": {"medium": "Memory"}}],
            }
        },
        STRATEGIC,
    )
    app = _container(patched, "app")
    assert [c.name for c in patched.spec.containers] == ["app", "sidecar"]
    assert patched.spec.initContainers[0].image == "busybox:2"
    assert app.image == "app:1"
    assert [(e.name, e.value) for e in app.env] == [("A", "1"), ("B", "two"), ("C", "3")]
    assert [(p.containerPort, p.name) for p in app.ports] == [(80, None), (443, "https")]
    assert app.volumeMounts[0].readOnly is True
    assert app.volumeMounts[0].name == "data"
    assert [v.name for v in patched.spec.volumes] == ["data", "cache"]
    assert patched.spec.volumes[1].emptyDir.medium == "Memory"


def test_strategic_merge_deletes_an_item(pod: Any) -> None:
    patched = _patch(
        pod, {"spec": {"containers": [{"name": "sidecar", "$patch": "delete"}]}}, STRATEGIC
    )
    assert [c.name for c in patched.spec.containers] == ["app"]


def test_strategic_merge_unions_finalizers(pod: Any) -> None:
    patched = _patch(pod, {"metadata": {"finalizers": ["b.io/y"]}}, STRATEGIC)
    assert patched.metadata.finalizers == ["b.io/y", "a.io/x"], "the patch's first"


@pytest.mark.parametrize(
    ("containers", "order"),
    [
        pytest.param([{"name": "new", "image": "x"}], ["new", "app", "sidecar"], id="a new one"),
        pytest.param(
            [{"name": "sidecar", "image": "x"}, {"name": "app", "image": "x"}],
            ["sidecar", "app"],
            id="the patch's order",
        ),
        pytest.param(
            [{"name": "sidecar", "image": "x"}, {"name": "new", "image": "x"}],
            ["app", "sidecar", "new"],
            id="one only in the object before one it precedes",
        ),
    ],
)
def test_strategic_merge_orders_a_list_as_the_patch_names_it(
    pod: Any, containers: list[dict[str, Any]], order: list[str]
) -> None:
    patched = _patch(pod, {"spec": {"containers": containers}}, STRATEGIC)
    assert [c.name for c in patched.spec.containers] == order


def test_strategic_merge_is_refused_on_custom_resources(
    sim_cluster: RunningSim, widget_crd: Any
) -> None:
    widgets = sim_cluster.resource("example.com/v1", "Widget")
    widgets.create(
        namespace="default",
        body={
            "apiVersion": "example.com/v1",
            "kind": "Widget",
            "metadata": {"name": "p"},
            "spec": {"size": 1},
        },
    )
    error = failure(lambda: _patch(widgets, {"spec": {"size": 2}}, STRATEGIC))
    assert (error.status, status_of(error)["reason"]) == (415, "UnsupportedMediaType")
    assert _patch(widgets, {"spec": {"size": 2}}, MERGE).spec.size == 2


def test_patch_with_stale_resource_version_conflicts(sim_cluster: RunningSim) -> None:
    maps = sim_cluster.resource("v1", "ConfigMap")
    created = maps.create(body=config_map("p", a="1"), namespace="default")
    _patch(maps, {"data": {"a": "2"}}, MERGE)
    stale = {"metadata": {"resourceVersion": created.metadata.resourceVersion}, "data": {"a": "3"}}
    assert failure(lambda: _patch(maps, stale, MERGE)).status == 409


def test_patch_that_changes_nothing_keeps_the_version(sim_cluster: RunningSim) -> None:
    maps = sim_cluster.resource("v1", "ConfigMap")
    created = maps.create(body=config_map("p", a="1"), namespace="default")
    same = _patch(maps, {"data": {"a": "1"}}, MERGE)
    assert same.metadata.resourceVersion == created.metadata.resourceVersion
