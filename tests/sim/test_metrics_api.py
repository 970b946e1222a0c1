"""The resource metrics API the simulator serves, as a metrics-server would.

Covers: discovery lists metrics.k8s.io/v1beta1 PodMetrics and NodeMetrics (get, list) and the
APIService `v1beta1.metrics.k8s.io` is Available; a pod nobody set a usage for has no metrics;
a usage set by labels reaches pods created later (a scale-up), a usage set for one pod wins;
lists answer label selectors; NodeMetrics add up their pods; an unknown pod is 404; a usage
that is no quantity is refused when set.
"""

from __future__ import annotations

import pytest
from simfixture import RunningSim, deployment, raw

PODS = "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods"


def _usage(sim: RunningSim, query: str = "") -> dict[str, str]:
    code, found = raw(sim, "GET", PODS + query)
    assert code == 200 and found["kind"] == "PodMetricsList"
    return {
        item["metadata"]["name"]: item["containers"][0]["usage"].get("cpu", "")
        for item in found["items"]
    }


def test_discovery_announces_the_metrics_api(sim_cluster: RunningSim) -> None:
    _, listed = raw(sim_cluster, "GET", "/apis/metrics.k8s.io/v1beta1")
    kinds = {r["name"]: (r["kind"], r["namespaced"], r["verbs"]) for r in listed["resources"]}
    assert kinds == {
        "pods": ("PodMetrics", True, ["get", "list"]),
        "nodes": ("NodeMetrics", False, ["get", "list"]),
    }
    service = sim_cluster.resource("apiregistration.k8s.io/v1", "APIService").get(
        name="v1beta1.metrics.k8s.io"
    )
    (condition,) = service.status.conditions
    assert (condition.type, condition.status) == ("Available", "True")
    assert service.spec.group == "metrics.k8s.io"


def test_usage_set_by_labels_and_by_pod(sim_cluster: RunningSim) -> None:
    sim_cluster.objects.put(deployment("web", replicas=2))
    sim_cluster.cluster.settle()
    assert _usage(sim_cluster) == {}, "nobody set a usage yet"
    sim_cluster.cluster.set_pod_usage("default", {"cpu": "250m"}, labels={"app": "web"})
    found = _usage(sim_cluster)
    assert sorted(found.values()) == ["250m", "250m"]
    first = sorted(found)[0]
    sim_cluster.cluster.set_pod_usage("default", {"cpu": "1"}, pod=first)
    assert _usage(sim_cluster)[first] == "1"
    web = sim_cluster.objects.get("apps/v1", "Deployment", "web", "default")
    assert web is not None
    web["spec"]["replicas"] = 3
    sim_cluster.objects.put(web)
    sim_cluster.cluster.settle()
    assert sorted(_usage(sim_cluster, "?labelSelector=app%3Dweb").values()) == [
        "1", "250m", "250m",
    ]  # fmt: skip
    assert _usage(sim_cluster, "?labelSelector=app%3Dother") == {}


def test_one_pod_node_metrics_and_errors(sim_cluster: RunningSim) -> None:
    sim_cluster.objects.put(deployment("web", replicas=1))
    sim_cluster.cluster.settle()
    sim_cluster.cluster.set_pod_usage("default", {"cpu": "300m"}, labels={"app": "web"})
    (name,) = _usage(sim_cluster)
    code, one = raw(sim_cluster, "GET", f"{PODS}/{name}")
    assert code == 200 and one["kind"] == "PodMetrics" and one["window"] == "30s"
    code, _ = raw(sim_cluster, "GET", f"{PODS}/nothere")
    assert code == 404
    _, nodes = raw(sim_cluster, "GET", "/apis/metrics.k8s.io/v1beta1/nodes")
    assert sorted(n["usage"].get("cpu", "0") for n in nodes["items"])[-1] == "300m"
    with pytest.raises(ValueError, match="quantities must match"):
        sim_cluster.cluster.set_pod_usage("default", {"cpu": "lots"}, labels={"app": "web"})
