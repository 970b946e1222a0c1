"""gitfleet's scheduler places 3,000 random scenarios where Karmada's own scheduler placed them
(karmada_oracle_scenarios: the scenarios, and how the answers were made with Karmada's code).

Aspects covered, per scenario:
- the same outcome: scheduled, or failed (the answers keep no message: which filter a cluster
  fails first follows the order Karmada's framework holds its plugins in, which is the order a
  Go map gives, so it changes from one scheduler process to the next);
- the same target clusters with the same replicas;
- in the same order, for a first schedule (with a previous result, Karmada appends the
  clusters it kept in a Go map's order);
- with affinity terms, the same term in use.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from karmada_oracle_scenarios import ANSWERS, PROFILES, SEEDS, Profile, scenario

from gitfleet import scheduler
from gitfleet.model import cluster, work

NOW = "2026-01-01T00:00:00Z"


def _answers() -> dict[str, Any]:
    found: dict[str, Any] = json.loads(ANSWERS.read_text())
    return found


def _as_cached(doc: dict[str, Any]) -> dict[str, Any]:
    """A scenario's cluster as the harness gave it to Karmada's scheduler cache, past the API
    server, which moves a lone `zone` into `zones` (as gitfleet reads it: cluster.stored_zones).
    Unmoved, Karmada's scheduler reads `zone` nowhere that places anything, so the answers are
    those for the cluster without it."""
    spec = doc["spec"]
    if "zone" not in spec or spec.get("zones"):
        return doc
    return {**doc, "spec": {k: v for k, v in spec.items() if k != "zone"}}


def _gitfleet(case: dict[str, Any]) -> dict[str, Any]:
    clusters = [cluster.Cluster.from_doc(_as_cached(c)) for c in case["clusters"]]
    binding = work.ResourceBinding.from_doc(
        {
            "apiVersion": "work.karmada.io/v1alpha2",
            "kind": "ResourceBinding",
            "metadata": {"name": "app", "namespace": "ns"},
            "spec": case["spec"],
        }
    )
    outcome = scheduler.schedule(binding, clusters, None, now=NOW)
    if outcome.error is not None:
        return {"error": outcome.error}
    placed = outcome.binding
    targets = [{"name": t.name, "replicas": t.replicas} for t in placed.spec.clusters]
    return {"clusters": targets, "affinity": placed.status.scheduler_observed_affinity_name}


def _targets(answer: dict[str, Any]) -> list[tuple[str, int]]:
    return [(t["name"], t.get("replicas") or 0) for t in answer.get("clusters") or []]


def _differences(profile: Profile, seed: int, karmada: dict[str, Any]) -> list[str]:
    case = scenario(profile, seed)
    ours = _gitfleet(case)
    if bool(karmada.get("error")) != bool(ours.get("error")):
        return [f"seed {seed}: Karmada {karmada}, gitfleet {ours}"]
    if karmada.get("error"):
        return []
    theirs, mine = _targets(karmada), _targets(ours)
    found = []
    if sorted(theirs) != sorted(mine):
        found.append(f"seed {seed}: Karmada placed {theirs}, gitfleet {mine}")
    elif not case["spec"].get("clusters") and theirs != mine:
        found.append(f"seed {seed}: Karmada's order {theirs}, gitfleet's {mine}")
    if karmada.get("affinity") and karmada["affinity"] != ours["affinity"]:
        found.append(f"seed {seed}: Karmada used term {karmada['affinity']}, gitfleet {ours}")
    return found


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_placed_where_karmada_placed(name: str) -> None:
    answers = _answers()[name]
    assert len(answers) == SEEDS
    differences = [
        line
        for seed, karmada in enumerate(answers)
        for line in _differences(PROFILES[name], seed, karmada)
    ]
    assert not differences, "\n".join(differences[:10])


def test_the_answers_cover_every_outcome() -> None:
    """The scenarios reach both outcomes, every replica scheduling type, affinity terms (with
    overflow groups), spread constraints, evictions in progress, components and previous
    results, so that agreeing on them means something."""
    answers = _answers()
    scheduled = failed = 0
    seen: set[str] = set()
    for name, profile in PROFILES.items():
        for seed, karmada in enumerate(answers[name]):
            case = scenario(profile, seed)
            placement = case["spec"]["placement"]
            if karmada.get("error"):
                failed += 1
                continue
            scheduled += 1
            rs = placement.get("replicaScheduling", {})
            weights = rs.get("weightPreference", {})
            seen.add(rs.get("replicaDivisionPreference") or rs.get("replicaSchedulingType", "-"))
            seen.update(k for k in ("staticWeightList", "dynamicWeight") if k in weights)
            seen.update(k for k in ("clusterAffinities", "spreadConstraints") if k in placement)
            terms = placement.get("clusterAffinities", [])
            seen.update("overflowAffinities" for term in terms if "overflowAffinities" in term)
            seen.update(k for k in ("gracefulEvictionTasks", "components") if k in case["spec"])
    assert scheduled > 900 and failed > 400
    assert seen >= {
        "Duplicated",
        "Aggregated",
        "Weighted",
        "staticWeightList",
        "dynamicWeight",
        "clusterAffinities",
        "spreadConstraints",
        "overflowAffinities",
        "gracefulEvictionTasks",
        "components",
    }
