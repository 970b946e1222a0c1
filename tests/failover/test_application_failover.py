"""Application failover (a policy's `failover.application`), through the placement pipeline and
as rendered commits: Karmada's application failover controller, with the moment an application
became Unhealthy taken from the agent's report.

Aspects: an application reported Unhealthy on a cluster waits out `tolerationSeconds` (the
render says when it will move, and is due then), then the binding leaves that cluster with a
task of reason ApplicationFailure from Karmada's controller, in the policy's purge mode
(Gracefully keeps the old copy for `gracePeriodSeconds`, Never until deletion is confirmed,
Directly not at all); health from a report of older Works, Healthy or Unknown, a binding
without propagateDeps (Karmada's controller skips it) and one without application failover do
not move; a cluster already being evicted is not evicted again; a binding the previous render
placed, with nothing else changed, still fails over; the commit says why; the watch asks for a
render when reports change while some binding is watched, also when resumed from render.yaml.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from failover_kit import WEB, RenderedBranch, at, fleet_docs, observed, place, placed, web

from gitfleet import failover
from gitfleet.model import loaded, meta, work

TOLERATION = 20
M2_WEB = "works/m2/shop/Deployment.apps/web.yaml"


def watched(purge: str | None = None, grace: int | None = None, **spec: Any) -> list[Any]:
    """The fleet with web's policy watching its application (tolerating `TOLERATION` s)."""
    application: dict[str, Any] = {"decisionConditions": {"tolerationSeconds": TOLERATION}}
    if purge is not None:
        application["purgeMode"] = purge
    if grace is not None:
        application["gracePeriodSeconds"] = grace
    spec.setdefault("propagateDeps", True)
    return fleet_docs(failover={"application": application}, **spec)


def health(
    now: float,
    sick: dict[str, float] | None = None,
    *,
    current: bool = True,
    state: work.ResourceHealth = work.ResourceHealth.UNHEALTHY,
) -> failover.Observed:
    """Every cluster reporting at `now`; web is `state` on the clusters of `sick` since the
    seconds given, Healthy on the others."""
    ill = sick or {}
    reports = {}
    for name in ("m1", "m2", "m3"):
        ready = meta.Condition(type="Ready", status="True", last_transition_time=at(0))
        found = state if name in ill else work.ResourceHealth.HEALTHY
        since = (
            {WEB: at(ill[name])} if name in ill and state is work.ResourceHealth.UNHEALTHY else {}
        )
        reports[name] = failover.Report(
            heartbeat=at(now), ready=ready, current=current, health={WEB: found},
            unhealthy_since=since,
        )  # fmt: skip
    return observed(now, reports)


def start(docs: list[Any]) -> Any:
    return place(docs, snapshot=health(0))


def test_an_unhealthy_application_waits_out_its_toleration() -> None:
    docs = watched()
    result = place(docs, start(docs), health(40, {"m2": 30}))
    assert placed(result) == {"m1": 1, "m2": 1, "m3": 1}
    assert result.failover is not None
    summary = result.failover.summary(None, result.bindings)
    assert summary.section["waiting"] == [
        {"resource": "Deployment shop/web", "cluster": "m2", "evictAt": at(30 + TOLERATION)}
    ]
    assert summary.section["applicationFailover"] is True
    assert result.failover.next_deadline() == at(30 + TOLERATION)


def test_after_the_toleration_the_binding_leaves_the_cluster_gracefully() -> None:
    docs = watched()
    result = place(docs, start(docs), health(30 + TOLERATION, {"m2": 30}))
    assert placed(result) == {"m1": 2, "m3": 1}
    (task,) = web(result).spec.graceful_eviction_tasks
    assert (task.from_cluster, task.purge_mode, task.replicas, task.grace_period_seconds) == (
        "m2", "Gracefully", 1, 600,
    )  # fmt: skip
    assert (task.reason, task.producer, task.suppress_deletion) == (
        "ApplicationFailure",
        "resource-binding-application-failover-controller",
        None,
    )
    assert result.failover is not None
    changes = result.failover.summary(None, result.bindings).changes
    assert f"Deployment shop/web is Unhealthy on m2 since {at(30)}" in changes
    assert "Deployment shop/web moved 1 replicas from m2 to m1 (+1)" in changes


def test_purge_modes_never_and_directly() -> None:
    never = watched("Never")
    kept = place(never, start(never), health(30 + TOLERATION, {"m2": 30}))
    (task,) = web(kept).spec.graceful_eviction_tasks
    assert (task.purge_mode, task.suppress_deletion, task.grace_period_seconds) == (
        "Never", True, None,
    )  # fmt: skip
    later = place(never, kept, health(30 + TOLERATION + 100_000))
    assert [t.from_cluster for t in web(later).spec.graceful_eviction_tasks] == ["m2"]

    directly = watched("Directly")
    gone = place(directly, start(directly), health(30 + TOLERATION, {"m2": 30}))
    (task,) = web(gone).spec.graceful_eviction_tasks
    assert (task.purge_mode, task.suppress_deletion) == ("Directly", None)


def test_a_grace_period_of_the_policy_ends_the_task() -> None:
    docs = watched("Gracefully", grace=50)
    moved = place(docs, start(docs), health(30 + TOLERATION, {"m2": 30}))
    assert [t.grace_period_seconds for t in web(moved).spec.graceful_eviction_tasks] == [50]
    waiting = place(docs, moved, health(30 + TOLERATION + 40, {"m2": 30}, current=False))
    assert work.evicting_clusters(web(waiting).spec) == ("m2",)
    ended = place(docs, waiting, health(30 + TOLERATION + 60, {"m2": 30}, current=False))
    assert web(ended).spec.graceful_eviction_tasks == ()


def test_what_does_not_fail_over() -> None:
    late = 30 + TOLERATION + 60
    cases = {
        "health of older Works": (watched(), health(late, {"m2": 30}, current=False)),
        "Unknown": (watched(), health(late, {"m2": 30}, state=work.ResourceHealth.UNKNOWN)),
        "without propagateDeps": (watched(propagateDeps=False), health(late, {"m2": 30})),
        "no application failover": (fleet_docs(), health(late, {"m2": 30})),
    }
    for why, (docs, snapshot) in cases.items():
        result = place(docs, start(docs), snapshot)
        assert placed(result) == {"m1": 1, "m2": 1, "m3": 1}, why
        assert web(result).spec.graceful_eviction_tasks == (), why


def test_a_cluster_being_evicted_is_not_evicted_again() -> None:
    docs = watched()
    moved = place(docs, start(docs), health(30 + TOLERATION, {"m2": 30}))
    again = place(docs, moved, health(30 + TOLERATION + 10, {"m2": 30, "m1": 0}))
    tasks = web(again).spec.graceful_eviction_tasks
    assert sorted(t.from_cluster for t in tasks) == ["m1", "m2"]
    assert [t.creation_timestamp for t in tasks if t.from_cluster == "m2"] == [at(30 + TOLERATION)]
    assert placed(again) == {"m3": 3}


def test_failing_over_as_rendered_commits(tmp_path: Path) -> None:
    branch = RenderedBranch(tmp_path / "rendered.git")
    docs = watched()
    first = branch.render(docs, health(0))
    assert first.report["failover"]["applicationFailover"] is True

    noticed = branch.render(docs, health(40, {"m2": 30}))
    assert noticed.report["failover"]["waiting"] == [
        {"resource": "Deployment shop/web", "cluster": "m2", "evictAt": at(30 + TOLERATION)}
    ]
    watch = noticed.result.failover_watch
    assert watch is not None and watch.applications
    assert watch.deadline == at(30 + TOLERATION)
    assert watch.due(health(45, {"m2": 30, "m3": 44}), loaded.FailoverSettings())
    assert not watch.due(health(45, {"m2": 30}), loaded.FailoverSettings())

    moved = branch.render(docs, health(30 + TOLERATION, {"m2": 30}))
    assert moved.created
    assert moved.message.startswith("failover: Deployment shop/web is Unhealthy on m2 since")
    assert (moved.replicas("m1"), moved.replicas("m3")) == (2, 1)
    assert moved.files[M2_WEB] == first.files[M2_WEB], "the old copy stays while the task lasts"

    resumed = failover.Watch.resumed(moved.report["failover"], ("m1", "m2", "m3"))
    assert resumed.applications
    quiet = failover.Watch.resumed(first.report["failover"] | {"applicationFailover": None}, ())
    assert not quiet.applications
