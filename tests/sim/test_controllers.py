"""The simulated controllers: what a member cluster does with workloads on its own.

Covers: nodes with the configured allocatable capacity (per node, or a total split exactly);
a Deployment's ReplicaSet (named after the template's hash, controlled by the Deployment) and
its pods (controlled by the ReplicaSet, labelled, with the template's requests, bound to
nodes) and its
ready status (replicas, readyReplicas, updatedReplicas, availableReplicas,
observedGeneration, Available/Progressing); scaling down; a template change replaces the
pods; StatefulSet ordinal pods; a DaemonSet pod per node; a Job that completes, selecting its
pods by its uid (the labels prefixed too from 1.27); pods that
do not fit stay Pending with PodScheduled False/Unschedulable (its transition time kept
across attempts, its message following the room left) and the workload unready, and are
bound once a node has room; a pod delay, waited for
with `settle` or seen through a watch;
LoadBalancer Services get an ingress address; claims get Bound (Services' endpoints:
test_endpoints.py).
"""

from __future__ import annotations

from typing import Any

import pytest
from simfixture import RunningSim, claim, deployment, service


def _pods(sim: RunningSim, namespace: str = "default") -> list[dict[str, Any]]:
    return [
        pod
        for pod in sim.objects.list("v1", "Pod", namespace)
        if pod["metadata"].get("ownerReferences")
    ]


def test_nodes_have_configured_allocatable(make_sim_cluster: Any) -> None:
    sim = make_sim_cluster(nodes=2, node_allocatable={"cpu": "8", "memory": "32Gi", "pods": "50"})
    nodes = sim.objects.list("v1", "Node")
    assert [n["metadata"]["name"] for n in nodes] == ["member1-node-1", "member1-node-2"]
    assert nodes[0]["status"]["allocatable"] == {"cpu": "8", "memory": "32Gi", "pods": "50"}
    assert {c["type"]: c["status"] for c in nodes[0]["status"]["conditions"]}["Ready"] == "True"


def test_total_capacity_is_split_exactly(make_sim_cluster: Any) -> None:
    sim = make_sim_cluster(nodes=3, capacity={"cpu": "10", "memory": "1Gi", "pods": "100"})
    shares = [node["status"]["allocatable"] for node in sim.objects.list("v1", "Node")]
    assert shares == [
        {"cpu": "3334m", "memory": "357913942", "pods": "34"},
        {"cpu": "3333m", "memory": "357913941", "pods": "33"},
        {"cpu": "3333m", "memory": "357913941", "pods": "33"},
    ]


def test_deployment_gets_ready_pods(sim_cluster: RunningSim) -> None:
    created = sim_cluster.resource("apps/v1", "Deployment").create(
        body=deployment(replicas=3, cpu="250m"), namespace="default"
    )
    status = sim_cluster.objects.get("apps/v1", "Deployment", "web", "default")["status"]
    pods = _pods(sim_cluster)
    conditions = {c["type"]: (c["status"], c["reason"]) for c in status["conditions"]}
    assert {
        k: status[k]
        for k in (
            "replicas",
            "readyReplicas",
            "updatedReplicas",
            "availableReplicas",
            "observedGeneration",
        )
    } == {
        "replicas": 3,
        "readyReplicas": 3,
        "updatedReplicas": 3,
        "availableReplicas": 3,
        "observedGeneration": 1,
    }
    assert conditions == {
        "Available": ("True", "MinimumReplicasAvailable"),
        "Progressing": ("True", "NewReplicaSetAvailable"),
    }
    (replica_set,) = sim_cluster.objects.list("apps/v1", "ReplicaSet", "default")
    rs_meta = replica_set["metadata"]
    assert rs_meta["ownerReferences"][0]["uid"] == created.metadata.uid
    assert rs_meta["name"] == f"web-{rs_meta['labels']['pod-template-hash']}"
    assert replica_set["spec"]["replicas"] == 3
    assert len(pods) == 3
    for pod in pods:
        assert pod["metadata"]["ownerReferences"][0]["uid"] == rs_meta["uid"]
        assert pod["metadata"]["name"].startswith(f"{rs_meta['name']}-")
        assert (
            pod["metadata"]["labels"]["pod-template-hash"] == rs_meta["labels"]["pod-template-hash"]
        )
        assert pod["metadata"]["labels"]["app"] == "web"
        assert pod["spec"]["nodeName"].startswith("member1-node-")
        assert pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "250m"
        assert pod["status"]["phase"] == "Running"


def test_scaling_down_deletes_pods(sim_cluster: RunningSim) -> None:
    deployments = sim_cluster.resource("apps/v1", "Deployment")
    deployments.create(body=deployment(replicas=3), namespace="default")
    deployments.patch(
        name="web",
        namespace="default",
        body={"spec": {"replicas": 1}},
        content_type="application/merge-patch+json",
    )
    status = sim_cluster.objects.get("apps/v1", "Deployment", "web", "default")["status"]
    assert len(_pods(sim_cluster)) == 1
    assert (status["replicas"], status["readyReplicas"]) == (1, 1)


def test_template_change_replaces_pods(sim_cluster: RunningSim) -> None:
    deployments = sim_cluster.resource("apps/v1", "Deployment")
    deployments.create(body=deployment(replicas=2), namespace="default")
    before = {p["metadata"]["name"] for p in _pods(sim_cluster)}
    deployments.server_side_apply(
        body=deployment(replicas=2, image="nginx:2"), field_manager="test", force_conflicts=True
    )
    after = _pods(sim_cluster)
    status = sim_cluster.objects.get("apps/v1", "Deployment", "web", "default")["status"]
    assert before.isdisjoint(p["metadata"]["name"] for p in after)
    assert {p["spec"]["containers"][0]["image"] for p in after} == {"nginx:2"}
    assert (status["observedGeneration"], status["updatedReplicas"]) == (2, 2)


def _workload(kind: str, api_version: str = "apps/v1", **spec: Any) -> dict[str, Any]:
    body = deployment()
    body.update(apiVersion=api_version, kind=kind)
    body["spec"] = {**body["spec"], **spec}
    body["spec"].pop("replicas")
    if "replicas" in spec:
        body["spec"]["replicas"] = spec["replicas"]
    return body


def test_statefulset_pods_are_numbered(sim_cluster: RunningSim) -> None:
    sim_cluster.objects.put(_workload("StatefulSet", replicas=2, serviceName="web"))
    status = sim_cluster.objects.get("apps/v1", "StatefulSet", "web", "default")["status"]
    assert sorted(p["metadata"]["name"] for p in _pods(sim_cluster)) == ["web-0", "web-1"]
    assert (status["replicas"], status["readyReplicas"]) == (2, 2)


def test_daemonset_runs_a_pod_per_node(make_sim_cluster: Any) -> None:
    sim = make_sim_cluster(nodes=4)
    sim.objects.put(_workload("DaemonSet"))
    status = sim.objects.get("apps/v1", "DaemonSet", "web", "default")["status"]
    assert sorted(p["spec"]["nodeName"] for p in _pods(sim)) == [
        f"member1-node-{n}" for n in range(1, 5)
    ]
    assert (status["desiredNumberScheduled"], status["numberReady"]) == (4, 4)


def test_job_completes(sim_cluster: RunningSim) -> None:
    job = _workload("Job", api_version="batch/v1", completions=2, parallelism=1)
    del job["spec"]["selector"]
    sim_cluster.objects.put(job)
    status = sim_cluster.objects.get("batch/v1", "Job", "web", "default")["status"]
    conditions = {c["type"]: c["status"] for c in status["conditions"]}
    assert status["succeeded"] == 2
    assert "active" not in status
    assert status["completionTime"]
    assert conditions["Complete"] == "True"


@pytest.mark.parametrize(
    ("version", "selected_by", "labels"),
    [
        pytest.param(
            "v1.30.0",
            "batch.kubernetes.io/controller-uid",
            {
                "batch.kubernetes.io/controller-uid",
                "batch.kubernetes.io/job-name",
                "controller-uid",
                "job-name",
            },
            id="1.30",
        ),
        pytest.param("v1.20.2", "controller-uid", {"controller-uid", "job-name"}, id="1.20"),
    ],
)
def test_a_job_selects_its_pods_by_its_uid(
    make_sim_cluster: Any, version: str, selected_by: str, labels: set[str]
) -> None:
    sim = make_sim_cluster(kubernetes_version=version)
    job = _workload("Job", api_version="batch/v1")
    del job["spec"]["selector"]
    job["metadata"].pop("labels", None)
    uid = sim.objects.put(job)["metadata"]["uid"]
    stored = sim.objects.get("batch/v1", "Job", "web", "default")
    template_labels = stored["spec"]["template"]["metadata"]["labels"]
    assert stored["spec"]["selector"] == {"matchLabels": {selected_by: uid}}
    assert set(template_labels) == labels | {"app"}
    assert stored["metadata"]["labels"] == template_labels
    assert all(template_labels.items() <= p["metadata"]["labels"].items() for p in _pods(sim))


def test_pods_that_do_not_fit_stay_pending(make_sim_cluster: Any) -> None:
    sim = make_sim_cluster(nodes=1, node_allocatable={"cpu": "1", "memory": "1Gi", "pods": "10"})
    sim.objects.put(deployment(replicas=3, cpu="400m"))
    status = sim.objects.get("apps/v1", "Deployment", "web", "default")["status"]
    pending = [p for p in _pods(sim) if p["status"]["phase"] == "Pending"]
    assert (status["replicas"], status["readyReplicas"]) == (3, 2)
    assert {c["type"]: c["status"] for c in status["conditions"]}["Available"] == "False"
    assert len(pending) == 1
    (waiting,) = pending[0]["status"]["conditions"]
    assert (waiting["type"], waiting["status"]) == ("PodScheduled", "False")
    assert waiting["reason"] == "Unschedulable"
    assert "Insufficient cpu" in waiting["message"]
    assert waiting["lastTransitionTime"]
    sim.objects.put(deployment("other", replicas=1, cpu="400m"))
    name = pending[0]["metadata"]["name"]
    (again,) = sim.objects.get("v1", "Pod", name, "default")["status"]["conditions"]
    assert again == waiting, "another failed attempt keeps the condition and its time"


def test_freed_capacity_schedules_pending_pods(make_sim_cluster: Any) -> None:
    sim = make_sim_cluster(nodes=1, node_allocatable={"cpu": "1", "memory": "1Gi", "pods": "10"})
    sim.objects.put(deployment("big", replicas=1, cpu="800m"))
    sim.objects.put(deployment("small", replicas=1, cpu="500m"))
    assert (
        sim.objects.get("apps/v1", "Deployment", "small", "default")["status"].get("readyReplicas")
        is None
    )
    sim.objects.delete("apps/v1", "Deployment", "big", "default")
    assert (
        sim.objects.get("apps/v1", "Deployment", "small", "default")["status"]["readyReplicas"] == 1
    )


def _waiting_reason(sim: RunningSim, deployment_name: str) -> str:
    (pod,) = [p for p in _pods(sim) if p["metadata"]["name"].startswith(f"{deployment_name}-")]
    (condition,) = pod["status"]["conditions"]
    return str(condition["message"])


def test_why_a_pod_waits_follows_the_room_left(make_sim_cluster: Any) -> None:
    sim = make_sim_cluster(nodes=1, node_allocatable={"cpu": "1", "memory": "1Gi", "pods": "2"})
    sim.objects.put(deployment("first", replicas=1, cpu="500m"))
    sim.objects.put(deployment("waiting", replicas=1, cpu="800m"))
    assert _waiting_reason(sim, "waiting") == "0/1 nodes are available: Insufficient cpu."
    sim.objects.put(deployment("second", replicas=1, cpu="100m"))
    assert _waiting_reason(sim, "waiting") == (
        "0/1 nodes are available: Insufficient cpu, Insufficient pods."
    )


def test_a_node_given_more_room_takes_a_waiting_pod(make_sim_cluster: Any) -> None:
    sim = make_sim_cluster(nodes=1, node_allocatable={"cpu": "1", "memory": "1Gi", "pods": "10"})
    sim.objects.put(deployment("big", replicas=1, cpu="2"))
    (pod,) = _pods(sim)
    assert pod["status"]["phase"] == "Pending"
    (node,) = sim.objects.list("v1", "Node")
    node["status"]["allocatable"]["cpu"] = "4"
    sim.objects.put(node)
    (pod,) = _pods(sim)
    assert pod["spec"]["nodeName"] == node["metadata"]["name"]
    assert sim.objects.get("apps/v1", "Deployment", "big", "default")["status"]["readyReplicas"]


def test_pods_start_after_the_delay(make_sim_cluster: Any) -> None:
    sim = make_sim_cluster(ready_delay=0.05)
    sim.objects.put(deployment(replicas=2))
    sim.cluster.settle()
    status = sim.objects.get("apps/v1", "Deployment", "web", "default")["status"]
    assert status["readyReplicas"] == 2


def test_pods_start_without_anybody_asking(make_sim_cluster: Any) -> None:
    """The controller thread fires the timers; the client only polls."""
    sim = make_sim_cluster(ready_delay=0.05)
    deployments = sim.resource("apps/v1", "Deployment")
    deployments.create(body=deployment(replicas=2), namespace="default")
    watched = deployments.watch(namespace="default", timeout=10)
    ready = next((e for e in watched if (e["object"].status or {}).get("readyReplicas") == 2), None)
    watched.close()
    assert ready is not None


def test_pods_are_not_ready_before_the_delay(make_sim_cluster: Any) -> None:
    sim = make_sim_cluster(ready_delay=600)
    sim.objects.put(deployment(replicas=2))
    status = sim.objects.get("apps/v1", "Deployment", "web", "default")["status"]
    assert (status["replicas"], status.get("readyReplicas", 0)) == (2, 0)
    assert {p["status"]["phase"] for p in _pods(sim)} == {"Pending"}


def test_load_balancer_gets_an_address(sim_cluster: RunningSim) -> None:
    sim_cluster.objects.put(service("lb", type="LoadBalancer"))
    balanced = sim_cluster.objects.get("v1", "Service", "lb", "default")
    assert balanced["status"]["loadBalancer"]["ingress"][0]["ip"].startswith("172.18.200.")


def test_claims_are_bound(sim_cluster: RunningSim) -> None:
    sim_cluster.objects.put(claim("data"))
    bound = sim_cluster.objects.get("v1", "PersistentVolumeClaim", "data", "default")
    assert bound["status"]["phase"] == "Bound"
    assert bound["status"]["capacity"] == {"storage": "1Gi"}
