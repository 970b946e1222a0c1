"""Typed fields of the built-in kinds most templates are, as the API server decodes them
(k8s.io/api core/v1, apps/v1, batch/v1; key rules from pkg/apis/core/validation).

- ConfigMap: `data` strings, `binaryData` base64, keys file names (IsConfigMapKey), no key in
  both. Secret: `data` base64, `stringData` strings, same keys, `type` a string.
- Pod templates (Pod, ReplicationController, Deployment, ReplicaSet, StatefulSet, DaemonSet,
  Job, CronJob, PodTemplate): the template's labels and annotations; in every container,
  init container and ephemeral container, `name`, `image`, `workingDir`, `imagePullPolicy`
  strings, `command` and `args` lists of strings, each `env` entry's `name` and `value`
  strings, each port's `containerPort` and `hostPort` integers and `name`, `protocol` strings.
- Workloads: `spec.replicas` an int32 of 0 or more; `spec.selector.matchLabels` (a
  ReplicationController's `spec.selector`) strings.
- Service: `spec.selector` strings; each port's `port` and `nodePort` integers, `targetPort` a
  number or a name.
- Job (and a CronJob's job template): `parallelism` and `completions` int32s of 0 or more,
  the other counts and limits integers, `manualSelector` and `suspend` booleans,
  `completionMode` and `podReplacementPolicy` strings.

A null field is left alone (JSON null decodes as the field's zero value).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Mapping
from typing import Any

from gitfleet.model import names
from gitfleet.validation import _fieldtypes, _objectmeta, _syntax
from gitfleet.validation._fieldtypes import Keys, Problems

Check = Callable[[Mapping[str, Any], Problems], None]
"""The check of one kind's fields."""
FieldCheck = Callable[[Keys, Any, Problems], object]
"""The check of one field's value."""


def _base64(value: str) -> str | None:
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return "is not base64"
    return None


def _secret_base64(value: str) -> str | None:
    problem = _base64(value)
    return f"{problem}: encode it, or put the text under stringData" if problem else None


def _config_map(body: Mapping[str, Any], found: Problems) -> None:
    key = _syntax.config_map_key
    data = _fieldtypes.string_map(("data",), body.get("data"), found, key)
    binary = _fieldtypes.string_map(("binaryData",), body.get("binaryData"), found, key, _base64)
    for both in sorted(data.keys() & binary.keys()):
        found.append((("binaryData", both), f"{both!r} is a key of data as well"))


def _secret(body: Mapping[str, Any], found: Problems) -> None:
    key = _syntax.config_map_key
    _fieldtypes.string_map(("data",), body.get("data"), found, key, _secret_base64)
    _fieldtypes.string_map(("stringData",), body.get("stringData"), found, key)
    _present(body, ("type",), _fieldtypes.string, found)


def _present(
    doc: Mapping[str, Any],
    keys: Keys,
    check: FieldCheck,
    found: Problems,
) -> None:
    """`check` the field at `keys` when it is there and not null."""
    value: Any = doc
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    if value is not None:
        check(keys, value, found)


_CONTAINER: dict[str, FieldCheck] = {
    **dict.fromkeys(("name", "image", "workingDir", "imagePullPolicy"), _fieldtypes.string),
    **dict.fromkeys(("command", "args"), _fieldtypes.strings),
}
_ENV: dict[str, FieldCheck] = dict.fromkeys(("name", "value"), _fieldtypes.string)
_CONTAINER_PORT: dict[str, FieldCheck] = {
    **dict.fromkeys(("containerPort", "hostPort"), _fieldtypes.integer),
    **dict.fromkeys(("name", "protocol"), _fieldtypes.string),
}
_SERVICE_PORT: dict[str, FieldCheck] = {
    **dict.fromkeys(("port", "nodePort"), _fieldtypes.integer),
    "targetPort": _fieldtypes.int_or_string,
    **dict.fromkeys(("name", "protocol"), _fieldtypes.string),
}


def _fields(keys: Keys, value: Any, checks: Mapping[str, FieldCheck], found: Problems) -> None:
    """Check each field of the map at `keys` that `checks` names (and is not null)."""
    for field, item in _fieldtypes.mapping(keys, value, found).items():
        check = checks.get(field)
        if check is not None and item is not None:
            check((*keys, field), item, found)


def _each(keys: Keys, value: Any, checks: Mapping[str, FieldCheck], found: Problems) -> None:
    """`_fields` on every item of the list at `keys`."""
    for index, item in enumerate(_fieldtypes.items(keys, value, found)):
        _fields((*keys, index), item, checks, found)


def _container(keys: Keys, value: Any, found: Problems) -> None:
    _fields(keys, value, _CONTAINER, found)
    container = value if isinstance(value, dict) else {}
    _each((*keys, "env"), container.get("env"), _ENV, found)
    _each((*keys, "ports"), container.get("ports"), _CONTAINER_PORT, found)


def _pod_spec(keys: Keys, value: Any, found: Problems) -> None:
    spec = _fieldtypes.mapping(keys, value, found)
    for field in ("initContainers", "containers", "ephemeralContainers"):
        for index, container in enumerate(
            _fieldtypes.items((*keys, field), spec.get(field), found)
        ):
            _container((*keys, field, index), container, found)


def _pod_template(keys: Keys) -> Check:
    """The check of an object whose pod template is at `keys`."""

    def check(body: Mapping[str, Any], found: Problems) -> None:
        _present(body, (*keys, "metadata"), _objectmeta.labels_and_annotations, found)
        _present(body, (*keys, "spec"), _pod_spec, found)

    return check


def _workload(template: Keys, selector: Keys = ("spec", "selector", "matchLabels")) -> Check:
    pod = _pod_template(template)

    def check(body: Mapping[str, Any], found: Problems) -> None:
        pod(body, found)
        _present(body, ("spec", "replicas"), _fieldtypes.count, found)
        _present(body, selector, _fieldtypes.string_map, found)

    return check


_JOB_SPEC: dict[str, FieldCheck] = {
    **dict.fromkeys(("parallelism", "completions"), _fieldtypes.count),
    **dict.fromkeys(
        ("backoffLimit", "activeDeadlineSeconds",
         "ttlSecondsAfterFinished", "backoffLimitPerIndex", "maxFailedIndexes"),
        _fieldtypes.integer,
    ),
    **dict.fromkeys(("manualSelector", "suspend"), _fieldtypes.boolean),
    **dict.fromkeys(("completionMode", "podReplacementPolicy"), _fieldtypes.string),
}  # fmt: skip


def _job_spec(keys: Keys, value: Any, found: Problems) -> None:
    _fields(keys, value, _JOB_SPEC, found)


def _also_job_spec(check: Check, keys: Keys) -> Check:
    """`check`, then the Job spec at `keys`."""

    def both(body: Mapping[str, Any], found: Problems) -> None:
        check(body, found)
        _present(body, keys, _job_spec, found)

    return both


def _service(body: Mapping[str, Any], found: Problems) -> None:
    _present(body, ("spec", "selector"), _fieldtypes.string_map, found)
    spec = body.get("spec")
    ports = spec.get("ports") if isinstance(spec, dict) else None
    _each(("spec", "ports"), ports, _SERVICE_PORT, found)


_TEMPLATE = ("spec", "template")
CHECKS: dict[tuple[str, str], Check] = {
    ("", "ConfigMap"): _config_map,
    ("", "Secret"): _secret,
    ("", "Service"): _service,
    ("", "Pod"): lambda body, found: _present(body, ("spec",), _pod_spec, found),
    ("", "PodTemplate"): _pod_template(("template",)),
    ("", "ReplicationController"): _workload(_TEMPLATE, ("spec", "selector")),
    ("apps", "Deployment"): _workload(_TEMPLATE),
    ("apps", "ReplicaSet"): _workload(_TEMPLATE),
    ("apps", "StatefulSet"): _workload(_TEMPLATE),
    ("apps", "DaemonSet"): _workload(_TEMPLATE),
    ("batch", "Job"): _also_job_spec(_workload(_TEMPLATE), ("spec",)),
    ("batch", "CronJob"): _also_job_spec(
        _pod_template(("spec", "jobTemplate", "spec", "template")), ("spec", "jobTemplate", "spec")
    ),
}
"""The checks of each built-in kind, by (group, kind)."""


def check(body: Mapping[str, Any], found: Problems) -> None:
    """The typed fields of `body`, if it is one of the kinds above."""
    kind_check = CHECKS.get((names.group_of(body["apiVersion"]), body["kind"]))
    if kind_check is not None:
        kind_check(body, found)
