"""gitfleet's Lua customizations give, on 2,000 random scenarios, the answer Karmada's own
Lua interpreter gives (lua_oracle_scenarios: the scenarios, and how the answers were made with
Karmada's code).

Aspects covered, per scenario:
- the same outcome: a result, or a refusal where Karmada fails (a script error, a result of
  the wrong type, a table JSON cannot hold, a result Go cannot decode into its type, invalid
  dependencies, no customization for the kind);
- the same result, keyed as Karmada's interpreter test data and compared by a digest of it as
  JSON: numbers, strings and tables converted as Karmada's VM converts them, empty tables
  repaired from the script's inputs, quantities in canonical form, dependencies merged;
- enough results and refusals of every operation among the answers for agreement to mean
  something.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import oracle
import pytest

from gitfleet.errors import GitfleetError
from gitfleet.interpreter import lua
from gitfleet.interpreter._layer import Operation
from gitfleet.model import _codec, config
from gitfleet.model.origin import Origin
from tests.interpreter.lua.lua_oracle_scenarios import ANSWERS, SCRIPTS, SEEDS, digest, scenario


def gitfleet_answer(case: dict[str, Any], sandbox: lua.Sandbox) -> dict[str, Any]:
    """What gitfleet's Lua layer answers to a scenario, keyed as the harness keys Karmada's."""
    customizations = [
        config.ResourceInterpreterCustomization.from_doc(doc, Origin("customizations.yaml"))
        for doc in case["customizations"]
    ]
    layer = lua.LuaLayer(customizations, sandbox=sandbox)
    obj = case["object"]
    operation = lua.operation_named(case["operation"])
    try:
        return _run(layer, operation, obj, case)
    except GitfleetError:
        return {"error": True}


def _run(
    layer: lua.LuaLayer, operation: Operation, obj: dict[str, Any], case: dict[str, Any]
) -> dict[str, Any]:
    if operation is Operation.INTERPRET_REPLICA:
        handled, (count, requires) = layer.get_replicas(obj)
        found: dict[str, Any] = {"replica": count}
        found["requires"] = None if requires is None else _codec.encode(requires)
    elif operation is Operation.INTERPRET_COMPONENT:
        handled, components = layer.get_components(obj)
        found = {"components": [_codec.encode(c) for c in components]}
    elif operation is Operation.REVISE_REPLICA:
        handled, revised = layer.revise_replica(obj, case["replicas"])
        found = {"revised": revised}
    elif operation is Operation.RETAIN:
        handled, retained = layer.retain(obj, case["observed"])
        found = {"retained": retained}
    elif operation is Operation.AGGREGATE_STATUS:
        items = case["items"]
        status_items = None
        if items is not None:
            status_items = [lua.status_item(i, Origin("items")) for i in items]
        handled, aggregated = layer.aggregate_status_items(obj, status_items)
        found = {"aggregatedStatus": aggregated}
    elif operation is Operation.INTERPRET_HEALTH:
        handled, healthy = layer.interpret_health(obj)
        found = {"healthy": healthy}
    elif operation is Operation.INTERPRET_STATUS:
        handled, status = layer.reflect_status(obj)
        found = {"status": status}
    else:
        handled, dependencies = layer.get_dependencies(obj)
        found = {"dependencies": [_codec.encode(d) for d in dependencies]}
    return found if handled else {"error": True}


def test_interpreted_as_karmada_interprets(sandbox: lua.Sandbox) -> None:
    def answer(seed: int) -> tuple[str, dict[str, Any]]:
        case = scenario(seed)
        ours = gitfleet_answer(case, sandbox)
        return digest(ours), {
            "operation": case["operation"],
            "script": case["script"],
            "ours": ours,
        }

    oracle.assert_agrees(oracle.answers(ANSWERS, SEEDS), answer)


@pytest.mark.parametrize("operation", sorted(SCRIPTS))
def test_the_answers_cover_every_operation(operation: str) -> None:
    outcomes: Counter[str] = Counter()
    scripts = set()
    for seed, karmada in enumerate(oracle.answers(ANSWERS, SEEDS)):
        case = scenario(seed)
        if case["operation"] == operation:
            outcomes["error" if karmada == "error" else "result"] += 1
            scripts.add(case["script"])
    assert outcomes["error"] >= 10
    assert outcomes["result"] >= 40
    assert scripts == set(range(len(SCRIPTS[operation])))
