"""commandOverrider and argsOverrider: add appends, remove drops every equal element, an
absent list is created by an `add` operation (empty for remove), only containers with the
named container get an operation, Pod and workload paths, other kinds untouched, and a list
that is not of strings fails at the overrider."""

from __future__ import annotations

from typing import Any

import pytest

from gitfleet.errors import OverrideError

TEMPLATE = "/spec/template/spec/containers"
NGINX = {"name": "nginx", "image": "nginx", "command": ["nginx", "-v", "-t"]}


def _entry(kind: str, container: str, operator: str, *values: str) -> dict[str, Any]:
    item: dict[str, Any] = {"containerName": container, "operator": operator}
    if values:
        item["value"] = list(values)
    return {kind: [item]}


@pytest.mark.parametrize(
    ("kind", "containers", "overriders", "expected"),
    [
        # ported from Karmada's commandargsoverride tests
        pytest.param(
            "Deployment",
            [NGINX],
            _entry("commandOverrider", "nginx", "add", "&& echo 'hello karmada'"),
            [
                {
                    "op": "replace",
                    "path": f"{TEMPLATE}/0/command",
                    "value": ["nginx", "-v", "-t", "&& echo 'hello karmada'"],
                }
            ],
            id="command add replaces the whole list",
        ),
        pytest.param(
            "Deployment",
            [NGINX],
            _entry("commandOverrider", "nginx", "remove", "-t"),
            [{"op": "replace", "path": f"{TEMPLATE}/0/command", "value": ["nginx", "-v"]}],
            id="command remove",
        ),
        pytest.param(
            "Pod",
            [NGINX],
            _entry("commandOverrider", "nginx", "add", "echo 'hello karmada'"),
            [
                {
                    "op": "replace",
                    "path": "/spec/containers/0/command",
                    "value": ["nginx", "-v", "-t", "echo 'hello karmada'"],
                }
            ],
            id="pod path",
        ),
        pytest.param(
            "Deployment",
            [NGINX],
            _entry("argsOverrider", "nginx", "add", "-t"),
            [{"op": "add", "path": f"{TEMPLATE}/0/args", "value": ["-t"]}],
            id="args absent: add creates them",
        ),
        # gitfleet's own cases
        pytest.param(
            "Deployment",
            [NGINX],
            _entry("argsOverrider", "nginx", "remove", "-t"),
            [{"op": "add", "path": f"{TEMPLATE}/0/args", "value": []}],
            id="args absent: remove creates an empty list",
        ),
        pytest.param(
            "Deployment",
            [NGINX],
            _entry("commandOverrider", "nginx", "remove"),
            [{"op": "replace", "path": f"{TEMPLATE}/0/command", "value": ["nginx", "-v", "-t"]}],
            id="remove without values keeps everything",
        ),
        pytest.param(
            "Deployment",
            [{**NGINX, "command": ["a", "b", "a"]}],
            _entry("commandOverrider", "nginx", "remove", "a"),
            [{"op": "replace", "path": f"{TEMPLATE}/0/command", "value": ["b"]}],
            id="remove drops every occurrence",
        ),
        pytest.param(
            "Deployment",
            [NGINX, {"name": "sidecar", "image": "envoy"}, {**NGINX, "command": ["x"]}],
            _entry("commandOverrider", "nginx", "add", "-q"),
            [
                {
                    "op": "replace",
                    "path": f"{TEMPLATE}/0/command",
                    "value": [*NGINX["command"], "-q"],
                },
                {"op": "replace", "path": f"{TEMPLATE}/2/command", "value": ["x", "-q"]},
            ],
            id="every container with the name",
        ),
        pytest.param(
            "Deployment",
            [NGINX],
            _entry("commandOverrider", "other", "add", "-q"),
            [],
            id="no container with the name",
        ),
        pytest.param(
            "Job",
            [{"name": "pi", "image": "perl", "args": ["-Mbignum"]}],
            _entry("argsOverrider", "pi", "add", "-wle"),
            [{"op": "replace", "path": f"{TEMPLATE}/0/args", "value": ["-Mbignum", "-wle"]}],
            id="job args",
        ),
        pytest.param(
            "CronJob",
            [NGINX],
            _entry("commandOverrider", "nginx", "add", "-q"),
            [],
            id="cronjob is not edited",
        ),
    ],
)
def test_command_args_operations(
    kind: str,
    containers: list[dict[str, Any]],
    overriders: dict[str, Any],
    expected: list[dict[str, Any]],
    workload: Any,
    block_ops: Any,
) -> None:
    assert block_ops(workload(kind, *containers), overriders) == expected


def test_command_then_args_in_one_block(workload: Any, apply_block: Any) -> None:
    overriders = {
        **_entry("commandOverrider", "nginx", "remove", "-t"),
        **_entry("argsOverrider", "nginx", "add", "--debug"),
    }
    container = apply_block(workload("Deployment", NGINX), overriders)["spec"]["template"]["spec"][
        "containers"
    ][0]
    assert container["command"] == ["nginx", "-v"]
    assert container["args"] == ["--debug"]


def test_command_not_a_string_list_fails(workload: Any, apply_block: Any) -> None:
    manifest = workload("Deployment", {**NGINX, "command": ["nginx", 1]})
    with pytest.raises(OverrideError) as caught:
        apply_block(manifest, _entry("commandOverrider", "nginx", "add", "-q"))
    assert caught.value.origin.keys[-2:] == ("commandOverrider", 0)
    assert "/spec/template/spec/containers/0/command is not a list of strings" in str(caught.value)
