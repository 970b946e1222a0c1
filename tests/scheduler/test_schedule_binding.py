"""`schedule()` end to end: what a binding looks like after Karmada's scheduler has seen it
(Karmada's scheduler.go and scheduler_test.go behaviours).

Aspects covered:
- success: result, condition Scheduled=True/Success, applied-placement annotation, schedule time;
- no cluster fits: FitError text, reason NoClusterFit, result cleared as Karmada patches it;
- Unschedulable and SchedulerError: previous result and annotation kept, reason and message;
- a Divided workload keeps its result when only capacity changes; a deleted cluster moves it;
- ClusterLocality keeps Duplicated workloads where they run;
- clusterAffinities: first term, resuming from the term in use, restarting after a triggered
  reschedule, falling back, all terms failing;
- resources without replicas go to every feasible cluster; an estimate of -1 is discarded as
  unbounded; deleting clusters take nothing but count in the FitError total;
  ClusterResourceBindings; other scheduler names.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from scheduler_builders import (
    divided,
    dynamic,
    make_binding,
    make_cluster,
    spread_by,
    summary,
    targets,
)

from gitfleet.model import cluster, work
from gitfleet.scheduler import ClusterIndex, schedule

NOW = "2026-05-01T10:00:00Z"
NO_MATCH = "cluster(s) did not match the placement cluster affinity constraint."
APPLIED = "policy.karmada.io/applied-placement"
TAINT = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}


def _fleet(**capacity: int) -> list[cluster.Cluster]:
    """One cluster per keyword, with that many CPUs (pods 110)."""
    return [
        make_cluster(name, labels={"team": "web"}, resource_summary=summary(cpu=str(cpu)))
        for name, cpu in capacity.items()
    ]


def _condition(binding: work.ResourceBinding) -> tuple[str, str, str]:
    (cond,) = [c for c in binding.status.conditions if c.type == "Scheduled"]
    return cond.status, cond.reason, cond.message


def test_first_schedule_writes_result_condition_annotation_and_time() -> None:
    binding = make_binding(
        replicas=6, requests={"cpu": "1"}, placement={"replicaScheduling": dynamic()}
    )
    outcome = schedule(binding, _fleet(a=4, b=8), now=NOW)
    assert outcome.rescheduled and outcome.error is None
    assert targets(outcome.binding.spec.clusters) == {"a": 2, "b": 4}
    assert _condition(outcome.binding) == (
        "True",
        "Success",
        "Binding has been scheduled successfully.",
    )
    assert outcome.binding.status.last_scheduled_time == NOW
    applied = json.loads((outcome.binding.metadata.annotations or {})[APPLIED])
    assert applied == {"replicaScheduling": dynamic()}
    assert outcome.diagnosis.decision == "never scheduled"


def test_no_cluster_fits_keeps_the_previous_result() -> None:
    """Karmada would clear the result (NoClusterFit); gitfleet keeps it: a typo in a policy
    must never remove a workload from its clusters."""
    clusters = [
        make_cluster("t1", taints=[TAINT]),
        make_cluster("t2", taints=[TAINT]),
        *_fleet(x=1, y=1, z=1),
    ]
    previous = make_binding(replicas=1, placement={}, clusters={"x": 1, "y": 1})
    binding = make_binding(
        replicas=1, placement={"clusterAffinity": {"clusterNames": ["t1", "t2"]}}
    )
    outcome = schedule(binding, clusters, previous, now=NOW)
    message = (
        "0/5 clusters are available: 2 cluster(s) had untolerated taint "
        "{dedicated=gpu:NoSchedule}, 3 cluster(s) did not match the placement cluster affinity "
        "constraint."
    )
    assert outcome.error == message
    assert _condition(outcome.binding) == ("False", "NoClusterFit", message)
    assert targets(outcome.binding.spec.clusters) == {"x": 1, "y": 1}
    assert APPLIED in (outcome.binding.metadata.annotations or {})


def test_fit_error_reasons_sorted_as_text() -> None:
    clusters = [make_cluster("noapi", apis=[], region="eu"), make_cluster("noregion")]
    placement = {"spreadConstraints": [spread_by("region", 1, 1), spread_by("cluster", 1, 1)]}
    outcome = schedule(make_binding(replicas=1, placement=placement), clusters)
    assert outcome.error == (
        "0/2 clusters are available: 1 cluster(s) did not have region property, "
        "1 cluster(s) did not have the API resource."
    )


def test_unschedulable_keeps_the_previous_result() -> None:
    placement = {"replicaScheduling": dynamic()}
    first = schedule(
        make_binding(replicas=4, requests={"cpu": "1"}, placement=placement),
        _fleet(a=4, b=4),
        now=NOW,
    )
    grown = make_binding(replicas=40, requests={"cpu": "1"}, placement=placement)
    outcome = schedule(grown, _fleet(a=4, b=4), first.binding, now="2026-05-02T00:00:00Z")
    message = (
        "failed to assign replicas: failed to scale up: "
        "Clusters available replicas 8 are not enough to schedule."
    )
    assert outcome.rescheduled and outcome.error == message
    assert _condition(outcome.binding) == ("False", "Unschedulable", message)
    assert outcome.binding.spec.clusters == first.binding.spec.clusters
    assert outcome.binding.status.last_scheduled_time == NOW, "only a success moves the time"
    assert outcome.binding.metadata.annotations == first.binding.metadata.annotations


def test_selection_error_is_a_scheduler_error() -> None:
    placement = {"replicaScheduling": dynamic(), "spreadConstraints": [spread_by("cluster", 1, 2)]}
    outcome = schedule(
        make_binding(replicas=50, requests={"cpu": "1"}, placement=placement), _fleet(a=4, b=4, c=4)
    )
    assert (
        outcome.error == "failed to select clusters: no enough resource when selecting 2 clusters"
    )
    assert _condition(outcome.binding)[:2] == ("False", "SchedulerError")
    assert outcome.binding.spec.clusters == ()


def test_divided_result_is_sticky_until_a_trigger() -> None:
    placement = {"replicaScheduling": dynamic()}
    binding = make_binding(replicas=6, requests={"cpu": "1"}, placement=placement)
    first = schedule(binding, _fleet(a=4, b=8), now=NOW)
    richer = _fleet(a=100, b=1, c=100)
    again = schedule(binding, richer, first.binding, now="2026-05-02T00:00:00Z")
    assert not again.rescheduled
    assert again.binding.spec.clusters == first.binding.spec.clusters
    assert again.binding.status == first.binding.status
    assert again.diagnosis.decision == "divided workload unchanged: previous result kept"


def test_deleted_cluster_moves_its_replicas() -> None:
    placement = {"replicaScheduling": dynamic()}
    binding = make_binding(replicas=6, requests={"cpu": "1"}, placement=placement)
    first = schedule(binding, _fleet(a=4, b=8), now=NOW)
    without_b = [
        make_cluster("a", resource_summary=summary(cpu="8")),
        make_cluster("b", deleting=True),
    ]
    outcome = schedule(binding, without_b, first.binding, now=NOW)
    assert outcome.rescheduled
    assert targets(outcome.binding.spec.clusters) == {"a": 6}


def test_locality_keeps_a_duplicated_workload_where_it_runs() -> None:
    placement = {"spreadConstraints": [spread_by("cluster", 1, 1)]}
    binding = make_binding(replicas=2, requests={"cpu": "1"}, placement=placement)
    assert targets(schedule(binding, _fleet(a=4, b=100)).binding.spec.clusters) == {"b": 2}
    previous = make_binding(replicas=2, placement=placement, clusters={"a": 2})
    assert targets(schedule(binding, _fleet(a=4, b=100), previous).binding.spec.clusters) == {
        "a": 2
    }


TERMS = {
    "clusterAffinities": [
        {"affinityName": "first", "clusterNames": ["a"]},
        {"affinityName": "second", "clusterNames": ["b"]},
    ],
    "replicaScheduling": divided(dynamicWeight="AvailableReplicas"),
}


@pytest.mark.parametrize(
    ("status", "reschedule_at", "clusters", "expected", "observed"),
    [
        pytest.param(
            {},
            None,
            {"a": 4, "b": 4},
            {"a": 2},
            "first",
            id="successful scheduling with first affinity",
        ),
        pytest.param(
            {"schedulerObservingAffinityName": "second"},
            None,
            {"a": 4, "b": 4},
            {"b": 2},
            "second",
            id="resumes from observed affinity",
        ),
        pytest.param(
            {
                "schedulerObservingAffinityName": "second",
                "lastScheduledTime": "2026-01-01T00:00:00Z",
            },
            "2026-02-01T00:00:00Z",
            {"a": 4, "b": 4},
            {"a": 2},
            "first",
            id="explicit rescheduling restarts from first affinity",
        ),
        pytest.param(
            {}, None, {"b": 4}, {"b": 2}, "second", id="successful scheduling with second affinity"
        ),
        pytest.param(
            {}, None, {"a": 1, "b": 4}, {"b": 2}, "second", id="first term lacks capacity"
        ),
    ],
)
def test_cluster_affinities(
    status: dict[str, Any],
    reschedule_at: str | None,
    clusters: dict[str, int],
    expected: dict[str, int],
    observed: str,
) -> None:
    binding = make_binding(
        replicas=2,
        requests={"cpu": "1"},
        placement=TERMS,
        status=status,
        reschedule_at=reschedule_at,
    )
    outcome = schedule(binding, _fleet(**clusters), now=NOW)
    assert outcome.error is None
    assert targets(outcome.binding.spec.clusters) == expected
    assert outcome.binding.status.scheduler_observed_affinity_name == observed


def test_all_affinity_terms_failing_to_fit_keep_result_and_term() -> None:
    status = {"schedulerObservingAffinityName": "first"}
    binding = make_binding(replicas=2, placement=TERMS, status=status, clusters={"a": 2})
    outcome = schedule(binding, _fleet(c=4))
    assert outcome.error == f"0/1 clusters are available: 1 {NO_MATCH}"
    assert targets(outcome.binding.spec.clusters) == {"a": 2}
    assert outcome.binding.status.scheduler_observed_affinity_name == "first"
    assert [a.affinity_name for a in outcome.diagnosis.attempts] == ["first", "second"]


def test_all_affinity_terms_short_of_capacity_keep_result() -> None:
    binding = make_binding(replicas=20, requests={"cpu": "1"}, placement=TERMS, clusters={"a": 2})
    outcome = schedule(binding, _fleet(a=2, b=2))
    assert outcome.error is not None and outcome.error.startswith("failed to assign replicas")
    assert targets(outcome.binding.spec.clusters) == {"a": 2}
    assert _condition(outcome.binding)[1] == "Unschedulable"


def test_resources_without_replicas_go_to_every_feasible_cluster() -> None:
    binding = make_binding(
        kind="ConfigMap", api_version="v1", placement={"replicaScheduling": dynamic()}
    )
    clusters = [*_fleet(a=1, b=1), make_cluster("t", taints=[TAINT])]
    assert targets(schedule(binding, clusters).binding.spec.clusters) == {"a": 0, "b": 0}


def test_workload_scaled_to_zero_gets_an_empty_placement() -> None:
    binding = make_binding(
        replicas=0, requests={"cpu": "1"}, placement={"replicaScheduling": dynamic()}
    )
    outcome = schedule(binding, _fleet(a=1, b=1))
    assert outcome.error is None and outcome.binding.spec.clusters == ()


def test_an_estimate_wrapping_to_minus_one_counts_as_unbounded() -> None:
    """4294967295 pods left is -1 in int32, the answer Karmada's calAvailableReplicas discards:
    the cluster keeps the unbounded estimate, which becomes the binding's replicas."""
    clusters = [
        make_cluster("a", resource_summary=summary(pods="4294967295")),
        make_cluster("b", resource_summary=summary(pods=7)),
    ]
    binding = make_binding(replicas=10, uid="u1", placement={"replicaScheduling": dynamic()})
    outcome = schedule(binding, clusters)
    assert targets(outcome.binding.spec.clusters) == {"a": 6, "b": 4}


def test_deleting_cluster_takes_nothing_but_counts() -> None:
    clusters = [make_cluster("old", deleting=True), make_cluster("x")]
    outcome = schedule(
        make_binding(replicas=1, placement={"clusterAffinity": {"clusterNames": ["old"]}}), clusters
    )
    assert outcome.error == f"0/2 clusters are available: 1 {NO_MATCH}"


def test_cluster_resource_binding() -> None:
    doc = make_binding(kind="Namespace", api_version="v1", namespace="", placement={}).to_doc()
    doc["kind"] = "ClusterResourceBinding"
    crb = work.ClusterResourceBinding.from_doc(doc)
    ns_api = [{"groupVersion": "v1", "resources": [{"name": "namespaces", "kind": "Namespace"}]}]
    outcome = schedule(crb, [make_cluster("a", apis=ns_api), make_cluster("b")])
    assert isinstance(outcome.binding, work.ClusterResourceBinding)
    assert targets(outcome.binding.spec.clusters) == {"a": 0}


def test_other_scheduler_leaves_binding_alone() -> None:
    previous = make_binding(replicas=2, placement={}, clusters={"a": 2})
    binding = make_binding(replicas=5, placement={}, schedulerName="custom")
    outcome = schedule(binding, _fleet(a=1, b=1), previous)
    assert not outcome.rescheduled
    assert targets(outcome.binding.spec.clusters) == {"a": 2}
    assert outcome.binding.spec.replicas == 5


def test_condition_transition_time_moves_only_when_status_changes() -> None:
    placement = {"replicaScheduling": dynamic()}
    first = schedule(
        make_binding(replicas=2, requests={"cpu": "1"}, placement=placement), _fleet(a=4), now=NOW
    )
    failed = schedule(
        make_binding(replicas=9, requests={"cpu": "1"}, placement=placement),
        _fleet(a=4),
        first.binding,
        now="2026-05-02T00:00:00Z",
    )
    again = schedule(
        make_binding(replicas=9, requests={"cpu": "1"}, placement=placement),
        _fleet(a=4),
        failed.binding,
        now="2026-05-03T00:00:00Z",
    )
    times = [
        next(c for c in o.binding.status.conditions if c.type == "Scheduled").last_transition_time
        for o in (first, failed, again)
    ]
    assert times == [NOW, "2026-05-02T00:00:00Z", "2026-05-02T00:00:00Z"]


def test_schedule_time_without_a_clock_follows_the_trigger() -> None:
    placement = {"replicaScheduling": dynamic()}
    binding = make_binding(
        replicas=2, requests={"cpu": "1"}, placement=placement, reschedule_at="2026-01-01T00:00:00Z"
    )
    outcome = schedule(binding, _fleet(a=4))
    assert outcome.binding.status.last_scheduled_time == "2026-01-01T00:00:00Z"
    again = schedule(binding, _fleet(a=4, b=100), outcome.binding)
    assert not again.rescheduled, "the trigger is not after the last schedule"


def test_index_and_list_give_the_same_outcome() -> None:
    clusters = _fleet(a=3, b=5, c=7)
    binding = make_binding(
        replicas=7, requests={"cpu": "500m"}, placement={"replicaScheduling": dynamic()}
    )
    assert schedule(binding, clusters) == schedule(binding, ClusterIndex(clusters))


def test_bindings_posing_the_same_problem_share_one_run() -> None:
    fleet = ClusterIndex(_fleet(a=3, b=5, c=7))
    placement = {"replicaScheduling": dynamic()}
    web = make_binding(name="web", replicas=7, requests={"cpu": "500m"}, placement=placement)
    api = make_binding(
        name="api", namespace="shop", replicas=7, requests={"cpu": "500m"}, placement=placement
    )
    first, second = schedule(web, fleet), schedule(api, fleet)
    assert second.diagnosis.attempts[0] is first.diagnosis.attempts[0]
    assert (
        second.binding.spec.clusters == schedule(api, _fleet(a=3, b=5, c=7)).binding.spec.clusters
    )
    assert second.binding.spec.resource.name == "api"


@pytest.mark.parametrize(
    "other",
    [
        {"requests": {"cpu": "2"}},
        {"replicas": 8},
        {"clusters": {"a": 7}},
        {"kind": "StatefulSet"},
        {"uid": "d43fdeeb-d750-4e2b-bee3-64eb94534f4c"},
    ],
)
def test_a_binding_that_differs_in_what_scheduling_reads_is_scheduled_itself(
    other: dict[str, Any],
) -> None:
    clusters = _fleet(a=3, b=5, c=7)
    fleet = ClusterIndex(clusters)
    weights = divided(
        staticWeightList=[
            {"targetCluster": {"clusterNames": ["a"]}, "weight": 1},
            {"targetCluster": {"clusterNames": ["b"]}, "weight": 1},
        ]
    )
    fields: dict[str, Any] = {"replicas": 7, "requests": {"cpu": "500m"}, **other}
    fields["placement"] = {"replicaScheduling": weights}
    base = make_binding(replicas=7, requests={"cpu": "500m"}, placement=fields["placement"])
    changed = make_binding(name="api", **fields)
    first, second = schedule(base, fleet), schedule(changed, fleet)
    assert second.diagnosis.attempts[0] is not first.diagnosis.attempts[0]
    alone = schedule(changed, clusters)
    assert second.binding.spec.clusters == alone.binding.spec.clusters
    assert second.diagnosis.attempts == alone.diagnosis.attempts
