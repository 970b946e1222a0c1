"""Failover through the placement pipeline (gitfleet.pipeline.place with a status snapshot).

Aspects: a fresh heartbeat leaves the cluster alone; a stale one makes it unreachable and
tainted (NoSchedule and NoExecute, from when the heartbeat expired) while the default
toleration runs; after it the binding leaves the cluster, its replicas go to the others and a
graceful eviction task keeps the old copy; an agent reporting Ready=False gives the not-ready
taint once it has done so for the failure threshold (a failure that did not last, none), dated
from then, and the next render is due at that moment; the policy's clusterTolerations
(shorter, forever, int64 seconds past any date) and failover.cluster.purgeMode (Directly),
and the settings (no default toleration, eviction off, default purge mode, the failure
threshold) decide; no other cluster
fits: nothing moves and a Failover condition says why; a second cluster failing while the
first one's task is open gets a task of its own; eviction tasks end when the replacement
is healthy on the current render, when their grace period is over, and not on health from an
older render; the commit subject counts what left a cluster; recovery moves a Divided workload
nothing back and lets a Duplicated one return; a cluster that never reported is not judged;
determinism.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from builders import make_configmap, make_policy, selector
from failover_kit import (
    SETTINGS,
    at,
    beats,
    fleet_docs,
    observed,
    place,
    placed,
    report,
    tasks,
    web,
)

from gitfleet import failover
from gitfleet.model import loaded, policy, work

GRACE = SETTINGS.heartbeat_grace_seconds
THRESHOLD = SETTINGS.failure_threshold_seconds
TOLERATION = SETTINGS.default_toleration_seconds or 0
AFTER_TOLERATION = GRACE + TOLERATION + 60
DIRECTLY = dataclasses.replace(SETTINGS, purge_mode=policy.PurgeMode.DIRECTLY)


def taints_of(result: Any, name: str) -> list[str]:
    (member,) = [c for c in result.clusters if c.name == name]
    return [f"{t.key}:{t.effect}@{t.time_added}" for t in member.spec.taints]


def start(docs: list[dict[str, Any]] | None = None) -> Any:
    return place(docs or fleet_docs(), snapshot=beats(0))


def test_fresh_heartbeats_change_nothing() -> None:
    first = start()
    again = place(fleet_docs(), first, beats(30))
    assert placed(again) == {"m1": 1, "m2": 1, "m3": 1}
    assert all(not c.spec.taints for c in again.clusters)
    assert again.failover is not None and again.failover.health == {}


def test_stale_heartbeat_taints_the_cluster_and_waits_for_the_toleration() -> None:
    first = start()
    result = place(fleet_docs(), first, beats(GRACE + 20, {"m2": 0}))
    assert taints_of(result, "m2") == [
        f"cluster.karmada.io/unreachable:NoSchedule@{at(GRACE)}",
        f"cluster.karmada.io/unreachable:NoExecute@{at(GRACE)}",
    ]
    (m2,) = [c for c in result.clusters if c.name == "m2"]
    ready = [c for c in m2.status.conditions if c.type == "Ready"]
    assert [(c.status, c.reason) for c in ready] == [("Unknown", "ClusterStatusUnknown")]
    assert placed(result) == {"m1": 1, "m2": 1, "m3": 1}
    assert result.failover is not None
    summary = result.failover.summary(None)
    assert summary.section["waiting"] == [
        {"resource": "Deployment shop/web", "cluster": "m2", "evictAt": at(GRACE + TOLERATION)}
    ]
    assert summary.changes == (f"m2 unreachable since {at(GRACE)} (ClusterStatusUnknown)",)
    assert result.failover.next_deadline() == at(GRACE + 20 + GRACE), "m1 and m3 expire first"


def test_after_the_toleration_replicas_move_and_a_task_keeps_the_old_copy() -> None:
    first = start()
    result = place(fleet_docs(), first, beats(AFTER_TOLERATION, {"m2": 0}))
    assert placed(result) == {"m1": 2, "m3": 1}
    (task,) = web(result).spec.graceful_eviction_tasks
    assert (task.from_cluster, task.purge_mode, task.replicas) == (
        "m2",
        "Gracefully",
        1,
    )
    assert (task.reason, task.producer, task.creation_timestamp) == (
        "TaintUntolerated",
        "TaintManager",
        at(AFTER_TOLERATION),
    )
    assert work.evicting_clusters(web(result).spec) == ("m2",)
    assert result.failover is not None
    changes = result.failover.summary(None).changes
    assert "Deployment shop/web moved 1 replicas from m2 to m1 (+1)" in changes


def test_the_headline_counts_what_left_a_cluster() -> None:
    """The commit subject names the largest move and counts the rest per cluster."""
    docs = [*fleet_docs(), make_configmap("web-config", namespace="shop")]
    docs.append(make_policy("config", selector("ConfigMap", "v1", name="web-config")))
    first = start(docs)
    result = place(docs, first, beats(AFTER_TOLERATION, {"m2": 0}))
    assert result.failover is not None
    summary = result.failover.summary(None)
    moved = "Deployment shop/web moved 1 replicas from m2 to m1 (+1)"
    assert summary.headline[-1] == f"2 resources left m2, {moved}"
    assert "ConfigMap shop/web-config left m2" in summary.changes
    subject = summary.message("render x").splitlines()[0]
    assert subject.startswith("failover: m2 unreachable since") and moved in subject


def _not_ready_since(since: float, now: float, **m2: Any) -> failover.Observed:
    """m2's agent reports at `now` its cluster not Ready since `since`; the others are fine."""
    failing = report(now, ready="False", since=since, **m2)
    return observed(now, {"m1": report(now), "m2": failing, "m3": report(now)})


def test_reported_not_ready_counts_after_the_failure_threshold() -> None:
    """Karmada's --cluster-failure-threshold: the not-ready taint comes once the agent has
    reported the cluster not Ready for that long, and dates from then."""
    first = start()
    fresh = place(fleet_docs(), first, _not_ready_since(30, 30))
    assert taints_of(fresh, "m2") == []
    assert fresh.failover is not None and fresh.failover.health == {}
    assert fresh.failover.next_deadline() == at(30 + THRESHOLD)
    still = place(fleet_docs(), first, _not_ready_since(30, 30 + THRESHOLD - 1))
    assert taints_of(still, "m2") == []
    counted = place(fleet_docs(), first, _not_ready_since(30, 30 + THRESHOLD))
    assert taints_of(counted, "m2") == [
        f"cluster.karmada.io/not-ready:NoSchedule@{at(30 + THRESHOLD)}",
        f"cluster.karmada.io/not-ready:NoExecute@{at(30 + THRESHOLD)}",
    ]


def test_a_failure_that_did_not_last_fails_nothing_over() -> None:
    """A Ready report in between moves the condition's transition: the threshold starts
    again, so a blip of the network never counts."""
    first = start()
    recovered = observed(40, {n: report(40, since=35) for n in ("m1", "m2", "m3")})
    assert taints_of(place(fleet_docs(), first, recovered), "m2") == []
    again = place(fleet_docs(), first, _not_ready_since(50, 50 + THRESHOLD - 5))
    assert taints_of(again, "m2") == []


def test_the_failure_threshold_is_a_setting() -> None:
    first = start()
    settings = dataclasses.replace(SETTINGS, failure_threshold_seconds=0)
    result = place(fleet_docs(), first, _not_ready_since(30, 30), settings)
    assert taints_of(result, "m2")[0] == f"cluster.karmada.io/not-ready:NoSchedule@{at(30)}"


@pytest.mark.parametrize(
    ("tolerations", "seconds", "expected"),
    [
        pytest.param(
            [{"key": "cluster.karmada.io/unreachable", "operator": "Exists", "effect": "NoExecute",
              "tolerationSeconds": 10}],
            GRACE + 20, {"m1": 2, "m3": 1}, id="shorter policy toleration evicts earlier",
        ),
        pytest.param(
            [{"key": "cluster.karmada.io/unreachable", "operator": "Exists",
              "effect": "NoExecute"}],
            AFTER_TOLERATION * 10, {"m1": 1, "m2": 1, "m3": 1}, id="toleration without seconds",
        ),
        pytest.param(
            [{"operator": "Exists"}], AFTER_TOLERATION * 10, {"m1": 1, "m2": 1, "m3": 1},
            id="tolerate everything",
        ),
        pytest.param(
            [{"key": "cluster.karmada.io/unreachable", "operator": "Exists", "effect": "NoExecute",
              "tolerationSeconds": 2**63 - 1}],
            AFTER_TOLERATION * 10, {"m1": 1, "m2": 1, "m3": 1},
            id="int64 seconds: past any date, never",
        ),
        pytest.param(
            [{"key": "cluster.karmada.io/not-ready", "operator": "Exists", "effect": "NoExecute",
              "tolerationSeconds": 10}],
            GRACE + 20, {"m1": 1, "m2": 1, "m3": 1},
            id="other key: the default toleration still applies",
        ),
    ],
)  # fmt: skip
def test_policy_tolerations(
    tolerations: list[dict[str, Any]], seconds: int, expected: dict[str, int]
) -> None:
    docs = fleet_docs(placement={"clusterTolerations": tolerations})
    first = start(docs)
    assert placed(place(docs, first, beats(seconds, {"m2": 0}))) == expected


@pytest.mark.parametrize(
    ("policy", "settings", "expected_tasks", "expected_placed"),
    [
        pytest.param(
            {"failover": {"cluster": {"purgeMode": "Directly"}}}, SETTINGS,
            {"m2": "Directly"}, {"m1": 2, "m3": 1}, id="policy purges Directly",
        ),
        pytest.param(
            {"failover": {"cluster": {}}}, DIRECTLY,
            {"m2": "Gracefully"}, {"m1": 2, "m3": 1}, id="policy's default wins over the setting",
        ),
        pytest.param(
            {}, DIRECTLY,
            {"m2": "Directly"}, {"m1": 2, "m3": 1}, id="setting without policy failover",
        ),
        pytest.param(
            {}, dataclasses.replace(SETTINGS, enabled=False),
            {}, {"m1": 1, "m2": 1, "m3": 1}, id="eviction off",
        ),
    ],
)  # fmt: skip
def test_purge_modes_and_settings(
    policy: dict[str, Any],
    settings: loaded.FailoverSettings,
    expected_tasks: dict[str, str],
    expected_placed: dict[str, int],
) -> None:
    docs = fleet_docs(**policy)
    first = start(docs)
    result = place(docs, first, beats(AFTER_TOLERATION, {"m2": 0}), settings)
    assert tasks(result) == expected_tasks
    assert placed(result) == expected_placed


def test_without_default_toleration_eviction_follows_the_heartbeat_expiry() -> None:
    settings = dataclasses.replace(SETTINGS, default_toleration_seconds=None)
    first = place(fleet_docs(), snapshot=beats(0), settings=settings)
    result = place(fleet_docs(), first, beats(GRACE + 1, {"m2": 0}), settings)
    assert placed(result) == {"m1": 2, "m3": 1}


def test_eviction_off_adds_only_the_no_schedule_taint() -> None:
    settings = dataclasses.replace(SETTINGS, enabled=False)
    first = start()
    result = place(fleet_docs(), first, beats(AFTER_TOLERATION, {"m2": 0}), settings)
    assert [t.split("@")[0] for t in taints_of(result, "m2")] == [
        "cluster.karmada.io/unreachable:NoSchedule"
    ]


def test_no_other_cluster_fits_nothing_moves_and_the_binding_says_why() -> None:
    docs = fleet_docs(clusters=("m2",))
    first = start(docs)
    assert placed(first) == {"m2": 3}
    result = place(docs, first, beats(AFTER_TOLERATION, {"m2": 0}))
    assert placed(result) == {"m2": 3}
    assert tasks(result) == {}
    (condition,) = [c for c in web(result).status.conditions if c.type == failover.CONDITION]
    assert condition.status == "False" and condition.reason == "NoReplacement"
    assert "cluster m2 is unreachable" in condition.message
    assert "no other cluster can take its replicas" in condition.message
    assert result.failover is not None
    summary = result.failover.summary(None)
    assert [b["cluster"] for b in summary.section["blocked"]] == ["m2"]
    assert "Deployment shop/web stays on m2: no other cluster can take its replicas" in (
        summary.changes
    )
    later = place(docs, result, beats(AFTER_TOLERATION + 30, {"m2": 0}))
    (again,) = [c for c in web(later).status.conditions if c.type == failover.CONDITION]
    assert again.last_transition_time == condition.last_transition_time
    recovered = place(docs, later, beats(AFTER_TOLERATION + 60))
    assert [c.type for c in web(recovered).status.conditions] == ["Scheduled"]


def evicted() -> tuple[Any, int]:
    first = start()
    moved = place(fleet_docs(), first, beats(AFTER_TOLERATION, {"m2": 0}))
    return moved, AFTER_TOLERATION


@pytest.mark.parametrize(
    ("later", "current", "health", "left"),
    [
        pytest.param(30, True, work.ResourceHealth.HEALTHY, {}, id="replacement healthy"),
        pytest.param(30, False, work.ResourceHealth.HEALTHY, {"m2": "Gracefully"},
                     id="health of an older render does not count"),
        pytest.param(30, True, work.ResourceHealth.UNHEALTHY, {"m2": "Gracefully"},
                     id="replacement unhealthy"),
        pytest.param(601, True, work.ResourceHealth.UNHEALTHY, {}, id="grace period over"),
    ],
)  # fmt: skip
def test_eviction_task_ends(
    later: int, current: bool, health: work.ResourceHealth, left: dict[str, str]
) -> None:
    moved, when = evicted()
    snapshot = beats(when + later, {"m2": 0}, current=current, health=health)
    result = place(fleet_docs(), moved, snapshot)
    assert tasks(result) == left
    assert placed(result) == {"m1": 2, "m3": 1}


def test_task_waits_for_the_render_that_placed_the_replacement() -> None:
    """The render that evicts cannot count health reported before it: the previous render
    placed the binding elsewhere."""
    first = start()
    healthy = beats(AFTER_TOLERATION, {"m2": 0}, current=True, health=work.ResourceHealth.HEALTHY)
    assert tasks(place(fleet_docs(), first, healthy)) == {"m2": "Gracefully"}


def test_recovery_moves_a_divided_workload_nothing_back() -> None:
    moved, when = evicted()
    back = place(fleet_docs(), moved, beats(when + 30))
    assert placed(back) == {"m1": 2, "m3": 1}
    assert back.failover is not None
    assert back.failover.summary({"clusters": {"m2": {"ready": "Unknown"}}}).changes[0] == (
        "m2 Ready again"
    )


def test_recovery_lets_a_duplicated_workload_return_once_the_task_ended() -> None:
    """As in Karmada, ending the task and scheduling again are two steps (two renders)."""
    docs = fleet_docs(placement={"replicaScheduling": None})
    first = start(docs)
    assert placed(first) == {"m1": 3, "m2": 3, "m3": 3}
    moved = place(docs, first, beats(AFTER_TOLERATION, {"m2": 0}))
    assert placed(moved) == {"m1": 3, "m3": 3}
    still = place(docs, moved, beats(AFTER_TOLERATION + 30))
    assert placed(still) == {"m1": 3, "m3": 3}, "the eviction task keeps it off m2"
    healthy = beats(AFTER_TOLERATION + 60, current=True, health=work.ResourceHealth.HEALTHY)
    ended = place(docs, still, healthy)
    assert tasks(ended) == {} and placed(ended) == {"m1": 3, "m3": 3}
    back = place(docs, ended, beats(AFTER_TOLERATION + 90))
    assert placed(back) == {"m1": 3, "m2": 3, "m3": 3}, "the next schedule sees m2 again"


def test_a_cluster_that_never_reported_is_not_judged() -> None:
    first = start()
    snapshot = observed(AFTER_TOLERATION * 10, {"m1": report(AFTER_TOLERATION * 10)})
    result = place(fleet_docs(), first, snapshot)
    assert placed(result) == {"m1": 1, "m2": 1, "m3": 1}
    assert all(not c.spec.taints for c in result.clusters)


def test_failover_is_deterministic() -> None:
    first = start()
    snapshot = beats(AFTER_TOLERATION, {"m2": 0})
    one = place(fleet_docs(), first, snapshot)
    two = place(list(reversed(fleet_docs())), first, snapshot)
    assert [b.to_doc() for b in one.bindings] == [b.to_doc() for b in two.bindings]


def test_a_second_cluster_failing_while_a_task_is_open_gets_its_own_task() -> None:
    first = start()
    moved = place(fleet_docs(), first, beats(AFTER_TOLERATION, {"m2": 0}))
    later = AFTER_TOLERATION + GRACE + TOLERATION + 60
    again = place(fleet_docs(), moved, beats(later, {"m2": 0, "m1": AFTER_TOLERATION}))
    assert placed(again) == {"m3": 3}
    assert sorted(tasks(again)) == ["m1", "m2"]
