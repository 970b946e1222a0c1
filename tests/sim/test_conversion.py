"""Built-in kinds served in two shapes: the HorizontalPodAutoscaler is stored as
autoscaling/v2 and served as autoscaling/v1 too, converted both ways as a real server does.

Covers: `kubectl autoscale` (which writes autoscaling/v1) creates one; a v1 object without
targetCPUUtilizationPercentage reads back 80 in v1 and as v2's CPU Utilization metric; v1
shows the replica counts of its status even when none are set; a v1 patch changes the CPU
target and keeps what v1 cannot show (other metrics, behavior).
"""

from __future__ import annotations

from typing import Any

from simfixture import RunKubectl, RunningSim, deployment, needs_kubectl, raw

V1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers"
V2 = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"
MERGE = {"Content-Type": "application/merge-patch+json"}
TARGET = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}


def _cpu(utilization: int) -> dict[str, Any]:
    target = {"type": "Utilization", "averageUtilization": utilization}
    return {"type": "Resource", "resource": {"name": "cpu", "target": target}}


@needs_kubectl
def test_kubectl_autoscale_writes_autoscaling_v1(
    sim_cluster: RunningSim, run_kubectl: RunKubectl
) -> None:
    sim_cluster.objects.put(deployment("web"))
    made = run_kubectl("autoscale", "deployment", "web", "--min", "1", "--max", "3")
    _, v1 = raw(sim_cluster, "GET", f"{V1}/web")
    _, v2 = raw(sim_cluster, "GET", f"{V2}/web")
    assert (made.code, made.out) == (0, "horizontalpodautoscaler.autoscaling/web autoscaled\n")
    assert v1["apiVersion"] == "autoscaling/v1"
    assert v1["spec"] == {
        "scaleTargetRef": {"kind": "Deployment", "name": "web", "apiVersion": "apps/v1"},
        "minReplicas": 1,
        "maxReplicas": 3,
        "targetCPUUtilizationPercentage": 80,
    }
    assert v1["status"] == {"currentReplicas": 0, "desiredReplicas": 0}
    assert v2["spec"]["metrics"] == [_cpu(80)]


def test_a_v1_patch_keeps_what_v1_cannot_show(sim_cluster: RunningSim) -> None:
    memory = {
        "type": "Resource",
        "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "1Gi"}},
    }
    behavior = {"scaleDown": {"stabilizationWindowSeconds": 60}}
    body = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web"},
        "spec": {
            "scaleTargetRef": TARGET,
            "maxReplicas": 4,
            "metrics": [_cpu(50), memory],
            "behavior": behavior,
        },
    }
    raw(sim_cluster, "POST", V2, body=body)
    status, patched = raw(
        sim_cluster,
        "PATCH",
        f"{V1}/web",
        body={"spec": {"targetCPUUtilizationPercentage": 70}},
        headers=MERGE,
    )
    _, v2 = raw(sim_cluster, "GET", f"{V2}/web")
    assert status == 200
    assert patched["spec"]["targetCPUUtilizationPercentage"] == 70
    assert "metrics" not in patched["spec"]
    assert v2["spec"]["metrics"] == [_cpu(70), memory]
    assert v2["spec"]["behavior"] == behavior
