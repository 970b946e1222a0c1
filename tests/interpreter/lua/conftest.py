"""Lua interpreter fixtures: sandboxes (default and tight limits), a way to run a script's
function and read its results, customizations written as YAML (so errors have lines), and a
health script around a body (for scripts that must fail)."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import Any

import pytest

from gitfleet.interpreter import lua
from gitfleet.interpreter.lua import _convert, _sandbox
from gitfleet.model import config

TIGHT = lua.Limits(instructions=2_000_000, memory=16 * 1024 * 1024, seconds=0.5)
"""Limits small enough that runaway scripts stop within milliseconds."""

Run = Callable[..., list[Any]]

REP = (
    "local function rep(s, n) local out = '' while n > 0 do if n % 2 == 1 then out = out .. s end"
    " n = math.floor(n / 2) if n > 0 then s = s .. s end end return out end "
)
"""`rep(s, n)`, string.rep as a script must write it (Karmada refuses string.rep, and so does
gitfleet), in one line without its end, to put before a script's first line: the script's own
lines keep their numbers."""


@pytest.fixture(name="sandbox", scope="session")
def sandbox_fixture() -> lua.Sandbox:
    """A sandbox with the default limits, shared by the tests that do not break it."""
    return lua.Sandbox()


@pytest.fixture(name="tight_sandbox", scope="session")
def tight_sandbox_fixture() -> lua.Sandbox:
    """A sandbox with tight limits, for scripts that must be stopped."""
    return lua.Sandbox(TIGHT)


def results(found: list[_sandbox.Result]) -> list[Any]:
    """Decoded results (JSON values; None for nil and values JSON cannot hold)."""
    return [None if r.json is None else _convert.decode(r.json) for r in found]


@pytest.fixture(name="run")
def run_fixture(sandbox: lua.Sandbox) -> Run:
    """`run(script, *args, function="F")`: the results of `function` (decoded)."""

    def run(script: str, *args: Any, function: str = "F", now: float = 0.0) -> list[Any]:
        return results(sandbox.call(textwrap.dedent(script), function, args, now=now))

    return run


def customization_yaml(
    target: tuple[str, str] = ("apps/v1", "Deployment"), name: str = "test", **scripts: str
) -> str:
    """A ResourceInterpreterCustomization document; `scripts` maps rule fields
    (`healthInterpretation`, ...) to Lua source."""
    lines = [
        "apiVersion: config.karmada.io/v1alpha1",
        "kind: ResourceInterpreterCustomization",
        "metadata:",
        f'  name: "{name}"',
        "spec:",
        "  target:",
        f"    apiVersion: {target[0]}",
        f"    kind: {target[1]}",
        "  customizations:",
    ]
    for field, script in scripts.items():
        lines += [f"    {field}:", "      luaScript: |"]
        lines += ["        " + line for line in textwrap.dedent(script).strip().splitlines()]
    return "\n".join(lines) + "\n"


def make_customization(
    target: tuple[str, str] = ("apps/v1", "Deployment"),
    name: str = "test",
    path: str = "ric.yaml",
    **scripts: str,
) -> config.ResourceInterpreterCustomization:
    """A customization parsed from YAML at `path`, so its errors are located."""
    ((doc, origin),) = lua.parse_yaml(path, customization_yaml(target, name, **scripts))
    return config.ResourceInterpreterCustomization.from_doc(doc, origin)


def deployment(
    name: str = "web", namespace: str = "default", replicas: int = 3, **status: Any
) -> dict[str, Any]:
    """An apps/v1 Deployment with one container (and `status` when given)."""
    obj: dict[str, Any] = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace, "generation": 1},
        "spec": {
            "replicas": replicas,
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {
                    "containers": [
                        {
                            "name": name,
                            "image": "nginx",
                            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
                        }
                    ]
                },
            },
        },
    }
    if status:
        obj["status"] = status
    return obj


LUA_SCRIPT_LINE = 11
"""Line of `luaScript:` in `make_customization`'s YAML (the script starts on the next line)."""
HEALTHY = deployment(readyReplicas=3)


def health_layer(sandbox: lua.Sandbox, body: str) -> lua.LuaLayer:
    """A layer whose InterpretHealth runs `body` (its first line is the script's line 2)."""
    script = "function InterpretHealth(observedObj)\n" + body + "\nend\n"
    return lua.LuaLayer([make_customization(healthInterpretation=script)], sandbox=sandbox, now=0.0)


def assert_still_works(sandbox: lua.Sandbox) -> None:
    """The sandbox answers a plain script after whatever happened before."""
    body = "return observedObj.status.readyReplicas == observedObj.spec.replicas"
    assert health_layer(sandbox, body).interpret_health(HEALTHY) == (True, True)
