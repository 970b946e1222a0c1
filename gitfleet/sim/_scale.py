"""The `scale` subresource (`.../<plural>/<name>/scale`) that `kubectl scale` and autoscalers
use: an autoscaling/v1 Scale made from the object's wanted and current replicas and its pod
selector, and writes through it that change the wanted replicas only.

Built-in workloads keep these at `spec.replicas`, `status.replicas` and `spec.selector`;
custom resources where their CRD's `subresources.scale` says.
"""

from __future__ import annotations

from typing import Any

from gitfleet.sim import _errors, _json, _resources, _selectors

API_VERSION = "autoscaling/v1"
KIND = "Scale"
OWNERSHIP_TRACKED = (1, 21)
"""From this release a write through a built-in kind's scale subresource takes `spec.replicas`
in managedFields (kubernetes/kubernetes#98377). Before, it changes the replicas and leaves
managedFields as they were: whoever applied the replicas still owns them, at the new value."""


def _at(obj: _json.Obj, path: _resources.Path) -> Any:
    return _json.dig(obj, *path) if path else None


def scale_of(paths: _resources.ScalePaths, obj: _json.Obj) -> _json.Obj:
    """The Scale of `obj`."""
    metadata = obj["metadata"]
    status: _json.Obj = {"replicas": int(_at(obj, paths.status_replicas) or 0)}
    selector = _at(obj, paths.selector) if paths.selector else None
    if isinstance(selector, dict):
        selector = _selectors.format_selector(selector)
    if selector:
        status["selector"] = str(selector)
    return {
        "kind": KIND,
        "apiVersion": API_VERSION,
        "metadata": {
            key: metadata[key]
            for key in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
            if key in metadata
        },
        "spec": {"replicas": int(_at(obj, paths.spec_replicas) or 0)},
        "status": status,
    }


def with_replicas(paths: _resources.ScalePaths, obj: _json.Obj, scale: Any) -> _json.Obj:
    """A copy of `obj` with the wanted replicas a written Scale asks for (422 if it asks for
    none, or a negative number), keeping the Scale's resourceVersion as a precondition."""
    if not isinstance(scale, dict) or scale.get("kind", KIND) != KIND:
        raise _errors.bad_request("the body of a scale request must be a Scale object")
    replicas = _json.dig(scale, "spec", "replicas")
    if isinstance(replicas, bool) or not isinstance(replicas, int) or replicas < 0:
        raise _errors.invalid(
            "autoscaling",
            KIND,
            obj["metadata"]["name"],
            [("spec.replicas", f"Invalid value: {replicas!r}: must be a non-negative integer")],
        )
    changed: _json.Obj = _json.clone(obj)
    *parents, field = paths.spec_replicas
    _json.ensure(changed, *parents)[field] = replicas
    wanted_version = _json.dig(scale, "metadata", "resourceVersion")
    if wanted_version:
        changed["metadata"]["resourceVersion"] = wanted_version
    else:
        changed["metadata"].pop("resourceVersion", None)
    return changed
