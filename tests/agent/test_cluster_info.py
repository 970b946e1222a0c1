"""What a cluster reports about itself (Karmada's cluster status controller).

Aspects covered:
- version, served APIs (sorted, no subresources), node counts and allocatable from the
  nodes, Ready with a transition time that holds while the status holds;
- allocated counts the requests of running pods, allocating those of unscheduled ones;
- a pod's requests: containers summed, init containers as a maximum, overhead added;
- a cluster that does not answer is not Ready, and keeps the rest of its last report, whose
  summaries CompleteResourceSummary says were not collected now;
- CompleteResourceSummary says whether nodes and pods were collected; a cluster without nodes
  is reported as empty (zero nodes, nothing allocatable), not as unknown. (An agent that may
  not list nodes: tests/agent/test_capacity_on_real_servers.py.)
- what each node has available (Karmada getNodeAvailable, getAllocatableModelings: the cases
  of TestGetNodeAvailable keep their numbers): allocatable less the requests of the pods
  bound to it and not finished, for the resources it lists (below zero when they request
  more than it offers); a node without pods as it is;
  nodes from the first one (by name) left no room for a pod on are not reported; equal
  nodes counted once, nothing-available resources left out; a cluster that does not answer
  keeps the nodes of its last report with the rest.
"""

from __future__ import annotations

from typing import Any

from builders import make_deployment, make_object
from simfixture import RunningSim, SimFactory

from gitfleet import sim
from gitfleet.agent import clusterinfo, kube
from gitfleet.interpreter import _quantity as quantity

T1, T2 = "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"


def test_a_healthy_cluster(make_sim_cluster: SimFactory) -> None:
    running = make_sim_cluster(
        "member1", nodes=2, capacity={"cpu": "8", "memory": "32Gi", "pods": "220"}
    )
    client = kube.KubeClient(running.kubeconfig, retry=kube.NO_WAIT)
    try:
        first = clusterinfo.collect(client, None, T1)
        running.objects.put(make_object("v1", "Namespace", "shop"))
        running.objects.put(make_deployment(replicas=2, cpu="500m"))
        running.cluster.settle()
        later = clusterinfo.collect(client, first, T2)
    finally:
        client.close()
    assert first.kubernetes_version == "v1.30.0"
    versions = [a.group_version for a in first.api_enablements]
    assert versions == sorted(versions) and "apps/v1" in versions
    apps = next(a for a in first.api_enablements if a.group_version == "apps/v1")
    assert "deployments" in [r.name for r in apps.resources]
    assert all("/" not in r.name for a in first.api_enablements for r in a.resources)
    assert first.node_summary is not None
    assert (first.node_summary.total_num, first.node_summary.ready_num) == (2, 2)
    assert first.resource_summary is not None
    allocatable = first.resource_summary.allocatable or {}
    assert {k: quantity.parse(v).value() for k, v in allocatable.items()} == {
        "cpu": 8,
        "memory": 32 * 2**30,
        "pods": 220,
    }
    assert [(c.type, c.status, c.last_transition_time) for c in first.conditions] == [
        ("Ready", "True", T1),
        (clusterinfo.SUMMARY_CONDITION, "True", T1),
    ]
    assert later.conditions[0].last_transition_time == T1
    assert later.resource_summary is not None
    assert later.resource_summary.allocated == {"cpu": "1", "pods": "2"}


def test_pod_requests() -> None:
    pods: list[dict[str, Any]] = [
        {
            "spec": {
                "nodeName": "n1",
                "containers": [
                    {"resources": {"requests": {"cpu": "250m", "memory": "1Gi"}}},
                    {"resources": {"requests": {"cpu": "250m", "example.com/gpu": "1"}}},
                ],
                "initContainers": [{"resources": {"requests": {"memory": "4Gi"}}}],
                "overhead": {"cpu": "100m"},
            },
            "status": {"phase": "Running"},
        },
        {"spec": {"nodeName": "n1", "containers": []}, "status": {"phase": "Succeeded"}},
        {"spec": {"containers": [{"resources": {"requests": {"cpu": "1"}}}]}},
    ]
    summary = clusterinfo.resource_summary([], pods)
    assert summary.allocated == {
        "cpu": "600m",
        "example.com/gpu": "1",
        "memory": "4Gi",
        "pods": "1",
    }
    assert summary.allocating == {"cpu": "1", "pods": "1"}
    assert summary.allocatable is None


def _node(name: str, **allocatable: str) -> dict[str, Any]:
    return {"metadata": {"name": name}, "status": {"allocatable": allocatable}}


def _pod(node: str, phase: str = "Running", **requests: str) -> dict[str, Any]:
    return {
        "spec": {"nodeName": node, "containers": [{"resources": {"requests": requests}}]},
        "status": {"phase": phase},
    }


def _available(nodes: list[dict[str, Any]], pods: list[dict[str, Any]]) -> list[Any]:
    found = clusterinfo.resource_summary(nodes, pods).node_available
    return [(g.count, g.resources) for g in found or ()]


def test_what_each_node_has_available() -> None:
    nodes = [
        _node("n3", cpu="4", memory="16Gi", pods="110"),
        _node("n1", cpu="4", memory="16Gi", pods="110"),
        _node("n2", cpu="4", memory="16Gi", pods="110"),
        _node("n4", cpu="2", memory="1Gi"),
    ]
    pods = [
        _pod("n1", cpu="1500u", memory="1Gi", **{"example.com/gpu": "1"}),
        _pod("n1", cpu="500m"),
        _pod("n2", "Succeeded", cpu="4"),
        _pod("n3", memory="17Gi"),
        _pod("elsewhere", cpu="1"),
        {"spec": {"containers": [{"resources": {"requests": {"cpu": "2"}}}]}},
    ]
    assert _available(nodes, pods) == [
        (1, {"cpu": "2", "memory": "1Gi"}),
        (1, {"cpu": "3498m", "memory": "15Gi", "pods": "108"}),
        (1, {"cpu": "4", "memory": "-1Gi", "pods": "109"}),
        (1, {"cpu": "4", "memory": "16Gi", "pods": "110"}),
    ]


def test_a_node_without_room_for_a_pod_ends_the_count() -> None:
    """TestGetNodeAvailable: 10 pods allowed, 9 bound leave one; 11 bound leave none."""
    nodes = [_node("a", pods="10"), _node("b", pods="10"), _node("c", pods="10")]
    nine = [_pod("a") for _ in range(9)]
    assert _available(nodes, nine) == [(1, {"pods": "1"}), (2, {"pods": "10"})]
    eleven = [_pod("b") for _ in range(11)]
    assert _available(nodes, eleven) == [(1, {"pods": "10"})]
    unlisted = [_node("a", cpu="2")]
    assert _available(unlisted, [_pod("a", cpu="1")]) == [], "a node listing no pods has no room"
    assert _available(unlisted, []) == [(1, {"cpu": "2"})], "unless no pod is bound to it"


def test_an_unreachable_cluster_keeps_its_last_report(sim_cluster: RunningSim) -> None:
    client = kube.KubeClient(sim_cluster.kubeconfig, retry=kube.NO_WAIT)
    try:
        first = clusterinfo.collect(client, None, T1)
        sim_cluster.cluster.set_fault(sim.Fault.UNREACHABLE)
        away = clusterinfo.collect(client, first, T2)
    finally:
        client.close()
    condition = away.conditions[0]
    assert (condition.status, condition.reason) == ("False", "ClusterNotReachable")
    assert condition.last_transition_time == T2
    assert away.kubernetes_version == first.kubernetes_version
    assert away.resource_summary == first.resource_summary
    assert first.resource_summary is not None
    assert [g.count for g in first.resource_summary.node_available or ()] == [3]
    kept = [(c.type, c.status, c.reason) for c in away.conditions[1:]]
    assert kept == [(clusterinfo.SUMMARY_CONDITION, "False", clusterinfo.SUMMARY_UNAVAILABLE)]


def test_a_cluster_without_nodes_is_empty(make_sim_cluster: SimFactory) -> None:
    running = make_sim_cluster("member1", nodes=0)
    client = kube.KubeClient(running.kubeconfig, retry=kube.NO_WAIT)
    try:
        reported = clusterinfo.collect(client, None, T1)
    finally:
        client.close()
    assert reported.node_summary is not None
    assert (reported.node_summary.total_num, reported.node_summary.ready_num) == (0, 0)
    assert reported.resource_summary is not None
    assert reported.resource_summary.allocatable is None
    collected = [c for c in reported.conditions if c.type == clusterinfo.SUMMARY_CONDITION]
    assert [c.status for c in collected] == ["True"]
