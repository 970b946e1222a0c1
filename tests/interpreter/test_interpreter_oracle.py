"""gitfleet's native interpreter answers, on 2,100 random scenarios, what Karmada's own default
native interpreter answers (interpreter_oracle_scenarios: the scenarios, and how the answers
were made with Karmada's code).

Aspects covered, per scenario:
- the same rules: a kind and operation Karmada has no native rule for is not handled here
  either (apiVersions spelled otherwise included);
- the same outcome: the answer, or a refusal where Karmada fails (a field of the wrong type
  that the rule reads, an unreadable quantity, time or member status);
- the same answer, compared by a digest of it: replicas and replica requirements, the revised,
  retained or aggregated object, the reflected status, the health, the dependencies;
- enough of every operation, and of both outcomes, among the answers for agreement to mean
  something.

Left out: the replicas of a workload whose replica count is negative (`_negative_count`),
which gitfleet refuses on purpose.
"""

from __future__ import annotations

import collections
import sys
from pathlib import Path
from typing import Any

if str(Path(__file__).parent) not in sys.path:
    sys.path.append(str(Path(__file__).parent))  # last: `conftest` must name tests/conftest.py

import oracle
from interpreter_oracle_scenarios import ANSWERS, OPERATIONS, SEEDS, reduce, scenario

from gitfleet import errors, interpreter
from gitfleet.interpreter import native
from gitfleet.interpreter._layer import Operation
from gitfleet.model import meta, work

_OPERATIONS = {
    "GetReplicas": Operation.INTERPRET_REPLICA,
    "ReviseReplica": Operation.REVISE_REPLICA,
    "Retain": Operation.RETAIN,
    "AggregateStatus": Operation.AGGREGATE_STATUS,
    "ReflectStatus": Operation.INTERPRET_STATUS,
    "InterpretHealth": Operation.INTERPRET_HEALTH,
    "GetDependencies": Operation.INTERPRET_DEPENDENCY,
}


def _items(given: list[dict[str, Any]] | None) -> list[work.AggregatedStatusItem]:
    return [
        work.AggregatedStatusItem(cluster_name=i.get("clusterName", ""), status=i.get("status"))
        for i in given or []
    ]


def gitfleet_answer(case: dict[str, Any]) -> dict[str, Any]:
    """What gitfleet's native layer answers to `case`, in the harness's shape."""
    layer = native.NativeLayer()
    obj = case["object"]
    operation = case["operation"]
    api_version, kind = native.gvk(obj)
    if not layer.hook_enabled(api_version, kind, _OPERATIONS[operation]):
        return {"enabled": False}
    try:
        if operation == "GetReplicas":
            _, (replicas, requirements) = layer.get_replicas(obj)
            return {"replicas": replicas, "requirements": meta.to_doc(requirements)}
        if operation == "ReviseReplica":
            return {"object": layer.revise_replica(obj, case["desiredReplica"])[1]}
        if operation == "Retain":
            return {"object": layer.retain(obj, case["observed"])[1]}
        if operation == "AggregateStatus":
            return {"object": layer.aggregate_status(obj, _items(case["items"]))[1]}
        if operation == "ReflectStatus":
            return {"status": layer.reflect_status(obj)[1]}
        if operation == "InterpretHealth":
            return {"healthy": layer.interpret_health(obj)[1]}
        dependencies = interpreter.Interpreter().get_dependencies(obj)  # verifies them
        return {"dependencies": [meta.to_doc(d) for d in dependencies]}
    except errors.InterpretError:
        return {"error": True}


def _negative_count(case: dict[str, Any]) -> bool:
    """Whether `case` asks for the replicas of an object whose replica count is below 0, which
    gitfleet refuses on purpose where Karmada's GetReplicas answers it as it is (such a
    template never passes Karmada's API server; docs/karmada-compatibility.md)."""
    spec = case["object"].get("spec")
    if case["operation"] != "GetReplicas" or not isinstance(spec, dict):
        return False
    counts = (spec.get(f) for f in ("replicas", "parallelism", "completions"))
    return any(isinstance(c, int) and not isinstance(c, bool) and c < 0 for c in counts)


def _answer(seed: int) -> tuple[Any, dict[str, Any]] | None:
    case = scenario(seed)
    if _negative_count(case):
        return None
    return reduce(case, gitfleet_answer(case)), case


def test_interpreted_as_karmada_interprets() -> None:
    oracle.assert_agrees(oracle.answers(ANSWERS, SEEDS), _answer)


def test_the_answers_cover_every_operation() -> None:
    outcomes: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for seed, karmada in enumerate(oracle.answers(ANSWERS, SEEDS)):
        outcome = next(iter(karmada))
        if outcome == "healthy":
            outcome = "healthy" if karmada["healthy"] else "unhealthy"
        outcomes[OPERATIONS[seed % len(OPERATIONS)]][outcome] += 1
    for operation in OPERATIONS:
        found = outcomes[operation]
        answered = found["digest"] + found["healthy"] + found["unhealthy"]
        assert answered > 150, (operation, found)
        assert found["error"] > 20, (operation, found)
        if operation != "ReflectStatus":  # it reports any kind's whole status
            assert found["enabled"] > 10, (operation, found)
    assert outcomes["InterpretHealth"]["healthy"] > 50
    assert outcomes["InterpretHealth"]["unhealthy"] > 50
