"""A Deployment's unschedulable pods, as the agent reports them (`agent.unschedulable`, Karmada's
estimator GetUnschedulablePodsOfWorkload).

Aspects covered:
- on a simulated cluster too small for the Deployment, the pods that fit no node are found,
  with the time their PodScheduled condition turned False (Unschedulable), and the sync's
  report carries them under `unschedulable`, which reads back through `status.reports`
  together with the ready count; a Deployment with every replica ready is not looked at;
- Deployments short of ready that share a namespace are each given their own pods, read with
  one list of the namespace's ReplicaSets and one of its pods, however many there are;
- pods count only through the Deployment's new ReplicaSet: the oldest it controls whose
  template equals the Deployment's, the pod-template-hash label aside; pods of another
  ReplicaSet, of no controller, and finished pods do not count;
- a long list of transition times is bounded, newest pods counted under the newest time;
- a report without `unschedulable` (an older agent's) or with unreadable entries reads as none.
"""

from __future__ import annotations

import copy
from typing import Any

from agent.agent_kit import CLUSTER, FAST, Sync, work_set
from simfixture import SimFactory, deployment

from gitfleet.agent import apply, kube, report, unschedulable
from gitfleet.model import replicas
from gitfleet.status import reports

TEMPLATE = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web"}]}}
DEPLOYMENT: dict[str, Any] = {
    "metadata": {"name": "web", "namespace": "shop", "uid": "d1"},
    "spec": {"replicas": 3, "template": TEMPLATE},
}


def replica_set(name: str, uid: str, created: str, *, owner: str = "d1", image: str = "") -> Any:
    template = copy.deepcopy(TEMPLATE)
    template["metadata"]["labels"]["pod-template-hash"] = name
    if image:
        template["spec"]["containers"][0]["image"] = image
    owners = [{"uid": owner, "controller": True}]
    return {
        "metadata": {
            "name": name,
            "uid": uid,
            "creationTimestamp": created,
            "ownerReferences": owners,
        },
        "spec": {"template": template},
    }


def pod(owner: str | None, since: str | None, phase: str = "Pending") -> Any:
    conditions = []
    if since is not None:
        conditions.append(
            {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
             "lastTransitionTime": since}
        )  # fmt: skip
    owners = [{"uid": owner, "controller": True}] if owner else []
    return {
        "metadata": {"ownerReferences": owners},
        "status": {"phase": phase, "conditions": conditions},
    }


def test_only_the_new_replica_sets_pending_pods_count() -> None:
    sets = [
        replica_set("b", "rs-b", "2026-01-02T00:00:00Z"),
        replica_set("a", "rs-a", "2026-01-01T00:00:00Z"),
        replica_set("old", "rs-old", "2025-01-01T00:00:00Z", image="nginx:0"),
        replica_set("foreign", "rs-f", "2024-01-01T00:00:00Z", owner="other"),
    ]
    pods = [
        pod("rs-a", "2026-01-03T00:00:00Z"),
        pod("rs-a", "2026-01-03T00:00:00Z"),
        pod("rs-a", "2026-01-04T00:00:00Z"),
        pod("rs-a", None, phase="Running"),
        pod("rs-a", "2026-01-03T00:00:00Z", phase="Failed"),
        pod("rs-b", "2026-01-03T00:00:00Z"),
        pod("rs-old", "2026-01-03T00:00:00Z"),
        pod("rs-f", "2026-01-03T00:00:00Z"),
        pod(None, "2026-01-03T00:00:00Z"),
    ]
    assert unschedulable.pending(DEPLOYMENT, sets, pods) == (
        replicas.Pending("2026-01-03T00:00:00Z", 2),
        replicas.Pending("2026-01-04T00:00:00Z", 1),
    )
    assert unschedulable.pending(DEPLOYMENT, sets[2:], pods) == ()


def test_a_long_list_is_bounded_and_never_early() -> None:
    times = [f"2026-01-01T00:00:{s:02d}Z" for s in range(25)]
    found = replicas.bounded(times)
    assert len(found) == replicas.MAX_PENDING
    assert sum(p.replicas for p in found) == 25
    assert found[-1] == replicas.Pending("2026-01-01T00:00:24Z", 25 - replicas.MAX_PENDING + 1)


SMALL_NODE = {"cpu": "1", "memory": "8Gi", "pods": "110"}


def test_a_cluster_too_small_reports_its_pending_pods(make_sim_cluster: SimFactory) -> None:
    sim = make_sim_cluster(CLUSTER, nodes=1, node_allocatable=SMALL_NODE)
    web = deployment("web", "shop", replicas=4, cpu="400m")
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}}
    client = kube.KubeClient(sim.kubeconfig, name=CLUSTER, retry=kube.NO_WAIT)
    try:
        result = apply.sync(client, work_set([namespace, web]), options=FAST)
    finally:
        client.close()
    (found,) = [o for o in result.objects if o.ref.kind == "Deployment"]
    pods = sim.objects.list("v1", "Pod", "shop")
    waiting = [
        c["lastTransitionTime"]
        for p in pods
        for c in p["status"].get("conditions", [])
        if c["type"] == "PodScheduled" and c["status"] == "False"
    ]
    assert len(waiting) == 2
    assert found.unschedulable == replicas.bounded(waiting)
    entry = report.works_document(result)["manifests"]
    (written,) = [e for e in entry if e["kind"] == "Deployment"]
    assert written["unschedulable"] == [
        {"since": p.since, "replicas": p.replicas} for p in found.unschedulable
    ]
    files = {"works.yaml": report.encode(report.works_document(result))}
    (back,) = [m for m in reports.decode("member1", files).manifests if m.key.kind == "Deployment"]
    assert back.replicas == replicas.WorkloadReplicas(ready=2, unschedulable=found.unschedulable)


def test_deployments_of_one_namespace_share_one_list(make_sim_cluster: SimFactory) -> None:
    sim = make_sim_cluster(CLUSTER, nodes=1, node_allocatable=SMALL_NODE)
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}}
    names = [f"web-{n}" for n in range(6)]
    manifests = [namespace, *(deployment(n, "shop", replicas=2, cpu="300m") for n in names)]
    client = kube.KubeClient(sim.kubeconfig, name=CLUSTER, retry=kube.NO_WAIT)
    try:
        apply.sync(client, work_set(manifests), options=FAST)
        sim.cluster.reset_requests()
        result = apply.sync(client, work_set(manifests), options=FAST)
    finally:
        client.close()
    lists = sim.cluster.requests["list"]
    waiting: dict[str, list[str]] = {n: [] for n in names}
    for each in sim.objects.list("v1", "Pod", "shop"):
        for c in each["status"].get("conditions", []):
            if c["type"] == "PodScheduled" and c["status"] == "False":
                waiting[each["metadata"]["labels"]["app"]].append(c["lastTransitionTime"])
    found = {o.ref.name: o.unschedulable for o in result.objects if o.ref.kind == "Deployment"}
    assert found == {n: replicas.bounded(waiting[n]) for n in names}
    assert sum(len(w) for w in waiting.values()) == 9
    assert lists <= 4


def test_a_ready_deployment_is_not_looked_at(sync: Sync) -> None:
    web = deployment("web", "default", replicas=2)
    (found,) = [o for o in sync([web]).objects if o.ref.kind == "Deployment"]
    assert found.applied
    assert found.unschedulable == ()
    ready = {"spec": {"replicas": 2}, "status": {"readyReplicas": 2}}
    assert not unschedulable.short_of_ready(ready)


def test_older_and_odd_reports_still_read() -> None:
    entry = {"path": "p", "apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
    odd = [{"since": "2026-01-01T00:00:00Z", "replicas": "2"}, "x", {"since": 3, "replicas": 1}]
    works = {"manifests": [entry, {**entry, "name": "api", "unschedulable": odd}]}
    files = {"works.yaml": report.encode(works)}
    decoded = reports.decode("member1", files)
    assert [m.unschedulable for m in decoded.manifests] == [(), ()]
    assert decoded.problems == ()
