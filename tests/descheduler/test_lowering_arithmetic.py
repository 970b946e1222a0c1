"""How many replicas the descheduler takes off a cluster (Karmada's updateScheduleResult).

Aspects: the unschedulable count comes off the cluster's replicas; an unknown ready count (no
readyReplicas) does not cap it; the cap never lowers a cluster below its ready replicas; a
cluster with as many ready replicas as assigned, a count larger than the assignment, no
unschedulable pod or a report of older Works leave it as it is; pods count only once
unschedulable for strictly longer than the threshold; the binding says what was lowered in its
Descheduled condition; a binding with nothing to lower comes back as it was; the cases of
Karmada's own descheduler test give Karmada's answers.
"""

from __future__ import annotations

import dataclasses

import pytest
from descheduler_kit import SETTINGS, at, fleet_docs, place, placed, web, workload

from gitfleet import descheduler, pipeline
from gitfleet.model import loaded, replicas, work

THRESHOLD = SETTINGS.unschedulable_threshold_seconds
LATE = THRESHOLD + SETTINGS.interval_seconds
"""Long enough after T0 that pods waiting since T0 count at the last run."""


@pytest.fixture(name="first", scope="module")
def first_fixture() -> pipeline.Placement:
    """The first schedule: 2 replicas on each of m1, m2, m3."""
    return place(fleet_docs())


def stage(
    first: pipeline.Placement,
    found: dict[str, replicas.WorkloadReplicas],
    *,
    now: float = LATE,
    current: bool = True,
    settings: loaded.DeschedulerSettings = SETTINGS,
) -> descheduler.Descheduler:
    key = descheduler.key_of(web(first))
    reports = {
        name: descheduler.ClusterReport(current=current, workloads={key: workloads})
        for name, workloads in found.items()
    }
    return descheduler.Descheduler(reports, at(now), settings)


@pytest.mark.parametrize(
    ("found", "expected"),
    [
        pytest.param(workload(0, (0, 2)), 0, id="two unschedulable of two"),
        pytest.param(workload(None, (0, 1)), 1, id="ready unknown"),
        pytest.param(workload(1, (0, 1)), 1, id="one ready, one unschedulable"),
        pytest.param(workload(1, (0, 2)), 1, id="capped at the ready replicas"),
        pytest.param(workload(2, (0, 1)), 2, id="all ready: not looked at"),
        pytest.param(workload(None, (0, 3)), 2, id="more unschedulable than assigned"),
        pytest.param(workload(0, (0, 1), (LATE, 1)), 1, id="only the old pod counts"),
        pytest.param(workload(0), 2, id="none unschedulable"),
    ],
)
def test_unschedulable_replicas_come_off(
    first: pipeline.Placement, found: replicas.WorkloadReplicas, expected: int
) -> None:
    assert placed(web(first)) == {"m1": 2, "m2": 2, "m3": 2}
    lowered = stage(first, {"m1": found}).lower(web(first))
    assert placed(lowered) == {"m1": expected, "m2": 2, "m3": 2}


def test_nothing_to_lower_gives_the_binding_back(first: pipeline.Placement) -> None:
    binding = web(first)
    assert stage(first, {"m1": workload(2, (0, 1))}).lower(binding) is binding


def test_a_report_of_older_works_counts_nothing(first: pipeline.Placement) -> None:
    lowered = stage(first, {"m1": workload(0, (0, 2))}, current=False).lower(web(first))
    assert placed(lowered)["m1"] == 2


@pytest.mark.parametrize(
    ("waited", "expected"),
    [
        pytest.param(THRESHOLD, 2, id="exactly the threshold"),
        pytest.param(THRESHOLD + 1, 0, id="one second longer"),
    ],
)
def test_longer_than_the_threshold_strictly(
    first: pipeline.Placement, waited: int, expected: int
) -> None:
    every_moment = loaded.DeschedulerSettings(interval_seconds=0)
    found = {"m1": workload(0, (0, 2))}
    lowered = stage(first, found, now=waited, settings=every_moment).lower(web(first))
    assert placed(lowered)["m1"] == expected


def test_the_condition_says_what_was_lowered(first: pipeline.Placement) -> None:
    found = {"m1": workload(0, (0, 2)), "m3": workload(1, (0, 1))}
    lowered = stage(first, found).lower(web(first))
    (condition,) = [c for c in lowered.status.conditions if c.type == descheduler.CONDITION]
    assert condition.status == "True"
    assert condition.reason == "UnschedulableReplicas"
    assert condition.last_transition_time == at(LATE)
    assert condition.message == (
        "m1 cannot run 2 of 2 replicas, m3 cannot run 1 of 2 replicas "
        f"(unschedulable for more than {THRESHOLD}s)"
    )


KARMADA_CASES = [
    # name, assigned, ready (absent: no status), unschedulable, expected (Karmada's
    # pkg/descheduler/descheduler_test.go TestDescheduler_worker cases)
    ("1 cluster without unschedulable replicas", {"m1": 5}, {"m1": 5}, {"m1": 0}, {"m1": 5}),
    ("1 cluster with 1 unschedulable replicas", {"m1": 5}, {"m1": 4}, {"m1": 1}, {"m1": 4}),
    ("1 cluster with all unschedulable replicas", {"m1": 5}, {"m1": 0}, {"m1": 5}, {"m1": 0}),
    ("4 ready and 2 unschedulable", {"m1": 5}, {"m1": 4}, {"m1": 2}, {"m1": 4}),
    ("0 ready and 2 unschedulable", {"m1": 5}, {"m1": 0}, {"m1": 2}, {"m1": 3}),
    ("6 ready and 2 unschedulable", {"m1": 5}, {"m1": 6}, {"m1": 2}, {"m1": 5}),
    (
        "2 clusters without unschedulable replicas",
        {"m1": 5, "m2": 10}, {"m1": 5, "m2": 10}, {"m1": 0, "m2": 0}, {"m1": 5, "m2": 10},
    ),
    (
        "2 clusters with 1 unschedulable replica",
        {"m1": 5, "m2": 10}, {"m1": 5, "m2": 9}, {"m1": 0, "m2": 1}, {"m1": 5, "m2": 9},
    ),
    (
        "2 clusters with unschedulable replicas on each",
        {"m1": 5, "m2": 10}, {"m1": 2, "m2": 3}, {"m1": 3, "m2": 7}, {"m1": 2, "m2": 3},
    ),
    (
        "2 clusters, one without status",
        {"m1": 5, "m2": 10}, {"m1": 2}, {"m1": 3, "m2": 7}, {"m1": 2, "m2": 3},
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    ("assigned", "ready", "unschedulable", "expected"),
    [pytest.param(*case[1:], id=case[0]) for case in KARMADA_CASES],
)
def test_karmadas_cases(
    first: pipeline.Placement,
    assigned: dict[str, int],
    ready: dict[str, int],
    unschedulable: dict[str, int],
    expected: dict[str, int],
) -> None:
    binding = web(first)
    targets = tuple(work.TargetCluster(name=n, replicas=r) for n, r in assigned.items())
    binding = dataclasses.replace(binding, spec=dataclasses.replace(binding.spec, clusters=targets))
    found = {
        name: workload(ready.get(name), *([(0, count)] if count else []))
        for name, count in unschedulable.items()
    }
    assert placed(stage(first, found).lower(binding)) == expected
