"""When Karmada schedules a binding again, and when it keeps the previous result
(Karmada's helper_test.go TestPlacementChanged/TestClusterAffinitiesChanged, scheduler.go
doScheduleBinding, util IsBindingReplicasChanged and RescheduleRequired).

Aspects covered:
- placement compared with the applied one; for clusterAffinities only the term in use;
  an unreadable annotation counts as unchanged; the annotation is read as Karmada decodes it
  (unknown fields, nulls and zero values are as good as absent, `null` is an empty placement);
- replicas no longer adding up (Divided: the sum; Duplicated: any cluster);
- a reschedule triggered after the last schedule, not before it, nor before the first one;
- resources without replicas and Duplicated workloads always; a deleted or vanished cluster
  of the result; otherwise a Divided workload keeps its result;
- other scheduler names and suspended scheduling are left alone.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from scheduler_builders import dynamic, make_binding, make_cluster

from gitfleet.model import work
from gitfleet.scheduler import ClusterIndex, _reschedule

AFF = {"clusterAffinity": {"clusterNames": ["a"]}}
TOL = {"clusterTolerations": [{"key": "k", "operator": "Exists"}]}
SPREAD = {"spreadConstraints": [{"spreadByField": "cluster", "minGroups": 1, "maxGroups": 2}]}
DUP = {"replicaScheduling": {"replicaSchedulingType": "Duplicated"}}
SPREAD_MIN = {"spreadConstraints": [{"spreadByField": "cluster", "minGroups": 1}]}


def _terms(*terms: tuple[str, list[str]]) -> dict[str, Any]:
    return {"clusterAffinities": [{"affinityName": n, "clusterNames": c} for n, c in terms]}


TWO = _terms(("one", ["a"]), ("two", ["b"]))


@pytest.mark.parametrize(
    ("current", "applied", "observed", "changed"),
    [
        pytest.param(AFF, None, "", True, id="nil appliedPlacement"),
        pytest.param(AFF | TOL, AFF | TOL, "", False, id="same placement and appliedPlacement"),
        pytest.param(
            {"clusterAffinity": {"clusterNames": ["b"]}},
            AFF,
            "",
            True,
            id="different ClusterAffinity",
        ),
        pytest.param(AFF | TOL, AFF, "", True, id="different ClusterTolerations"),
        pytest.param(AFF | SPREAD, AFF, "", True, id="different SpreadConstraints"),
        pytest.param(AFF | DUP, AFF, "", True, id="different ReplicaScheduling"),
        pytest.param(
            TWO,
            _terms(("one", ["a"])),
            "",
            True,
            id="different ClusterAffinities with empty observed name",
        ),
        pytest.param(
            _terms(("one", ["z"]), ("two", ["b"])),
            TWO,
            "one",
            True,
            id="update the target ClusterAffinityTerm",
        ),
        pytest.param(
            _terms(("two", ["b"])), TWO, "one", True, id="delete the target ClusterAffinityTerm"
        ),
        pytest.param({}, TWO, "one", True, id="delete the whole ClusterAffinities"),
        pytest.param(
            _terms(("one", ["a"]), ("two", ["b"]), ("three", ["c"])),
            TWO,
            "one",
            False,
            id="add a term, target unchanged",
        ),
        pytest.param(
            _terms(("one", ["a"]), ("two", ["z"])),
            TWO,
            "one",
            False,
            id="update another term, target unchanged",
        ),
        pytest.param(
            _terms(("one", ["a"])), TWO, "one", False, id="delete another term, target unchanged"
        ),
        pytest.param(AFF, "{not json", "", False, id="invalid applied placement string"),
        pytest.param(AFF, "[" * 100_000 + "]" * 100_000, "", False, id="nested too deep"),
        pytest.param(
            AFF, AFF | {"unknownField": {"a": 1}}, "", False, id="a field Karmada does not know"
        ),
        pytest.param(
            AFF,
            AFF | {"clusterTolerations": None, "replicaScheduling": None},
            "",
            False,
            id="null fields",
        ),
        pytest.param(
            SPREAD_MIN,
            {"spreadConstraints": [{"spreadByField": "cluster", "minGroups": 1, "maxGroups": 0}]},
            "",
            False,
            id="a zero value written out",
        ),
        pytest.param(
            _terms(("one", ["a"])),
            {"clusterAffinities": [{"affinityName": "one", "clusterNames": ["a"], "x": 1}]},
            "one",
            False,
            id="a field Karmada does not know in the term in use",
        ),
        pytest.param(AFF, "null", "", True, id="null reads as an empty placement"),
        pytest.param({}, "null", "", False, id="null against an empty placement"),
        pytest.param(AFF, "[]", "", False, id="an array is unreadable"),
        pytest.param(AFF, {"clusterAffinity": "a"}, "", False, id="a field of the wrong type"),
    ],
)
def test_placement_changed(
    current: dict[str, Any], applied: Any, observed: str, changed: bool
) -> None:
    text = applied if isinstance(applied, str) else ("" if applied is None else json.dumps(applied))
    assert _reschedule.placement_changed(current, text, observed) is changed


NOW = "2026-03-01T00:00:00Z"
EARLIER, LATER = "2026-02-01T00:00:00Z", "2026-04-01T00:00:00Z"


@pytest.mark.parametrize(
    ("triggered", "last", "required"),
    [
        pytest.param(None, NOW, False, id="never triggered"),
        pytest.param(LATER, NOW, True, id="triggered after the last schedule"),
        pytest.param(EARLIER, NOW, False, id="triggered before the last schedule"),
        pytest.param(NOW, NOW, False, id="triggered at the last schedule"),
        pytest.param(LATER, None, False, id="not scheduled yet"),
        pytest.param("2026-03-01T01:00:00+02:00", NOW, False, id="offsets compared as instants"),
    ],
)
def test_reschedule_required(triggered: str | None, last: str | None, required: bool) -> None:
    assert _reschedule.reschedule_required(triggered, last) is required


def _decide(
    binding: work.ResourceBinding, *, applied: dict[str, Any] | None = None, clusters: Any = None
) -> _reschedule.Decision:
    fleet = ClusterIndex(
        clusters if clusters is not None else [make_cluster("a"), make_cluster("b")]
    )
    assert binding.spec.placement is not None
    doc, text = fleet.placement_document(binding.spec.placement)
    applied_text = text if applied is None else json.dumps(applied)
    return _reschedule.decide(binding.spec, binding.status, doc, applied_text, fleet)


DIVIDED = {"replicaScheduling": dynamic()}
SCHEDULED = {"lastScheduledTime": NOW}


@pytest.mark.parametrize(
    ("binding", "clusters", "reschedule", "reason"),
    [
        pytest.param(
            make_binding(replicas=3, placement=DIVIDED, clusters={"a": 3}),
            None,
            False,
            "divided workload unchanged",
            id="divided unchanged",
        ),
        pytest.param(
            make_binding(replicas=4, placement=DIVIDED, clusters={"a": 3}),
            None,
            True,
            "replicas changed (3 placed, 4 desired)",
            id="divided sum changed",
        ),
        pytest.param(
            make_binding(replicas=3, placement=DUP, clusters={"a": 3, "b": 2}),
            None,
            True,
            "replicas changed",
            id="duplicated cluster differs",
        ),
        pytest.param(
            make_binding(replicas=3, placement=DUP, clusters={"a": 3}),
            None,
            True,
            "duplicated workloads are always scheduled",
            id="duplicated always",
        ),
        pytest.param(
            make_binding(kind="ConfigMap", api_version="v1", placement=DIVIDED, clusters={"a": 0}),
            None,
            True,
            "without replicas",
            id="non-workload always",
        ),
        pytest.param(
            make_binding(
                replicas=3,
                placement=DIVIDED,
                clusters={"a": 3},
                reschedule_at=LATER,
                status=SCHEDULED,
            ),
            None,
            True,
            "reschedule triggered",
            id="triggered",
        ),
        pytest.param(
            make_binding(
                replicas=3,
                placement=DIVIDED,
                clusters={"a": 3},
                reschedule_at=EARLIER,
                status=SCHEDULED,
            ),
            None,
            False,
            "unchanged",
            id="trigger already handled",
        ),
        pytest.param(
            make_binding(replicas=3, placement=DIVIDED, clusters={"a": 3}),
            [make_cluster("a", deleting=True)],
            True,
            "target cluster(s) a deleted",
            id="target being deleted",
        ),
        pytest.param(
            make_binding(replicas=3, placement=DIVIDED, clusters={"gone": 3}),
            None,
            True,
            "target cluster(s) gone deleted",
            id="target vanished",
        ),
        pytest.param(
            make_binding(replicas=3, placement=DIVIDED, clusters={"a": 3}, schedulerName="other"),
            None,
            False,
            "schedulerName other",
            id="other scheduler",
        ),
        pytest.param(
            make_binding(
                replicas=9, placement=DIVIDED, clusters={"a": 3}, suspension={"scheduling": True}
            ),
            None,
            False,
            "suspended",
            id="scheduling suspended",
        ),
    ],
)
def test_triggers(
    binding: work.ResourceBinding, clusters: Any, reschedule: bool, reason: str
) -> None:
    decision = _decide(binding, clusters=clusters)
    assert decision.reschedule is reschedule
    assert reason in decision.reason


def test_never_scheduled_and_changed_placement() -> None:
    binding = make_binding(replicas=3, placement=DIVIDED, clusters={"a": 3})
    fleet = ClusterIndex([make_cluster("a")])
    assert binding.spec.placement is not None
    doc, _ = fleet.placement_document(binding.spec.placement)
    first = _reschedule.decide(binding.spec, binding.status, doc, "", fleet)
    assert (first.reschedule, first.reason) == (True, "never scheduled")
    other = _decide(binding, applied={"replicaScheduling": {"replicaSchedulingType": "Duplicated"}})
    assert (other.reschedule, other.reason) == (True, "placement changed since the last schedule")
