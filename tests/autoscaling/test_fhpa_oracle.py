"""gitfleet's replica calculator proposes, on 400 random scenarios, what Karmada's own
ReplicaCalculator proposes (fhpa_oracle_scenarios: the scenarios, and how the answers were made
with Karmada's code).

Aspects covered, per scenario: the same proposed replicas, utilization and average usage, or
no proposal in both; and enough proposals that scale up, down and not at all, and enough
refusals, for agreement to mean something.
"""

from __future__ import annotations

from typing import Any

import oracle
from autoscaling.fhpa_oracle_scenarios import ANSWERS, NOW, SEEDS, scenario

from gitfleet.autoscaling import _calculator, _samples
from gitfleet.model import loaded, times

_NOW = times.parse(NOW)
assert _NOW is not None


def _at(offset: int | None) -> str | None:
    return None if offset is None else times.text(times.later(_NOW, offset))


def _pod(doc: dict[str, Any], resource: str) -> _samples.Pod:
    requests = doc["requests"]
    summed = None if None in requests else sum(requests)
    return _samples.Pod(
        name=doc["name"],
        phase=doc["phase"],
        deleting=doc["deleting"],
        ready=doc["ready"],
        ready_changed=_at(doc["readyChanged"]),
        started=_at(doc["started"]),
        requests={resource: summed},
        usage={resource: doc["usage"]} if doc["usage"] is not None else {},
        measured=_at(doc["measured"]),
        window=float(doc["window"]),
    )


def _gitfleet(case: dict[str, Any]) -> dict[str, Any]:
    resource = case["resource"]
    target = _calculator.Target(resource, case["utilization"], case["averageValue"])
    pods = {p["name"]: _pod(p, resource) for p in case["pods"]}
    settings = loaded.AutoscalingSettings()
    try:
        found = _calculator.propose(
            pods, target, case["current"], case["calibration"], _NOW, settings
        )
    except _calculator.CalculationError:
        return {"error": True}
    answer = {"replicas": found.replicas, "average": found.average}
    if found.utilization is not None:
        answer["utilization"] = found.utilization
    return answer


def test_proposals_as_karmada_proposes() -> None:
    def answer(seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
        case = scenario(seed)
        return _gitfleet(case), case

    assert oracle.assert_agrees(oracle.answers(ANSWERS, SEEDS), answer) == SEEDS


def test_the_answers_cover_every_outcome() -> None:
    seen = {"up": 0, "down": 0, "same": 0, "error": 0}
    for seed, found in enumerate(oracle.answers(ANSWERS, SEEDS)):
        if found.get("error"):
            seen["error"] += 1
            continue
        current = scenario(seed)["current"]
        change = found["replicas"] - current
        seen["up" if change > 0 else "down" if change < 0 else "same"] += 1
    assert min(seen.values()) > 30, seen
