"""Running one case of Karmada's scheduler arithmetic (the `op`s of scheduler-cases.yaml) on
gitfleet's scheduler, and checking its expectation. Used by the test that reads the shared
case file and by the tables that port those cases. Importable as `karmada_case_ops`."""

from __future__ import annotations

import re
from typing import Any

import pytest
from scheduler_builders import (
    candidate,
    divided,
    make_binding,
    make_cluster,
    make_placement,
    static,
    summary,
    targets,
)

from gitfleet.model import policy, work
from gitfleet.scheduler import assignment, estimator, framework, spread, webster

Doc = dict[str, Any]

_STRATEGIES = {
    "DynamicWeight": assignment.Strategy.DYNAMIC_WEIGHT,
    "Aggregated": assignment.Strategy.AGGREGATED,
}


def _spec(
    replicas: int, placement: Doc, prev: Doc | None = None, uid: str = ""
) -> work.ResourceBindingSpec:
    return make_binding(replicas=replicas, placement=placement, clusters=prev, uid=uid).spec


def _dynamic_placement(strategy: str) -> Doc:
    if strategy == "Aggregated":
        return {"replicaScheduling": divided("Aggregated")}
    return {"replicaScheduling": divided(dynamicWeight="AvailableReplicas")}


def _constraint(doc: Doc) -> policy.SpreadConstraint:
    return make_placement(spreadConstraints=[doc]).spread_constraints[0]


def run(op: str, data: Doc) -> Any:
    """The result of one case, as a dict, list or int comparable with its expectation."""
    if op == "webster":
        return dict(
            webster.allocate_seats(
                data["new_seats"],
                data["votes"],
                data["initial"],
                descending=data["tiebreak"] == "desc",
            )
        )
    if op == "dispense":
        init = list(data["init"].items())
        return dict(webster.dispense(data["num"], list(data["weights"].items()), init, data["uid"]))
    if op == "spread_by_tc":
        return dict(webster.dispense(data["num"], list(data["weights"].items())))
    if op == "static_weight":
        weights = data["staticWeightList"]
        rs = divided() if weights is None else divided(staticWeightList=weights)
        spec = _spec(data["replicas"], {"replicaScheduling": rs})
        return dict(assignment.divide([candidate(n) for n in data["candidates"]], spec))
    if op == "assign_static":
        spec = _spec(data["replicas"], {"replicaScheduling": static(data["weights"])})
        chosen = [candidate(n) for n in data["weights"]]
        return targets(
            assignment.assign_replicas(
                chosen, spec, work.ResourceBindingStatus(), fresh=False, trace=[]
            )
        )
    if op in ("assign_dynamic", "scale_up"):
        spec = _spec(data["replicas"], _dynamic_placement(data["strategy"]), data["prev"])
        chosen = [candidate(n, available=a) for n, a in data["candidates"]]
        return dict(assignment.divide(chosen, spec))
    if op == "divide":
        weights = [(n, w) for n, w in data["available"]]
        return dict(
            assignment.divide_dynamic(_STRATEGIES[data["strategy"]], data["target"], weights)
        )
    if op == "duplicated":
        spec = _spec(data["replicas"], {})
        return dict(assignment.divide([candidate(n) for n in data["candidates"]], spec))
    if op == "assign_overflow":
        return _overflow(data)
    if op == "select_cluster":
        placement = make_placement(
            spreadConstraints=[data["constraint"]],
            **(
                {"replicaScheduling": data["replicaScheduling"]}
                if data["replicaScheduling"]
                else {}
            ),
        )
        groups = spread.Groups(
            clusters=tuple(
                candidate(c["name"], score=c["score"], available=c["available"])
                for c in data["clusters"]
            )
        )
        return [
            c.name
            for c in spread.select_best_clusters(placement, groups, data["needReplicas"]).clusters
        ]
    if op == "select_region":
        regions = {
            name: spread.Region(
                name,
                r["score"],
                tuple(
                    candidate(c["name"], score=c["score"], available=c["available"])
                    for c in r["clusters"]
                ),
            )
            for name, r in data["regions"].items()
        }
        chosen = spread.select_by_region(
            regions,
            _constraint(data["region"] | {"spreadByField": "region"}),
            _constraint(data["cluster"] | {"spreadByField": "cluster"}),
        )
        return [c.name for c in chosen.clusters]
    if op == "estimate_general":
        rs = data["resourceSummary"]
        c = (
            make_cluster("member", resource_summary=rs)
            if rs is not None
            else make_cluster("member")
        )
        requirements = _requirements(data["resourceRequest"])
        return estimator.max_available_replicas(c, requirements)
    if op == "estimate_models":
        c = make_cluster(
            "member",
            resource_models=data["resourceModels"],
            resource_summary=summary(pods=110, cpu=None, memory=None)
            | {"allocatableModelings": data["allocatableModelings"]},
        )
        request = _requirements(data["resourceRequest"])
        assert request is not None
        return estimator.Capacity(c).by_models(estimator.Request.of(request))
    raise AssertionError(f"unknown op {op}")


def _requirements(request: Doc | None) -> work.ReplicaRequirements | None:
    if request is None:
        return None
    return make_binding(requests=request).spec.replica_requirements


def _overflow(data: Doc) -> dict[str, int]:
    placement = {
        "clusterAffinities": [
            {
                "affinityName": data["observedAffinity"],
                "clusterNames": [c["name"] for c in data["clusters"] if c["overflowOrder"] == 0],
                "overflowAffinities": [{"affinityName": "overflow", "clusterNames": ["x"]}],
            }
        ],
        "replicaScheduling": _dynamic_placement(data["strategy"])["replicaScheduling"],
    }
    spec = _spec(data["replicas"], placement, data["prev"])
    status = work.ResourceBindingStatus(scheduler_observed_affinity_name=data["observedAffinity"])
    chosen = [
        candidate(
            c["name"],
            available=c["available"],
            allocatable=c["allocatable"],
            overflow_order=c["overflowOrder"],
        )
        for c in data["clusters"]
    ]
    return targets(assignment.assign_replicas(chosen, spec, status, fresh=False, trace=[]))


def check(case: Doc) -> None:
    """Run `case` and assert its expectation (expect, expect_raw or expect_error)."""
    op, data = case["op"], case["input"]
    if "expect_error" in case:
        expected = str(case["expect_error"])
        with pytest.raises(framework.ScheduleError) as caught:
            run(op, data)
        message = str(caught.value)
        if expected.startswith("Unschedulable"):
            assert isinstance(caught.value, framework.UnschedulableError), message
            detail = expected.partition(": ")[2]
            assert detail in message
            if m := re.match(r"Unschedulable \(available (\d+)", expected):
                assert f"available replicas {m.group(1)} " in message
        else:
            assert message == expected
        return
    got = run(op, data)
    if "expect_raw" in case:
        assert got == case["expect_raw"]
    elif isinstance(case["expect"], dict):
        assert {k: v for k, v in got.items() if v} == {k: v for k, v in case["expect"].items() if v}
    else:
        assert got == case["expect"]
