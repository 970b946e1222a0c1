"""What a report keeps of a live object besides its health and reflected status: the few fields
`gitfleet get` prints as kubectl does (karmada-search's view of members, read from Git).

A fixed list of paths, so the report stays small whatever the object holds, and never a
Secret's or ConfigMap's data: labels and creation time (for `-l` and AGE), a workload's
desired replicas, selector, node selector and containers' names and images (READY,
DESIRED, `-o wide`; a CronJob's from its Job template), a Job's completions and parallelism,
a CronJob's schedule and suspension, a Service's type, addresses and ports, an Ingress's
class, TLS settings and its rules' hosts. The result has the object's own shape (`metadata`,
`spec`), so a reader handles a reported object and a live one alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

KEPT: tuple[tuple[str, ...], ...] = (
    ("metadata", "labels"),
    ("metadata", "creationTimestamp"),
    ("spec", "replicas"),
    ("spec", "selector"),
    ("spec", "type"),
    ("spec", "clusterIP"),
    ("spec", "externalIPs"),
    ("spec", "externalName"),
    ("spec", "ports"),
    ("spec", "template", "spec", "nodeSelector"),
    ("spec", "completions"),
    ("spec", "parallelism"),
    ("spec", "schedule"),
    ("spec", "suspend"),
    ("spec", "jobTemplate", "spec", "selector"),
    ("spec", "ingressClassName"),
    ("spec", "tls"),
)
"""Paths copied as they are."""
CONTAINER_FIELDS = ("name", "image")
"""What is kept of each container of a workload's pod template."""
POD_TEMPLATES: tuple[tuple[str, ...], ...] = (
    ("spec", "template", "spec", "containers"),
    ("spec", "jobTemplate", "spec", "template", "spec", "containers"),
)
RULE_FIELDS = ("host",)
"""What is kept of each rule of an Ingress (its paths and backends are not printed)."""


def _at(obj: Any, path: tuple[str, ...]) -> Any:
    for step in path:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(step)
    return obj


def _put(out: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    for step in path[:-1]:
        out = out.setdefault(step, {})
    out[path[-1]] = value


def fields(obj: Mapping[str, Any]) -> dict[str, Any]:
    """The kept fields of a live object ({} when it has none of them)."""
    out: dict[str, Any] = {}
    for path in KEPT:
        value = _at(obj, path)
        if value is not None:
            _put(out, path, value)
    for path in POD_TEMPLATES:
        _keep_items(obj, out, path, CONTAINER_FIELDS)
    _keep_items(obj, out, ("spec", "rules"), RULE_FIELDS)
    return out


def _keep_items(
    obj: Mapping[str, Any], out: dict[str, Any], path: tuple[str, ...], keys: tuple[str, ...]
) -> None:
    """Of each item of the list at `path`, only `keys`."""
    items = _at(obj, path)
    if isinstance(items, list):
        kept = [{k: i[k] for k in keys if k in i} for i in items if isinstance(i, Mapping)]
        _put(out, path, kept)
