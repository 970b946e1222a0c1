"""Lua customizations as a layer of the interpreter chain (Karmada: configurable.go, luavm/lua.go).

Aspects covered:
- a customization handles only its exact apiVersion and kind, and only the operations it
  scripts; other calls answer "not handled" with the chain's default;
- several customizations for a kind: by name, the first non-empty script wins; dependency
  scripts all run, their results merged, deduplicated by name (references with a label
  selector are all kept, as Karmada's set of pointers keeps them) and sorted, each checked
  first;
- every operation's arguments and results: GetReplicas (int32 truncation, requirements or nil),
  GetComponents, ReviseReplica and Retain (with the repair of empty tables from their inputs),
  ReflectStatus, AggregateStatus (no items arrive as nil, the CLI's empty list as a table),
  InterpretHealth (booleans only), GetDependencies;
- results of the wrong shape and failing scripts are `LuaError`s located at the `luaScript`
  field, naming the operation, the object and the Lua line;
- the chain (`gitfleet.interpreter.Interpreter`) asks the layer before the native rules;
- layers never change their arguments.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gitfleet import interpreter
from gitfleet.errors import LuaError
from gitfleet.interpreter import lua
from gitfleet.model import config, work
from tests.interpreter.lua.conftest import deployment, make_customization

CLONESET = ("apps.kruise.io/v1alpha1", "CloneSet")


def _layer(
    sandbox: lua.Sandbox, *customizations: config.ResourceInterpreterCustomization
) -> lua.LuaLayer:
    return lua.LuaLayer(customizations, sandbox=sandbox)


def test_exact_target_and_scripted_operations_only(sandbox: lua.Sandbox) -> None:
    layer = _layer(
        sandbox,
        make_customization(
            CLONESET, healthInterpretation="function InterpretHealth(o) return true end"
        ),
    )
    cloneset = {"apiVersion": CLONESET[0], "kind": CLONESET[1], "metadata": {"name": "c"}}
    assert layer.interpret_health(cloneset) == (True, True)
    assert layer.interpret_health({**cloneset, "apiVersion": "apps.kruise.io/v1beta1"})[0] is False
    assert layer.get_replicas(cloneset) == (False, (0, None))
    assert layer.hook_enabled(*CLONESET, interpreter.Operation.INTERPRET_HEALTH)
    assert not layer.hook_enabled(*CLONESET, interpreter.Operation.RETAIN)


def test_first_script_by_name_wins(sandbox: lua.Sandbox) -> None:
    later = make_customization(
        name="b", healthInterpretation="function InterpretHealth() return false end"
    )
    earlier = make_customization(
        name="a", healthInterpretation="function InterpretHealth() return true end"
    )
    empty = make_customization(name="0", replicaResource="function GetReplicas() return 1 end")
    assert _layer(sandbox, later, empty, earlier).interpret_health(deployment()) == (True, True)


def test_dependency_scripts_are_merged(sandbox: lua.Sandbox) -> None:
    first = make_customization(
        name="a",
        dependencyInterpretation="""
        function GetDependencies(o)
          return {{apiVersion = "v1", kind = "Secret", namespace = "ns", name = "b"},
                  {apiVersion = "v1", kind = "ConfigMap", namespace = "ns", name = "a"}}
        end""",
    )
    second = make_customization(
        name="b",
        dependencyInterpretation="""
        function GetDependencies(o)
          return {{apiVersion = "v1", kind = "Secret", namespace = "ns", name = "b"},
                  {apiVersion = "v1", kind = "Secret", namespace = "ns",
                   labelSelector = {matchLabels = {app = "x"}}}}
        end""",
    )
    handled, found = _layer(sandbox, second, first).get_dependencies(deployment())
    assert handled
    assert [(d.kind, d.name, d.label_selector is not None) for d in found] == [
        ("ConfigMap", "a", False),
        ("Secret", "", True),
        ("Secret", "b", False),
    ]


def test_dependencies_with_a_label_selector_are_all_kept(sandbox: lua.Sandbox) -> None:
    script = """
    function GetDependencies(o)
      local function sel() return {matchLabels = {app = "x"}} end
      return {{apiVersion = "v1", kind = "Secret", namespace = "ns", labelSelector = sel()},
              {apiVersion = "v1", kind = "Secret", namespace = "ns", labelSelector = sel()},
              {apiVersion = "v1", kind = "Secret", namespace = "ns", name = "s"},
              {apiVersion = "v1", kind = "Secret", namespace = "ns", name = "s"}}
    end"""
    layer = _layer(sandbox, make_customization(dependencyInterpretation=script))
    assert [
        (d.name, d.label_selector is not None) for d in layer.get_dependencies(deployment())[1]
    ] == [
        ("", True),
        ("", True),
        ("s", False),
    ]


REPLICAS = [
    pytest.param("return 3", 3, None, id="count only"),
    pytest.param("return 2.9", 2, None, id="truncated"),
    pytest.param("return -0.5", 0, None, id="truncated towards zero"),
    pytest.param(
        "return 1, {resourceRequest = {cpu = '1000m', memory = 1073741824}, unknown = 1}",
        1,
        work.ReplicaRequirements(resource_request={"cpu": "1", "memory": "1073741824"}),
        id="canonical quantities, unknown fields ignored",
    ),
    pytest.param(
        "return 1, {resourceRequest = {cpu = 2.048, memory = '+1Gi', pods = '1.5'}}",
        1,
        work.ReplicaRequirements(
            resource_request={"cpu": "2.048", "memory": "+1Gi", "pods": "1500m"}
        ),
        id="quantity text kept where apimachinery keeps it",
    ),
    pytest.param(
        "return 1, {resourceRequest = {cpu = 2^62, memory = 2^53 + 2}}",
        1,
        work.ReplicaRequirements(
            resource_request={"cpu": "4611686018427388k", "memory": "9007199254740994"}
        ),
        id="numbers past 2^53 as Go's JSON spells them (4611686018427388000)",
    ),
    pytest.param(
        "return 1, {resourceRequest = {cpu = 1e21, memory = '1000E', pods = 1e22, x = 1e20}}",
        1,
        work.ReplicaRequirements(
            resource_request={"cpu": "1e+21", "memory": "1", "pods": "10e21", "x": "100E"}
        ),
        id="past the E suffix: Go's JSON exponent kept, DecimalSI with no suffix",
    ),
    pytest.param("return 1, {}", 1, work.ReplicaRequirements(), id="empty requirements"),
    pytest.param(
        "return 1, {resourceRequest = {cpu = {}}}",
        1,
        work.ReplicaRequirements(),
        id="empty requests left out",
    ),
    pytest.param(
        "return 1, {nodeClaim = {nodeSelector = {zone = {}}}}",
        1,
        work.ReplicaRequirements(node_claim=work.NodeClaim()),
        id="empty node selector left out",
    ),
]


@pytest.mark.parametrize(("body", "count", "requirements"), REPLICAS)
def test_get_replicas(
    sandbox: lua.Sandbox, body: str, count: int, requirements: work.ReplicaRequirements | None
) -> None:
    layer = _layer(
        sandbox, make_customization(replicaResource=f"function GetReplicas(o) {body} end")
    )
    assert layer.get_replicas(deployment()) == (True, (count, requirements))


def test_get_components(sandbox: lua.Sandbox) -> None:
    script = """
    local kube = require("kube")
    function GetComponents(o)
      return {{name = "main", replicas = o.spec.replicas,
               replicaRequirements = kube.accuratePodRequirements(o.spec.template)},
              {name = "side"}}
    end"""
    handled, found = _layer(sandbox, make_customization(componentResource=script)).get_components(
        deployment()
    )
    assert handled
    assert found == [
        work.Component(
            name="main",
            replicas=3,
            replica_requirements=work.ComponentReplicaRequirements(
                resource_request={"cpu": "100m", "memory": "128Mi"}
            ),
        ),
        work.Component(name="side", replicas=0),
    ]


def test_revise_replica_keeps_empty_values_of_its_input(sandbox: lua.Sandbox) -> None:
    script = "function ReviseReplica(o, n) o.spec.replicas = n o.spec.extra = {} return o end"
    obj = deployment()
    obj["spec"]["strategy"] = {}
    obj["spec"]["template"]["spec"]["volumes"] = []
    before = copy.deepcopy(obj)
    handled, revised = _layer(sandbox, make_customization(replicaRevision=script)).revise_replica(
        obj, 5
    )
    assert handled and obj == before
    assert revised["spec"]["replicas"] == 5
    assert revised["spec"]["strategy"] == {}
    assert revised["spec"]["template"]["spec"]["volumes"] == []
    assert "extra" not in revised["spec"]


def test_retain_uses_both_objects_as_references(sandbox: lua.Sandbox) -> None:
    script = """
    function Retain(desired, observed)
      desired.spec.paused = observed.spec.paused
      desired.status = observed.status
      return desired
    end"""
    desired = deployment()
    observed = deployment()
    observed["spec"]["paused"] = True
    observed["status"] = {"conditions": [], "extra": {}}
    handled, retained = _layer(sandbox, make_customization(retention=script)).retain(
        desired, observed
    )
    assert handled
    assert retained["spec"]["paused"] is True
    assert retained["status"] == {"conditions": [], "extra": {}}


def test_reflect_status(sandbox: lua.Sandbox) -> None:
    script = "function ReflectStatus(o) return {ready = o.status.ready, empty = {}} end"
    layer = _layer(sandbox, make_customization(statusReflection=script))
    assert layer.reflect_status(deployment(ready=2)) == (True, {"ready": 2})


AGGREGATE = """
function AggregateStatus(desired, items)
  if items == nil then desired.status = {seen = "nil"} return desired end
  local ready = 0
  for _, item in ipairs(items) do ready = ready + (item.status.ready or 0) end
  desired.status = {seen = #items, ready = ready, applied = items[1] and items[1].applied}
  return desired
end"""


@pytest.mark.parametrize(
    ("items", "status"),
    [
        pytest.param([], {"seen": "nil"}, id="no items arrive as nil"),
        pytest.param(
            [
                work.AggregatedStatusItem(cluster_name="a", status={"ready": 2}, applied=True),
                work.AggregatedStatusItem(cluster_name="b", status={"ready": 1}),
            ],
            {"seen": 2, "ready": 3, "applied": True},
            id="items",
        ),
    ],
)
def test_aggregate_status(
    sandbox: lua.Sandbox, items: list[work.AggregatedStatusItem], status: Any
) -> None:
    layer = _layer(sandbox, make_customization(statusAggregation=AGGREGATE))
    handled, aggregated = layer.aggregate_status(deployment(), items)
    assert handled and aggregated["status"] == status


def test_aggregate_status_items_tell_nil_from_empty(sandbox: lua.Sandbox) -> None:
    layer = _layer(sandbox, make_customization(statusAggregation=AGGREGATE))
    assert layer.aggregate_status_items(deployment(), [])[1]["status"] == {"seen": 0, "ready": 0}
    assert layer.aggregate_status_items(deployment(), None)[1]["status"] == {"seen": "nil"}


WRONG_RESULTS = [
    pytest.param(
        "healthInterpretation",
        "function InterpretHealth() return 1 end",
        "not boolean",
        id="health not boolean",
    ),
    pytest.param(
        "healthInterpretation",
        "function InterpretHealth() end",
        "is nil, not boolean",
        id="health nil",
    ),
    pytest.param(
        "replicaResource",
        "function GetReplicas() return '3' end",
        "is string, not number",
        id="replica string",
    ),
    pytest.param(
        "replicaResource", "function GetReplicas() return 2^40 end", "int32", id="replica too large"
    ),
    pytest.param(
        "replicaResource",
        "function GetReplicas() return 1, 'x' end",
        "requires type is table",
        id="requires string",
    ),
    pytest.param(
        "replicaResource",
        "function GetReplicas() return 1, {resourceRequest = {cpu = 'lots'}} end",
        "resourceRequest.cpu",
        id="bad quantity",
    ),
    pytest.param(
        "replicaResource",
        "function GetReplicas() return 1, {nodeClaim = 'x'} end",
        "requires: nodeClaim: expected an object",
        id="requirement of the wrong shape",
    ),
    pytest.param(
        "retention",
        "function Retain(d, o) return {metadata = {}} end",
        "Object 'Kind' is missing",
        id="no kind",
    ),
    pytest.param(
        "retention", "function Retain(d, o) return nil end", "but got nil", id="retain nil"
    ),
    pytest.param(
        "statusReflection",
        "function ReflectStatus() return 'x' end",
        "but got string",
        id="status string",
    ),
    pytest.param(
        "dependencyInterpretation",
        "function GetDependencies() return nil end",
        "but got nil",
        id="no dependencies",
    ),
    pytest.param(
        "dependencyInterpretation",
        "function GetDependencies() return {{kind = 'Secret'}} end",
        "missing required apiVersion",
        id="dependency without apiVersion",
    ),
    pytest.param(
        "dependencyInterpretation",
        "function GetDependencies() return {{apiVersion = 'v1', kind = 'Secret'}} end",
        "can not leave name and labelSelector all empty",
        id="dependency without name",
    ),
    pytest.param(
        "componentResource",
        "function GetComponents() return {a = 1} end",
        "expected an array",
        id="components object",
    ),
    pytest.param(
        "healthInterpretation",
        "function Other() return true end",
        "not found function InterpretHealth",
        id="no function",
    ),
    pytest.param(
        "healthInterpretation",
        "InterpretHealth = 3",
        "InterpretHealth is not a function: number",
        id="not a function",
    ),
]


@pytest.mark.parametrize(("field", "script", "message"), WRONG_RESULTS)
def test_results_of_the_wrong_shape(
    sandbox: lua.Sandbox, field: str, script: str, message: str
) -> None:
    layer = _layer(sandbox, make_customization(**{field: script}))
    calls = {
        "healthInterpretation": lambda: layer.interpret_health(deployment()),
        "replicaResource": lambda: layer.get_replicas(deployment()),
        "retention": lambda: layer.retain(deployment(), deployment()),
        "statusReflection": lambda: layer.reflect_status(deployment()),
        "dependencyInterpretation": lambda: layer.get_dependencies(deployment()),
        "componentResource": lambda: layer.get_components(deployment()),
    }
    with pytest.raises(LuaError) as caught:
        calls[field]()
    assert message in caught.value.message
    assert caught.value.origin.path == "ric.yaml" and caught.value.origin.line == 11


def test_script_error_names_operation_object_and_line(sandbox: lua.Sandbox) -> None:
    script = "function InterpretHealth(o)\n  local s = o.status\n  return s.ready > 0\nend"
    layer = _layer(sandbox, make_customization(healthInterpretation=script))
    with pytest.raises(LuaError) as caught:
        layer.interpret_health(deployment(name="api", namespace="prod"))
    assert str(caught.value) == (
        "ric.yaml:11:7: InterpretHealth: Deployment prod/api: lua line 3: "
        "attempt to index local 's' (a nil value)"
    )


def test_compile_error_is_located(sandbox: lua.Sandbox) -> None:
    layer = _layer(sandbox, make_customization(healthInterpretation="function InterpretHealth(\n"))
    with pytest.raises(LuaError, match=r"ric.yaml:11:7: InterpretHealth: .*lua line 2: .*expected"):
        layer.interpret_health(deployment())


def test_chain_asks_the_customization_first(sandbox: lua.Sandbox) -> None:
    customization = make_customization(
        healthInterpretation="function InterpretHealth(o) return false end",
        replicaResource="function GetReplicas(o) return 42 end",
    )
    chain = interpreter.Interpreter([customization])
    ready = deployment(observedGeneration=1, updatedReplicas=3, availableReplicas=3, replicas=3)
    assert chain.interpret_health(ready) is False
    assert chain.get_replicas(ready) == (42, None)
    assert interpreter.Interpreter().interpret_health(ready) is True
