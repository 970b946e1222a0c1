"""The Kubernetes REST API of one simulated cluster, independent of the HTTP transport:
`Api.handle(request)` routes a method and path to discovery, an OpenAPI document, a
collection or an object (or its status or scale subresource), checks the verb, and answers
with a `Response` or, for `?watch=true`, a `WatchResponse` whose events the transport
streams as JSON lines. Objects go out as themselves, or as Tables to a client that asks for
them in its Accept header (`_tables`).

Paths: `/healthz`, `/livez`, `/readyz` (`?verbose`, `/<check>`), `/version`, `/openapi/v2`,
`/openapi/v3[/…]`, `/api`, `/api/v1`, `/apis`, `/apis/<g>`, `/apis/<g>/<v>`, and under
`/api/v1` or `/apis/<g>/<v>`: `[namespaces/<ns>/]<plural>[/<name>[/status|/scale|/log]]`.
Aggregated discovery is not offered: clients asking for it get the plain documents, which they
accept.
"""

from __future__ import annotations

import base64
import collections
import dataclasses
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from gitfleet.sim import (
    _apply_keys,
    _conversion,
    _decoding,
    _errors,
    _json,
    _logs,
    _managed,
    _metrics,
    _openapi,
    _openapi_pb,
    _patch,
    _protobuf,
    _registry,
    _resources,
    _reviews,
    _scale,
    _selectors,
    _store,
    _tables,
    _tokens,
)

log = logging.getLogger(__name__)

WRITE_VERBS = frozenset({"create", "update", "patch", "delete", "deletecollection"})
DEFAULT_WATCH_SECONDS = 1800
NOT_FOUND_PAGE = "404 page not found\n"
"""What the API server answers, as plain text, under a group version it does not serve."""
_COMMON_CHECKS = ("ping", "log", "etcd", "poststarthook/start-apiextensions-controllers")
_HEALTH_CHECKS = {
    "healthz": _COMMON_CHECKS,
    "livez": _COMMON_CHECKS,
    "readyz": (
        *_COMMON_CHECKS[:3],
        "etcd-readiness",
        "informer-sync",
        *_COMMON_CHECKS[3:],
        "shutdown",
    ),
}
"""The checks each health endpoint lists with `?verbose` (a few of a real server's)."""
_COMPONENT_STATUS_DEPRECATED = "v1 ComponentStatus is deprecated in v1.19+"
_HEARTBEAT_SECONDS = 1.0
_TRUE = ("true", "1")
_SERVICE_ACCOUNTS = ("", "serviceaccounts")


@dataclasses.dataclass(frozen=True, slots=True)
class Request:
    method: str
    path: str
    query: Mapping[str, str]
    headers: Mapping[str, str]
    """Header names in lower case."""
    body: bytes = b""


@dataclasses.dataclass(frozen=True, slots=True)
class Encoded:
    """A body already encoded, in a media type other than JSON or text."""

    data: bytes
    media_type: str


@dataclasses.dataclass(frozen=True, slots=True)
class Response:
    code: int
    body: _json.Obj | str | Encoded
    warnings: list[str] = dataclasses.field(default_factory=list)
    """Sent as `Warning: 299 - "…"` headers (kubectl prints each as `Warning: …`)."""
    indented: bool = False
    """JSON written indented (as the API server writes `/version`), not compact."""


@dataclasses.dataclass(frozen=True, slots=True)
class WatchResponse:
    """A stream of watch events; None items are heartbeats while nothing happens."""

    events: Iterator[_json.Obj | None]


@dataclasses.dataclass(frozen=True, slots=True)
class _Target:
    """A resolved resource URL."""

    resource: _resources.ResourceType
    version: str
    namespace: str
    name: str
    subresource: str


def _wants_protobuf(request: Request) -> bool:
    """Whether the client's Accept names the protocol buffer form of `/openapi/v2` (kubectl's
    lists it first, or alone)."""
    accept = request.headers.get("accept", "")
    return any(
        media.split(";")[0].strip() in _openapi_pb.MEDIA_TYPES for media in accept.split(",")
    )


class Api:
    """Serves one cluster's store. `counts` tallies handled requests by verb."""

    def __init__(
        self,
        registry: _registry.Registry,
        *,
        kubernetes_version: str,
        after_write: Callable[[], None],
        token: str,
    ) -> None:
        self.registry = registry
        self.token = token
        """The bearer token clients send, which TokenRequests hand out (`_tokens`)."""
        self.store = registry.store
        self.counts: collections.Counter[str] = collections.Counter()
        self.closing = threading.Event()
        self._kubernetes_version = kubernetes_version
        self._after_write = after_write
        self.usage = _metrics.Usage()
        """What pods use, as the metrics API reports it (set by tests)."""

    def handle(self, request: Request) -> Response | WatchResponse:
        try:
            return self._route(request)
        except _errors.ApiError as error:
            return Response(error.code, error.status())
        except Exception as error:  # a simulator bug: answer like a failing server, not hang
            log.exception("simulated cluster failed on %s %s", request.method, request.path)
            failure = _errors.ApiError(500, f"simulated cluster failed: {error!r}")
            return Response(500, failure.status())

    def _count(self, verb: str) -> None:
        with self.store.lock:
            self.counts[verb] += 1

    # ---- routing -----------------------------------------------------------------------

    def _route(self, request: Request) -> Response | WatchResponse:
        parts = [part for part in request.path.split("/") if part]
        if parts[:1] and parts[0] in _HEALTH_CHECKS and len(parts) <= 2:
            self._count("discovery")
            return self._health(request, parts)
        if parts == ["version"]:
            self._count("discovery")
            return Response(200, self._version(), indented=True)
        if parts[:1] == ["openapi"]:
            with self.store.lock:
                document = self._openapi(request, parts[1:])
            if parts[1:] == ["v2"] and _wants_protobuf(request) and document is not None:
                self._count("discovery")
                encoded = Encoded(_openapi_pb.document(document), _openapi_pb.MEDIA_TYPE)
                return Response(200, encoded)
            return self._discovery(request, document)
        if not parts or parts[0] not in ("api", "apis"):
            raise _errors.ApiError(
                404, "the server could not find the requested resource", details={}
            )
        if parts[0] == "api":
            if len(parts) == 1:
                return self._discovery(request, {"kind": "APIVersions", "versions": ["v1"]})
            group, version, rest = "", parts[1], parts[2:]
        else:
            if len(parts) <= 2:
                with self.store.lock:
                    document = (
                        self.store.catalog.api_group_list()
                        if len(parts) == 1
                        else self.store.catalog.api_group(parts[1])
                    )
                return self._discovery(request, document)
            group, version, rest = parts[1], parts[2], parts[3:]
        if not rest:
            with self.store.lock:
                document = self.store.catalog.resource_list(group, version)
            return self._discovery(request, document)
        with self.store.lock:
            if self.store.catalog.resource_list(group, version) is None:
                return Response(404, NOT_FOUND_PAGE)
            target = self._target(group, version, rest)
        return self._dispatch(request, target)

    def _health(self, request: Request, parts: list[str]) -> Response:
        """`/healthz`, `/livez`, `/readyz`: "ok", or with `?verbose` each check and a
        summary, as the API server answers; `/<endpoint>/<check>` one check."""
        endpoint, checks = parts[0], _HEALTH_CHECKS[parts[0]]
        if len(parts) == 2:
            if parts[1] not in checks:
                return Response(404, NOT_FOUND_PAGE)
            return Response(200, "ok")
        if "verbose" not in request.query:
            return Response(200, "ok")
        lines = [f"[+]{check} ok" for check in checks]
        return Response(200, "\n".join([*lines, f"{endpoint} check passed", ""]))

    def _discovery(self, request: Request, document: _json.Obj | None) -> Response:
        self._count("discovery")
        if document is None:
            raise _errors.ApiError(
                404, "the server could not find the requested resource", details={}
            )
        if request.method != "GET":
            raise _errors.ApiError(
                405,
                "the server does not allow this method on the requested resource",
                details={},
            )
        return Response(200, document)

    def _openapi(self, request: Request, parts: list[str]) -> _json.Obj | None:
        """An OpenAPI document (`_openapi`), or None where there is none. Version 2 is
        served in JSON or in protocol buffers (`_openapi_pb`, what kubectl asks for): a
        client that takes neither gets 406 Not Acceptable."""
        catalog, version = self.store.catalog, self._kubernetes_version
        if parts == ["v2"]:
            accept = request.headers.get("accept", "") or "*/*"
            if not _wants_protobuf(request) and not any(
                media.split(";")[0].strip() in ("application/json", "application/*", "*/*")
                for media in accept.split(",")
            ):
                raise _errors.ApiError(
                    406,
                    f"only application/json and {_openapi_pb.MEDIA_TYPE} are supported for"
                    f" /openapi/v2, not {accept}",
                )
            return _openapi.swagger(catalog, version)
        if parts == ["v3"]:
            return _openapi.v3_index(catalog, version)
        if parts[:2] == ["v3", "api"] and len(parts) == 3:
            return _openapi.group_version(catalog, "", parts[2], version)
        if parts[:2] == ["v3", "apis"] and len(parts) == 4:
            return _openapi.group_version(catalog, parts[2], parts[3], version)
        return None

    def _version(self) -> _json.Obj:
        major, minor, *_ = self._kubernetes_version.lstrip("v").split(".")
        return {
            "major": major,
            "minor": minor,
            "gitVersion": self._kubernetes_version,
            "gitCommit": "0000000000000000000000000000000000000000",
            "gitTreeState": "clean",
            "buildDate": "2026-01-01T00:00:00Z",
            "goVersion": "go1.22.0",
            "compiler": "gc",
            "platform": "linux/amd64",
        }

    def _target(self, group: str, version: str, rest: list[str]) -> _Target:
        namespace = ""
        if (
            rest[0] == "namespaces"
            and len(rest) >= 3
            and not (len(rest) == 3 and rest[2] in ("status", "finalize"))
        ):
            namespace, rest = rest[1], rest[2:]
        if len(rest) > 3:
            raise _errors.ApiError(
                404, "the server could not find the requested resource", details={}
            )
        resource = self.registry.resource(group, version, rest[0])
        name = rest[1] if len(rest) > 1 else ""
        subresource = rest[2] if len(rest) > 2 else ""
        if (namespace and not resource.namespaced) or (
            subresource
            and not (subresource == "status" and resource.status)
            and not (subresource == "scale" and resource.scale is not None)
            and not (subresource == "log" and (resource.group, resource.plural) == ("", "pods"))
            and not (
                subresource == "token" and (resource.group, resource.plural) == _SERVICE_ACCOUNTS
            )
        ):
            raise _errors.ApiError(
                404, "the server could not find the requested resource", details={}
            )
        return _Target(resource, version, namespace, name, subresource)

    def _verb(self, request: Request, target: _Target) -> str:
        watching = request.query.get("watch", "").lower() in _TRUE
        verbs = {
            ("GET", False): "watch" if watching else "list",
            ("GET", True): "watch" if watching else "get",
            ("POST", False): "create",
            ("PUT", True): "update",
            ("PATCH", True): "patch",
            ("DELETE", True): "delete",
            ("DELETE", False): "deletecollection",
        }
        verb = verbs.get((request.method, bool(target.name)))
        if target.subresource == "token" and request.method == "POST":
            verb = "create"
        allowed = (
            ("get",)
            if target.subresource == "log"
            else ("create",)
            if target.subresource == "token"
            else _resources.SUBRESOURCE_VERBS
            if target.subresource
            else target.resource.verbs
        )
        if (
            verb is None
            or verb not in allowed
            or (verb == "create" and target.resource.namespaced and not target.namespace)
        ):
            raise _errors.ApiError(
                405,
                "the server does not allow this method on the requested resource",
                details={},
            )
        return verb

    def _dispatch(self, request: Request, target: _Target) -> Response | WatchResponse:
        verb = self._verb(request, target)
        self._count(verb)
        if verb == "watch":
            return self._watch(request, target)
        with self.store.lock:
            if target.resource.group == _metrics.GROUP:
                return Response(200, self._metrics(request, target))
            if target.resource.group in _reviews.GROUPS:
                body = self.registry.check_body(
                    target.resource,
                    target.version,
                    _body(request),
                    target.namespace,
                )
                return Response(201, _reviews.review(target.resource, body, target.namespace))
            if (target.resource.group, target.resource.plural) == ("", "componentstatuses"):
                response = self._serve(verb, request, target)
                return dataclasses.replace(response, warnings=[_COMPONENT_STATUS_DEPRECATED])
            return self._serve(verb, request, target)

    def _serve(self, verb: str, request: Request, target: _Target) -> Response:
        """A get, a list or a write, under the store's lock."""
        if verb == "get":
            obj = self._existing(target)
            if target.subresource == "scale":
                assert target.resource.scale is not None
                return Response(200, _scale.scale_of(target.resource.scale, obj))
            if target.subresource == "log":
                return Response(200, _logs.log(obj, request.query.get("container", "")))
            return Response(200, self._viewer(request, target)(obj))
        if verb == "list":
            return Response(200, self._list(request, target))
        if target.subresource == "token":
            self._existing(target)
            return Response(201, _tokens.issue(_body(request), self.token, self.registry.clock()))
        response = self._write(verb, request, target)
        if not _dry_run(request, verb):
            self._after_write()
        return response

    # ---- reads -------------------------------------------------------------------------

    def _existing(self, target: _Target) -> _json.Obj:
        """The object a request names; a missing one's 404 names the subresource asked
        for (`deployments/scale.apps "web" not found`), as the API server's does."""
        resource = target.resource
        try:
            return self.registry.existing(resource, target.namespace, target.name)
        except _errors.ApiError as error:
            if target.subresource not in ("scale", "status") or error.code != 404:
                raise
            raise _errors.not_found(
                resource.group, f"{resource.plural}/{target.subresource}", target.name
            ) from None

    def _metrics(self, request: Request, target: _Target) -> _json.Obj:
        """PodMetrics or NodeMetrics, one or a list, computed from the pods (`_metrics`)."""
        now = self.registry.now()
        pods = [p for p in self.store.list("", "pods") if _metrics.measured(p)]
        if target.resource.plural == "nodes":
            nodes = [n for n in self.store.list("", "nodes") if self._matcher(request, target)(n)]
            items = [_metrics.node_metrics(n, pods, self.usage, now) for n in nodes]
        else:
            chosen = [
                p
                for p in pods
                if (not target.namespace or p["metadata"].get("namespace") == target.namespace)
                and self._matcher(request, target)(p)
            ]
            items = [
                _metrics.pod_metrics(p, usage, now)
                for p in chosen
                if (usage := self.usage.of(p)) is not None
            ]
        if target.name:
            if not items:
                raise _errors.ApiError(404, f'{target.resource.plural} "{target.name}" not found')
            return items[0]
        kind = "PodMetricsList" if target.resource.plural == "pods" else "NodeMetricsList"
        return {
            "apiVersion": f"{_metrics.GROUP}/{_metrics.VERSION}",
            "kind": kind,
            "metadata": {},
            "items": sorted(
                items, key=lambda i: (i["metadata"].get("namespace", ""), i["metadata"]["name"])
            ),
        }

    def _present(self, target: _Target, obj: _json.Obj, *, in_list: bool = False) -> _json.Obj:
        """A copy of a stored object as the client asked for it. Items of built-in lists
        carry no apiVersion/kind, as a real server sends them."""
        shown: _json.Obj = _json.clone(_conversion.shown(target.resource, target.version, obj))
        if in_list and target.resource.builtin:
            shown.pop("apiVersion", None)
            shown.pop("kind", None)
            return shown
        return {
            "apiVersion": target.resource.api_version(target.version),
            "kind": target.resource.kind,
            **{k: v for k, v in shown.items() if k not in ("apiVersion", "kind")},
        }

    def _matcher(self, request: Request, target: _Target) -> Callable[[_json.Obj], bool]:
        labels = _selectors.parse_labels(request.query.get("labelSelector", ""))
        fields = _selectors.parse_fields(
            request.query.get("fieldSelector", ""),
            target.resource.group,
            target.resource.plural,
        )
        name = target.name
        return lambda obj: (
            (not name or obj["metadata"]["name"] == name) and labels(obj) and fields(obj)
        )

    def _list(self, request: Request, target: _Target) -> _json.Obj:
        resource = target.resource
        objects = self._list_objects(request, target)
        metadata: _json.Obj = {"resourceVersion": str(self.store.resource_version)}
        start = _continue_from(request.query.get("continue", ""))
        objects = [o for o in objects if _sort_key(o) > start] if start else objects
        limit = _integer(request.query.get("limit") or "0")
        if 0 < limit < len(objects):
            metadata["continue"] = _continue_token(_sort_key(objects[limit - 1]))
            if not (request.query.get("labelSelector") or request.query.get("fieldSelector")):
                # etcd counts what is left only when no selector filters it
                metadata["remainingItemCount"] = len(objects) - limit
            objects = objects[:limit]
        table_version = _tables.requested_version(request.headers.get("accept", ""))
        if table_version is not None:
            return self._table(request, target, objects, table_version, metadata)
        return {
            "kind": f"{resource.kind}List",
            "apiVersion": resource.api_version(target.version),
            "metadata": metadata,
            "items": [self._present(target, obj, in_list=True) for obj in objects],
        }

    def _viewer(self, request: Request, target: _Target) -> Callable[[_json.Obj], _json.Obj]:
        """How objects are shown to this request: as themselves, or each as a Table of one
        row when it asks for Tables (`kubectl get`)."""
        table_version = _tables.requested_version(request.headers.get("accept", ""))
        if table_version is None:
            return lambda obj: self._present(target, obj)
        return lambda obj: self._table(
            request,
            target,
            [obj],
            table_version,
            {"resourceVersion": obj["metadata"].get("resourceVersion", "")},
        )

    def _table(
        self,
        request: Request,
        target: _Target,
        objects: list[_json.Obj],
        table_version: str,
        metadata: _json.Obj,
    ) -> _json.Obj:
        return _tables.table(
            target.resource,
            target.version,
            objects,
            table_version=table_version,
            now=self.registry.clock(),
            list_metadata=metadata,
            include=request.query.get("includeObject", ""),
            present=lambda obj: self._present(target, obj),
            release=_apply_keys.release(self._kubernetes_version),
        )

    # ---- writes ------------------------------------------------------------------------

    def _manager(self, request: Request) -> str:
        """The field manager: `?fieldManager=`, else the User-Agent's product, as a real
        server derives it (`OpenAPI-Generator/...` becomes `OpenAPI-Generator`), else
        `unknown`."""
        given = request.query.get("fieldManager", "")
        if given:
            return given
        agent = request.headers.get("user-agent", "")
        return agent.split("/", 1)[0] or "unknown"

    def _write(self, verb: str, request: Request, target: _Target) -> Response:
        resource, registry = target.resource, self.registry
        dry_run = _dry_run(request, verb)
        write = _managed.Write(
            manager=self._manager(request),
            api_version=resource.api_version(target.version),
            time=registry.now(),
            subresource=target.subresource,
            status_subresource=resource.status,
            builtin=resource.builtin,
        )
        if target.subresource == "scale":
            return self._write_scale(verb, request, target, write, dry_run=dry_run)
        validation = _decoding.mode(
            request.query.get("fieldValidation", ""), self._kubernetes_version
        )
        if verb == "create":
            body = registry.check_body(resource, target.version, _body(request), target.namespace)
            body, warnings = _decoding.decode(resource, target.version, body, validation=validation)
            body = _conversion.stored(resource, target.version, body, None)
            obj = registry.create(resource, body, write=write, dry_run=dry_run)
            return Response(201, self._present(target, obj), warnings)
        if verb == "update":
            live = registry.existing(resource, target.namespace, target.name)
            body = registry.check_body(resource, target.version, _body(request), target.namespace)
            body, warnings = _decoding.decode(resource, target.version, body, validation=validation)
            body = _conversion.stored(resource, target.version, body, live)
            obj = registry.update(resource, live, body, write=write, dry_run=dry_run)
            return Response(200, self._present(target, obj), warnings)
        if verb == "patch":
            content_type = request.headers.get("content-type", "").split(";")[0].strip()
            _check_patch_options(content_type, request.query)
            obj, created = registry.patch(
                resource,
                target.version,
                target.namespace,
                target.name,
                content_type=content_type,
                body=request.body,
                write=write,
                force=request.query.get("force", "").lower() in _TRUE,
                dry_run=dry_run,
                validation=validation,
                warnings=(warnings := []),
            )
            return Response(201 if created else 200, self._present(target, obj), warnings)
        options = _body(request) if request.body else None
        options = dict(options) if isinstance(options, dict) else {}
        if "propagationPolicy" in request.query:
            options["propagationPolicy"] = request.query["propagationPolicy"]
        if "orphanDependents" in request.query:
            options["orphanDependents"] = request.query["orphanDependents"].lower() in _TRUE
        if verb == "delete":
            obj, gone = registry.delete(
                resource, target.namespace, target.name, options=options, dry_run=dry_run
            )
            # 202 only where the object stays and dependents were asked not to be orphaned
            # (the API server's handlers/delete.go keeps this for old clients).
            code = 202 if not gone and options.get("orphanDependents") is False else 200
            if gone and not _resources.returns_deleted_object(resource):
                return Response(code, _errors.deleted(resource.group, resource.plural, obj))
            return Response(code, self._present(target, obj))
        deleted = [
            registry.delete(
                resource,
                obj["metadata"].get("namespace", ""),
                obj["metadata"]["name"],
                options=options,
                dry_run=dry_run,
            )[0]
            for obj in self._list_objects(request, target)
        ]
        return Response(
            200,
            {
                "kind": f"{resource.kind}List",
                "apiVersion": resource.api_version(target.version),
                "metadata": {"resourceVersion": str(self.store.resource_version)},
                "items": [self._present(target, obj, in_list=True) for obj in deleted],
            },
        )

    def _write_scale(
        self,
        verb: str,
        request: Request,
        target: _Target,
        write: _managed.Write,
        *,
        dry_run: bool,
    ) -> Response:
        """PUT or PATCH a Scale: the object's wanted replicas change, nothing else (nor, on
        releases before `_scale.OWNERSHIP_TRACKED`, managedFields: `owned` keeps the old)."""
        resource, paths = target.resource, target.resource.scale
        assert paths is not None
        live = self._existing(target)
        if verb == "update":
            wanted = _body(request)
        else:
            content_type = request.headers.get("content-type", "").split(";")[0].strip()
            if content_type not in (_patch.JSON_PATCH, _patch.MERGE_PATCH, _patch.STRATEGIC_PATCH):
                raise _errors.ApiError(
                    415,
                    "the body of the request was in an unknown format - accepted media types "
                    f"include: {_patch.JSON_PATCH}, {_patch.MERGE_PATCH}, "
                    f"{_patch.STRATEGIC_PATCH}",
                )
            wanted = _patch.patched(
                _scale.scale_of(paths, live), content_type, _registry.decode_body(request.body)
            )
        changed = _scale.with_replicas(paths, live, wanted)
        release = _apply_keys.release(self._kubernetes_version)
        tracked = not resource.builtin or release is None or release >= _scale.OWNERSHIP_TRACKED
        stored = self.registry.update(
            resource, live, changed, write=write, dry_run=dry_run, owned=not tracked
        )
        return Response(200, _scale.scale_of(paths, stored))

    def _list_objects(self, request: Request, target: _Target) -> list[_json.Obj]:
        matches = self._matcher(request, target)
        namespace = target.namespace if target.resource.namespaced and target.namespace else None
        return [
            obj
            for obj in self.store.list(target.resource.group, target.resource.plural, namespace)
            if matches(obj)
        ]

    # ---- watch -------------------------------------------------------------------------

    def _watch(self, request: Request, target: _Target) -> WatchResponse:
        matches = self._matcher(request, target)
        raw_version = request.query.get("resourceVersion", "")
        try:
            timeout = float(request.query.get("timeoutSeconds") or 0)
        except ValueError as error:
            raise _errors.bad_request("timeoutSeconds must be a number") from error
        timeout = timeout if timeout > 0 else DEFAULT_WATCH_SECONDS
        bookmarks = request.query.get("allowWatchBookmarks", "").lower() in _TRUE
        show = self._viewer(request, target)
        with self.store.lock:
            if raw_version in ("", "0"):
                initial = [
                    {"type": _store.ADDED, "object": show(obj)}
                    for obj in self._list_objects(request, target)
                ]
                since = self.store.resource_version
            else:
                if not raw_version.isdigit():
                    raise _errors.bad_request(f"invalid resourceVersion {raw_version!r}")
                initial, since = [], int(raw_version)
        return WatchResponse(
            self._stream(
                target, matches, show, initial, since, time.monotonic() + timeout, bookmarks
            )
        )

    def _stream(
        self,
        target: _Target,
        matches: Callable[[_json.Obj], bool],
        show: Callable[[_json.Obj], _json.Obj],
        initial: list[_json.Obj],
        since: int,
        deadline: float,
        bookmarks: bool,
    ) -> Iterator[_json.Obj | None]:
        yield from initial
        delivered = since
        while not self.closing.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            with self.store.lock:
                events = self.store.events_after(since)
                if events == []:
                    self.store.changed.wait(min(remaining, _HEARTBEAT_SECONDS))
                    events = self.store.events_after(since)
                current = self.store.resource_version
            if self.closing.is_set():
                return  # the server stops: end the stream cleanly
            if events is None:
                yield {
                    "type": "ERROR",
                    "object": _errors.ApiError(
                        410, f"too old resource version: {since} ({current})", reason="Expired"
                    ).status(),
                }
                return
            for event in events:
                since = event.resource_version
                shown = self._event(target, matches, show, event)
                if shown is not None:
                    delivered = since
                    yield shown
            if not events:
                if bookmarks and delivered < since:
                    delivered = since
                    yield self._bookmark(target, since)
                else:
                    yield None

    def _event(
        self,
        target: _Target,
        matches: Callable[[_json.Obj], bool],
        show: Callable[[_json.Obj], _json.Obj],
        event: _store.Event,
    ) -> _json.Obj | None:
        resource = target.resource
        if (event.group, event.plural) != (resource.group, resource.plural):
            return None
        if target.namespace and event.obj["metadata"].get("namespace") != target.namespace:
            return None
        now_matches = matches(event.obj)
        kind = event.type
        if kind == _store.MODIFIED and event.old is not None:
            before = matches(event.old)
            if before != now_matches:
                kind = _store.ADDED if now_matches else _store.DELETED
                now_matches = True
        if not now_matches:
            return None
        return {"type": kind, "object": show(event.obj)}

    def _bookmark(self, target: _Target, version: int) -> _json.Obj:
        return {
            "type": "BOOKMARK",
            "object": {
                "kind": target.resource.kind,
                "apiVersion": target.resource.api_version(target.version),
                "metadata": {"resourceVersion": str(version)},
            },
        }


_OPTIONS_KINDS = {
    "create": "CreateOptions",
    "update": "UpdateOptions",
    "patch": "PatchOptions",
    "delete": "DeleteOptions",
    "deletecollection": "DeleteOptions",
}


def _body(request: Request) -> Any:
    """A create, update, review or delete options body: JSON, or protocol buffers as
    client-go's typed clients send built-in objects."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip()
    if content_type == _protobuf.CONTENT_TYPE:
        return _protobuf.decode(request.body)
    return _registry.decode_body(request.body)


def _check_patch_options(content_type: str, query: Mapping[str, str]) -> None:
    """apimachinery's ValidatePatchOptions: an apply names its field manager, and only an
    apply may say `force` (even `force=false`)."""
    if content_type == _patch.APPLY_PATCH:
        causes = [] if query.get("fieldManager") else [("fieldManager", _MANAGER_REQUIRED)]
    else:
        causes = [("force", _FORCE_FORBIDDEN)] if "force" in query else []
    if causes:
        raise _errors.invalid("meta.k8s.io", "PatchOptions", "", causes)


_MANAGER_REQUIRED = "Required value: is required for apply patch"
_FORCE_FORBIDDEN = "Forbidden: may not be specified for non-apply patch"


def _dry_run(request: Request, verb: str) -> bool:
    """Whether the write is a dry run (`dryRun=All`); 422 for any other value, as the API
    server refuses it before doing anything."""
    value = request.query.get("dryRun", "")
    if value in ("", "All"):
        return value == "All"
    kind = _OPTIONS_KINDS.get(verb, "DeleteOptions")
    message = f'Unsupported value: []string{{"{value}"}}: supported values: "All"'
    raise _errors.ApiError(
        422,
        f'{kind}.meta.k8s.io "" is invalid: dryRun: {message}',
        details={
            "group": "meta.k8s.io",
            "kind": kind,
            "causes": [{"reason": "FieldValueNotSupported", "message": message, "field": "dryRun"}],
        },
    )


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise _errors.bad_request(f'strconv.ParseInt: parsing "{text}": invalid syntax') from None


def _sort_key(obj: _json.Obj) -> tuple[str, str]:
    metadata = obj["metadata"]
    return (metadata.get("namespace", ""), metadata["name"])


def _continue_token(key: tuple[str, str]) -> str:
    return base64.urlsafe_b64encode(json.dumps({"start": list(key)}).encode()).decode()


def _continue_from(token: str) -> tuple[str, str] | None:
    """The last key a previous page returned (the token is opaque to clients)."""
    if not token:
        return None
    try:
        decoded: Any = json.loads(base64.urlsafe_b64decode(token.encode()))
        namespace, name = decoded["start"]
        return (str(namespace), str(name))
    except (ValueError, KeyError, TypeError) as error:
        raise _errors.bad_request("invalid continue token") from error
