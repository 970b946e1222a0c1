"""Objects a resource needs in the same cluster: what propagateDeps propagates along with it.

A pod template depends on the ConfigMaps, Secrets, ServiceAccount and PersistentVolumeClaims
it names, all in the workload's namespace. Results are grouped by kind in that order, names
sorted within a kind (Karmada collects them in sets, whose order Go leaves random). Karmada:
pkg/resourceinterpreter/default/native/dependencies.go, pkg/util/helper/pod.go
(GetDependenciesFromPodTemplate), pkg/util/lifted/visitpod.go (VisitPodSecretNames,
VisitPodConfigmapNames), pkg/util/interpreter/validation/validation.go (VerifyDependencies).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from gitfleet.interpreter import _fields, _names
from gitfleet.interpreter._fields import Path
from gitfleet.model import config, meta
from gitfleet.model.template import RawObject

Dependencies = list[config.DependentObjectReference]

_CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")
_SECRET_REF = ("secretRef", "name")
Sources = Mapping[str, tuple[str, ...] | None]
_SECRET_SOURCES: Sources = {
    "azureFile": ("secretName",),
    "cephfs": _SECRET_REF,
    "cinder": _SECRET_REF,
    "flexVolume": _SECRET_REF,
    "projected": None,
    "rbd": _SECRET_REF,
    "secret": ("secretName",),
    "scaleIO": _SECRET_REF,
    "iscsi": _SECRET_REF,
    "storageos": _SECRET_REF,
    "csi": ("nodePublishSecretRef", "name"),
}
"""Volume sources that can name a Secret, in the order Kubernetes checks them (the first one a
volume has is the only one read), with where the name is; None: in projected sources."""
_CONFIG_MAP_SOURCES: Mapping[str, tuple[str, ...] | None] = {
    "projected": None,
    "configMap": ("name",),
}
SERVICE_NAME_LABEL = "kubernetes.io/service-name"
_DERIVED_SERVICE_PREFIX = "derived-"


def pod_dependencies(spec: Any, namespace: str, path: Path) -> Dependencies:
    """The ConfigMaps, Secrets, ServiceAccount and PersistentVolumeClaims a PodSpec names."""
    spec = _fields.mapping(spec, path)
    config_maps: set[str] = set()
    secrets: set[str] = set()
    key = (*path, "imagePullSecrets")
    for i, ref in enumerate(_fields.array(spec.get("imagePullSecrets"), key)):
        secrets.add(_name(ref, (*key, i), "name"))
    for container, at in _containers(spec, path):
        config_maps.update(_env_names(container, at, "configMapRef", "configMapKeyRef"))
        secrets.update(_env_names(container, at, "secretRef", "secretKeyRef"))
    claims: set[str] = set()
    key = (*path, "volumes")
    for i, volume in enumerate(_fields.array(spec.get("volumes"), key)):
        volume = _fields.mapping(volume, (*key, i))
        secrets.update(_volume_names(volume, (*key, i), _SECRET_SOURCES, "secret"))
        config_maps.update(_volume_names(volume, (*key, i), _CONFIG_MAP_SOURCES, "configMap"))
        claim = _fields.optional_mapping(
            volume.get("persistentVolumeClaim"), (*key, i, "persistentVolumeClaim")
        )
        if claim is not None:
            claims.add(_name(claim, (*key, i, "persistentVolumeClaim"), "claimName"))
    account = _fields.string(spec.get("serviceAccountName"), (*path, "serviceAccountName"))
    accounts = {account} - {"default"}
    out: Dependencies = []
    for kind, names in (
        ("ConfigMap", config_maps),
        ("Secret", secrets),
        ("ServiceAccount", accounts),
        ("PersistentVolumeClaim", claims),
    ):
        out.extend(_reference("v1", kind, namespace, name) for name in sorted(names - {""}))
    return out


def _reference(
    api_version: str, kind: str, namespace: str, name: str
) -> config.DependentObjectReference:
    return config.DependentObjectReference(
        api_version=api_version, kind=kind, namespace=namespace, name=name
    )


def _name(ref: Any, path: Path, key: str) -> str:
    return _fields.string(_fields.mapping(ref, path).get(key), (*path, key))


def _containers(spec: dict[str, Any], path: Path) -> Iterator[tuple[dict[str, Any], Path]]:
    for key in _CONTAINER_LISTS:
        for i, container in enumerate(_fields.array(spec.get(key), (*path, key))):
            yield _fields.mapping(container, (*path, key, i)), (*path, key, i)


def _env_names(container: dict[str, Any], path: Path, source: str, key_ref: str) -> Iterator[str]:
    """Names from `envFrom[].<source>` and `env[].valueFrom.<key_ref>`."""
    key = (*path, "envFrom")
    for i, env in enumerate(_fields.array(container.get("envFrom"), key)):
        ref = _fields.mapping(env, (*key, i)).get(source)
        if ref is not None:
            yield _name(ref, (*key, i, source), "name")
    key = (*path, "env")
    for i, env in enumerate(_fields.array(container.get("env"), key)):
        ref = _fields.at(_fields.mapping(env, (*key, i)), ("valueFrom", key_ref), (*key, i))
        if ref is not None:
            yield _name(ref, (*key, i, "valueFrom", key_ref), "name")


def _volume_names(
    volume: dict[str, Any],
    path: Path,
    sources: Mapping[str, tuple[str, ...] | None],
    projected: str,
) -> Iterator[str]:
    """The names a volume gives for one kind, from the first of `sources` it has."""
    for source, keys in sources.items():
        found = _fields.optional_mapping(volume.get(source), (*path, source))
        if found is None:
            continue
        if keys is None:
            key = (*path, source, "sources")
            for i, projection in enumerate(_fields.array(found.get("sources"), key)):
                ref = _fields.mapping(projection, (*key, i)).get(projected)
                if ref is not None:
                    yield _name(ref, (*key, i, projected), "name")
        else:
            name = _fields.at(found, keys, (*path, source))
            yield _fields.string(name, (*path, source, *keys))
        return


def _namespace(obj: RawObject) -> str:
    return _fields.string(_fields.at(obj, ("metadata", "namespace")), ("metadata", "namespace"))


def _template_dependencies(obj: RawObject, keys: tuple[str, ...]) -> Dependencies:
    spec = _fields.at(obj, keys)
    return pod_dependencies(spec, _namespace(obj), keys)


def workload(obj: RawObject) -> Dependencies:
    """Deployment, ReplicaSet, DaemonSet, Job: their pod template's dependencies."""
    return _template_dependencies(obj, ("spec", "template", "spec"))


def cron_job(obj: RawObject) -> Dependencies:
    """CronJob: the dependencies of its Job template's pod template."""
    return _template_dependencies(obj, ("spec", "jobTemplate", "spec", "template", "spec"))


def pod(obj: RawObject) -> Dependencies:
    """Pod: the dependencies of its own spec."""
    return _template_dependencies(obj, ("spec",))


def stateful_set(obj: RawObject) -> Dependencies:
    """StatefulSet: its pod template's dependencies, except claims named like one of its
    volumeClaimTemplates (the StatefulSet creates those in the member itself)."""
    key = ("spec", "volumeClaimTemplates")
    templates = _fields.array(_fields.at(obj, key), key)
    own = {
        _name(_fields.mapping(t, (*key, i)).get("metadata"), (*key, i, "metadata"), "name")
        for i, t in enumerate(templates)
    }
    return [
        dep
        for dep in workload(obj)
        if not (dep.kind == "PersistentVolumeClaim" and dep.name in own)
    ]


def ingress(obj: RawObject) -> Dependencies:
    """Ingress: the Secret of each TLS entry (as listed, repeats included)."""
    namespace = _namespace(obj)
    key = ("spec", "tls")
    entries = _fields.array(_fields.at(obj, key), key)
    return [
        _reference("v1", "Secret", namespace, _name(t, (*key, i), "secretName"))
        for i, t in enumerate(entries)
    ]


def service_import(obj: RawObject) -> Dependencies:
    """multicluster.x-k8s.io ServiceImport: the `derived-<name>` Service and its EndpointSlices."""
    namespace = _namespace(obj)
    name = _fields.string(_fields.at(obj, ("metadata", "name")), ("metadata", "name"))
    derived = _DERIVED_SERVICE_PREFIX + name
    selector = meta.LabelSelector(match_labels={SERVICE_NAME_LABEL: derived})
    return [
        _reference("v1", "Service", namespace, derived),
        config.DependentObjectReference(
            api_version="discovery.k8s.io/v1",
            kind="EndpointSlice",
            namespace=namespace,
            label_selector=selector,
        ),
    ]


def problems(dependencies: Sequence[config.DependentObjectReference]) -> list[str]:
    """What makes dependencies unusable: a missing apiVersion or kind, neither name nor
    selector, or an invalid selector."""
    out = []
    for i, dep in enumerate(dependencies):
        where = f"dependencies[{i}]"
        if not dep.api_version:
            out.append(f"{where}.apiVersion: missing required apiVersion")
        if not dep.kind:
            out.append(f"{where}.kind: missing required kind")
        if not dep.name and dep.label_selector is None:
            out.append(f"{where}: dependency can not leave name and labelSelector all empty")
        if dep.label_selector is not None:
            out.extend(_selector_problems(dep.label_selector, f"{where}.labelSelector"))
    return out


def _selector_problems(selector: meta.LabelSelector, where: str) -> Iterator[str]:
    for key, value in sorted((selector.match_labels or {}).items()):
        if not _names.is_qualified_name(key):
            yield f"{where}.matchLabels: invalid label key {key!r}"
        if not _names.is_label_value(value):
            yield f"{where}.matchLabels: invalid label value {value!r}"
    for i, req in enumerate(selector.match_expressions):
        at = f"{where}.matchExpressions[{i}]"
        if req.operator in ("In", "NotIn") and not req.values:
            yield f"{at}.values: must be specified when operator is 'In' or 'NotIn'"
        elif req.operator in ("Exists", "DoesNotExist") and req.values:
            yield f"{at}.values: may not be specified when operator is 'Exists' or 'DoesNotExist'"
        elif req.operator not in ("In", "NotIn", "Exists", "DoesNotExist"):
            yield f"{at}.operator: unsupported operator {req.operator!r}"
        if not _names.is_qualified_name(req.key):
            yield f"{at}.key: invalid label key {req.key!r}"
        for value in req.values:
            if not _names.is_label_value(value):
                yield f"{at}.values: invalid label value {value!r}"
