"""The checks a real API server makes that clients are likely to trip over: object names
(DNS-1123 subdomain, label or DNS-1035 label, or path segment, depending on the kind),
labels and annotations (qualified keys, string values), workload selectors that must match
their pod template, rolling update parameters beside a Deployment's Recreate or a StatefulSet's
OnDelete strategy, pods' containers and Services' ports, CRD names and scopes, Secret data that
must be base64, the keys of ConfigMaps' and Secrets' data, ConfigMaps whose values weigh more
than 1 MiB.

A failure is one 422 Invalid Status listing every cause. Full schema validation is left out.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from gitfleet.sim import _errors, _json, _resources, _selectors

_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_CONFIG_KEY = re.compile(r"^[-._a-zA-Z0-9]+$")

_SUBDOMAIN_RULE = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
    "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
_LABEL_RULE = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
    "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
_DNS1035_RULE = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with "
    "an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
_QUALIFIED_NAME_RULE = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
    "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
_CONFIG_KEY_RULE = (
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. "
    "'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
    "'[-._a-zA-Z0-9]+')"
)
"""The API server's words (apimachinery's validation package), examples and regex included."""

_LABEL_NAMED = frozenset({("", "namespaces")})
_DNS1035_NAMED = frozenset({("", "services")})
_SEGMENT_NAMED = frozenset(
    ("rbac.authorization.k8s.io", plural)
    for plural in ("roles", "rolebindings", "clusterroles", "clusterrolebindings")
)
_WORKLOADS = frozenset(
    ("apps", plural) for plural in ("deployments", "statefulsets", "replicasets", "daemonsets")
)

Causes = list[tuple[str, str]]


def name_problem(group: str, plural: str, name: str) -> str | None:
    """Why `name` is not acceptable for the resource, or None."""
    key = (group, plural)
    if key in _SEGMENT_NAMED:
        if name in (".", "..") or "/" in name or "%" in name:
            return f'Invalid value: "{name}": may not contain "/" or "%" or be "." or ".."'
        return None
    if key in _LABEL_NAMED:
        pattern, limit, rule = _LABEL, 63, _LABEL_RULE
    elif key in _DNS1035_NAMED:
        pattern, limit, rule = _DNS1035, 63, _DNS1035_RULE
    else:
        pattern, limit, rule = _SUBDOMAIN, 253, _SUBDOMAIN_RULE
    if len(name) > limit:
        return f'Invalid value: "{name}": must be no more than {limit} characters'
    if not pattern.match(name):
        return f'Invalid value: "{name}": {rule}'
    return None


def _qualified_key_problem(key: Any) -> str | None:
    if not isinstance(key, str):
        return "key must be a string"
    prefix, _, name = key.rpartition("/")
    if prefix and (len(prefix) > 253 or not _SUBDOMAIN.match(prefix)):
        return f'Invalid value: "{key}": prefix part must be a DNS-1123 subdomain'
    if len(name) > 63 or not _QUALIFIED_NAME.match(name):
        return f'Invalid value: "{key}": {_QUALIFIED_NAME_RULE}'
    return None


def _metadata_causes(metadata: _json.Obj) -> Causes:
    causes: Causes = []
    for field in ("labels", "annotations"):
        values = metadata.get(field)
        if values is None:
            continue
        if not isinstance(values, dict):
            causes.append((f"metadata.{field}", "Invalid value: must be a map of strings"))
            continue
        for key, value in values.items():
            problem = _qualified_key_problem(key)
            if problem:
                causes.append((f"metadata.{field}", problem))
            if not isinstance(value, str):
                causes.append((f"metadata.{field}", f"Invalid value: {value!r}: must be a string"))
            elif field == "labels" and (len(value) > 63 or not _LABEL_VALUE.match(value)):
                causes.append(
                    (
                        "metadata.labels",
                        f'Invalid value: "{value}": a valid label '
                        "must be 63 characters or less, alphanumeric, '-', '_' or '.'",
                    )
                )
    finalizers = metadata.get("finalizers")
    if finalizers is not None and not (
        isinstance(finalizers, list) and all(isinstance(f, str) for f in finalizers)
    ):
        causes.append(("metadata.finalizers", "Invalid value: must be a list of strings"))
    return causes


_POD_SPECS: dict[tuple[str, str], tuple[str, ...]] = {
    ("", "pods"): ("spec",),
    **{key: ("spec", "template", "spec") for key in _WORKLOADS},
    ("batch", "jobs"): ("spec", "template", "spec"),
    ("batch", "cronjobs"): ("spec", "jobTemplate", "spec", "template", "spec"),
}
"""Where each kind keeps the pod spec whose containers are required."""


def _containers_causes(obj: _json.Obj, path: tuple[str, ...]) -> Causes:
    if _json.dig(obj, *path, "containers"):
        return []
    return [(".".join((*path, "containers")), "Required value")]


def _service_causes(obj: _json.Obj) -> Causes:
    """A Service needs ports, unless it is headless or an ExternalName."""
    spec = obj.get("spec") or {}
    if spec.get("ports") or spec.get("type") == "ExternalName" or spec.get("clusterIP") == "None":
        return []
    return [("spec.ports", "Required value")]


def _workload_causes(obj: _json.Obj) -> Causes:
    selector = _json.dig(obj, "spec", "selector")
    if not isinstance(selector, dict) or not (
        selector.get("matchLabels") or selector.get("matchExpressions")
    ):
        return [("spec.selector", "Required value")]
    labels = _json.dig(obj, "spec", "template", "metadata", "labels") or {}
    if not _selectors.selector_matches(selector, labels):
        shown = ", ".join(f'"{k}":"{v}"' for k, v in sorted(labels.items()))
        return [
            (
                "spec.template.metadata.labels",
                f"Invalid value: map[string]string{{{shown}}}: `selector` does not match "
                "template `labels`",
            )
        ]
    return []


def _deployment_refusal(rolling: _json.Obj) -> str:
    return "Forbidden: may not be specified when strategy `type` is 'Recreate'"


def _statefulset_refusal(rolling: _json.Obj) -> str:
    """Go's dump of the internal type, as `field.Invalid` prints the value."""
    partition = rolling.get("partition", 0)
    return (
        f"Invalid value: apps.RollingUpdateStatefulSetStrategy{{Partition:{partition}}}: only"
        " allowed for updateStrategy 'RollingUpdate'"
    )


_ROLLING_UPDATE_ONLY = {
    ("apps", "deployments"): ("strategy", "Recreate", _deployment_refusal),
    ("apps", "statefulsets"): ("updateStrategy", "OnDelete", _statefulset_refusal),
}
"""Workloads whose update strategy other than RollingUpdate refuses `rollingUpdate`: (the
strategy's field, that other type, the server's words for the `rollingUpdate` given)."""


def _strategy_causes(key: tuple[str, str], obj: _json.Obj) -> Causes:
    """A Recreate (Deployment) or OnDelete (StatefulSet) strategy with `rollingUpdate` left from
    the RollingUpdate default (what an apply that changes only `type` sends): the server refuses
    it, it does not drop it."""
    field, other, refusal = _ROLLING_UPDATE_ONLY[key]
    strategy = _json.dig(obj, "spec", field)
    if not isinstance(strategy, dict) or strategy.get("type") != other:
        return []
    rolling = strategy.get("rollingUpdate")
    if rolling is None:
        return []
    return [(f"spec.{field}.rollingUpdate", refusal(rolling if isinstance(rolling, dict) else {}))]


def _crd_causes(obj: _json.Obj) -> Causes:
    spec = obj.get("spec") or {}
    names = spec.get("names") or {}
    causes: Causes = []
    for field in ("plural", "kind"):
        if not names.get(field):
            causes.append((f"spec.names.{field}", "Required value"))
    if not spec.get("group"):
        causes.append(("spec.group", "Required value"))
    if spec.get("scope") not in ("Namespaced", "Cluster"):
        causes.append(("spec.scope", 'Unsupported value: must be "Namespaced" or "Cluster"'))
    versions = spec.get("versions") or []
    if not versions:
        causes.append(("spec.versions", "Invalid value: must have exactly one version"))
    elif sum(1 for v in versions if v.get("storage")) != 1:
        causes.append(
            (
                "spec.versions",
                "Invalid value: must have exactly one version marked as storage version",
            )
        )
    expected = f"{names.get('plural')}.{spec.get('group')}"
    if obj["metadata"]["name"] != expected:
        causes.append(
            (
                "metadata.name",
                f'Invalid value: "{obj["metadata"]["name"]}": must be '
                'spec.names.plural+"."+spec.group',
            )
        )
    return causes


def _config_key_causes(obj: _json.Obj, field: str) -> Causes:
    """The keys of `obj[field]` that are no config keys, as apimachinery's
    `IsConfigMapKey` says it (each problem of a key a cause of its own)."""
    causes: Causes = []
    for key in obj.get(field) or {}:
        problems = []
        if len(key) > 253:
            problems.append("must be no more than 253 characters")
        if not _CONFIG_KEY.match(key):
            problems.append(_CONFIG_KEY_RULE)
        if key in (".", ".."):
            problems.append(f"must not be '{key}'")
        elif key.startswith(".."):
            problems.append("must not start with '..'")
        causes += [(f"{field}[{key}]", f'Invalid value: "{key}": {p}') for p in problems]
    return causes


def _secret_causes(obj: _json.Obj) -> Causes:
    causes = _config_key_causes(obj, "data")
    for key, value in (obj.get("data") or {}).items():
        try:
            base64.b64decode(str(value), validate=True)
        except (binascii.Error, ValueError):
            causes.append((f"data[{key}]", "Invalid value: illegal base64 data"))
    return causes


CONFIGMAP_MAX = 1024 * 1024
"""The most a ConfigMap's values may weigh together (`data` as UTF-8, `binaryData` decoded; keys
not counted), as Kubernetes' MaxSecretSize bounds them."""


def _configmap_causes(obj: _json.Obj) -> Causes:
    causes = _config_key_causes(obj, "data") + _config_key_causes(obj, "binaryData")
    data, binary = obj.get("data"), obj.get("binaryData")
    total = sum(len(str(v).encode("utf-8")) for v in data.values()) if isinstance(data, dict) else 0
    if isinstance(binary, dict):
        total += sum(len(base64.b64decode(str(v))) for v in binary.values())
    if total > CONFIGMAP_MAX:
        causes.append(("[]", f"Too long: must have at most {CONFIGMAP_MAX} bytes"))
    return causes


def validate(resource: _resources.ResourceType, obj: _json.Obj) -> None:
    """Raise 422 Invalid listing every problem of `obj`, or return."""
    metadata = obj.get("metadata") or {}
    name = metadata.get("name", "")
    causes: Causes = []
    problem = name_problem(resource.group, resource.plural, name)
    if problem:
        causes.append(("metadata.name", problem))
    causes += _metadata_causes(metadata)
    key = (resource.group, resource.plural)
    if key in _POD_SPECS and resource.builtin:
        causes += _containers_causes(obj, _POD_SPECS[key])
    if key == ("", "services") and resource.builtin:
        causes += _service_causes(obj)
    if key in _WORKLOADS:
        causes += _workload_causes(obj)
        if key in _ROLLING_UPDATE_ONLY:
            causes += _strategy_causes(key, obj)
    elif key == ("apiextensions.k8s.io", "customresourcedefinitions"):
        causes += _crd_causes(obj)
    elif key == ("", "secrets"):
        causes += _secret_causes(obj)
    elif key == ("", "configmaps") and resource.builtin:
        causes += _configmap_causes(obj)
    if causes:
        raise _errors.invalid(resource.group, resource.kind, name, causes)
