"""gitfleet's detector claims, on 2,000 random scenarios, the template Karmada's own detector
claims (detector_oracle_scenarios: the scenarios, and how the answers were made with Karmada's
code).

Aspects covered, per scenario:
- the same outcome: the template is skipped, claimed (and applied, or waiting for the
  policy's dependentOverrides), or claimed by no policy;
- the same claiming policy, by kind, namespace and name;
- the same again when the claim comes back from the previous render's binding instead of the
  template (gitfleet never writes to the source: that is where its claims live; Karmada keeps
  the same claim on both);
- enough of every outcome and of both policy kinds among the answers, and enough templates
  that came with a claim, for agreement to mean something.
"""

from __future__ import annotations

import json
from typing import Any

import oracle
from builders import object_set, previous_map
from detector.detector_oracle_scenarios import (
    ANSWERS,
    CPP_ID,
    CPP_NAME,
    PP_ID,
    PP_NAME,
    PP_NAMESPACE,
    SEEDS,
    namespace_of,
    scenario,
)

from gitfleet import detector, interpreter
from gitfleet.detector import detection
from gitfleet.model import work
from gitfleet.model.origin import Origin

_OUTCOMES = {
    detection.Outcome.APPLIED: "applied",
    detection.Outcome.WAITING: "waiting",
    detection.Outcome.UNMATCHED: "none",
    detection.Outcome.ORPHANED: "none",
    detection.Outcome.SKIPPED: "skipped",
}
_CLAIM_LABELS = (PP_ID, CPP_ID)
_CLAIM_ANNOTATIONS = (PP_NAMESPACE, PP_NAME, CPP_NAME)


def _claim_on_binding(
    case: dict[str, Any],
) -> tuple[dict[str, Any], work.ResourceBinding | work.ClusterResourceBinding] | None:
    """The scenario with the template's claim moved onto a previous binding of it, as the
    rendered branch holds it (None when the template has no claim metadata)."""
    moved = json.loads(json.dumps(case))
    meta = moved["template"]["metadata"]
    labels, annotations = meta.get("labels") or {}, meta.get("annotations") or {}
    claim_labels = {k: labels.pop(k) for k in _CLAIM_LABELS if k in labels}
    claim_annotations = {k: annotations.pop(k) for k in _CLAIM_ANNOTATIONS if k in annotations}
    if not claim_labels and not claim_annotations:
        return None
    template = moved["template"]
    namespace = namespace_of(template)
    kind = work.ResourceBinding if namespace else work.ClusterResourceBinding
    resource = {"apiVersion": template["apiVersion"], "kind": template["kind"]}
    binding_meta: dict[str, Any] = {
        "name": work.binding_name(meta["name"], template["kind"]),
        "labels": claim_labels,
        "annotations": claim_annotations,
    }
    if namespace:
        binding_meta["namespace"] = resource["namespace"] = namespace
    resource["name"] = meta["name"]
    doc = {
        "apiVersion": kind.API_VERSION,
        "kind": kind.KIND,
        "metadata": binding_meta,
        "spec": {"resource": resource},
    }
    return moved, kind.from_doc(doc, Origin("rendered.yaml"))


def _gitfleet(
    case: dict[str, Any],
    interp: interpreter.Interpreter,
    previous: work.ResourceBinding | work.ClusterResourceBinding | None = None,
) -> dict[str, Any]:
    docs = [
        case["template"],
        *case["propagationPolicies"],
        *case["clusterPropagationPolicies"],
        *case["overridePolicies"],
        *case["clusterOverridePolicies"],
    ]
    found = detector.detect(object_set(docs), interp, previous_map([previous] if previous else []))
    (decision,) = found.decisions
    outcome = _OUTCOMES.get(decision.outcome, str(decision.outcome))
    if decision.winner is None or outcome not in ("applied", "waiting"):
        return {"outcome": outcome}
    won: dict[str, Any] = {"outcome": outcome, "kind": decision.winner.kind}
    if decision.winner.namespace:
        won["namespace"] = decision.winner.namespace
    won["name"] = decision.winner.name
    return won


def test_claimed_as_karmada_claims(interp: interpreter.Interpreter) -> None:
    def answer(seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
        case = scenario(seed)
        return _gitfleet(case, interp), case

    oracle.assert_agrees(oracle.answers(ANSWERS, SEEDS), answer)


def test_claims_read_back_from_the_previous_binding_as_karmada_reads_them(
    interp: interpreter.Interpreter,
) -> None:
    def answer(seed: int) -> tuple[dict[str, Any], dict[str, Any]] | None:
        moved = _claim_on_binding(scenario(seed))
        if moved is None:
            return None
        case, binding = moved
        return _gitfleet(case, interp, binding), case

    assert oracle.assert_agrees(oracle.answers(ANSWERS, SEEDS), answer) > 400


def test_the_answers_cover_every_outcome() -> None:
    answers = oracle.answers(ANSWERS, SEEDS)
    seen: dict[tuple[str, str], int] = {}
    for a in answers:
        key = (a["outcome"], a.get("kind", ""))
        seen[key] = seen.get(key, 0) + 1
    assert seen[("applied", "PropagationPolicy")] > 400
    assert seen[("applied", "ClusterPropagationPolicy")] > 200
    assert seen[("none", "")] > 200
    assert seen[("skipped", "")] > 200
    waiting = seen[("waiting", "PropagationPolicy")] + seen[("waiting", "ClusterPropagationPolicy")]
    assert waiting > 10
    claimed = 0
    for seed in range(SEEDS):
        annotations = scenario(seed)["template"]["metadata"].get("annotations") or {}
        claimed += bool(annotations.get(PP_NAME) or annotations.get(CPP_NAME))
    assert claimed > 400
