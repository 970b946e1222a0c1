"""A ClusterTaintPolicy's NoExecute taint evicts as failover's own taints do
(gitfleet.pipeline.place with a status snapshot).

Aspects: a cluster with a condition the policy watches (declared in the source here) gets the
NoExecute taint at the snapshot's time, and a binding that does not tolerate it leaves the
cluster at once, its replicas going to the others, with a graceful eviction task; one that
tolerates it for a while stays until the toleration ends; the placement carries the taints for
render.yaml.
"""

from __future__ import annotations

from typing import Any

from builders import make_taint_policy
from failover_kit import beats, fleet_docs, place, placed, tasks

TAINT = "example.io/degraded"
DEGRADED = {"conditionType": "Degraded", "operator": "In", "statusValues": ["True"]}


def _degraded(docs: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    """`docs` with cluster `name` declaring condition Degraded=True, and the policy."""
    for doc in docs:
        if doc["kind"] == "Cluster" and doc["metadata"]["name"] == name:
            doc["status"]["conditions"].append({"type": "Degraded", "status": "True"})
    return [*docs, make_taint_policy("degraded", (TAINT, "NoExecute"), add_on=DEGRADED)]


def test_a_no_execute_policy_taint_evicts_what_does_not_tolerate_it() -> None:
    first = place(fleet_docs())
    assert placed(first) == {"m1": 1, "m2": 1, "m3": 1}
    moved = place(_degraded(fleet_docs(), "m2"), first, beats(10))
    assert "m2" not in placed(moved)
    assert sum(placed(moved).values()) == 3
    assert tasks(moved) == {"m2": "Gracefully"}
    (taint,) = moved.cluster_taints["m2"]
    assert (taint.key, taint.effect, taint.time_added) == (TAINT, "NoExecute", beats(10).at)
    assert set(moved.cluster_taints) == {"m2"}


def test_a_toleration_keeps_the_binding_until_it_ends() -> None:
    toleration = {
        "key": TAINT,
        "operator": "Exists",
        "effect": "NoExecute",
        "tolerationSeconds": 60,
    }
    tolerant = {"placement": {"clusterTolerations": [toleration]}}
    first = place(fleet_docs(**tolerant))
    docs = _degraded(fleet_docs(**tolerant), "m2")
    tainted = place(docs, first, beats(10))
    assert placed(tainted) == {"m1": 1, "m2": 1, "m3": 1}
    staying = place(docs, tainted, beats(69), cluster_taints=tainted.cluster_taints)
    assert placed(staying) == {"m1": 1, "m2": 1, "m3": 1}, "tolerated until 10 + 60"
    assert staying.cluster_taints == tainted.cluster_taints
    gone = place(docs, tainted, beats(71), cluster_taints=tainted.cluster_taints)
    assert "m2" not in placed(gone)
