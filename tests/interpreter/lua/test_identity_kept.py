"""ReviseReplica and Retain scripts change an object, never which object it is.

Aspects covered:
- a ReviseReplica or Retain script returning an object of another kind, apiVersion, name,
  namespace (or none) or with a generateName is a `LuaError` at its `luaScript` field, naming
  the operation, the object and the field that changed;
- asked through the chain, as the render stage (ReviseReplica) and the agent (Retain) ask, so
  they get that error instead of an object they would write under the template's path;
- scripts that keep the identity (and change replicas or other fields) go on working.
"""

from __future__ import annotations

import pytest

from gitfleet import interpreter
from gitfleet.errors import LuaError
from tests.interpreter.lua.conftest import deployment, make_customization

CHANGES = [
    pytest.param('obj.kind = "StatefulSet"', "kind 'Deployment' became 'StatefulSet'", id="kind"),
    pytest.param('obj.apiVersion = "apps/v2"', "apiVersion 'apps/v1' became 'apps/v2'", id="api"),
    pytest.param('obj.metadata.name = "other"', "metadata.name 'web' became 'other'", id="name"),
    pytest.param(
        'obj.metadata.namespace = "kube-system"',
        "metadata.namespace 'default' became 'kube-system'", id="namespace",
    ),
    pytest.param(
        "obj.metadata.namespace = nil", "metadata.namespace 'default' became ''",
        id="namespace dropped",
    ),
    pytest.param(
        'obj.metadata.generateName = "web-"', "metadata.generateName '' became 'web-'",
        id="generateName",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("change", "message"), CHANGES)
def test_revise_replica_must_keep_the_object(change: str, message: str) -> None:
    script = (
        f"function ReviseReplica(obj, n)\n  obj.spec.replicas = n\n  {change}\n  return obj\nend"
    )
    chain = interpreter.Interpreter([make_customization(replicaRevision=script)])
    with pytest.raises(LuaError) as caught:
        chain.revise_replica(deployment(), 2)
    assert caught.value.origin.path == "ric.yaml"
    assert caught.value.origin.keys[-2:] == ("replicaRevision", "luaScript")
    assert caught.value.message.startswith("ReviseReplica: ")
    assert f"the returned object is another object: {message}" in caught.value.message


@pytest.mark.parametrize(("change", "message"), CHANGES)
def test_retain_must_keep_the_object(change: str, message: str) -> None:
    script = f"function Retain(obj, observed)\n  {change}\n  return obj\nend"
    chain = interpreter.Interpreter([make_customization(retention=script)])
    with pytest.raises(LuaError) as caught:
        chain.retain(deployment(), deployment(replicas=5))
    assert caught.value.origin.keys[-2:] == ("retention", "luaScript")
    assert f"the returned object is another object: {message}" in caught.value.message


def test_scripts_that_keep_the_object_work() -> None:
    revise = "function ReviseReplica(obj, n)\n  obj.spec.replicas = n\n  return obj\nend"
    retain = "function Retain(obj, observed)\n  obj.spec.paused = true\n  return obj\nend"
    chain = interpreter.Interpreter([make_customization(replicaRevision=revise, retention=retain)])
    assert chain.revise_replica(deployment(), 2)["spec"]["replicas"] == 2
    assert chain.retain(deployment(), deployment())["spec"]["paused"] is True
