"""Pods as the simulated workload controllers create them, and the scheduler that binds them
to nodes by their resource requests (so Node allocatable minus Pod requests is what a
cluster status reporter computes, as it would on a real cluster).

A pod's effective request follows the kube-scheduler's rule: per resource, the sum over
containers (requests, else limits) or the largest init container, whichever is more.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from fractions import Fraction

from gitfleet.sim import _json, _quantity, _selectors

TERMINAL = ("Succeeded", "Failed")


def requests(spec: _json.Obj) -> dict[str, Fraction]:
    """The pod's resource request per resource name."""
    total: dict[str, Fraction] = {}
    for container in spec.get("containers") or []:
        for name, amount in _container_requests(container).items():
            total[name] = total.get(name, Fraction(0)) + amount
    for container in spec.get("initContainers") or []:
        for name, amount in _container_requests(container).items():
            total[name] = max(total.get(name, Fraction(0)), amount)
    for name, text in (spec.get("overhead") or {}).items():
        total[name] = total.get(name, Fraction(0)) + _quantity.parse(text)
    return total


def _container_requests(container: _json.Obj) -> dict[str, Fraction]:
    resources = container.get("resources") or {}
    merged = {**(resources.get("limits") or {}), **(resources.get("requests") or {})}
    found: dict[str, Fraction] = {}
    for name, text in merged.items():
        try:
            found[name] = _quantity.parse(text)
        except ValueError:
            continue
    return found


def template_hash(template: _json.Obj) -> str:
    """A short stable hash of a pod template (Kubernetes' `pod-template-hash` label)."""
    digest = hashlib.sha256(json.dumps(template, sort_keys=True).encode()).hexdigest()
    return digest[:10]


def is_active(pod: _json.Obj) -> bool:
    """Not finished and not being deleted: it holds (or waits for) node resources."""
    return _json.dig(pod, "status", "phase") not in TERMINAL and not _json.dig(
        pod, "metadata", "deletionTimestamp"
    )


def is_ready(pod: _json.Obj) -> bool:
    conditions = _json.dig(pod, "status", "conditions") or []
    return _json.dig(pod, "status", "phase") == "Running" and any(
        c.get("type") == "Ready" and c.get("status") == "True" for c in conditions
    )


def node_allocatable(node: _json.Obj) -> dict[str, Fraction]:
    found: dict[str, Fraction] = {}
    for name, text in (_json.dig(node, "status", "allocatable") or {}).items():
        try:
            found[name] = _quantity.parse(text)
        except ValueError:
            continue
    return found


def choose_node(
    pod: _json.Obj, nodes: list[_json.Obj], used: Mapping[str, dict[str, Fraction]]
) -> tuple[str | None, str]:
    """The node the pod fits best (most room left, then name), or (None, why not).
    `used` holds the requests (and a "pods" count) already placed on each node."""
    wanted = requests(pod.get("spec") or {})
    selector = _json.dig(pod, "spec", "nodeSelector") or {}
    best: tuple[Fraction, str] | None = None
    shortages: set[str] = set()
    for node in nodes:
        name = node["metadata"]["name"]
        labels = _json.dig(node, "metadata", "labels") or {}
        if not _selectors.selector_matches({"matchLabels": selector}, labels):
            shortages.add("didn't match Pod's node affinity/selector")
            continue
        if _json.dig(node, "spec", "unschedulable"):
            shortages.add("were unschedulable")
            continue
        allocatable, placed = node_allocatable(node), used.get(name, {})
        need = {**wanted, "pods": wanted.get("pods", Fraction(0)) + 1}
        short = [
            resource
            for resource, amount in need.items()
            if amount > 0
            and placed.get(resource, Fraction(0)) + amount > allocatable.get(resource, Fraction(0))
        ]
        if short:
            shortages.update(f"Insufficient {resource}" for resource in short)
            continue
        room = min(
            (
                1 - (placed.get(r, Fraction(0)) + need.get(r, Fraction(0))) / allocatable[r]
                for r in ("cpu", "memory", "pods")
                if allocatable.get(r)
            ),
            default=Fraction(0),
        )
        if best is None or room > best[0]:  # nodes come sorted: ties keep the first
            best = (room, name)
    if best is not None:
        return (best[1], "")
    reasons = ", ".join(sorted(shortages)) or "no nodes available"
    return (None, f"0/{len(nodes)} nodes are available: {reasons}.")


def qos_class(spec: _json.Obj) -> str:
    """Guaranteed (every container's requests equal its limits, cpu and memory set),
    BestEffort (no requests or limits at all), else Burstable."""
    containers = [*(spec.get("containers") or []), *(spec.get("initContainers") or [])]
    resources = [c.get("resources") or {} for c in containers]
    if not any(r.get("requests") or r.get("limits") for r in resources):
        return "BestEffort"
    guaranteed = all(
        all(name in (r.get("limits") or {}) for name in ("cpu", "memory"))
        and all(
            (r.get("requests") or {}).get(name, limit) == limit
            for name, limit in (r.get("limits") or {}).items()
        )
        for r in resources
    )
    return "Guaranteed" if guaranteed else "Burstable"
