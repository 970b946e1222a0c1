"""One member cluster's API, through the official client: the only place the agent does HTTP.

`KubeClient` wraps a `kubernetes` DynamicClient built from a kubeconfig, the same code path
against a real cluster and against `gitfleet.sim`. It resolves kinds through the client's
discovery (refreshed on a miss, so kinds of a CRD created a moment ago are found), sends raw JSON
requests (bodies are plain dicts, responses are parsed once, never wrapped) and turns failures
into gitfleet's errors: 404 `NotFoundError`, 409 `ConflictError`, 401 and 403
`ConfigurationError` (as is a kubeconfig that cannot be read), anything else `ClusterAPIError`,
each raised from the client's exception with the server's Status payload kept. Throttling
(429), server errors (5xx) and transport failures (refused connections, timeouts) are retried a
bounded number of times with exponential backoff (`Retry`); a wait ends early when the `stop`
event is set.

The kubernetes package is imported only when a client is made: it takes a second to import.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import shutil
import tempfile
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from gitfleet import errors
from gitfleet.model import messages

log = logging.getLogger(__name__)

Obj = dict[str, Any]

IN_CLUSTER = Path("/var/run/secrets/kubernetes.io/serviceaccount")
"""Where a kubeconfig is expected, stands for the pod's own service account: the API server's
in-cluster address, its CA and the service account token (re-read as the kubelet rotates it)."""

RETRIED_CODES = frozenset({0, 429, 500, 502, 503, 504})
"""0 stands for a request that got no answer (refused, reset, timed out)."""
LIST_PAGE = 500


class NotServedError(errors.ClusterAPIError):
    """The cluster does not serve a kind (no such group, version or kind in its discovery)."""


class ConfigurationError(errors.ClusterAPIError):
    """The agent cannot use its own access to the cluster: no kubeconfig (or, in a pod, no
    service account), one it cannot read, or credentials the API server refuses (401, 403).
    The agent is misconfigured; nothing says the cluster is down."""


@dataclasses.dataclass(frozen=True, slots=True)
class Retry:
    """How often and how patiently a request is tried: `attempts` in all, waiting `base`
    seconds after the first failure, doubling up to `cap`; `timeout` is (connect, read)."""

    attempts: int = 5
    base: float = 0.2
    cap: float = 5.0
    timeout: tuple[float, float] = (5.0, 30.0)

    def delays(self) -> Iterator[float]:
        """The waits between attempts (one fewer than `attempts`)."""
        delay = self.base
        for _ in range(self.attempts - 1):
            yield min(delay, self.cap)
            delay *= 2


NO_WAIT = Retry(base=0.0, cap=0.0, timeout=(2.0, 10.0))
"""Retries without waiting between attempts (tests)."""


@dataclasses.dataclass(frozen=True, slots=True)
class ResourceType:
    """A kind as the cluster serves it: where its objects live."""

    api_version: str
    kind: str
    plural: str
    namespaced: bool

    @property
    def group(self) -> str:
        return self.api_version.rpartition("/")[0]

    def path(self, namespace: str = "", name: str = "") -> str:
        """The URL path of the collection (all namespaces when `namespace` is ""), or of
        one object."""
        base = "/api/v1" if self.api_version == "v1" else f"/apis/{self.api_version}"
        if self.namespaced and namespace:
            base += f"/namespaces/{namespace}"
        base += f"/{self.plural}"
        return f"{base}/{name}" if name else base


def _status_of(body: Any) -> Obj:
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    if isinstance(body, str):
        try:
            parsed = json.loads(body)
        except ValueError:
            return {"message": body.strip()} if body.strip() else {}
        return parsed if isinstance(parsed, dict) else {}
    return {}


def _parse(data: bytes | str | None) -> Any:
    """A response body: JSON, else its text (`/readyz` answers `ok`)."""
    if not data:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return data.decode("utf-8", "replace") if isinstance(data, bytes) else data


_JSON_TYPES = {list: "array", bool: "boolean", int: "number", float: "number"}


def _an_object(found: Any, what: str) -> Obj:
    """A successful answer read as an object: anything else (a proxy's page, a bare value)
    fails the request, as a refusal does, with what came back."""
    if isinstance(found, dict):
        return found
    if isinstance(found, str) and found:
        kind = f"text ({messages.one_line(found, 80)})"
    elif isinstance(found, (list, bool, int, float)):
        kind = "a JSON " + _JSON_TYPES[type(found)]
    else:
        kind = "nothing"
    raise errors.ClusterAPIError(f"{what}: the server answered with {kind}, not an object")


def api_error(exc: Any, what: str) -> errors.ClusterAPIError:
    """The gitfleet error for a client ApiException (`what` says which request failed). Its
    text holds the server's message as one bounded line (`model.messages`), with room left
    for what callers add, as every report records it; the whole message stays in `status`
    and in the log."""
    status = _status_of(exc.body)
    code = int(exc.status or 0)
    message = str(status.get("message") or exc.reason or f"HTTP {code}")
    line = messages.one_line(message, messages.MAX_BYTES // 2, keep_end=KEPT_END)
    if line != message:
        log.info("%s: the server's whole message: %s", what, message)
    cls = _ERRORS.get(code, errors.ClusterAPIError)
    return cls(f"{what}: {line}", status, code)


KEPT_END = 160
"""How much of the end of a server's message a cut keeps: where apimachinery says what is
wrong, after the value it quotes (a Job's whole pod template as Go prints it, some 2 KiB)."""

_ERRORS: dict[int, type[errors.ClusterAPIError]] = {
    401: ConfigurationError,
    403: ConfigurationError,
    404: errors.NotFoundError,
    409: errors.ConflictError,
}


class KubeClient:
    """Requests to one cluster. Thread-safe: discovery is serialized, requests run in
    parallel over the client's connection pool."""

    def __init__(
        self,
        kubeconfig: Path,
        *,
        name: str = "",
        retry: Retry = Retry(),
        stop: threading.Event | None = None,
        pool_size: int = 16,
    ) -> None:
        self.kubeconfig = kubeconfig
        self.name = name or kubeconfig.stem
        self.retry = retry
        self.stop = stop or threading.Event()
        self._pool_size = pool_size
        self._lock = threading.RLock()
        self._api: Any = None
        self._dynamic: Any = None
        self._types: dict[tuple[str, str], ResourceType] = {}
        self._cache_dir: str | None = None

    # ---- plumbing ----------------------------------------------------------------------

    def _client(self) -> Any:
        """The DynamicClient, made on first use (its discovery is a few requests)."""
        with self._lock:
            if self._dynamic is None:
                import yaml
                from kubernetes import client, config, dynamic

                configuration = client.Configuration()
                # One folder for the client's life, whatever number of attempts discovery
                # takes, holding the discovery cache and the certificates the kubeconfig
                # carries as data (the loader writes them to files); `close` removes it.
                if self._cache_dir is None:
                    self._cache_dir = tempfile.mkdtemp(prefix="gitfleet-discovery-")
                failed: list[str] = []
                try:
                    if self.kubeconfig == IN_CLUSTER:
                        config.load_incluster_config(  # type: ignore[no-untyped-call]
                            client_configuration=configuration
                        )
                    else:
                        with _plugin_failures() as failed:
                            config.load_kube_config(  # type: ignore[no-untyped-call]
                                config_file=str(self.kubeconfig),
                                client_configuration=configuration,
                                temp_file_path=self._cache_dir,
                            )
                except (config.ConfigException, yaml.YAMLError, *_UNREADABLE) as exc:
                    raise ConfigurationError(_unusable(self.kubeconfig, exc)) from exc
                if failed:
                    raise ConfigurationError(
                        f"cannot read kubeconfig {self.kubeconfig}: its credential plugin"
                        f" (exec) gave no credentials: {failed[0]}"
                    )
                if not configuration.verify_ssl:
                    _unverified(self.name)
                configuration.retries = 0  # retries are ours, with backoff
                configuration.connection_pool_maxsize = self._pool_size
                api = client.ApiClient(configuration)
                _bounded(api, self.retry.timeout)
                try:
                    self._dynamic = dynamic.DynamicClient(  # type: ignore[no-untyped-call]
                        api, cache_file=str(Path(self._cache_dir) / "discovery.json")
                    )
                except BaseException:
                    api.close()  # type: ignore[no-untyped-call]
                    raise
                self._api = api
            return self._dynamic

    def close(self) -> None:
        with self._lock:
            if self._api is not None:
                self._api.close()
            self._api = self._dynamic = None
            if self._cache_dir is not None:
                shutil.rmtree(self._cache_dir, ignore_errors=True)
                self._cache_dir = None

    def _attempt(self, what: str, call: Any) -> Any:
        """Run `call()` with retries; failures become gitfleet errors."""
        from kubernetes.client.exceptions import ApiException
        from urllib3.exceptions import HTTPError

        delays = self.retry.delays()
        while True:
            try:
                return call()
            except ApiException as exc:
                error = api_error(exc, what)
                cause: Exception = exc
            except (HTTPError, OSError) as exc:
                reason = getattr(exc, "reason", None) or exc
                error = errors.ClusterAPIError(
                    f"{what}: cannot reach cluster {self.name}: {reason}"
                )
                cause = exc
            if error.code in RETRIED_CODES and not self.stop.is_set():
                delay = next(delays, None)
                if delay is not None:
                    log.debug("retrying %s in %.2fs: %s", what, delay, error)
                    if not self.stop.wait(delay):
                        continue
            raise error from cause

    def request(
        self,
        method: str,
        path: str,
        what: str,
        *,
        body: Any = None,
        query: Mapping[str, str] | None = None,
        content_type: str | None = None,
    ) -> tuple[int, Any]:
        """(HTTP status, parsed JSON body) of one request, retried as `retry` says."""

        def call() -> tuple[int, Any]:
            dyn = self._client()
            params: dict[str, Any] = {
                "query_params": list((query or {}).items()),
                "serialize": False,
                "_request_timeout": self.retry.timeout,
            }
            if content_type:
                params["content_type"] = content_type
            response = dyn.request(method, path, body=body, **params)
            return response.status, _parse(response.data)

        result: tuple[int, Any] = self._attempt(what, call)
        return result

    # ---- discovery ---------------------------------------------------------------------

    def resource_type(self, api_version: str, kind: str) -> ResourceType:
        """Where objects of a kind live; `NotServedError` if the cluster does not serve it."""
        key = (api_version, kind)
        found = self._types.get(key)
        if found is not None:
            return found
        from kubernetes.dynamic.exceptions import ResourceNotFoundError, ResourceNotUniqueError

        def call() -> Any:
            with self._lock:
                return self._client().resources.get(api_version=api_version, kind=kind)

        try:
            resource = self._attempt(f"discovering {kind} in {api_version}", call)
        except (ResourceNotFoundError, ResourceNotUniqueError) as exc:
            raise NotServedError(
                f"the cluster does not serve {kind} in {api_version}", code=404
            ) from exc
        found = ResourceType(api_version, kind, resource.name, bool(resource.namespaced))
        with self._lock:
            self._types[key] = found
        return found

    def refresh_discovery(self) -> None:
        """Forget what discovery found (after CRDs changed), so kinds are looked up again."""
        with self._lock:
            self._types.clear()
            if self._dynamic is not None:
                self._attempt("refreshing discovery", self._dynamic.resources.invalidate_cache)

    # ---- objects -----------------------------------------------------------------------

    def get(self, rtype: ResourceType, namespace: str, name: str) -> Obj | None:
        """The object, None if it does not exist."""
        try:
            _, obj = self.request(
                "GET", rtype.path(namespace, name), f"reading {rtype.kind} {name}"
            )
        except errors.NotFoundError:
            return None
        return _an_object(obj, f"reading {rtype.kind} {name}")

    def list_objects(
        self, rtype: ResourceType, label_selector: str = "", *, namespace: str = ""
    ) -> list[Obj]:
        """Every object of a kind matching the label selector, in `namespace` ("": in every
        namespace)."""
        items: list[Obj] = []
        query: dict[str, str] = {"limit": str(LIST_PAGE)}
        if label_selector:
            query["labelSelector"] = label_selector
        while True:
            where = rtype.path(namespace)
            what = f"listing {rtype.kind}"
            _, page = self.request("GET", where, what, query=query)
            page = _an_object(page, what)
            for item in page.get("items") or []:
                item.setdefault("apiVersion", rtype.api_version)
                item.setdefault("kind", rtype.kind)
                items.append(item)
            token = (page.get("metadata") or {}).get("continue")
            if not token:
                return items
            query["continue"] = token

    def apply(self, rtype: ResourceType, body: Obj, *, manager: str) -> tuple[Obj, bool]:
        """Server-side apply of `body` by field manager `manager`, taking over conflicting
        fields (force); returns the object and whether it was created."""
        metadata = body["metadata"]
        what = f"applying {rtype.kind} {describe(body)}"
        code, obj = self.request(
            "PATCH",
            rtype.path(metadata.get("namespace", ""), metadata["name"]),
            what,
            body=body,
            query={"fieldManager": manager, "force": "true"},
            content_type="application/apply-patch+yaml",
        )
        return _an_object(obj, what), code == 201

    def json_patch(
        self, rtype: ResourceType, namespace: str, name: str, ops: list[Obj], *, manager: str
    ) -> Obj:
        """An RFC 6902 patch of one object."""
        what = f"patching {rtype.kind} {name}"
        _, obj = self.request(
            "PATCH",
            rtype.path(namespace, name),
            what,
            body=ops,
            query={"fieldManager": manager},
            content_type="application/json-patch+json",
        )
        return _an_object(obj, what)

    def delete(self, rtype: ResourceType, namespace: str, name: str) -> bool:
        """Delete an object (dependents in the background); False if it was already gone."""
        try:
            self.request(
                "DELETE",
                rtype.path(namespace, name),
                f"deleting {rtype.kind} {name}",
                query={"propagationPolicy": "Background"},
            )
        except errors.NotFoundError:
            return False
        return True

    def get_path(self, path: str) -> Any:
        """A non-object document (`/version`, discovery)."""
        return self.request("GET", path, f"reading {path}")[1]

    def check_access(self) -> None:
        """One request that needs the agent's credentials (the core API's discovery), so that
        an agent learns before it syncs whether it can use the cluster at all:
        `ConfigurationError` when its configuration or credentials are refused, another
        `ClusterAPIError` when the cluster does not answer."""
        self.request("GET", "/api", "checking access to the cluster")


_MISSHAPEN = (TypeError, KeyError, AttributeError)
"""What the client's loader raises for YAML that is no kubeconfig (a string, a list)."""
_UNREADABLE = (OSError, ValueError, *_MISSHAPEN)
"""What loading a kubeconfig raises, besides the client's ConfigException and YAML errors, for
a file that is missing, unreadable or not shaped like a kubeconfig."""


@contextlib.contextmanager
def _plugin_failures() -> Iterator[list[str]]:
    """What the client's kubeconfig loader says went wrong while it runs in this thread. It
    reports an exec credential plugin that fails (a command not found, output without a
    token) with `logging.error` on the root logger and goes on without credentials: requests
    then go out anonymous and come back 401 or 403 about `system:anonymous`, and the plugin's
    failure was one stray `ERROR:root:` line. Its messages are kept here instead, not printed
    (the root logger holds a handler meanwhile, so that logging does not configure itself)."""
    found: list[str] = []
    thread = threading.get_ident()

    def keep(record: logging.LogRecord) -> bool:
        ours = record.thread == thread and "kubernetes" in record.pathname
        if ours and record.levelno >= logging.ERROR:
            found.append(record.getMessage())
        return not ours

    root, holder = logging.getLogger(), logging.NullHandler()
    root.addFilter(keep)
    root.addHandler(holder)
    try:
        yield found
    finally:
        root.removeHandler(holder)
        root.removeFilter(keep)


def _bounded(api: Any, timeout: tuple[float, float]) -> None:
    """Make every request of `api` wait at most `timeout` (connect, read) when it names none.
    The DynamicClient's own discovery requests (made when it is created, and when its cache
    is refreshed) name none, and urllib3 then waits without end: an API server that accepts
    connections but does not answer (a stopped or overloaded process, a proxy holding the
    connection) kept `agent push --once` waiting for as long as it did not answer."""
    send = api.rest_client.request

    def request(method: str, url: str, *args: Any, **options: Any) -> Any:
        options["_request_timeout"] = options.get("_request_timeout") or timeout
        return send(method, url, *args, **options)

    api.rest_client.request = request


def _unverified(cluster: str) -> None:
    """Say once per client that a kubeconfig turned certificate checks off
    (`insecure-skip-tls-verify`), instead of urllib3's warning on every request, which it
    repeats without end (hundreds a sync) and which names no cluster. kubectl says nothing."""
    import urllib3

    urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)
    log.warning(
        "cluster %s: its kubeconfig sets insecure-skip-tls-verify: the API server's"
        " certificate is not checked",
        cluster,
    )


def _unusable(kubeconfig: Path, cause: Exception) -> str:
    if kubeconfig == IN_CLUSTER:
        return (
            f"no kubeconfig given (--kubeconfig or $KUBECONFIG) and no service account at"
            f" {IN_CLUSTER} (not running in a pod?): {cause}"
        )
    if isinstance(cause, _MISSHAPEN):
        return (
            f"cannot read kubeconfig {kubeconfig}: it is not a kubeconfig (a YAML mapping of"
            f" clusters, users and contexts): {cause}"
        )
    return f"cannot read kubeconfig {kubeconfig}: {cause}"


def describe(obj: Mapping[str, Any]) -> str:
    """`namespace/name` or `name` of an object, for messages."""
    metadata = obj.get("metadata") or {}
    namespace, name = metadata.get("namespace", ""), metadata.get("name", "")
    return f"{namespace}/{name}" if namespace else str(name)
