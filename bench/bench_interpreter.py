"""Benchmark: interpreting a Deployment through Lua customizations, against the native rules.

    python bench/bench_interpreter.py [--calls N] [--rounds R]

A typical Deployment (two containers with requests and limits, env from a ConfigMap, a Secret
volume, node selector, toleration, a status) is interpreted, in this process, by:

- Lua InterpretHealth: Karmada's Deployment health rule written as a customization;
- Lua GetReplicas, Karmada style: `spec.replicas` and `kube.accuratePodRequirements(template)`;
- Lua GetReplicas, plain: `spec.replicas` and a requirement table built in Lua (the example of
  Karmada's rule documentation);
- baseline: gitfleet's native (Python) rules for the same operations on the same object.

Each is timed best of R rounds of N calls through the layer the chain uses (`LuaLayer`, with its
conversions both ways), in processor time of this process (`time.process_time`), so that other
work on a shared machine does not count. Prints calls per second, the ratio of a Lua call's cost
to the native one, and whether the Lua calls met the target of 20,000 calls per second. Results
are checked equal to the native ones first, so the figures are for calls that give the right
answer. The first calls see each document for the first time; from the second on the sandbox
builds its tables from a compiled constructor, as it does for documents that repeat in renders.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gitfleet.interpreter import lua, native
from gitfleet.model import config
from gitfleet.model.template import RawObject

TARGET = 20_000

_DEPLOYMENT: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {
        "name": "web",
        "namespace": "shop",
        "generation": 4,
        "labels": {"app": "web", "team": "shop"},
        "annotations": {"deployment.kubernetes.io/revision": "4"},
    },
    "spec": {
        "replicas": 6,
        "selector": {"matchLabels": {"app": "web"}},
        "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%"}},
        "template": {
            "metadata": {"labels": {"app": "web", "team": "shop"}},
            "spec": {
                "containers": [
                    {
                        "name": "web",
                        "image": "registry.example.com/shop/web:1.27.3",
                        "ports": [{"containerPort": 8080, "name": "http"}],
                        "envFrom": [{"configMapRef": {"name": "web-config"}}],
                        "resources": {
                            "requests": {"cpu": "250m", "memory": "256Mi"},
                            "limits": {"cpu": "1", "memory": "512Mi"},
                        },
                        "volumeMounts": [{"name": "tls", "mountPath": "/tls"}],
                    },
                    {
                        "name": "proxy",
                        "image": "registry.example.com/mesh/proxy:2.1",
                        "resources": {"requests": {"cpu": "50m", "memory": "64Mi"}},
                    },
                ],
                "volumes": [{"name": "tls", "secret": {"secretName": "web-tls"}}],
                "nodeSelector": {"pool": "general"},
                "tolerations": [{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}],
            },
        },
    },
    "status": {
        "observedGeneration": 4,
        "replicas": 6,
        "updatedReplicas": 6,
        "readyReplicas": 6,
        "availableReplicas": 6,
        "conditions": [
            {"type": "Available", "status": "True"},
            {"type": "Progressing", "status": "True"},
        ],
    },
}

DEPLOYMENT = cast(RawObject, _DEPLOYMENT)

HEALTH = """
function InterpretHealth(observedObj)
  local status = observedObj.status
  if status == nil or status.observedGeneration ~= observedObj.metadata.generation then
    return false
  end
  local replicas = observedObj.spec.replicas or 1
  local updated = status.updatedReplicas or 0
  return updated >= replicas and (status.availableReplicas or 0) >= updated
end
"""

REPLICAS_KUBE = """
local kube = require("kube")
function GetReplicas(desiredObj)
  return desiredObj.spec.replicas, kube.accuratePodRequirements(desiredObj.spec.template)
end
"""

REPLICAS_PLAIN = """
function GetReplicas(desiredObj)
  local spec = desiredObj.spec.template.spec
  local requirement = {
    nodeClaim = {nodeSelector = spec.nodeSelector, tolerations = spec.tolerations},
    resourceRequest = {cpu = "300m", memory = "320Mi"},
  }
  return desiredObj.spec.replicas, requirement
end
"""


def _customization(field: str, script: str) -> config.ResourceInterpreterCustomization:
    return config.ResourceInterpreterCustomization.from_doc(
        {
            "apiVersion": config.API_VERSION,
            "kind": "ResourceInterpreterCustomization",
            "metadata": {"name": field.lower()},
            "spec": {
                "target": {"apiVersion": "apps/v1", "kind": "Deployment"},
                "customizations": {field: {"luaScript": script}},
            },
        }
    )


def _rate(call: Callable[[], object], calls: int, rounds: int) -> float:
    """Calls per second of processor time, best of `rounds` rounds."""
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(calls):
            call()
        best = min(best, time.process_time() - start)
    return calls / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    base = native.NativeLayer()
    health = lua.LuaLayer([_customization("healthInterpretation", HEALTH)])
    kube = lua.LuaLayer([_customization("replicaResource", REPLICAS_KUBE)])
    plain = lua.LuaLayer([_customization("replicaResource", REPLICAS_PLAIN)])
    assert health.interpret_health(DEPLOYMENT) == base.interpret_health(DEPLOYMENT) == (True, True)
    assert kube.get_replicas(DEPLOYMENT) == base.get_replicas(DEPLOYMENT)
    assert plain.get_replicas(DEPLOYMENT) == base.get_replicas(DEPLOYMENT)

    rows: list[tuple[str, Callable[[RawObject], object], Callable[[RawObject], object]]] = [
        ("InterpretHealth", health.interpret_health, base.interpret_health),
        ("GetReplicas (kube.accuratePodRequirements)", kube.get_replicas, base.get_replicas),
        ("GetReplicas (requirement built in Lua)", plain.get_replicas, base.get_replicas),
    ]
    print(f"{args.calls} calls, best of {args.rounds} rounds, one Deployment, processor time")
    print(f"{'operation':44} {'Lua calls/s':>12} {'native calls/s':>15} {'Lua/native cost':>16}")
    met = True
    for name, in_lua, in_python in rows:
        lua_rate = _rate(functools.partial(in_lua, DEPLOYMENT), args.calls, args.rounds)
        native_rate = _rate(functools.partial(in_python, DEPLOYMENT), args.calls, args.rounds)
        met = met and lua_rate >= TARGET
        print(f"{name:44} {lua_rate:12,.0f} {native_rate:15,.0f} {native_rate / lua_rate:15.1f}x")
    print(f"target {TARGET:,} Lua calls/s for every operation: {'met' if met else 'NOT met'}")


if __name__ == "__main__":
    main()
