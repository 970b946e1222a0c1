"""The descheduler in the pipeline: the replicas a cluster cannot run are lowered before the
scheduler sees the binding, which places the difference with Karmada's scale-up rules.

Aspects: a full cluster's unschedulable replicas go to the others and it leaves the result;
the lowered cluster takes some back when it has room by then (the scale-up divides by
every candidate's available replicas); the lines for the commit message name cluster, workload
and counts; a binding whose replicas nothing else can take stays lowered with the scheduler's
error said; reports of older Works move nothing; the same inputs between two runs decide the
same; the watch asks for a render at the next run after a pod passes the threshold, or when
the reported pods change, and a watch resumed after a restart asks for one while any pod is
reported unschedulable.
"""

from __future__ import annotations

from descheduler_kit import (
    SETTINGS,
    WEB,
    at,
    fleet_docs,
    place,
    placed,
    snapshot,
    web,
    workload,
)

from gitfleet import descheduler
from gitfleet.model import replicas

THRESHOLD = SETTINGS.unschedulable_threshold_seconds
INTERVAL = SETTINGS.interval_seconds
LATE = THRESHOLD + INTERVAL


def test_a_full_clusters_replicas_go_elsewhere() -> None:
    first = place(fleet_docs())
    moved = place(fleet_docs(full=("m1",)), first, snapshot(LATE, {"m1": workload(0, (0, 2))}))
    assert placed(web(moved)) == {"m2": 3, "m3": 3}
    assert moved.descheduler is not None
    assert moved.descheduler.changes == (
        "Deployment shop/web: m1 cannot run 2 of 2 replicas, moved to m2 (+1), m3 (+1)",
    )
    assert [c.type for c in web(moved).status.conditions if c.type == "Descheduled"]
    message = descheduler.message(moved.descheduler.changes, "render abc")
    assert message.startswith("descheduler: Deployment shop/web: m1 cannot run 2 of 2")
    assert message.endswith("\n\nrender abc")


def test_the_lowered_cluster_takes_some_back_when_it_has_room() -> None:
    first = place(fleet_docs())
    moved = place(fleet_docs(), first, snapshot(LATE, {"m1": workload(0, (0, 2))}))
    result = placed(web(moved))
    assert sum(result.values()) == 6
    assert 0 < result["m1"] < 2, result


def test_nowhere_else_the_binding_stays_lowered() -> None:
    first = place(fleet_docs())
    full = fleet_docs(full=("m1", "m2", "m3"))
    stuck = place(full, first, snapshot(LATE, {"m1": workload(0, (0, 2))}))
    assert placed(web(stuck)) == {"m1": 0, "m2": 2, "m3": 2}
    assert stuck.descheduler is not None
    (line,) = stuck.descheduler.changes
    assert line.startswith(
        "Deployment shop/web: m1 cannot run 2 of 2 replicas, not placed elsewhere: "
    )


def test_reports_of_older_works_move_nothing() -> None:
    first = place(fleet_docs())
    stale = snapshot(LATE, {"m1": workload(0, (0, 2))}, current=False)
    assert placed(web(place(fleet_docs(full=("m1",)), first, stale))) == placed(web(first))


def test_between_two_runs_the_same_inputs_decide_the_same() -> None:
    first = place(fleet_docs())
    early = snapshot(THRESHOLD + 1, {"m1": workload(0, (0, 2))})
    assert placed(web(place(fleet_docs(full=("m1",)), first, early))) == placed(web(first))
    run = (THRESHOLD // INTERVAL + 1) * INTERVAL
    for moment in (run, run + INTERVAL - 1):
        later = snapshot(moment, {"m1": workload(0, (0, 2))})
        assert placed(web(place(fleet_docs(full=("m1",)), first, later))) == {"m2": 3, "m3": 3}


def test_the_watch_wakes_at_the_next_run() -> None:
    first = place(fleet_docs())
    found = {"m1": workload(0, (0, 2))}
    waiting = place(fleet_docs(full=("m1",)), first, snapshot(10, found))
    assert waiting.descheduler is not None
    watch = waiting.descheduler.watch()
    run = (THRESHOLD // INTERVAL + 1) * INTERVAL
    assert watch.deadline == at(run)
    reports = waiting_reports(found)
    assert not watch.due(reports, at(run - 1))
    assert watch.due(reports, at(run))
    assert watch.due(waiting_reports({"m1": workload(0, (0, 3))}), at(20))


def test_a_resumed_watch_renders_while_pods_wait() -> None:
    resumed = descheduler.Watch()
    assert resumed.due(waiting_reports({"m1": workload(0, (0, 2))}), at(0))
    assert not resumed.due(waiting_reports({"m1": workload(2)}), at(0))


def waiting_reports(
    found: dict[str, replicas.WorkloadReplicas],
) -> dict[str, descheduler.ClusterReport]:
    return {
        name: descheduler.ClusterReport(current=True, workloads={WEB: workloads})
        for name, workloads in found.items()
    }
