"""The interpreter chain: which layer answers, and what it answers when none does.

Aspects: Karmada's caller defaults for kinds no layer handles (no replicas, unchanged objects,
healthy, no dependencies, whole status); which hooks are enabled, natively and by
customizations (only non-empty scripts count); a chain whose customizations target other kinds
never needs Lua; user customizations override native rules for their kind and only for the
operations they script, and win over third-party ones (these need the Lua layer and are
skipped while `gitfleet.interpreter.lua.LuaLayer` does not exist); scripts see the caller's
time."""

from __future__ import annotations

from typing import Any

import pytest
from interpreter.kube_docs import Doc, item, obj, workload

from gitfleet import errors, interpreter
from gitfleet.model import config

Op = interpreter.Operation
WIDGET = obj("Widget", spec={"size": 3}, status={"ready": True})
WIDGET["apiVersion"] = "example.io/v1"


def customization(
    name: str, api_version: str, kind: str, **scripts: str
) -> config.ResourceInterpreterCustomization:
    """A ResourceInterpreterCustomization scripting the given rules (field name: Lua)."""
    return config.ResourceInterpreterCustomization.from_doc(
        {
            "apiVersion": "config.karmada.io/v1alpha1",
            "kind": "ResourceInterpreterCustomization",
            "metadata": {"name": name},
            "spec": {
                "target": {"apiVersion": api_version, "kind": kind},
                "customizations": {rule: {"luaScript": script} for rule, script in scripts.items()},
            },
        }
    )


def test_defaults_for_kinds_nobody_interprets(chain: interpreter.Interpreter) -> None:
    assert chain.get_replicas(WIDGET) == (0, None)
    assert chain.get_components(WIDGET) == []
    assert chain.get_dependencies(WIDGET) == []
    assert chain.interpret_health(WIDGET) is True
    assert chain.reflect_status(WIDGET) == {"ready": True}
    for result in (
        chain.revise_replica(WIDGET, 5),
        chain.retain(WIDGET, {**WIDGET, "spec": {"size": 9}}),
        chain.aggregate_status(WIDGET, [item("a", {"ready": False})]),
    ):
        assert result == WIDGET
        assert result is not WIDGET


@pytest.mark.parametrize(
    ("api_version", "kind", "operation", "enabled"),
    [
        pytest.param("apps/v1", "Deployment", Op.INTERPRET_REPLICA, True, id="deployment replicas"),
        pytest.param(
            "apps/v1", "DaemonSet", Op.INTERPRET_REPLICA, False, id="daemonset has no replicas"
        ),
        pytest.param("apps/v1", "DaemonSet", Op.INTERPRET_HEALTH, True, id="daemonset health"),
        pytest.param("batch/v1", "Job", Op.REVISE_REPLICA, True, id="job revise"),
        pytest.param("batch/v1", "CronJob", Op.AGGREGATE_STATUS, True, id="cronjob aggregate"),
        pytest.param("batch/v1", "CronJob", Op.INTERPRET_HEALTH, False, id="cronjob has no health"),
        pytest.param("v1", "Secret", Op.RETAIN, True, id="secret retain"),
        pytest.param("v1", "PersistentVolume", Op.AGGREGATE_STATUS, True, id="volume aggregate"),
        pytest.param(
            "multicluster.x-k8s.io/v1alpha1",
            "ServiceImport",
            Op.INTERPRET_DEPENDENCY,
            True,
            id="service import deps",
        ),
        pytest.param("apps/v1beta1", "Deployment", Op.INTERPRET_REPLICA, False, id="other version"),
        pytest.param("/v1", "Pod", Op.INTERPRET_HEALTH, True, id="core group spelled /v1"),
        pytest.param("core/v1", "Pod", Op.INTERPRET_HEALTH, False, id="core is no group name"),
        pytest.param("/apps/v1", "Deployment", Op.RETAIN, False, id="unreadable apiVersion"),
        pytest.param("example.io/v1", "Widget", Op.INTERPRET_STATUS, True, id="status always"),
        pytest.param(
            "apps/v1", "Deployment", Op.INTERPRET_COMPONENT, False, id="components never native"
        ),
    ],
)
def test_native_hooks(
    chain: interpreter.Interpreter,
    api_version: str,
    kind: str,
    operation: interpreter.Operation,
    enabled: bool,
) -> None:
    assert chain.hook_enabled(api_version, kind, operation) is enabled


def test_native_rules_read_apiversion_as_go_does(chain: interpreter.Interpreter) -> None:
    # Karmada finds its rule by the GroupVersionKind it parses: "/v1" is the core group's v1
    pod = {"apiVersion": "/v1", "kind": "Pod", "status": {"phase": "Succeeded"}}
    assert chain.interpret_health(pod) is True
    assert chain.get_replicas(pod) == (1, None)


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda c, d: c.get_replicas(d), id="replicas"),
        pytest.param(lambda c, d: c.aggregate_status(d, [item("a", {})]), id="aggregate"),
        pytest.param(lambda c, d: c.interpret_health(d), id="health"),
        pytest.param(lambda c, d: c.get_dependencies(d), id="dependencies"),
        pytest.param(lambda c, d: c.retain({**d, "kind": "Pod", "apiVersion": "v1"}, d), id="pod"),
    ],
)
@pytest.mark.parametrize("key", ["metadata", "spec", "status"])
def test_part_not_an_object_fails_rules_karmada_runs_on_go_types(
    chain: interpreter.Interpreter, call: Any, key: str
) -> None:
    # Karmada converts the object to its Go type first, which fails whatever the rule reads
    doc = workload("Deployment", replicas=1)
    doc[key] = "web"
    with pytest.raises(errors.InterpretError, match=rf"{key}: expected an object"):
        call(chain, doc)


HEALTH_FALSE = "function InterpretHealth(observedObj) return false end"
REPLICAS_SEVEN = "function GetReplicas(obj) return 7, nil end"


def test_customized_hooks_without_running_lua() -> None:
    chain = interpreter.Interpreter(
        [
            customization(
                "widget", "example.io/v1", "Widget", healthInterpretation=HEALTH_FALSE, retention=""
            )
        ],
        [customization("widget-3p", "example.io/v1", "Widget", replicaResource=REPLICAS_SEVEN)],
    )
    assert chain.hook_enabled("example.io/v1", "Widget", Op.INTERPRET_HEALTH)
    assert chain.hook_enabled("example.io/v1", "Widget", Op.INTERPRET_REPLICA)
    assert not chain.hook_enabled("example.io/v1", "Widget", Op.RETAIN)
    assert not chain.hook_enabled("example.io/v2", "Widget", Op.INTERPRET_HEALTH)
    deployment = workload("Deployment", replicas=3)
    assert chain.get_replicas(deployment)[0] == 3
    assert chain.interpret_health(WIDGET | {"kind": "Gadget"}) is True


def _lua_chain(*args: Any, **kwargs: Any) -> interpreter.Interpreter:
    lua = pytest.importorskip("gitfleet.interpreter.lua")
    if not hasattr(lua, "LuaLayer"):
        pytest.skip("the Lua layer is not available yet")
    return interpreter.Interpreter(*args, **kwargs)


def _rolled_out() -> Doc:
    doc = workload("Deployment", replicas=2, metadata={"generation": 1})
    doc["status"] = {"observedGeneration": 1, "updatedReplicas": 2, "availableReplicas": 2}
    return doc


def test_user_customization_overrides_only_its_operations() -> None:
    chain = _lua_chain(
        [customization("deploy-health", "apps/v1", "Deployment", healthInterpretation=HEALTH_FALSE)]
    )
    doc = _rolled_out()
    assert chain.interpret_health(doc) is False
    assert chain.get_replicas(doc)[0] == 2
    assert chain.revise_replica(doc, 5)["spec"]["replicas"] == 5


def test_user_customization_wins_over_third_party() -> None:
    replicas_nine = "function GetReplicas(obj) return 9, nil end"
    chain = _lua_chain(
        [customization("user", "apps/v1", "Deployment", replicaResource=REPLICAS_SEVEN)],
        [
            customization(
                "vendor",
                "apps/v1",
                "Deployment",
                replicaResource=replicas_nine,
                healthInterpretation=HEALTH_FALSE,
            )
        ],
    )
    doc = _rolled_out()
    assert chain.get_replicas(doc)[0] == 7
    assert chain.interpret_health(doc) is False
    assert interpreter.Interpreter().interpret_health(doc) is True


def test_scripts_read_the_time_the_caller_passes() -> None:
    at_noon = "function InterpretHealth(obj) return os.time() == 1767268800 end"
    rules = [customization("clock", "example.io/v1", "Widget", healthInterpretation=at_noon)]
    assert _lua_chain(rules, (), now=1767268800.0).interpret_health(WIDGET) is True
    assert _lua_chain(rules).interpret_health(WIDGET) is False
