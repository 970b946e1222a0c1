"""gitfleet's overrides give, on 1,800 random scenarios, the manifest Karmada's own override
manager gives (override_oracle_scenarios: the scenarios, and how the answers were made with
Karmada's code).

Aspects covered, per scenario:
- the same outcome: the manifest, or a refusal where Karmada fails (an overrider that does not
  apply, a path that is not there, a predicate that finds no image: Karmada's manager even
  panics on some, which its controller recovers as an error);
- the same manifest, compared by a digest of it as JSON (for the document profile, the YAML
  and JSON documents a fieldOverrider read and wrote back);
- enough of both outcomes and every overrider among the answers for agreement to mean
  something.
"""

from __future__ import annotations

from typing import Any

import oracle
from override_oracle_scenarios import ANSWERS, SEEDS, digest, scenario

from gitfleet import overrides
from gitfleet.errors import GitfleetError
from gitfleet.model import cluster, policy
from gitfleet.model.origin import Origin


def _gitfleet(case: dict[str, Any]) -> dict[str, Any]:
    target = cluster.Cluster.from_doc(case["cluster"])
    ops = [
        policy.OverridePolicy.from_doc(d, Origin("policies.yaml")) for d in case["overridePolicies"]
    ]
    cops = [
        policy.ClusterOverridePolicy.from_doc(d, Origin("policies.yaml"))
        for d in case["clusterOverridePolicies"]
    ]
    try:
        result = overrides.apply(case["object"], target, ops, cops)
    except GitfleetError:
        return {"error": True}
    return {"digest": digest(result.manifest)}


def _answer(seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
    case = scenario(seed)
    return _gitfleet(case), case


def test_overridden_as_karmada_overrides() -> None:
    oracle.assert_agrees(oracle.answers(ANSWERS, SEEDS), _answer)


def test_the_answers_cover_every_overrider() -> None:
    answers = oracle.answers(ANSWERS, SEEDS)
    applied = sum(1 for a in answers if "digest" in a)
    assert 500 < applied < SEEDS - 500
    seen: set[str] = set()
    for seed, karmada in enumerate(answers):
        if "digest" not in karmada:
            continue
        case = scenario(seed)
        for p in (*case["overridePolicies"], *case["clusterOverridePolicies"]):
            for rule in p["spec"]["overrideRules"]:
                seen.update(rule["overriders"])
    assert seen == {
        "plaintext",
        "imageOverrider",
        "commandOverrider",
        "argsOverrider",
        "labelsOverrider",
        "annotationsOverrider",
        "fieldOverrider",
    }
