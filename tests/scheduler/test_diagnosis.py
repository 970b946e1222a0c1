"""The explanation `gitfleet explain` prints (Diagnosis.to_json and lines).

Aspects covered:
- stable top-level and per-attempt keys, JSON-serializable, sorted clusters;
- each cluster's verdict from each filter plugin, scores per plugin, candidates in scheduling
  order with their capacity, the spread selection and the replica arithmetic;
- the affinity terms tried and why; a kept result explains why it was kept;
- the failure's reason and message.
"""

from __future__ import annotations

import json

from scheduler_builders import divided, dynamic, make_binding, make_cluster, spread_by, summary

from gitfleet.scheduler import schedule

TAINT = {"key": "k", "value": "v", "effect": "NoSchedule"}


def _clusters() -> list:
    return [
        make_cluster("b", resource_summary=summary(cpu="8")),
        make_cluster("a", resource_summary=summary(cpu="4")),
        make_cluster("t", taints=[TAINT], resource_summary=summary(cpu="64")),
    ]


def test_json_of_a_successful_schedule() -> None:
    placement = {"replicaScheduling": dynamic(), "spreadConstraints": [spread_by("cluster", 1, 2)]}
    outcome = schedule(
        make_binding(replicas=3, requests={"cpu": "1"}, placement=placement), _clusters()
    )
    doc = outcome.diagnosis.to_json()
    assert json.loads(json.dumps(doc)) == doc
    assert list(doc) == [
        "resource",
        "rescheduled",
        "decision",
        "affinity",
        "attempts",
        "result",
        "error",
    ]
    assert doc["resource"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "namespace": "default",
        "name": "web",
    }
    assert (doc["rescheduled"], doc["decision"], doc["error"]) == (True, "never scheduled", None)
    (attempt,) = doc["attempts"]
    assert list(attempt) == [
        "affinityName",
        "filters",
        "scores",
        "candidates",
        "selection",
        "assignment",
        "result",
        "error",
    ]
    assert [f["cluster"] for f in attempt["filters"]] == ["a", "b", "t"]
    taint = attempt["filters"][2]
    assert taint["feasible"] is False
    assert {
        "plugin": "TaintToleration",
        "code": "Unschedulable",
        "reasons": ["cluster(s) had untolerated taint {k=v:NoSchedule}"],
    } in taint["verdicts"]
    assert attempt["scores"] == {
        "ClusterAffinity": {"a": 0, "b": 0},
        "ClusterLocality": {"a": 0, "b": 0},
    }
    assert attempt["candidates"] == [
        {"name": "b", "score": 0, "overflowOrder": 0, "allocatable": 8, "available": 8},
        {"name": "a", "score": 0, "overflowOrder": 0, "allocatable": 4, "available": 4},
    ]
    assert attempt["selection"]["clusters"] == ["b", "a"]
    assert attempt["assignment"][0] == "strategy DynamicWeight, 3 replicas, Steady mode"
    assert doc["result"] == [{"name": "a", "replicas": 1}, {"name": "b", "replicas": 2}]


def test_lines_explain_verdicts_selection_and_arithmetic() -> None:
    outcome = schedule(
        make_binding(replicas=3, requests={"cpu": "1"}, placement={"replicaScheduling": dynamic()}),
        _clusters(),
    )
    lines = outcome.diagnosis.lines()
    assert lines[0] == "Deployment default/web: scheduler ran: never scheduled"
    assert "2/3 clusters feasible" in lines
    assert "  t: TaintToleration: cluster(s) had untolerated taint {k=v:NoSchedule}" in lines
    assert "  b: 0, 8, 8, 0" in lines
    assert any(line.startswith("assign: Webster(3) over b=8, a=4") for line in lines)
    assert lines[-1] == "result: a=1, b=2"


def test_affinity_terms_and_failure() -> None:
    placement = {
        "clusterAffinities": [
            {"affinityName": "tainted", "clusterNames": ["t"]},
            {"affinityName": "small", "clusterNames": ["a"]},
        ],
        "replicaScheduling": divided(dynamicWeight="AvailableReplicas"),
    }
    outcome = schedule(
        make_binding(replicas=30, requests={"cpu": "1"}, placement=placement), _clusters()
    )
    doc = outcome.diagnosis.to_json()
    assert doc["affinity"] == ["no term in use: trying terms from the first", "every term failed"]
    assert [a["affinityName"] for a in doc["attempts"]] == ["tainted", "small"]
    assert doc["attempts"][0]["error"]["reason"] == "NoClusterFit"
    assert doc["attempts"][1]["error"]["reason"] == "Unschedulable"
    assert doc["error"]["reason"] == "NoClusterFit", "the first term's failure decides"
    assert "error (NoClusterFit): 0/3 clusters are available:" in "\n".join(
        outcome.diagnosis.lines()
    )


def test_kept_result_explains_why() -> None:
    placement = {"replicaScheduling": dynamic()}
    binding = make_binding(replicas=3, requests={"cpu": "1"}, placement=placement)
    first = schedule(binding, _clusters())
    again = schedule(binding, _clusters(), first.binding)
    doc = again.diagnosis.to_json()
    assert (doc["rescheduled"], doc["attempts"]) == (False, [])
    assert doc["decision"] == "divided workload unchanged: previous result kept"
    assert doc["result"] == [{"name": "a", "replicas": 1}, {"name": "b", "replicas": 2}]
    assert again.diagnosis.lines() == [
        "Deployment default/web: scheduler did not run: divided workload unchanged: previous "
        "result kept",
        "result: a=1, b=2",
    ]
