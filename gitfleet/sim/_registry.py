"""What happens to an object on each write, as the API server's generic registry does it:
create (names, namespaces, uid, timestamps, generation, defaults, validation), update and
the patches (resourceVersion preconditions, status subresource split, generation bumped on
spec changes only, no-op writes skipped), delete (finalizers and deletionTimestamp,
preconditions), and field ownership for each (`_managed`).

The API layer (`_api`) turns requests into these calls and the controller (`_controller`)
uses them for its own changes. Callers hold the store lock.
"""

from __future__ import annotations

import datetime
import json
import random
import uuid
from collections.abc import Callable
from typing import Any

import yaml

from gitfleet import kubedefaults
from gitfleet.sim import (
    _apply_keys,
    _conversion,
    _decoding,
    _errors,
    _immutable,
    _json,
    _managed,
    _node_ports,
    _patch,
    _pods,
    _releases,
    _resources,
    _store,
    _validate,
    _workloads,
)

CRD_CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io"
_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_SERVICE_NETWORK = (10 << 24) | (96 << 16)  # 10.96.0.0/12, as kubeadm's default


def now_text(moment: datetime.datetime) -> str:
    return moment.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def ipv4(number: int) -> str:
    return ".".join(str((number >> shift) & 255) for shift in (24, 16, 8, 0))


def _comparable(obj: _json.Obj) -> _json.Obj:
    """`obj` without what changes on every write (managedFields times, resourceVersion)."""
    copy: _json.Obj = _json.clone(obj)
    metadata = copy.get("metadata") or {}
    metadata.pop("resourceVersion", None)
    for entry in metadata.get("managedFields") or []:
        if isinstance(entry, dict):
            entry.pop("time", None)
    return copy


def _spec_part(resource: _resources.ResourceType, obj: _json.Obj) -> _json.Obj:
    """What `generation` tracks: everything but metadata (and status, if a subresource)."""
    return {
        key: value
        for key, value in obj.items()
        if key not in ("metadata", "apiVersion", "kind")
        and not (resource.status and key == "status")
    }


class Registry:
    """Kubernetes write semantics over one cluster's store."""

    def __init__(
        self,
        store: _store.Store,
        *,
        seed: str,
        kubernetes_version: str = "",
        clock: Callable[[], datetime.datetime] | None = None,
    ) -> None:
        self.store = store
        self.kubernetes_version = kubernetes_version
        """The version the cluster claims: its apply refuses what that version refuses."""
        self.clock = clock or (lambda: datetime.datetime.now(datetime.UTC))
        self._random = random.Random(seed)
        self._next_service_ip = 1

    def now(self) -> str:
        return now_text(self.clock())

    def new_uid(self) -> str:
        return str(uuid.UUID(int=self._random.getrandbits(128), version=4))

    def random_suffix(self, length: int = 5) -> str:
        return "".join(self._random.choice(_NAME_ALPHABET) for _ in range(length))

    # ---- reads -------------------------------------------------------------------------

    def resource(self, group: str, version: str, plural: str) -> _resources.ResourceType:
        found = self.store.catalog.find(group, version, plural)
        if found is None:
            raise _errors.ApiError(
                404, "the server could not find the requested resource", details={}
            )
        return found

    def existing(self, resource: _resources.ResourceType, namespace: str, name: str) -> _json.Obj:
        obj = self.store.get(resource.group, resource.plural, namespace, name)
        if obj is None:
            raise _errors.not_found(resource.group, resource.plural, name)
        return obj

    # ---- create ------------------------------------------------------------------------

    def check_body(
        self, resource: _resources.ResourceType, version: str, body: Any, namespace: str
    ) -> _json.Obj:
        """The request body as an object of this resource, or 400 BadRequest."""
        if not isinstance(body, dict):
            raise _errors.bad_request("the body of the request must be a JSON object")
        expected = resource.api_version(version)
        if body.get("apiVersion", expected) != expected:
            raise _errors.bad_request(
                f"the API version in the data ({body.get('apiVersion')}) does not match the "
                f"expected API version ({expected})"
            )
        if body.get("kind", resource.kind) != resource.kind:
            raise _errors.bad_request(
                f"the kind in the data ({body.get('kind')}) does not match the expected "
                f"kind ({resource.kind})"
            )
        obj: _json.Obj = _json.clone(body)
        obj["apiVersion"], obj["kind"] = expected, resource.kind
        metadata = obj.setdefault("metadata", {})
        if not isinstance(metadata, dict):
            raise _errors.bad_request("metadata must be an object")
        if resource.namespaced:
            if metadata.get("namespace", namespace) != namespace:
                raise _errors.bad_request(
                    "the namespace of the provided object does not match the namespace sent "
                    "on the request"
                )
            metadata["namespace"] = namespace
        else:
            metadata.pop("namespace", None)
        return obj

    def _check_namespace(
        self, resource: _resources.ResourceType, namespace: str, name: str
    ) -> None:
        """The NamespaceLifecycle admission plugin: no new objects in a missing or terminating
        namespace. It runs before a generateName is filled in: `name` is that prefix then."""
        if not resource.namespaced:
            return
        ns = self.store.get("", "namespaces", "", namespace)
        if ns is None:
            raise _errors.not_found("", "namespaces", namespace)
        if _json.dig(ns, "metadata", "deletionTimestamp"):
            raise _errors.ApiError(
                403,
                f'{_errors.qualified(resource.group, resource.plural)} "{name}" is forbidden: '
                f"unable to create new content in namespace {namespace} because it is being "
                "terminated",
                details=_errors.object_details(
                    resource.group,
                    resource.plural,
                    name,
                    causes=[
                        {
                            "reason": "NamespaceTerminating",
                            "field": "metadata.namespace",
                            "message": f"namespace {namespace} is being terminated",
                        }
                    ],
                ),
            )

    def _check_custom_resource_live(self, resource: _resources.ResourceType) -> None:
        if resource.builtin:
            return
        crd = self.store.get(
            "apiextensions.k8s.io",
            "customresourcedefinitions",
            "",
            f"{resource.plural}.{resource.group}",
        )
        if crd is not None and _json.dig(crd, "metadata", "deletionTimestamp"):
            raise _errors.ApiError(
                405, "create not allowed while custom resource definition is terminating"
            )

    def create(
        self,
        resource: _resources.ResourceType,
        obj: _json.Obj,
        *,
        write: _managed.Write,
        dry_run: bool = False,
        owned: bool = False,
    ) -> _json.Obj:
        """Store a new object (from `check_body`). `owned`: managedFields are already set
        (an apply that creates)."""
        metadata = obj["metadata"]
        namespace = metadata.get("namespace", "")
        admitted = metadata.get("name") or metadata.get("generateName") or ""
        if not metadata.get("name"):
            if metadata.get("generateName"):
                metadata["name"] = metadata["generateName"] + self.random_suffix()
            else:
                raise _errors.invalid(
                    resource.group,
                    resource.kind,
                    "",
                    [("metadata.name", "Required value: name or generateName is required")],
                )
        if metadata.get("resourceVersion"):
            raise _errors.bad_request("resourceVersion should not be set on objects to be created")
        name = metadata["name"]
        self._check_namespace(resource, namespace, admitted)
        self._check_custom_resource_live(resource)
        existing = self.store.get(resource.group, resource.plural, namespace, name)
        if existing is not None:
            raise _errors.already_exists(
                resource.group,
                resource.plural,
                name,
                being_deleted=bool(_json.dig(existing, "metadata", "deletionTimestamp")),
            )
        for server_field in ("uid", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"):
            metadata.pop(server_field, None)
        if resource.status and not owned:
            obj.pop("status", None)
        metadata["uid"] = self.new_uid()
        metadata["creationTimestamp"] = self.now()
        metadata.pop("generation", None)
        if resource.counts_generation:
            metadata["generation"] = 1
        self._prepare(resource, obj, old=None)
        if not owned:
            _managed.record_update(None, obj, write)
        self._admit_create(resource, obj)
        if dry_run:
            return obj
        return self.store.put(resource.group, resource.plural, obj)

    def _prepare(
        self, resource: _resources.ResourceType, obj: _json.Obj, old: _json.Obj | None
    ) -> None:
        sent_labels = dict(_json.dig(obj, "metadata", "labels") or {})
        kubedefaults.apply_defaults(resource.group, resource.plural, obj)
        self._forget_later_fields(resource, obj, sent_labels)
        _validate.validate(resource, obj)
        if old is not None:
            _immutable.check(resource, old, obj, _apply_keys.release(self.kubernetes_version))

    def _forget_later_fields(
        self, resource: _resources.ResourceType, obj: _json.Obj, sent_labels: dict[str, Any]
    ) -> None:
        release = _apply_keys.release(self.kubernetes_version)
        _releases.forget_later_fields((resource.group, resource.plural), obj, release, sent_labels)

    def _admit_create(self, resource: _resources.ResourceType, obj: _json.Obj) -> None:
        """What admission and registry strategies add on create (what the claimed release
        keeps of it)."""
        key = (resource.group, resource.plural)
        if key == ("", "services"):
            self._allocate_cluster_ip(obj)
            _node_ports.allocate(self.store, self._random, obj, None)
        elif key == ("", "namespaces"):
            obj["status"] = {"phase": "Active"}
        elif key == ("", "pods"):
            obj["status"] = {"phase": "Pending", "qosClass": _pods.qos_class(obj["spec"])}
        elif key == _workloads.JOBS:
            _workloads.select_job_pods(obj, _apply_keys.release(self.kubernetes_version))
        elif key == _workloads.STATEFULSETS:
            # the strategy's empty status, whose `replicas` is no omitempty field
            obj["status"] = {"replicas": 0}
        elif key == ("apiextensions.k8s.io", "customresourcedefinitions"):
            finalizers = obj["metadata"].setdefault("finalizers", [])
            if CRD_CLEANUP_FINALIZER not in finalizers:
                finalizers.append(CRD_CLEANUP_FINALIZER)
        self._forget_later_fields(resource, obj, _json.dig(obj, "metadata", "labels") or {})

    def _allocate_cluster_ip(self, obj: _json.Obj) -> None:
        spec = _json.ensure(obj, "spec")
        if spec.get("type") == "ExternalName":
            return
        if not spec.get("clusterIP"):
            spec["clusterIP"] = ipv4(_SERVICE_NETWORK + self._next_service_ip)
            self._next_service_ip += 1
        spec["clusterIPs"] = [spec["clusterIP"]]
        if spec["clusterIP"] != "None":
            spec.setdefault("ipFamilies", ["IPv4"])
            spec.setdefault("ipFamilyPolicy", "SingleStack")

    # ---- update ------------------------------------------------------------------------

    def update(
        self,
        resource: _resources.ResourceType,
        live: _json.Obj,
        new: _json.Obj,
        *,
        write: _managed.Write,
        dry_run: bool = False,
        owned: bool = False,
    ) -> _json.Obj:
        """Replace `live` with `new` (a full object: from PUT, a patch, or an apply)."""
        metadata, old_meta = new.setdefault("metadata", {}), live["metadata"]
        name = old_meta["name"]
        if metadata.get("name", name) != name:
            raise _errors.bad_request(
                f"the name of the object ({metadata.get('name')}) does not match the name on "
                f"the URL ({name})"
            )
        wanted_version = metadata.get("resourceVersion")
        if wanted_version and wanted_version != old_meta.get("resourceVersion"):
            raise _errors.conflict(
                resource.group,
                resource.plural,
                name,
                "the object has been modified; please apply your changes to the latest "
                "version and try again",
            )
        for field in (
            "name",
            "namespace",
            "uid",
            "creationTimestamp",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "generation",
        ):
            if field in old_meta:
                metadata[field] = old_meta[field]
            else:
                metadata.pop(field, None)
        if write.subresource == "status":
            new = self._status_only(live, new, owned=owned)
        elif resource.status:
            if "status" in live:
                new["status"] = _json.clone(live["status"])
            else:
                new.pop("status", None)
        self._keep_allocations(resource, live, new)
        self._prepare(resource, new, old=live)
        self._check_new_finalizers(resource, live, new)
        if resource.counts_generation and _spec_part(resource, new) != _spec_part(resource, live):
            new["metadata"]["generation"] = int(old_meta.get("generation") or 0) + 1
        if not owned:
            _managed.record_update(live, new, write)
        if _comparable(new) == _comparable(live):
            return live
        if dry_run:
            return new
        stored = self.store.put(resource.group, resource.plural, new)
        self.finish_if_released(resource, stored)
        return stored

    def _status_only(self, live: _json.Obj, new: _json.Obj, *, owned: bool) -> _json.Obj:
        """A status write changes `status` only (and, for an apply, field ownership)."""
        result: _json.Obj = _json.clone(live)
        if "status" in new:
            result["status"] = new["status"]
        else:
            result.pop("status", None)
        if owned:
            result["metadata"]["managedFields"] = new["metadata"].get("managedFields")
        return result

    def _keep_allocations(
        self, resource: _resources.ResourceType, live: _json.Obj, new: _json.Obj
    ) -> None:
        """A Service keeps its clusterIP when an update leaves it out, and its node ports."""
        if (resource.group, resource.plural) != ("", "services"):
            return
        spec = _json.ensure(new, "spec")
        for field in ("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"):
            if not spec.get(field) and _json.dig(live, "spec", field):
                spec[field] = _json.clone(live["spec"][field])
        _node_ports.allocate(self.store, self._random, new, live)

    def _check_new_finalizers(
        self, resource: _resources.ResourceType, live: _json.Obj, new: _json.Obj
    ) -> None:
        if not _json.dig(live, "metadata", "deletionTimestamp"):
            return
        before = set(_json.dig(live, "metadata", "finalizers") or [])
        added = set(_json.dig(new, "metadata", "finalizers") or []) - before
        if added:
            raise _errors.invalid(
                resource.group,
                resource.kind,
                live["metadata"]["name"],
                [
                    (
                        "metadata.finalizers",
                        "Forbidden: no new finalizers can be added if the object is being deleted",
                    )
                ],
            )

    # ---- patch and apply ---------------------------------------------------------------

    def patch(
        self,
        resource: _resources.ResourceType,
        version: str,
        namespace: str,
        name: str,
        *,
        content_type: str,
        body: bytes,
        write: _managed.Write,
        force: bool = False,
        dry_run: bool = False,
        validation: str = _decoding.IGNORE,
        warnings: list[str] | None = None,
    ) -> tuple[_json.Obj, bool]:
        """Apply a PATCH; returns (object, created). Only apply may create. The patched
        object is decoded with `validation` (`_decoding`); its warnings go to `warnings`."""
        if content_type not in _patch.PATCH_TYPES:
            raise _errors.ApiError(
                415,
                f"the body of the request was in an unknown format - accepted media types "
                f"include: {', '.join(_patch.PATCH_TYPES)}",
            )
        if content_type == _patch.STRATEGIC_PATCH and not resource.builtin:
            raise _errors.ApiError(
                415,
                "the body of the request was in an unknown format - accepted media types "
                f"include: {_patch.JSON_PATCH}, {_patch.MERGE_PATCH}, {_patch.APPLY_PATCH}",
            )
        if content_type == _patch.APPLY_PATCH:
            return self._apply(resource, version, namespace, name, body, write, force, dry_run)
        live = self.existing(resource, namespace, name)
        document = _decode(body, yaml_allowed=False)
        view = _conversion.shown(resource, version, live)
        new = _patch.patched(view, content_type, document, builtin=resource.builtin)
        new["apiVersion"], new["kind"] = resource.api_version(version), resource.kind
        new, found = _decoding.decode_patched(
            resource,
            version,
            new,
            patch=document,
            strategic=content_type == _patch.STRATEGIC_PATCH,
            validation=validation,
        )
        if warnings is not None:
            warnings.extend(found)
        new = _conversion.stored(resource, version, new, live)
        return self.update(resource, live, new, write=write, dry_run=dry_run), False

    def _apply(
        self,
        resource: _resources.ResourceType,
        version: str,
        namespace: str,
        name: str,
        body: bytes,
        write: _managed.Write,
        force: bool,
        dry_run: bool,
    ) -> tuple[_json.Obj, bool]:
        document = _decode(body, yaml_allowed=True)
        if (
            not isinstance(document, dict)
            or not document.get("apiVersion")
            or not document.get("kind")
        ):
            raise _errors.bad_request("apply configurations must set apiVersion and kind")
        config = self.check_body(resource, version, document, namespace)
        _apply_keys.check(config, self.kubernetes_version)
        _decoding.check_apply(resource, version, config, self.kubernetes_version)
        if config["metadata"].get("name", name) != name:
            raise _errors.bad_request(
                f"the name of the object ({config['metadata'].get('name')}) does not match the "
                f"name on the URL ({name})"
            )
        config["metadata"]["name"] = name
        live = self.store.get(resource.group, resource.plural, namespace, name)
        view = None if live is None else _conversion.shown(resource, version, live)
        merged = _managed.apply(view, config, write, force=force, sent=document)
        merged, _ = _decoding.decode(resource, version, merged, validation=_decoding.IGNORE)
        merged = _conversion.stored(resource, version, merged, live)
        if live is None:
            if write.subresource:
                raise _errors.not_found(resource.group, resource.plural, name)
            return self.create(resource, merged, write=write, dry_run=dry_run, owned=True), True
        if config["metadata"].get("resourceVersion"):
            merged["metadata"]["resourceVersion"] = config["metadata"]["resourceVersion"]
        else:
            merged["metadata"]["resourceVersion"] = live["metadata"]["resourceVersion"]
        return self.update(resource, live, merged, write=write, dry_run=dry_run, owned=True), False

    # ---- delete ------------------------------------------------------------------------

    def delete(
        self,
        resource: _resources.ResourceType,
        namespace: str,
        name: str,
        *,
        options: _json.Obj | None = None,
        dry_run: bool = False,
    ) -> tuple[_json.Obj, bool]:
        """Delete (or start deleting) an object: (last state, gone now)."""
        live = self.existing(resource, namespace, name)
        options = options or {}
        preconditions = options.get("preconditions") or {}
        for field, word, what in _DELETE_PRECONDITIONS:
            wanted = preconditions.get(field)
            if wanted and wanted != live["metadata"].get(field):
                # rest.BeforeDelete names the kind where other conflicts name the resource
                raise _errors.conflict(
                    resource.group,
                    resource.kind,
                    name,
                    f"the {word} in the precondition ({wanted}) does not match the {word} in "
                    f"record ({live['metadata'].get(field)}). The object might have been {what}",
                )
        if dry_run:
            return live, not self._blocked(resource, live)
        if options.get("propagationPolicy") == "Orphan" or options.get("orphanDependents"):
            self._orphan(live["metadata"]["uid"])
        if not self._blocked(resource, live):
            removed = self.store.remove(resource.group, resource.plural, namespace, name)
            assert removed is not None
            return removed, True
        if not live["metadata"].get("deletionTimestamp"):
            marked: _json.Obj = _json.clone(live)
            marked["metadata"]["deletionTimestamp"] = self.now()
            if (resource.group, resource.plural) == ("", "namespaces"):
                # The namespace registry's own delete: no grace period, phase Terminating.
                marked.setdefault("status", {})["phase"] = "Terminating"
            else:
                marked["metadata"]["deletionGracePeriodSeconds"] = 0
            live = self.store.put(resource.group, resource.plural, marked)
        return live, False

    def _blocked(self, resource: _resources.ResourceType, obj: _json.Obj) -> bool:
        """Whether finalizers (metadata's, or a namespace's spec ones) hold the object."""
        if _json.dig(obj, "metadata", "finalizers"):
            return True
        return (resource.group, resource.plural) == ("", "namespaces") and bool(
            _json.dig(obj, "spec", "finalizers")
        )

    def finish_if_released(self, resource: _resources.ResourceType, obj: _json.Obj) -> bool:
        """Remove an object being deleted once nothing holds it; whether it went."""
        if not _json.dig(obj, "metadata", "deletionTimestamp") or self._blocked(resource, obj):
            return False
        metadata = obj["metadata"]
        self.store.remove(
            resource.group, resource.plural, metadata.get("namespace", ""), metadata["name"]
        )
        return True

    def _orphan(self, uid: str) -> None:
        """Remove owner references to `uid` (propagationPolicy Orphan)."""
        for key in self.store.dependents(uid):
            obj = self.store.get(*key)
            assert obj is not None, "dependents are stored objects"
            references = obj["metadata"]["ownerReferences"]
            kept = [r for r in references if r.get("uid") != uid]
            changed: _json.Obj = _json.clone(obj)
            if kept:
                changed["metadata"]["ownerReferences"] = kept
            else:
                del changed["metadata"]["ownerReferences"]
            self.store.put(key[0], key[1], changed)

    def save(self, resource: _resources.ResourceType, obj: _json.Obj) -> _json.Obj:
        """A controller write: stored only if it changes something; no field ownership."""
        metadata = obj["metadata"]
        live = self.store.get(
            resource.group, resource.plural, metadata.get("namespace", ""), metadata["name"]
        )
        if live is not None and _comparable(live) == _comparable(obj):
            return live
        stored = self.store.put(resource.group, resource.plural, obj)
        self.finish_if_released(resource, stored)
        return stored


_DELETE_PRECONDITIONS = (
    ("uid", "UID", "deleted and then recreated"),
    ("resourceVersion", "ResourceVersion", "modified"),
)
"""A delete's preconditions: the field, as the refusal names it, and what it guesses."""

_GO_REFUSES = {
    "NaN": "invalid character 'N' looking for beginning of value",
    "Infinity": "invalid character 'I' looking for beginning of value",
    "-Infinity": "invalid character 'I' in numeric literal",
}
"""What Go's JSON reader says of the words Python's reader takes for floats beyond JSON."""


def _refused_constant(word: str) -> Any:
    raise ValueError(_GO_REFUSES[word])


def _decode(body: bytes, *, yaml_allowed: bool) -> Any:
    """A request body as JSON (or YAML, for apply); 400 BadRequest if it does not parse (NaN
    and the infinities included: no JSON, and a real server refuses them)."""
    try:
        return json.loads(body or b"null", parse_constant=_refused_constant)
    except ValueError as error:
        if not yaml_allowed:
            raise _errors.bad_request(f"invalid JSON in the request body: {error}") from error
    try:
        return yaml.safe_load(body.decode("utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        raise _errors.bad_request(f"error decoding YAML: {error}") from error


def decode_body(body: bytes) -> Any:
    """A JSON request body (create, update, delete options)."""
    return _decode(body, yaml_allowed=False)
