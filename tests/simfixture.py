"""Simulated member clusters for tests: `make_sim_cluster(name, **options)` starts a
`gitfleet.sim.SimCluster` (ready_delay 0 unless given) on a free 127.0.0.1 port, writes its
kubeconfig and stops it after the test; `sim_cluster` is one such cluster named member1;
`run_kubectl(*args)` runs the real kubectl on it (mark such tests `needs_kubectl`).

Use from any test area by registering the fixtures in that area's conftest.py:

    from simfixture import make_sim_cluster_fixture, sim_cluster_fixture  # noqa: F401

A `RunningSim` gives the cluster (`.cluster`, `.objects`, `.url`, `.kubeconfig`) and, built
lazily, the official client over its kubeconfig: `.api_client` (kubernetes ApiClient) and
`.dynamic` (DynamicClient with a discovery cache private to the test).

Also builders of the objects tests write (`deployment`, `config_map`, `claim`, `WIDGETS_CRD`,
`GADGETS_CRD` and its `gadget`) and
helpers for error checks (`failure`, `status_of`) and requests without a client (`raw`,
`exchange` with the response's headers).
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from gitfleet import sim


@dataclasses.dataclass
class RunningSim:
    """A started simulated cluster and the files and clients a test needs."""

    cluster: sim.SimCluster
    kubeconfig: Path
    discovery_cache: Path
    _api_client: Any = None
    _dynamic: Any = None

    @property
    def name(self) -> str:
        return self.cluster.name

    @property
    def url(self) -> str:
        return self.cluster.url

    @property
    def objects(self) -> sim.Objects:
        return self.cluster.objects

    @property
    def api_client(self) -> Any:
        """A kubernetes.client.ApiClient built from the written kubeconfig."""
        if self._api_client is None:
            from kubernetes import config

            self._api_client = config.new_client_from_config(config_file=str(self.kubeconfig))
        return self._api_client

    @property
    def dynamic(self) -> Any:
        """A kubernetes DynamicClient over `api_client`."""
        if self._dynamic is None:
            from kubernetes import dynamic

            self._dynamic = dynamic.DynamicClient(
                self.api_client, cache_file=str(self.discovery_cache)
            )
        return self._dynamic

    def resource(self, api_version: str, kind: str) -> Any:
        """The DynamicClient resource for a kind (discovery finds new CRDs on demand)."""
        return self.dynamic.resources.get(api_version=api_version, kind=kind)

    def close(self) -> None:
        if self._api_client is not None:
            self._api_client.close()
        self.cluster.stop()


SimFactory = Callable[..., RunningSim]


@pytest.fixture(name="make_sim_cluster")
def make_sim_cluster_fixture(tmp_path: Path) -> Iterator[SimFactory]:
    """A factory of started simulated clusters, all stopped when the test ends."""
    started: list[RunningSim] = []

    def make(name: str = "member1", **options: Any) -> RunningSim:
        options.setdefault("ready_delay", 0)
        cluster = sim.SimCluster(name, **options)
        running = RunningSim(
            cluster=cluster,
            kubeconfig=tmp_path / "kubeconfigs" / f"{name}.yaml",
            discovery_cache=tmp_path / f"discovery-{name}.json",
        )
        started.append(running)
        cluster.start()
        cluster.kubeconfig(running.kubeconfig)
        return running

    yield make
    for running in started:
        running.close()


@pytest.fixture(name="sim_cluster")
def sim_cluster_fixture(make_sim_cluster: SimFactory) -> RunningSim:
    """One started simulated cluster, `member1`, whose pods start at once."""
    return make_sim_cluster()


# ---- kubectl ---------------------------------------------------------------------------

KUBECTL = Path("/usr/bin/kubectl")
needs_kubectl = pytest.mark.skipif(
    not os.access(KUBECTL, os.X_OK), reason="kubectl is not installed"
)


@dataclasses.dataclass(frozen=True)
class Ran:
    """What one kubectl run printed, and its exit code."""

    code: int
    out: str
    err: str


RunKubectl = Callable[..., Ran]
Kubectl = Callable[..., str]
"""kubectl for runs that must succeed: returns stdout (tests/sim's `kubectl` fixture)."""


@pytest.fixture(name="run_kubectl")
def run_kubectl_fixture(sim_cluster: RunningSim, tmp_path: Path) -> RunKubectl:
    """Runs kubectl on `sim_cluster` with its kubeconfig and a home and cache of its own,
    in `tmp_path`, with `input` as standard input; whatever the exit code."""
    home = tmp_path / "kubectl-home"
    home.mkdir(exist_ok=True)
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home)}

    def run(*args: str, input: str = "") -> Ran:
        done = subprocess.run(
            [
                str(KUBECTL),
                "--kubeconfig",
                str(sim_cluster.kubeconfig),
                "--cache-dir",
                str(home / "cache"),
                *args,
            ],
            capture_output=True,
            text=True,
            input=input,
            env=env,
            cwd=tmp_path,
            timeout=60,
            check=False,
        )
        return Ran(done.returncode, done.stdout, done.stderr)

    return run


# ---- objects and requests the tests write ----------------------------------------------

WIDGETS_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com",
        "scope": "Namespaced",
        "names": {
            "plural": "widgets",
            "singular": "widget",
            "kind": "Widget",
            "shortNames": ["wd"],
        },
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "x-kubernetes-preserve-unknown-fields": True,
                    }
                },
                "subresources": {"status": {}},
            },
            {
                "name": "v1beta1",
                "served": True,
                "storage": False,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "x-kubernetes-preserve-unknown-fields": True,
                    }
                },
            },
        ],
    },
}


GADGETS_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "gadgets.example.com"},
    "spec": {
        "group": "example.com",
        "scope": "Namespaced",
        "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "description": "A gadget that scales.",
                        "properties": {
                            "spec": {
                                "type": "object",
                                "description": "What the gadget should be.",
                                "properties": {
                                    "count": {"type": "integer", "description": "How many."},
                                    "colour": {"type": "string", "nullable": True},
                                },
                            },
                            "status": {
                                "type": "object",
                                "x-kubernetes-preserve-unknown-fields": True,
                            },
                        },
                    }
                },
                "subresources": {
                    "status": {},
                    "scale": {
                        "specReplicasPath": ".spec.count",
                        "statusReplicasPath": ".status.count",
                        "labelSelectorPath": ".status.selector",
                    },
                },
                "additionalPrinterColumns": [
                    {"name": "Count", "type": "integer", "jsonPath": ".spec.count"},
                    {
                        "name": "Ready",
                        "type": "string",
                        "jsonPath": '.status.conditions[?(@.type=="Ready")].status',
                    },
                    {"name": "Colour", "type": "string", "jsonPath": ".spec.colour", "priority": 1},
                    {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
                ],
            }
        ],
    },
}
"""A kind with a scale subresource (at `.spec.count`), printer columns and a schema."""


def gadget(name: str, count: int = 1, status: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "example.com/v1",
        "kind": "Gadget",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"count": count},
        **({"status": status} if status else {}),
    }


def deployment(
    name: str = "web",
    namespace: str = "default",
    *,
    replicas: int = 2,
    image: str = "nginx:1.27",
    cpu: str = "100m",
    labels: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A Deployment whose pods each request `cpu`."""
    selector = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace, "labels": labels or selector},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": selector},
            "template": {
                "metadata": {"labels": selector},
                "spec": {
                    "containers": [
                        {
                            "name": name,
                            "image": image,
                            "resources": {"requests": {"cpu": cpu, "memory": "64Mi"}},
                        }
                    ]
                },
            },
        },
    }


def service(name: str, port: int = 80, namespace: str = "default", **spec: Any) -> dict[str, Any]:
    """A Service with one port; `spec` adds fields (type, clusterIP, selector)."""
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"ports": [{"port": port}], **spec},
    }


def statefulset(name: str = "db") -> dict[str, Any]:
    """A one-container StatefulSet (no replicas given), its pods labelled `app: <name>`."""
    labels = {"app": name}
    containers = [{"name": name, "image": "postgres"}]
    template = {"metadata": {"labels": labels}, "spec": {"containers": containers}}
    spec = {"serviceName": name, "selector": {"matchLabels": labels}, "template": template}
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": name},
        "spec": spec,
    }


def claim(name: str, namespace: str = "default", storage: str = "1Gi") -> dict[str, Any]:
    """A ReadWriteOnce PersistentVolumeClaim of `storage`."""
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": storage}},
        },
    }


def crd(name: str, group: str, kind: str, *, scope: str = "Namespaced") -> dict[str, Any]:
    """A CustomResourceDefinition named `name`, serving `kind` as v1 of `group`."""
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": name},
        "spec": {
            "group": group,
            "scope": scope,
            "names": {"plural": f"{kind.lower()}s", "kind": kind},
            "versions": [{"name": "v1", "served": True, "storage": True}],
        },
    }


def config_map(
    name: str, namespace: str = "default", labels: dict[str, str] | None = None, **data: str
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels is not None:
        metadata["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": data}


def failure(call: Callable[[], Any]) -> Any:
    """The ApiException `call` raises (pytest.fail if it does not)."""
    from kubernetes.client import exceptions

    try:
        call()
    except exceptions.ApiException as error:
        return error
    pytest.fail("the call succeeded")


def status_of(error: Any) -> dict[str, Any]:
    """The Status body of an ApiException."""
    body = json.loads(error.body)
    assert isinstance(body, dict)
    return body


def raw(sim: Any, method: str, path: str, **options: Any) -> tuple[int, Any]:
    """One HTTPS request to a simulated cluster, without a client library: (status, decoded
    JSON or text). `options`: `body`, `headers`, `token` (see `exchange`)."""
    status, _, answer = exchange(sim, method, path, **options)
    return status, answer


def exchange(
    sim: Any,
    method: str,
    path: str,
    *,
    body: Any = None,
    headers: dict[str, str] | None = None,
    token: str | None = None,
) -> tuple[int, list[tuple[str, str]], Any]:
    """`raw`, with the response's headers: (status, headers, decoded JSON or text)."""
    import http.client

    connection = http.client.HTTPSConnection(
        "127.0.0.1", sim.cluster.port, timeout=10, context=sim.cluster.client_tls()
    )
    try:
        data = body if isinstance(body, bytes | None) else json.dumps(body).encode()
        sent = {"Authorization": f"Bearer {token or sim.cluster.token}", **(headers or {})}
        connection.request(method, path, body=data, headers=sent)
        response = connection.getresponse()
        text = response.read().decode()
        try:
            return response.status, response.getheaders(), json.loads(text)
        except ValueError:
            return response.status, response.getheaders(), text
    finally:
        connection.close()
