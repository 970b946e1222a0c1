"""What a real API server refuses to change once an object exists: the update validation of
the kinds a GitOps user most often changes in place and then cannot (a 422 Invalid, so
`kubectl apply` exits 1 and the object must be replaced).

- workload selectors (Deployment, ReplicaSet, DaemonSet);
- a StatefulSet's spec beyond the fields its release lets change (`volumeClaimTemplates`,
  `serviceName`, the selector, …), refused as a whole with `spec: Forbidden: updates to
  statefulset spec for fields other than … are forbidden`, whose list grew with the releases;
- a Job's `completions`, `selector` and pod `template`;
- a Service's cluster IPs (`may not change once set`), unless it stays headless;
- a ConfigMap's or Secret's `data` (and `binaryData`), and `immutable` itself, once
  `immutable` is true; a Secret's `type` always;
- a PersistentVolumeClaim's spec, but for `resources.requests` of a bound claim;
- a RoleBinding's or ClusterRoleBinding's `roleRef` (`cannot change roleRef`).

Values print as Go prints them where they are scalars or strings; the Go dump of a struct
(a selector, a pod template) is left out of the message.
"""

from __future__ import annotations

import json
from typing import Any

from gitfleet.sim import _errors, _json, _resources

Causes = list[tuple[str, str]]
_WORKLOADS = frozenset(
    ("apps", plural) for plural in ("deployments", "statefulsets", "replicasets", "daemonsets")
)
_STATEFULSETS = ("apps", "statefulsets")
_BINDINGS = frozenset(
    ("rbac.authorization.k8s.io", plural) for plural in ("rolebindings", "clusterrolebindings")
)
_STATEFULSET_UPDATABLE = (
    (
        (1, 27),
        (
            "replicas",
            "ordinals",
            "template",
            "updateStrategy",
            "persistentVolumeClaimRetentionPolicy",
            "minReadySeconds",
        ),
    ),
    ((1, 22), ("replicas", "template", "updateStrategy", "minReadySeconds")),
    ((0, 0), ("replicas", "template", "updateStrategy")),
)
"""The StatefulSet spec fields each release lets change, newest first. 1.20's refusal is
checked against a real 1.20 server."""


def _go(value: Any) -> str:
    """A scalar as Go's %v prints it in a field error (strings quoted)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value) if isinstance(value, str) else str(value)


def _quoted_list(values: list[Any]) -> str:
    return "[]string{" + ", ".join(json.dumps(str(v)) for v in values) + "}"


def _changed(old: _json.Obj, new: _json.Obj, *path: str) -> bool:
    return bool(_json.dig(old, *path) != _json.dig(new, *path))


def _statefulset(old: _json.Obj, new: _json.Obj, release: tuple[int, int]) -> Causes:
    fields = next(fields for since, fields in _STATEFULSET_UPDATABLE if release >= since)
    kept_old = {k: v for k, v in (old.get("spec") or {}).items() if k not in fields}
    kept_new = {k: v for k, v in (new.get("spec") or {}).items() if k not in fields}
    if kept_old == kept_new:
        return []
    quoted = [f"'{field}'" for field in fields]
    listed = (
        f"{', '.join(quoted[:-1])}, and {quoted[-1]}"
        if len(fields) == 3
        else f"{', '.join(quoted[:-1])} and {quoted[-1]}"
    )
    return [
        (
            "spec",
            f"Forbidden: updates to statefulset spec for fields other than {listed} are forbidden",
        )
    ]


def _job(old: _json.Obj, new: _json.Obj) -> Causes:
    causes: Causes = []
    if _changed(old, new, "spec", "completions"):
        completions = _json.dig(new, "spec", "completions")
        causes.append(
            ("spec.completions", f"Invalid value: {_go(completions)}: field is immutable")
        )
    for field in ("selector", "template"):
        if _changed(old, new, "spec", field):
            causes.append((f"spec.{field}", "Invalid value: field is immutable"))
    return causes


def _service(old: _json.Obj, new: _json.Obj) -> Causes:
    before = _json.dig(old, "spec", "clusterIPs") or []
    after = _json.dig(new, "spec", "clusterIPs") or []
    wanted = _json.dig(new, "spec", "clusterIP")
    if wanted and after and wanted != after[0] and after == before:
        after = [wanted, *after[1:]]  # the server moves a changed clusterIP into clusterIPs
    if not before or not after or before[0] == after[0] == "None":
        return []
    changed = (
        [i for i, ip in enumerate(before) if ip != after[i]]
        if len(before) == len(after)
        else [0] * (before[0] != after[0])
    )
    return [
        (f"spec.clusterIPs[{i}]", f"Invalid value: {_quoted_list(after)}: may not change once set")
        for i in changed
    ]


def _immutable_data(old: _json.Obj, new: _json.Obj, fields: tuple[str, ...]) -> Causes:
    if old.get("immutable") is not True:
        return []
    forbidden = "Forbidden: field is immutable when `immutable` is set"
    causes: Causes = [] if new.get("immutable") is True else [("immutable", forbidden)]
    return causes + [(field, forbidden) for field in fields if _changed(old, new, field)]


def _secret(old: _json.Obj, new: _json.Obj) -> Causes:
    causes: Causes = []
    if _changed(old, new, "type"):
        causes.append(("type", f"Invalid value: {_go(new.get('type'))}: field is immutable"))
    return causes + _immutable_data(old, new, ("data",))


def _claim(old: _json.Obj, new: _json.Obj) -> Causes:
    def fixed(obj: _json.Obj) -> _json.Obj:
        spec: _json.Obj = _json.clone(obj.get("spec") or {})
        if _json.dig(new, "status", "phase") == "Bound":
            (spec.get("resources") or {}).pop("requests", None)
        return spec

    if fixed(old) == fixed(new):
        return []
    return [
        (
            "spec",
            "Forbidden: spec is immutable after creation except resources.requests for bound "
            "claims",
        )
    ]


def check(
    resource: _resources.ResourceType,
    old: _json.Obj,
    new: _json.Obj,
    release: tuple[int, int] | None,
) -> None:
    """422 Invalid if `new` changes what `old` must keep, as the server of `release` (None:
    the newest) refuses it; else return."""
    if not resource.builtin:
        return
    key = (resource.group, resource.plural)
    causes: Causes = []
    if key in _WORKLOADS - {_STATEFULSETS} and _changed(old, new, "spec", "selector"):
        causes.append(("spec.selector", "Invalid value: field is immutable"))
    if key == _STATEFULSETS:
        causes += _statefulset(old, new, release or (99, 0))
    elif key == ("batch", "jobs"):
        causes += _job(old, new)
    elif key == ("", "services"):
        causes += _service(old, new)
    elif key == ("", "configmaps"):
        causes += _immutable_data(old, new, ("data", "binaryData"))
    elif key == ("", "secrets"):
        causes += _secret(old, new)
    elif key == ("", "persistentvolumeclaims"):
        causes += _claim(old, new)
    elif key in _BINDINGS and _changed(old, new, "roleRef"):
        causes.append(("roleRef", "Invalid value: cannot change roleRef"))
    if causes:
        raise _errors.invalid(resource.group, resource.kind, new["metadata"]["name"], causes)
