"""What an agent measures of a FederatedHPA's target (`agent.podmetrics`), against a simulated
cluster serving the resource metrics API.

Aspects covered:
- a workload without the render's annotation, or of a kind that has no pods of its own, is not
  measured;
- an annotated Deployment's pods: phase, readiness and its time, start time, requests summed
  over containers (limits standing in for a missing request), usage from PodMetrics in
  thousandths, sample time and window; pods without metrics have no usage;
- selectors with expressions; a workload without a selector says why it is not measured.
"""

from __future__ import annotations

import copy
from typing import Any

from simfixture import RunningSim, deployment

from gitfleet import autoscaling
from gitfleet.agent import kube, podmetrics


def _web(sim: RunningSim, replicas: int = 2) -> dict[str, Any]:
    body = deployment("web", replicas=replicas)
    body["metadata"]["annotations"] = {autoscaling.TARGET_ANNOTATION: "default/web"}
    containers = body["spec"]["template"]["spec"]["containers"]
    containers.append({"name": "side", "image": "busybox", "resources": {"limits": {"cpu": "50m"}}})
    sim.objects.put(body)
    sim.cluster.settle()
    live = sim.objects.get("apps/v1", "Deployment", "web", "default")
    assert live is not None
    return live


def test_only_annotated_workloads_are_measured(
    sim_cluster: RunningSim, client: kube.KubeClient
) -> None:
    live = _web(sim_cluster)
    plain = copy.deepcopy(live)
    plain["metadata"]["annotations"] = {}
    assert podmetrics.measure(client, plain) is None
    service = {"kind": "Service", "metadata": live["metadata"], "spec": {}}
    assert podmetrics.measure(client, service) is None


def test_pods_requests_and_usage(sim_cluster: RunningSim, client: kube.KubeClient) -> None:
    live = _web(sim_cluster)
    found = podmetrics.measure(client, live)
    assert found is not None and "problem" not in found
    assert [p.get("usage") for p in found["pods"]] == [None, None], "no usage set yet"
    sim_cluster.cluster.set_pod_usage("default", {"cpu": "300m"}, labels={"app": "web"})
    found = podmetrics.measure(client, live)
    assert found is not None
    first = found["pods"][0]
    assert first["phase"] == "Running" and first["ready"] is True
    assert first["requests"] == {"cpu": 150, "memory": None}, "limits stand in; side has no memory"
    assert first["usage"] == {"cpu": 300}
    assert first["window"] == 30.0 and first["measured"] and first["started"]
    workload = autoscaling.from_report("m1", found, {"spec": {"replicas": 2}})
    assert workload is not None and len(workload.pods) == 2


def test_selectors(sim_cluster: RunningSim, client: kube.KubeClient) -> None:
    live = _web(sim_cluster)
    sim_cluster.cluster.set_pod_usage("default", {"cpu": "100m"}, labels={"app": "web"})
    expressed = copy.deepcopy(live)
    expressed["spec"]["selector"] = {
        "matchExpressions": [{"key": "app", "operator": "In", "values": ["web", "api"]}]
    }
    found = podmetrics.measure(client, expressed)
    assert found is not None and len(found["pods"]) == 2
    del expressed["spec"]["selector"]
    assert podmetrics.measure(client, expressed) == {
        "pods": [],
        "problem": "the workload has no pod selector",
    }
