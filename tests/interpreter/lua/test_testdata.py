"""The project's own customizations in Karmada's third-party layout (tests/interpreter/lua/
testdata/<group>/<version>/<Kind>/), each test document checked as Karmada checks its own.

Aspects covered:
- a CloneSet-like workload (replicas, requirements, revise, retain, status, aggregation with
  generations, health, pod-template dependencies), a Job-like run (parallelism bounded by
  completions, counters and conditions merged from members), a Kafka-like operator resource
  (components, conditions and listeners merged by key in first-seen order, dependencies by name
  and by label selector);
- the folder loads through `load_thirdparty` (layout checked) and every script passes `check`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gitfleet.interpreter import lua
from tests.interpreter.lua import karmada_cases

TESTDATA = Path(__file__).parent / "testdata"
CASES = karmada_cases.cases(TESTDATA)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
def test_case(case: karmada_cases.Case, sandbox: lua.Sandbox) -> None:
    produced = karmada_cases.run(case, sandbox)
    assert karmada_cases.mismatches(case, produced) == []


def test_every_operation_is_covered() -> None:
    assert {lua.operation_named(c.doc["operation"]) for c in CASES} == set(lua.FUNCTIONS)


def test_folder_loads_and_checks_clean(sandbox: lua.Sandbox) -> None:
    customizations = lua.load_thirdparty(TESTDATA)
    assert [c.metadata.name for c in customizations] == ["batchrun", "kafkacluster", "replicapool"]
    assert [d for c in customizations for d in lua.check(c, sandbox)] == []
