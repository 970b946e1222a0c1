"""The scale subresource, as `kubectl scale` and the typed client use it.

Covers: discovery lists `<plural>/scale` as autoscaling/v1 Scale for Deployments,
StatefulSets, ReplicaSets and a CRD that declares it; reading a Deployment's Scale (wanted and
current replicas, the selector as text); a merge patch, a JSON patch and a replace change the
wanted replicas only, and the workload follows; the writer owns spec.replicas through the
scale subresource, but on a 1.20 server managedFields do not change; a stale resourceVersion
is 409, negative replicas 422, an apply patch 415; a custom resource scales at its CRD's
paths; kinds without it answer 404; the scale of a missing object is a 404 naming the
subresource.
"""

from __future__ import annotations

from typing import Any

import pytest
from simfixture import (
    GADGETS_CRD,
    RunningSim,
    SimFactory,
    config_map,
    deployment,
    failure,
    gadget,
    raw,
)

SCALE = "/apis/apps/v1/namespaces/default/deployments/web/scale"


@pytest.fixture(name="web")
def web_fixture(sim_cluster: RunningSim) -> RunningSim:
    sim_cluster.objects.put(deployment("web", replicas=2))
    return sim_cluster


def _patch(sim: RunningSim, path: str, content_type: str, body: Any) -> tuple[int, Any]:
    return raw(sim, "PATCH", path, body=body, headers={"Content-Type": content_type})


def test_discovery_lists_scale_subresources(sim_cluster: RunningSim) -> None:
    sim_cluster.objects.put(GADGETS_CRD)
    _, apps = raw(sim_cluster, "GET", "/apis/apps/v1")
    _, custom = raw(sim_cluster, "GET", "/apis/example.com/v1")
    scales = {
        r["name"]: (r["group"], r["version"], r["kind"], r["verbs"])
        for r in apps["resources"] + custom["resources"]
        if r["name"].endswith("/scale")
    }
    subresource = ("autoscaling", "v1", "Scale", ["get", "patch", "update"])
    assert scales == {
        "deployments/scale": subresource,
        "replicasets/scale": subresource,
        "statefulsets/scale": subresource,
        "gadgets/scale": subresource,
    }


def test_read_scale_of_a_deployment(web: RunningSim) -> None:
    from kubernetes import client

    scale = client.AppsV1Api(web.api_client).read_namespaced_deployment_scale("web", "default")
    live = web.objects.get("apps/v1", "Deployment", "web", "default")
    assert live is not None
    assert (scale.spec.replicas, scale.status.replicas) == (2, 2)
    assert scale.status.selector == "app=web"
    assert scale.metadata.resource_version == live["metadata"]["resourceVersion"]


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        pytest.param("application/merge-patch+json", {"spec": {"replicas": 4}}, id="merge"),
        pytest.param(
            "application/strategic-merge-patch+json", {"spec": {"replicas": 4}}, id="strategic"
        ),
        pytest.param(
            "application/json-patch+json",
            [{"op": "replace", "path": "/spec/replicas", "value": 4}],
            id="json patch",
        ),
    ],
)
def test_patch_changes_wanted_replicas(web: RunningSim, content_type: str, body: Any) -> None:
    before = web.objects.get("apps/v1", "Deployment", "web", "default")
    code, scale = _patch(web, SCALE, content_type, body)
    web.cluster.settle()
    live = web.objects.get("apps/v1", "Deployment", "web", "default")
    assert before is not None and live is not None
    assert (code, scale["kind"], scale["spec"]["replicas"]) == (200, "Scale", 4)
    assert live["spec"] == {**before["spec"], "replicas": 4}
    assert live["status"]["readyReplicas"] == 4


def test_replace_with_the_typed_client(web: RunningSim) -> None:
    from kubernetes import client

    apps = client.AppsV1Api(web.api_client)
    scale = apps.read_namespaced_deployment_scale("web", "default")
    scale.spec.replicas = 0
    replaced = apps.replace_namespaced_deployment_scale("web", "default", scale)
    live = web.objects.get("apps/v1", "Deployment", "web", "default")
    assert live is not None
    assert (replaced.spec.replicas, live["spec"]["replicas"]) == (0, 0)
    entries = [(e["manager"], e.get("subresource")) for e in live["metadata"]["managedFields"]]
    assert ("OpenAPI-Generator", "scale") in entries


def test_a_1_20_server_records_no_owner_for_a_scale(make_sim_cluster: SimFactory) -> None:
    sim = make_sim_cluster(kubernetes_version="v1.20.2")
    path = SCALE.removesuffix("/scale")
    applied = _patch(
        sim,
        path + "?fieldManager=first",
        "application/apply-patch+yaml",
        deployment("web", replicas=2),
    )
    assert applied[0] == 201
    status, _ = _patch(sim, SCALE, "application/merge-patch+json", {"spec": {"replicas": 5}})
    live = sim.objects.get("apps/v1", "Deployment", "web", "default")
    assert live is not None
    assert (status, live["spec"]["replicas"]) == (200, 5)
    assert live["metadata"]["managedFields"] == applied[1]["metadata"]["managedFields"]


def test_stale_scale_is_a_conflict(web: RunningSim) -> None:
    from kubernetes import client

    apps = client.AppsV1Api(web.api_client)
    scale = apps.read_namespaced_deployment_scale("web", "default")
    web.objects.put(deployment("web", replicas=3))
    scale.spec.replicas = 5
    error = failure(lambda: apps.replace_namespaced_deployment_scale("web", "default", scale))
    assert error.status == 409


@pytest.mark.parametrize(
    ("content_type", "body", "code"),
    [
        pytest.param(
            "application/merge-patch+json", {"spec": {"replicas": -1}}, 422, id="negative"
        ),
        pytest.param(
            "application/merge-patch+json", {"spec": {"replicas": "two"}}, 422, id="not a number"
        ),
        pytest.param("application/apply-patch+yaml", {"spec": {"replicas": 1}}, 415, id="apply"),
    ],
)
def test_bad_scale_writes_are_refused(
    web: RunningSim, content_type: str, body: Any, code: int
) -> None:
    status, answer = _patch(web, SCALE, content_type, body)
    live = web.objects.get("apps/v1", "Deployment", "web", "default")
    assert live is not None
    assert (status, answer["code"]) == (code, code)
    assert live["spec"]["replicas"] == 2


def test_custom_resource_scales_at_its_crd_paths(sim_cluster: RunningSim) -> None:
    sim_cluster.objects.put(GADGETS_CRD)
    sim_cluster.objects.put(gadget("g1", status={"count": 1, "selector": "app=g1"}))
    path = "/apis/example.com/v1/namespaces/default/gadgets/g1/scale"
    _, before = raw(sim_cluster, "GET", path)
    code, after = _patch(
        sim_cluster, path, "application/merge-patch+json", {"spec": {"replicas": 3}}
    )
    live = sim_cluster.objects.get("example.com/v1", "Gadget", "g1", "default")
    assert live is not None
    assert (before["spec"], before["status"]) == (
        {"replicas": 1},
        {"replicas": 1, "selector": "app=g1"},
    )
    assert (code, after["spec"]["replicas"], live["spec"]["count"]) == (200, 3, 3)


def test_kinds_without_scale_answer_404(sim_cluster: RunningSim) -> None:
    sim_cluster.objects.put(config_map("c"))
    status, _ = raw(sim_cluster, "GET", "/api/v1/namespaces/default/configmaps/c/scale")
    assert status == 404


def test_scale_of_a_missing_object_names_the_subresource(sim_cluster: RunningSim) -> None:
    status, body = raw(sim_cluster, "GET", "/apis/apps/v1/namespaces/default/deployments/no/scale")
    assert (status, body["message"]) == (404, 'deployments/scale.apps "no" not found')
    assert body["details"] == {"name": "no", "group": "apps", "kind": "deployments/scale"}
