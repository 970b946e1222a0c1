"""Fields a member cluster owns, kept from the live object when the desired one is applied.

Each function gets a fresh copy of the desired object (`desired`, theirs to change) and the
live member object (`observed`, read only). Fields are read and written as Karmada's
unstructured helpers (NestedString, NestedInt64, NestedStringMap, SetNestedField) do: a null
value where one is read is an error, a null object on the way to it is absence, and a field is
not written below something that is not an object. Karmada:
pkg/resourceinterpreter/default/native/retain.go, pkg/util/lifted/retain.go.

Where Karmada round-trips a Pod through its Go type, only the retained fields are touched here,
and an empty retained list is left out rather than written as null: the API server reads both
the same way.
"""

from __future__ import annotations

from typing import Any

from gitfleet.interpreter import _fields

RETAIN_REPLICAS_LABEL = "resourcetemplate.karmada.io/retain-replicas"
SERVICE_ACCOUNT_TOKEN = "kubernetes.io/service-account-token"


def _spec(obj: Any) -> dict[str, Any]:
    """The `spec` of a copy, created if absent, for writing."""
    spec = _fields.mapping(obj.get("spec"), ("spec",))
    obj["spec"] = spec
    return spec


def _set_or_drop(target: dict[str, Any], key: str, value: Any) -> None:
    """Write a retained value, leaving an empty one out (Go's omitempty)."""
    if value in (None, "", [], {}):
        target.pop(key, None)
    else:
        target[key] = _fields.copy_tree(value)


def workload_replicas(desired: Any, observed: Any) -> None:
    """Deployment labelled `resourcetemplate.karmada.io/retain-replicas: "true"` (an autoscaler
    in the member owns the count): keep the member's `spec.replicas`, which must exist."""
    labels = _fields.nested_string_map(desired, ("metadata", "labels")) or {}
    if labels.get(RETAIN_REPLICAS_LABEL) != "true":
        return
    try:
        replicas = _fields.nested_int64(observed, ("spec", "replicas"))
    except _fields.FieldError:
        replicas = None
    if replicas is None:
        raise _fields.FieldError((), "the member object has no integer spec.replicas to retain")
    _fields.set_nested(desired, ("spec", "replicas"), replicas)


def pod_fields(desired: Any, observed: Any) -> None:
    """Pod: nodeName, serviceAccountName and volumes are set by the member (scheduler,
    admission), and so are the volumeMounts of each container with the same name."""
    spec = _spec(desired)
    live = _fields.mapping(observed.get("spec"), ("spec",))
    for key in ("nodeName", "serviceAccountName"):
        _set_or_drop(spec, key, _fields.string(live.get(key), ("spec", key)))
    _set_or_drop(spec, "volumes", _objects(live.get("volumes"), ("spec", "volumes")))
    for key in ("containers", "initContainers"):
        mine = _fields.array(spec.get(key), ("spec", key))
        for i, theirs in enumerate(_fields.array(live.get(key), ("spec", key))):
            theirs = _fields.mapping(theirs, ("spec", key, i))
            for j, container in enumerate(mine):
                container = _fields.mapping(container, ("spec", key, j))
                if container.get("name") == theirs.get("name"):
                    mounts = _objects(theirs.get("volumeMounts"), ("spec", key, i, "volumeMounts"))
                    _set_or_drop(container, "volumeMounts", mounts)
                    break


def _objects(value: Any, path: _fields.Path) -> list[Any]:
    """A list of objects (volumes, volume mounts) retained as they are; an item that is not
    an object (or null) is an error, as Karmada's conversion to the Pod's Go type makes it."""
    found = _fields.array(value, path)
    for i, item in enumerate(found):
        _fields.mapping(item, (*path, i))
    return found


def service_fields(desired: Any, observed: Any) -> None:
    """Service: `healthCheckNodePort` (if > 0) and `clusterIP` (if set) are allocated by the
    member's API server and cannot change."""
    port = _fields.nested_int64(observed, ("spec", "healthCheckNodePort"))
    if port is not None and port > 0:
        _fields.set_nested(desired, ("spec", "healthCheckNodePort"), port)
    cluster_ip = _fields.nested_string(observed, ("spec", "clusterIP"))
    if cluster_ip:
        _fields.set_nested(desired, ("spec", "clusterIP"), cluster_ip)


def service_account_fields(desired: Any, observed: Any) -> None:
    """ServiceAccount: `secrets` and `imagePullSecrets` become the desired entries followed by
    the member's entries of other names, so token secrets the member generated are not
    removed (and then regenerated) on every update. Karmada reads both lists with NestedSlice
    (a null list is an error) and each entry's name as a string it must have."""
    for key in ("secrets", "imagePullSecrets"):
        merged = [_fields.copy_tree(e) for e in _fields.nested_array(desired, key, (key,))]
        seen = {_secret_name(entry, (key, i)) for i, entry in enumerate(merged)}
        for i, entry in enumerate(_fields.nested_array(observed, key, (key,))):
            name = _secret_name(entry, (key, i))
            if name not in seen:
                seen.add(name)
                merged.append(_fields.copy_tree(entry))
        _set_or_drop(desired, key, merged)


def _secret_name(entry: Any, path: _fields.Path) -> str:
    name = _fields.asserted_mapping(entry, path).get("name")
    return _fields.asserted_string(name, (*path, "name"))


def persistent_volume_claim_fields(desired: Any, observed: Any) -> None:
    """PersistentVolumeClaim: the `volumeName` the member bound it to."""
    volume = _fields.nested_string(observed, ("spec", "volumeName"))
    if volume:
        _fields.set_nested(desired, ("spec", "volumeName"), volume)


def persistent_volume_fields(desired: Any, observed: Any) -> None:
    """PersistentVolume: the `claimRef` the member's controller set, whenever present (null
    included)."""
    claim, found = _fields.nested_field(observed, ("spec", "claimRef"))
    if found:
        _fields.set_nested(desired, ("spec", "claimRef"), _fields.copy_tree(claim))


def job_selector_fields(desired: Any, observed: Any) -> None:
    """Job: the selector and pod template labels the member generated (controller-uid)."""
    for keys in (("spec", "selector", "matchLabels"), ("spec", "template", "metadata", "labels")):
        labels = _fields.nested_string_map(observed, keys)
        if labels is not None:
            _fields.set_nested(desired, keys, dict(labels))


def secret_service_account_token(desired: Any, observed: Any) -> None:
    """Secret of type service-account-token: the `data` the member's token controller wrote."""
    if desired.get("type") != SERVICE_ACCOUNT_TOKEN:
        return
    data = _fields.nested_string_map(observed, ("data",))
    if data is not None:
        _fields.set_nested(desired, ("data",), dict(data))
