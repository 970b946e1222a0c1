"""gitfleet renders, on 1,800 random bindings, the manifest Karmada's binding controller puts
in each target cluster's Work (work_oracle_scenarios: the scenarios, and how the answers were
made with Karmada's own ensureWork).

Aspects covered, per scenario and target cluster:
- the same outcome: a manifest, or none where Karmada makes no Work (a cluster that does not
  exist, completions that are no integer, a ServiceAccount secret its pruning cannot read);
- the same manifest, compared by a digest of it as JSON, once the labels and annotations the
  two write differently on purpose are left out on both sides (`comparable`);
- enough of both outcomes, of each kind and of each binding shape among the answers for
  agreement to mean something.

gitfleet runs as the pipeline runs it: `render_binding` with the pipeline's context (the
source's override policies, the native interpreter, the Webster division, the check of what
an API server refuses, clusters grouped by the overrides they receive).
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from typing import Any

import oracle
from builders import object_set
from work_oracle_scenarios import ANSWERS, CLAIM_KEYS, SEEDS, digest, scenario, targets

from gitfleet import interpreter, pipeline
from gitfleet import render as rendering
from gitfleet.model import loaded, work
from gitfleet.model.origin import Origin
from gitfleet.model.template import ResourceTemplate
from gitfleet.render import _yamlread

_INTERPRETER = interpreter.Interpreter()


@dataclasses.dataclass(frozen=True)
class _Clusters:
    """What `pipeline._context` reads of a placement: the clusters placed on."""

    clusters: tuple[Any, ...]


def _gitfleet(made: dict[str, Any]) -> list[str]:
    case = made["case"]
    docs = [*case["clusters"], *case["overridePolicies"], *case["clusterOverridePolicies"]]
    objs = object_set(docs, path="fleet.yaml")
    source = loaded.LoadedSource(
        objects=objs, documents=(), diagnostics=(), revision="1" * 40, config=loaded.SourceConfig()
    )
    context = pipeline._context(source, _Clusters(objs.clusters), _INTERPRETER)  # type: ignore[arg-type]
    doc = case["binding"]
    kind = work.ResourceBinding if doc["kind"] == "ResourceBinding" else work.ClusterResourceBinding
    binding = kind.from_doc(json.loads(json.dumps(doc)), Origin("bindings.yaml"))
    template = ResourceTemplate(json.loads(json.dumps(made["source"])), Origin("apps.yaml", 1, 1))
    output = rendering._work.render_binding(template, binding, context)
    found = []
    for name in targets(doc):
        data = output.files.get(name)
        if data is None:
            found.append("error")
            continue
        manifest = _yamlread.load(bytes(data))
        assert manifest is not None
        found.append(digest(manifest))
    return found


def _answer(seed: int) -> tuple[list[str], Any]:
    made = scenario(seed)
    return _gitfleet(made), made["source"]


def test_rendered_as_karmada_makes_works() -> None:
    oracle.assert_agrees(oracle.answers(ANSWERS, SEEDS), _answer)


def test_the_answers_cover_every_kind_and_shape() -> None:
    answers = oracle.answers(ANSWERS, SEEDS)
    outcomes = Counter(x == "error" for a in answers for x in a)
    assert outcomes[False] > 2000 and outcomes[True] > 100
    kinds: Counter[str] = Counter()
    shapes: Counter[str] = Counter()
    for seed in range(SEEDS):
        case = scenario(seed)["case"]
        kinds[case["template"]["kind"]] += 1
        spec = case["binding"]["spec"]
        scheduling = (spec.get("placement") or {}).get("replicaScheduling") or {}
        shapes[scheduling.get("replicaSchedulingType", "none")] += 1
        shapes["requiredBy"] += "requiredBy" in spec
        shapes[case["binding"]["kind"]] += 1
        labels = case["template"]["metadata"].get("labels", {})
        assert CLAIM_KEYS & labels.keys()
    assert min(kinds.values()) >= 20, kinds
    assert min(shapes.values()) >= 100, shapes
