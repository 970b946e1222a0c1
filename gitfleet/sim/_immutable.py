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
- a PersistentVolumeClaim's spec, but for its storage request once bound and its volume
  name while unset (1.20's rules), and its volume mode also on its own;
- a RoleBinding's or ClusterRoleBinding's `roleRef` (`cannot change roleRef`, after the Go
  dump of the new one).

Values print as Go prints them where they are scalars or strings; the Go dump of a struct
(a selector, a pod template) is left out of the message, but for a claim's spec, whose
refusal carries go-cmp's report of the old and new spec over many lines, as a real server's
does (`_godiff`; checked against a real 1.20 server).
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

from gitfleet.sim import _errors, _godiff, _json, _quantity, _resources

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


def _role_ref(binding: _json.Obj) -> str:
    """A binding's roleRef as Go's %#v prints the API server's internal `rbac.RoleRef`."""
    ref = binding.get("roleRef") or {}
    fields = (("APIGroup", "apiGroup"), ("Kind", "kind"), ("Name", "name"))
    return (
        "rbac.RoleRef{"
        + ", ".join(f"{go}:{_go(str(ref.get(key) or ''))}" for go, key in fields)
        + "}"
    )


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
    """A claim's spec as 1.20 compares it: its volume name may be set once, and a bound
    claim's storage request changes (the resize); the refusal carries go-cmp's report of
    the two specs, and a changed volume mode is refused on its own too."""
    before: _json.Obj = _json.clone(old.get("spec") or {})
    after: _json.Obj = _json.clone(new.get("spec") or {})
    if not before.get("volumeName"):
        before["volumeName"] = after.get("volumeName")
    requests = _json.dig(after, "resources", "requests")
    if _json.dig(new, "status", "phase") == "Bound" and isinstance(requests, dict):
        requests["storage"] = _json.dig(before, "resources", "requests", "storage")
    if before == after:
        return []
    report = _godiff.report(_claim_spec(after), _claim_spec(before))
    causes = [
        (
            "spec",
            "Forbidden: spec is immutable after creation except resources.requests for bound "
            f"claims\n{report}",
        )
    ]
    if before.get("volumeMode") != after.get("volumeMode"):
        mode = _go(after.get("volumeMode"))
        causes.append(("volumeMode", f"Invalid value: {mode}: field is immutable"))
    return causes


def _claim_spec(spec: _json.Obj) -> _godiff.Value:
    """A claim's spec as Kubernetes 1.20's internal Go type holds it."""
    resources = spec.get("resources") or {}
    modes = spec.get("accessModes")
    source = spec.get("dataSource")
    return _godiff.struct(
        "core.PersistentVolumeClaimSpec",
        (
            (
                "AccessModes",
                _godiff.NIL
                if not isinstance(modes, list)
                else _godiff.Composite(
                    _godiff.Kind.SLICE,
                    "[]core.PersistentVolumeAccessMode",
                    tuple(("", _godiff.string(str(mode))) for mode in modes),
                ),
            ),
            ("Selector", _selector(spec.get("selector"))),
            (
                "Resources",
                _godiff.struct(
                    "core.ResourceRequirements",
                    (
                        ("Limits", _resource_list(resources.get("limits"))),
                        ("Requests", _resource_list(resources.get("requests"))),
                    ),
                ),
            ),
            ("VolumeName", _godiff.string(str(spec.get("volumeName") or ""))),
            ("StorageClassName", _string_pointer(spec.get("storageClassName"))),
            ("VolumeMode", _string_pointer(spec.get("volumeMode"))),
            (
                "DataSource",
                _godiff.NIL
                if not isinstance(source, dict)
                else _godiff.Ptr(
                    _godiff.struct(
                        "core.TypedLocalObjectReference",
                        (
                            ("APIGroup", _string_pointer(source.get("apiGroup"))),
                            ("Kind", _godiff.string(str(source.get("kind") or ""))),
                            ("Name", _godiff.string(str(source.get("name") or ""))),
                        ),
                    )
                ),
            ),
        ),
    )


def _string_pointer(value: Any) -> _godiff.Value:
    return _godiff.NIL if value is None else _godiff.Ptr(_godiff.string(str(value)))


def _selector(selector: Any) -> _godiff.Value:
    """A label selector, which go-cmp prints through its String method (gogo protobuf's)."""
    if not isinstance(selector, dict):
        return _godiff.NIL
    labels = selector.get("matchLabels") or {}
    pairs = "".join(f"{key}: {labels[key]}," for key in sorted(labels))
    requirements = "".join(
        f"LabelSelectorRequirement{{Key:{r.get('key', '')},Operator:{r.get('operator', '')},"
        f"Values:[{' '.join(map(str, r.get('values') or []))}],}},"
        for r in selector.get("matchExpressions") or []
        if isinstance(r, dict)
    )
    text = (
        f"&LabelSelector{{MatchLabels:map[string]string{{{pairs}}},"
        f"MatchExpressions:[]LabelSelectorRequirement{{{requirements}}},}}"
    )
    return _godiff.Leaf(_godiff.string(text, stringer=True), json.dumps(selector, sort_keys=True))


def _resource_list(amounts: Any) -> _godiff.Value:
    if not isinstance(amounts, dict):
        return _godiff.NIL
    return _godiff.Composite(
        _godiff.Kind.MAP,
        "core.ResourceList",
        tuple(
            (f"s{json.dumps(name)}", _quantity_value(str(amounts[name])))
            for name in sorted(amounts)
        ),
    )


def _quantity_value(text: str) -> _godiff.Value:
    """A resource.Quantity as ParseQuantity leaves it: an int64 amount and the text it keeps,
    or (past the int64 fast path) a decimal; compared by value, as its Equal method does."""
    try:
        parsed = _quantity.parse_go(text)
    except ValueError:
        return _godiff.string(text)
    if parsed.amount is not None:
        amount, scale = parsed.amount
        small = _godiff.struct(
            "resource.int64Amount",
            (("value", _godiff.integer(amount)), ("scale", _godiff.integer(scale))),
        )
        decimal: _godiff.Value = _godiff.NIL
    else:
        small = _godiff.struct("resource.int64Amount", ())
        decimal = _godiff.string(_quantity.stored(text), stringer=True)
    fields = (
        ("i", small),
        ("d", _godiff.struct("resource.infDecAmount", (("Dec", decimal),))),
        ("s", _godiff.string(text if parsed.kept else "")),
        ("Format", _godiff.string(parsed.format)),
    )
    value = (
        parsed.magnitude()
        if parsed.amount is None
        else Fraction(parsed.amount[0]) * Fraction(10) ** parsed.amount[1]
    )
    return _godiff.Leaf(
        _godiff.struct("resource.Quantity", fields),
        -value if parsed.negative and parsed.amount is None else value,
    )


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
        causes.append(("roleRef", f"Invalid value: {_role_ref(new)}: cannot change roleRef"))
    if causes:
        raise _errors.invalid(resource.group, resource.kind, new["metadata"]["name"], causes)
