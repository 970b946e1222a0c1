"""Defaults of native kinds that server-side apply needs before the API server would set them.

Server-side apply merges a list of ports by its keys: a Service port by `port` and `protocol`,
a container port by `containerPort` and `protocol`. Users leave `protocol` out (it defaults to
TCP), and API servers that do not yet know that default for server-side apply (container ports
before 1.20, Service ports before 1.21) reject such an apply outright ("associative list with
keys has an element that omits key field \"protocol\""), where a client-side `kubectl apply`
works. So the applier fills in `TCP` first, as Flux's apply layer does; on servers that
default it themselves this changes nothing, since it is the value they would store.

Resource quantities (`cpu: 0.5`, `memory: 134217728`) written as YAML numbers are strings to
server-side apply: a 1.20 server refuses the whole apply ("failed to create typed patch object:
... resources.limits.cpu: expected string, got &value.valueUnstructured{Value:0.5}"), where
`kubectl apply` takes the number. The applier writes such a number as the string the server
would parse it from (of containers' resources, claims and claim templates, a ResourceQuota's
`hard` and a LimitRange's limits).

A Secret's `stringData` is write-only: every API server folds it into `data` (base64, a
`stringData` key winning over the same key of `data`) and stores no `stringData`. Applied as
written, gitfleet's field set would own `stringData` keys the live object never has, so every
sync would see them removed, report the Secret drifted and write it again. The applier folds
it first, as the server would, so gitfleet owns the `data` keys the object keeps.
"""

from __future__ import annotations

import copy
from typing import Any

from gitfleet import kubedefaults

Obj = dict[str, Any]

DEFAULT_PROTOCOL = "TCP"

_POD_SPEC_PATHS: dict[tuple[str, str], tuple[str, ...]] = {
    ("v1", "Pod"): ("spec",),
    ("v1", "PodTemplate"): ("template", "spec"),
    ("v1", "ReplicationController"): ("spec", "template", "spec"),
    ("apps/v1", "Deployment"): ("spec", "template", "spec"),
    ("apps/v1", "StatefulSet"): ("spec", "template", "spec"),
    ("apps/v1", "DaemonSet"): ("spec", "template", "spec"),
    ("apps/v1", "ReplicaSet"): ("spec", "template", "spec"),
    ("batch/v1", "Job"): ("spec", "template", "spec"),
    ("batch/v1", "CronJob"): ("spec", "jobTemplate", "spec", "template", "spec"),
    ("batch/v1beta1", "CronJob"): ("spec", "jobTemplate", "spec", "template", "spec"),
}
"""Where each native kind that runs pods keeps its pod spec."""


def _at(obj: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj


def _without_protocol(ports: Any) -> list[Obj]:
    if not isinstance(ports, list):
        return []
    return [p for p in ports if isinstance(p, dict) and not p.get("protocol")]


def _ports_missing_protocol(manifest: Obj) -> list[Obj]:
    """The ports of `manifest` (a Service's, or its pod spec's containers') that leave
    `protocol` out."""
    key = (manifest.get("apiVersion", ""), manifest.get("kind", ""))
    if key == ("v1", "Service"):
        return _without_protocol(_at(manifest, ("spec", "ports")))
    path = _POD_SPEC_PATHS.get(key)
    spec = _at(manifest, path) if path else None
    if not isinstance(spec, dict):
        return []
    found = []
    for group in ("containers", "initContainers"):
        for container in spec.get(group) or []:
            if isinstance(container, dict):
                found += _without_protocol(container.get("ports"))
    return found


_CLAIM_PATHS: dict[tuple[str, str], tuple[str, ...]] = {
    ("v1", "PersistentVolumeClaim"): ("spec", "resources"),
}
"""Where claims keep their `requests` and `limits`, besides StatefulSet claim templates."""
_LIMIT_RANGE_MAPS = ("default", "defaultRequest", "max", "min", "maxLimitRequestRatio")


def _resource_maps(manifest: Obj) -> list[Obj]:
    """The maps of quantities of `manifest`: its containers', claim's or claim templates'
    `requests` and `limits`, a ResourceQuota's `hard`, a LimitRange's limits."""
    key = (manifest.get("apiVersion", ""), manifest.get("kind", ""))
    holders: list[Any] = []
    path = _POD_SPEC_PATHS.get(key)
    spec = _at(manifest, path) if path else None
    if isinstance(spec, dict):
        for group in ("containers", "initContainers"):
            for container in spec.get(group) or []:
                holders.append(container.get("resources") if isinstance(container, dict) else None)
    if key in _CLAIM_PATHS:
        holders.append(_at(manifest, _CLAIM_PATHS[key]))
    if key == ("apps/v1", "StatefulSet"):
        for claim in _at(manifest, ("spec", "volumeClaimTemplates")) or []:
            holders.append(_at(claim, ("spec", "resources")))
    maps = [h.get(part) for h in holders if isinstance(h, dict) for part in ("requests", "limits")]
    if key == ("v1", "ResourceQuota"):
        maps.append(_at(manifest, ("spec", "hard")))
    if key == ("v1", "LimitRange"):
        for limit in _at(manifest, ("spec", "limits")) or []:
            if isinstance(limit, dict):
                maps += [limit.get(part) for part in _LIMIT_RANGE_MAPS]
    return [m for m in maps if isinstance(m, dict)]


def _numeric(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _numeric_quantities(manifest: Obj) -> list[Obj]:
    """The resource maps of `manifest` with a quantity written as a number."""
    return [m for m in _resource_maps(manifest) if any(_numeric(v) for v in m.values())]


def _string_data(manifest: Obj) -> Obj | None:
    """A Secret's `stringData`, when it has one."""
    if (manifest.get("apiVersion"), manifest.get("kind")) != ("v1", "Secret"):
        return None
    plain = manifest.get("stringData")
    return plain if isinstance(plain, dict) else None


def fill(manifest: Obj) -> Obj:
    """`manifest` with the defaults filled in, numeric quantities written as strings and a
    Secret's `stringData` folded into `data`: the same object when there is nothing to do,
    else a changed copy (the manifest itself is never changed)."""
    if (
        not _ports_missing_protocol(manifest)
        and not _numeric_quantities(manifest)
        and _string_data(manifest) is None
    ):
        return manifest
    filled = copy.deepcopy(manifest)
    for port in _ports_missing_protocol(filled):
        port["protocol"] = DEFAULT_PROTOCOL
    for quantities in _numeric_quantities(filled):
        for name, value in quantities.items():
            if _numeric(value):
                quantities[name] = repr(value)
    if _string_data(filled) is not None:
        kubedefaults.fold_string_data(filled)
    return filled
