"""The cluster client: errors mapped to gitfleet's, bounded retries.

Aspects covered:
- 404 is NotFoundError and 409 ConflictError, each keeping the server's Status payload and
  the client's exception as cause; `get` of a missing object is None;
- a kind the cluster does not serve is NotServedError; a CRD's kind is found once created;
- 503 and 429 are retried until an answer comes; a 500 that lasts gives up after the
  configured attempts; a 422 is not retried;
- a cluster nobody listens for is a ClusterAPIError without a code, after the attempts;
- so is one that accepts connections and never answers (a stopped or overloaded server),
  within the attempts' timeouts, discovery included;
- a set stop event ends the retries at once;
- the discovery cache is one temporary folder per client, whatever number of attempts it
  took, removed when the client closes: after a sync, and after an unreachable cluster;
- a refusal longer than a report keeps is cut in its middle: what the server says of the
  field comes first, its verdict (`field is immutable`) last, the quoted value cut;
- a kubeconfig whose exec credential plugin fails (not found, or no token in its output) is
  unusable, with the plugin's failure as the reason (not the server's 401 to the anonymous
  requests the client would send), and nothing is printed through the root logger;
- a kubeconfig with `insecure-skip-tls-verify` works, and says so once, naming the cluster,
  not in a warning of urllib3's on every request.
"""

from __future__ import annotations

import http.server
import json
import logging
import socket
import tempfile
import threading
import warnings
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from builders import make_configmap
from simfixture import RunningSim

from gitfleet import errors, sim
from gitfleet.agent import kube, stamp

CONFIGMAPS = kube.ResourceType("v1", "ConfigMap", "configmaps", namespaced=True)
OBJECT_PATH = "/api/v1/namespaces/shop/configmaps/c"
DISCOVERY = {
    "/version": {"major": "1", "minor": "30", "gitVersion": "v1.30.0"},
    "/api": {"kind": "APIVersions", "versions": ["v1"]},
    "/apis": {"kind": "APIGroupList", "apiVersion": "v1", "groups": []},
}


class _Flaky(http.server.ThreadingHTTPServer):
    """Answers discovery, and `OBJECT_PATH` with the queued failures first."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.failures: list[int] = []
        self.hits: Counter[str] = Counter()


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _Flaky

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        self.server.hits[path] += 1
        if path in DISCOVERY:
            self._send(200, DISCOVERY[path])
        elif path == OBJECT_PATH and self.server.failures:
            code = self.server.failures.pop(0)
            self._send(code, {"kind": "Status", "code": code, "message": f"failure {code}"})
        elif path == OBJECT_PATH:
            self._send(200, make_configmap("c"))
        else:
            self._send(404, {"kind": "Status", "code": 404, "message": "not found"})

    def _send(self, code: int, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass


def _kubeconfig(path: Path, url: str) -> Path:
    """A kubeconfig for the server at `url`, with a token."""
    path.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "f", "cluster": {"server": url}}],
                "users": [{"name": "f", "user": {"token": "t"}}],
                "contexts": [{"name": "f", "context": {"cluster": "f", "user": "f"}}],
                "current-context": "f",
            }
        )
    )
    return path


@pytest.fixture(name="flaky")
def flaky_fixture(tmp_path: Path) -> Iterator[tuple[_Flaky, kube.KubeClient]]:
    server = _Flaky()
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    config = _kubeconfig(tmp_path / "flaky.yaml", f"http://127.0.0.1:{server.server_address[1]}")
    client = kube.KubeClient(config, retry=kube.Retry(attempts=3, base=0, cap=0))
    yield server, client
    client.close()
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize(
    ("failures", "hits"),
    [
        pytest.param([503, 503], 3, id="unavailable twice"),
        pytest.param([429], 2, id="throttled"),
    ],
)
def test_transient_failures_are_retried(
    flaky: tuple[_Flaky, kube.KubeClient], failures: list[int], hits: int
) -> None:
    server, client = flaky
    server.failures = list(failures)
    found = client.get(CONFIGMAPS, "shop", "c")
    assert found is not None and found["metadata"]["name"] == "c"
    assert server.hits[OBJECT_PATH] == hits


def test_a_lasting_failure_gives_up_after_the_attempts(
    flaky: tuple[_Flaky, kube.KubeClient],
) -> None:
    server, client = flaky
    server.failures = [500] * 5
    with pytest.raises(errors.ClusterAPIError) as raised:
        client.get(CONFIGMAPS, "shop", "c")
    assert raised.value.code == 500
    assert "failure 500" in str(raised.value)
    assert server.hits[OBJECT_PATH] == 3


def test_an_invalid_request_is_not_retried(flaky: tuple[_Flaky, kube.KubeClient]) -> None:
    server, client = flaky
    server.failures = [422]
    with pytest.raises(errors.ClusterAPIError) as raised:
        client.get(CONFIGMAPS, "shop", "c")
    assert raised.value.code == 422
    assert server.hits[OBJECT_PATH] == 1


def test_a_stop_ends_the_retries(flaky: tuple[_Flaky, kube.KubeClient]) -> None:
    server, client = flaky
    server.failures = [503] * 5
    client.stop.set()
    with pytest.raises(errors.ClusterAPIError):
        client.get(CONFIGMAPS, "shop", "c")
    assert server.hits[OBJECT_PATH] == 1


def test_errors_keep_the_status_and_cause(sim_cluster: RunningSim) -> None:
    client = kube.KubeClient(sim_cluster.kubeconfig, retry=kube.NO_WAIT)
    try:
        assert client.get(CONFIGMAPS, "shop", "nothing") is None
        with pytest.raises(errors.NotFoundError) as missing:
            client.request("GET", CONFIGMAPS.path("shop", "nothing"), "reading")
        assert missing.value.status["reason"] == "NotFound"
        assert missing.value.__cause__ is not None
        namespaces = kube.ResourceType("v1", "Namespace", "namespaces", namespaced=False)
        body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}}
        client.request("POST", namespaces.path(), "creating", body=body)
        with pytest.raises(errors.ConflictError) as conflict:
            client.request("POST", namespaces.path(), "creating", body=body)
        assert conflict.value.code == 409
        assert conflict.value.status["reason"] == "AlreadyExists"
    finally:
        client.close()


def test_kinds_are_discovered_and_refreshed(sim_cluster: RunningSim) -> None:
    client = kube.KubeClient(sim_cluster.kubeconfig, retry=kube.NO_WAIT)
    try:
        found = client.resource_type("apps/v1", "Deployment")
        assert (found.plural, found.namespaced) == ("deployments", True)
        assert found.path("shop", "web") == "/apis/apps/v1/namespaces/shop/deployments/web"
        with pytest.raises(kube.NotServedError):
            client.resource_type("example.com/v1", "Gadget")
        crd = {
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "gadgets.example.com"},
            "spec": {
                "group": "example.com",
                "scope": "Cluster",
                "names": {"kind": "Gadget", "plural": "gadgets"},
                "versions": [{"name": "v1", "served": True, "storage": True}],
            },
        }
        crds = client.resource_type("apiextensions.k8s.io/v1", "CustomResourceDefinition")
        client.apply(crds, crd, manager=stamp.FIELD_MANAGER)
        client.refresh_discovery()
        gadget = client.resource_type("example.com/v1", "Gadget")
        assert (gadget.plural, gadget.namespaced) == ("gadgets", False)
    finally:
        client.close()


def test_an_unreachable_cluster(sim_cluster: RunningSim) -> None:
    sim_cluster.cluster.set_fault(sim.Fault.UNREACHABLE)
    client = kube.KubeClient(sim_cluster.kubeconfig, name="member1", retry=kube.NO_WAIT)
    try:
        with pytest.raises(errors.ClusterAPIError) as raised:
            client.get(CONFIGMAPS, "shop", "c")
        assert raised.value.code == 0
        assert "cannot reach cluster member1" in str(raised.value)
    finally:
        client.close()


def _discovery_folders(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("gitfleet-discovery-*"))


@pytest.mark.parametrize(
    "reachable", [pytest.param(True, id="synced"), pytest.param(False, id="unreachable")]
)
def test_the_discovery_cache_is_removed_on_close(
    sim_cluster: RunningSim, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reachable: bool
) -> None:
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    if not reachable:
        sim_cluster.cluster.set_fault(sim.Fault.UNREACHABLE)
    retry = kube.Retry(attempts=3, base=0, cap=0)
    client = kube.KubeClient(sim_cluster.kubeconfig, name="member1", retry=retry)
    if reachable:
        assert client.get(CONFIGMAPS, "shop", "c") is None
    else:
        with pytest.raises(errors.ClusterAPIError):
            client.get(CONFIGMAPS, "shop", "c")
    assert len(_discovery_folders(temp)) == 1
    client.close()
    assert _discovery_folders(temp) == []


def test_an_insecure_kubeconfig_is_said_once(
    sim_cluster: RunningSim, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = yaml.safe_load(sim_cluster.kubeconfig.read_text(encoding="utf-8"))
    server = config["clusters"][0]["cluster"]
    del server["certificate-authority-data"]
    server["insecure-skip-tls-verify"] = True
    insecure = tmp_path / "insecure.yaml"
    insecure.write_text(yaml.safe_dump(config), encoding="utf-8")
    client = kube.KubeClient(insecure, name="member1", retry=kube.NO_WAIT)
    try:
        with warnings.catch_warnings(record=True) as caught:
            for _ in range(3):
                assert client.get(CONFIGMAPS, "shop", "c") is None
    finally:
        client.close()
    assert [str(w.message) for w in caught] == []
    said = [r.getMessage() for r in caplog.records if "insecure-skip-tls-verify" in r.getMessage()]
    assert said == [
        "cluster member1: its kubeconfig sets insecure-skip-tls-verify: the API server's"
        " certificate is not checked"
    ]


def test_a_server_that_never_answers_times_out(tmp_path: Path) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)  # the kernel accepts connections; nobody answers them
    config = _kubeconfig(tmp_path / "hung.yaml", f"https://127.0.0.1:{listener.getsockname()[1]}")
    retry = kube.Retry(attempts=2, base=0, cap=0, timeout=(0.5, 0.5))
    client = kube.KubeClient(config, name="hung", retry=retry)
    raised: list[BaseException] = []

    def check() -> None:
        try:
            client.check_access()
        except errors.ClusterAPIError as exc:
            raised.append(exc)

    waiting = threading.Thread(target=check, daemon=True)
    waiting.start()
    waiting.join(20)
    try:
        assert not waiting.is_alive(), "still waiting for a server that never answers"
        (error,) = raised
        assert isinstance(error, errors.ClusterAPIError) and error.code == 0
        assert "cannot reach cluster hung" in str(error)
    finally:
        client.stop.set()
        listener.close()
        if not waiting.is_alive():
            client.close()


@pytest.mark.parametrize(
    ("plugin", "says"),
    [
        pytest.param("no-such-plugin", "No such file or directory: 'no-such-plugin'", id="missing"),
        pytest.param("true", "", id="no token in its output"),
    ],
)
def test_a_failing_credential_plugin_is_the_reason(
    sim_cluster: RunningSim, tmp_path: Path, plugin: str, says: str
) -> None:
    config = yaml.safe_load(sim_cluster.kubeconfig.read_text(encoding="utf-8"))
    config["users"][0]["user"] = {
        "exec": {
            "apiVersion": "client.authentication.k8s.io/v1beta1",
            "command": plugin,
            "interactiveMode": "Never",
        }
    }
    path = tmp_path / "exec.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    handlers = list(logging.getLogger().handlers)
    client = kube.KubeClient(path, name="member1", retry=kube.NO_WAIT)
    try:
        with pytest.raises(kube.ConfigurationError) as raised:
            client.check_access()
    finally:
        client.close()
    assert f"cannot read kubeconfig {path}: its credential plugin (exec) gave no credentials" in (
        str(raised.value)
    )
    assert says in str(raised.value)
    assert logging.getLogger().handlers == handlers


def test_a_long_refusal_keeps_its_verdict() -> None:
    from kubernetes.client.exceptions import ApiException

    template = "core.PodTemplateSpec{ObjectMeta:v1.ObjectMeta{" + 'Name:"", ' * 300 + "}}"
    message = (
        f'Job.batch "once" is invalid: spec.template: Invalid value: {template}: field is immutable'
    )
    body = {"kind": "Status", "code": 422, "reason": "Invalid", "message": message}
    exc = ApiException(status=422, reason="Unprocessable Entity", body=json.dumps(body))
    error = kube.api_error(exc, "applying Job team/once")
    text = str(error)
    assert text.startswith(
        'applying Job team/once: Job.batch "once" is invalid: spec.template: Invalid value: core.'
    )
    assert text.endswith("}}: field is immutable") and "…" in text
    assert len(text.encode()) < len(message)
    assert error.status == body
