"""The public face of the simulator: `SimCluster` (one member cluster on its own port) and
`SimFleet` (several, started and stopped together), with the object store view, request
counters and fault switch that tests, benchmarks and the demo use."""

from __future__ import annotations

import base64
import dataclasses
import secrets
import ssl
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import yaml

from gitfleet.sim import (
    _api,
    _bootstrap,
    _controller,
    _errors,
    _gojson,
    _http,
    _json,
    _managed,
    _quantity,
    _registry,
    _resources,
    _schemas,
    _store,
    _tls,
)

DEFAULT_KUBERNETES_VERSION = "v1.30.0"
SEED_MANAGER = "gitfleet-sim"
CONTROLLER_JOIN_SECONDS = 5.0
"""The longest wait for the controllers to end on a stop (a daemon thread, left if stuck)."""


class ListenError(OSError):
    """A simulated cluster cannot listen on its port (taken by another program, or not
    allowed)."""


@dataclasses.dataclass(frozen=True, slots=True)
class RequestCounts:
    """Requests served, by verb (`get`, `list`, `watch`, `create`, `update`, `patch`,
    `delete`, `deletecollection`, `discovery`). Requests refused by a fault or for a bad
    token are not counted."""

    by_verb: Mapping[str, int]

    def __getitem__(self, verb: str) -> int:
        return self.by_verb.get(verb, 0)

    @property
    def writes(self) -> int:
        return sum(n for verb, n in self.by_verb.items() if verb in _api.WRITE_VERBS)

    @property
    def reads(self) -> int:
        return sum(n for verb, n in self.by_verb.items() if verb not in _api.WRITE_VERBS)


class Objects:
    """The objects of a running cluster, for seeding and checking without HTTP. Keys are
    (apiVersion, kind, namespace, name), with "" as the namespace of cluster-scoped kinds.
    Values are copies; writes go through the server's rules (defaults, validation,
    finalizers) and trigger its controllers."""

    def __init__(self, cluster: SimCluster) -> None:
        self._cluster = cluster

    def _type(self, api_version: str, kind: str) -> _resources.ResourceType:
        found = self._cluster.store.catalog.by_kind(api_version, kind)
        if found is None:
            raise KeyError(f"the simulated cluster does not serve {kind} in {api_version}")
        return found

    def get(self, api_version: str, kind: str, name: str, namespace: str = "") -> _json.Obj | None:
        with self._cluster.store.lock:
            resource = self._type(api_version, kind)
            found = self._cluster.store.get(resource.group, resource.plural, namespace, name)
            return None if found is None else _shown(resource, api_version, found)

    def list(self, api_version: str, kind: str, namespace: str | None = None) -> list[_json.Obj]:
        with self._cluster.store.lock:
            resource = self._type(api_version, kind)
            return [
                _shown(resource, api_version, obj)
                for obj in self._cluster.store.list(resource.group, resource.plural, namespace)
            ]

    def put(self, obj: _json.Obj) -> _json.Obj:
        """Create `obj`, or replace the object of that name; returns what was stored."""
        cluster = self._cluster
        with cluster.store.lock:
            resource = self._type(obj["apiVersion"], obj["kind"])
            version = obj["apiVersion"].rpartition("/")[2]
            namespace = (obj.get("metadata") or {}).get("namespace", "")
            if resource.namespaced and not namespace:
                namespace = "default"
            body = cluster.registry.check_body(resource, version, obj, namespace)
            write = _managed.Write(
                manager=SEED_MANAGER,
                api_version=obj["apiVersion"],
                time=cluster.registry.now(),
                status_subresource=resource.status,
                builtin=resource.builtin,
            )
            name = body["metadata"].get("name", "")
            live = cluster.store.get(resource.group, resource.plural, namespace, name)
            if live is None:
                stored = cluster.registry.create(resource, body, write=write)
            else:
                body["metadata"].pop("resourceVersion", None)
                stored = cluster.registry.update(resource, live, body, write=write)
            if resource.status and "status" in obj:
                stored = cluster.registry.save(
                    resource, {**_json.clone(stored), "status": _json.clone(obj["status"])}
                )
            cluster.controller.step()
            return _shown(resource, obj["apiVersion"], stored)

    def delete(self, api_version: str, kind: str, name: str, namespace: str = "") -> bool:
        """Delete an object as a client would; whether it is gone (finalizers may hold it).
        False if there was no such object."""
        with self._cluster.store.lock:
            resource = self._type(api_version, kind)
            try:
                _, gone = self._cluster.registry.delete(resource, namespace, name)
            except _errors.ApiError:
                return False
            self._cluster.controller.step()
            return gone

    def __getitem__(self, key: tuple[str, str, str, str]) -> _json.Obj:
        api_version, kind, namespace, name = key
        found = self.get(api_version, kind, name, namespace)
        if found is None:
            raise KeyError(key)
        return found

    def __setitem__(self, key: tuple[str, str, str, str], obj: _json.Obj) -> None:
        api_version, kind, namespace, name = key
        metadata = {**(obj.get("metadata") or {}), "name": name}
        if namespace:
            metadata["namespace"] = namespace
        self.put({**obj, "apiVersion": api_version, "kind": kind, "metadata": metadata})

    def __delitem__(self, key: tuple[str, str, str, str]) -> None:
        api_version, kind, namespace, name = key
        if self.get(api_version, kind, name, namespace) is None:
            raise KeyError(key)
        self.delete(api_version, kind, name, namespace)

    def __contains__(self, key: object) -> bool:
        if not (isinstance(key, tuple) and len(key) == 4):
            return False
        api_version, kind, namespace, name = key
        return self.get(api_version, kind, name, namespace) is not None


def _shown(resource: _resources.ResourceType, api_version: str, obj: _json.Obj) -> _json.Obj:
    shown: _json.Obj = _json.clone(obj)
    shown["apiVersion"], shown["kind"] = api_version, resource.kind
    return shown


class _Started:
    """Started on entering a `with` block, stopped on leaving it."""

    def start(self) -> object:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()


class SimCluster(_Started):
    """A simulated member cluster: a Kubernetes API on https://127.0.0.1:<port> with nodes,
    controllers and switchable faults. Its serving certificate is signed by a CA made for
    the process (`ca_pem`), which its kubeconfig names.

    `nodes` Node objects get `node_allocatable` each (default 4 CPU, 16Gi, 110 pods), or
    share a total `capacity` (split in whole units, so they add up to it exactly), and
    carry `node_labels`. Workload pods start `ready_delay` seconds after they are
    scheduled (0: within the request that created them). A deleted namespace's contents
    start to go `namespace_cleanup_delay` seconds after its deletion, never within the
    deleting request (`_controller.NAMESPACE_CLEANUP_SECONDS`). Watches can resume from the last
    `event_history` changes; older resourceVersions get 410 Gone. `port` 0 picks a free
    port; `token` (default: random) is the bearer token every request must carry.
    """

    def __init__(
        self,
        name: str = "member1",
        *,
        nodes: int = 3,
        node_allocatable: Mapping[str, str] | None = None,
        capacity: Mapping[str, str] | None = None,
        node_labels: Mapping[str, str] | None = None,
        ready_delay: float = 0.2,
        namespace_cleanup_delay: float = _controller.NAMESPACE_CLEANUP_SECONDS,
        port: int = 0,
        token: str | None = None,
        kubernetes_version: str = DEFAULT_KUBERNETES_VERSION,
        event_history: int = _store.EVENT_LOG_SIZE,
    ) -> None:
        if node_allocatable is not None and capacity is not None:
            raise ValueError("give node_allocatable or capacity, not both")
        if capacity is not None:
            shares = _quantity.split(capacity, nodes)
        else:
            shares = [dict(node_allocatable or _bootstrap.DEFAULT_NODE_ALLOCATABLE)] * nodes
        self.name = name
        self.token = token or secrets.token_hex(16)
        self.kubernetes_version = kubernetes_version
        self.store = _store.Store(history=event_history)
        self.registry = _registry.Registry(
            self.store, seed=name, kubernetes_version=kubernetes_version
        )
        self.controller = _controller.Controller(
            self.registry, ready_delay=ready_delay, namespace_cleanup_delay=namespace_cleanup_delay
        )
        self.api = _api.Api(
            self.registry,
            kubernetes_version=kubernetes_version,
            after_write=self.controller.step,
            token=self.token,
        )
        self.objects = Objects(self)
        self._identity = _tls.identity()
        self._frontend = _http.Frontend(self.api, self.token)
        self._endpoint = _http.Endpoint(self._frontend, port, self._identity.context)
        self._controller_thread: threading.Thread | None = None
        self._running = False
        with self.store.lock:
            _bootstrap.populate(
                self.registry,
                cluster=name,
                allocatable=shares,
                labels=dict(node_labels or {}),
                kubernetes_version=kubernetes_version,
            )
            self.controller.step()

    # ---- lifecycle ---------------------------------------------------------------------

    @property
    def port(self) -> int:
        return self._endpoint.port

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    @property
    def ca_pem(self) -> bytes:
        """The certificate authority clients verify the server with (PEM)."""
        return self._identity.ca_pem

    def client_tls(self) -> ssl.SSLContext:
        """A client TLS context trusting this cluster's CA, for plain HTTPS requests."""
        return self._identity.client_context()

    def start(self) -> str:
        """Listen and run the controllers; returns the server URL."""
        if not self._running:
            # The schemas of built-in kinds take a second or two to read, once per process:
            # here rather than within the first request and its client's timeout.
            _schemas.builtin(_schemas.builtin_kinds())
            self.api.closing.clear()
            self._frontend.stopping.clear()
            try:
                self._endpoint.start()
            except OSError as error:
                raise ListenError(
                    f"simulated cluster {self.name} cannot listen on 127.0.0.1:{self.port}: "
                    f"{error.strerror or error}"
                ) from error
            self._running = True
            if self.fault == _http.Fault.UNREACHABLE:  # broken before it started
                self._endpoint.stop(self._wake, graceful=False)
            self._controller_thread = threading.Thread(
                target=self._run_controllers, daemon=True, name=f"sim-controller-{self.name}"
            )
            self._controller_thread.start()
        return self.url

    def stop(self) -> None:
        """Stop listening, end every connection and watch, join every thread."""
        if not self._running:
            return
        with self.store.lock:  # the controller thread checks the flag under the lock
            self._running = False
        self.api.closing.set()
        self._frontend.stopping.set()
        self._endpoint.stop(self._wake, graceful=True)
        self._wake()
        if self._controller_thread is not None:
            self._controller_thread.join(CONTROLLER_JOIN_SECONDS)
            self._controller_thread = None

    def _wake(self) -> None:
        with self.store.lock:
            self.store.changed.notify_all()

    def _run_controllers(self) -> None:
        with self.store.lock:
            while self._running:
                self.controller.step()
                due = self.controller.next_due()
                wait = 1.0 if due is None else max(0.0, min(1.0, due - time.monotonic()))
                if not self.store.has_changes():
                    self.store.changed.wait(wait)

    def settle(self, timeout: float = 10.0) -> None:
        """Wait until the controllers have nothing left to do (all pods started, all
        cascades done); TimeoutError if that takes longer than `timeout` seconds."""
        deadline = time.monotonic() + timeout
        with self.store.lock:
            self.controller.step()
            while self.controller.pending():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"simulated cluster {self.name} did not settle")
                due = self.controller.next_due()
                wait = remaining if due is None else max(0.0, due - time.monotonic())
                self.store.changed.wait(min(wait, remaining) + 0.001)
                self.controller.step()

    # ---- access ------------------------------------------------------------------------

    def kubeconfig(self, path: Path | str) -> Path:
        """Write a kubeconfig for this cluster (context, cluster and user named after it)."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(yaml.safe_dump(self.kubeconfig_data(), sort_keys=False))
        return target

    def remove_kubeconfig(self, path: Path | str) -> bool:
        """Remove a kubeconfig `kubeconfig` wrote, if it still is this cluster's (not one a
        user wrote over it); whether it was removed."""
        target = Path(path)
        try:
            written = yaml.safe_load(target.read_text())
        except (OSError, yaml.YAMLError):
            return False
        if written != self.kubeconfig_data():
            return False
        target.unlink(missing_ok=True)
        return True

    def kubeconfig_data(self) -> _json.Obj:
        return {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {
                    "name": self.name,
                    "cluster": {
                        "server": self.url,
                        "certificate-authority-data": base64.b64encode(self.ca_pem).decode(),
                    },
                }
            ],
            "users": [{"name": self.name, "user": {"token": self.token}}],
            "contexts": [{"name": self.name, "context": {"cluster": self.name, "user": self.name}}],
            "current-context": self.name,
            "preferences": {},
        }

    @property
    def requests(self) -> RequestCounts:
        """A snapshot of the requests served so far."""
        with self.store.lock:
            return RequestCounts(dict(self.api.counts))

    def reset_requests(self) -> None:
        with self.store.lock:
            self.api.counts.clear()

    # ---- metrics -----------------------------------------------------------------------

    def set_pod_usage(
        self,
        namespace: str,
        usage: Mapping[str, str],
        *,
        labels: Mapping[str, str] | None = None,
        pod: str = "",
    ) -> None:
        """What the metrics API reports as used from now on (e.g. {"cpu": "400m"}) by the
        pod named `pod` of `namespace`, or by its pods whose labels include `labels`
        (those created later too). Pods nobody set a usage for have no metrics."""
        self.api.usage.set(namespace, usage, labels=labels, pod=pod)

    # ---- faults ------------------------------------------------------------------------

    @property
    def fault(self) -> _http.Fault:
        return self._frontend.fault

    def set_fault(self, fault: _http.Fault | str, *, latency: float = 1.0) -> None:
        """Break the cluster in one way (see `Fault`), or heal it with `Fault.NONE`.
        `latency` is the delay of `Fault.SLOW`, in seconds."""
        fault = _http.Fault(fault)
        self._frontend.latency = latency
        self._frontend.fault = fault
        if not self._running:
            return
        if fault == _http.Fault.UNREACHABLE:
            self._endpoint.stop(self._wake, graceful=False)
        else:
            self._endpoint.start()

    def set_answer(self, method: str, path: str, code: int | None, body: Any = None) -> None:
        """Answer every authorized `method` request for the URL `path` (without its query)
        with status `code` and `body` written as JSON, whatever it is, as a proxy in front of
        the API server might, instead of serving it; `code` None serves it again."""
        key = (method.upper(), path)
        if code is None:
            self._frontend.answers.pop(key, None)
            return
        data = _gojson.dumps(body).encode() + b"\n"
        self._frontend.answers[key] = _api.Response(code, _api.Encoded(data, "application/json"))


class SimFleet(_Started):
    """Several simulated clusters, started, stopped and written out together."""

    def __init__(self, clusters: Iterable[SimCluster]) -> None:
        self.clusters: dict[str, SimCluster] = {}
        for cluster in clusters:
            if cluster.name in self.clusters:
                raise ValueError(f"two simulated clusters are named {cluster.name!r}")
            self.clusters[cluster.name] = cluster

    @classmethod
    def of(cls, count: int, *, prefix: str = "member", port: int = 0, **options: Any) -> SimFleet:
        """`count` clusters named <prefix>1..<prefix>N, each built with `options`; with a
        `port`, the first listens there and the others on the ports after it."""
        return cls(
            SimCluster(f"{prefix}{n}", port=port + n - 1 if port else 0, **options)
            for n in range(1, count + 1)
        )

    def __getitem__(self, name: str) -> SimCluster:
        return self.clusters[name]

    def __iter__(self) -> Iterator[SimCluster]:
        return iter(self.clusters.values())

    def __len__(self) -> int:
        return len(self.clusters)

    def start(self) -> dict[str, str]:
        """Start every cluster; their URLs by name. On failure, those started are stopped."""
        try:
            return {name: cluster.start() for name, cluster in self.clusters.items()}
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        for cluster in self.clusters.values():
            cluster.stop()

    def write_kubeconfigs(self, directory: Path | str) -> dict[str, Path]:
        """One kubeconfig per cluster, `<directory>/<name>.yaml`."""
        return {
            name: cluster.kubeconfig(Path(directory) / f"{name}.yaml")
            for name, cluster in self.clusters.items()
        }

    def remove_kubeconfigs(self, paths: Mapping[str, Path]) -> None:
        """Remove the kubeconfigs `write_kubeconfigs` wrote (those still the clusters')."""
        for name, path in paths.items():
            self.clusters[name].remove_kubeconfig(path)

    def settle(self, timeout: float = 10.0) -> None:
        for cluster in self.clusters.values():
            cluster.settle(timeout)
