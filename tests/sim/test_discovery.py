"""Discovery as the kubernetes client reads it.

Covers: /version; /api and /apis documents; an APIResourceList's fields (namespaced, kind,
verbs, singularName, shortNames, status subresources); every built-in kind found by the
DynamicClient; the aggregated-discovery Accept header answered with plain documents; 404 for
an unknown group version; 405 for writing to discovery; kubectl `get --raw` prints compact
JSON with a newline, `/version` indented, and health checks one by one with `?verbose`.
"""

from __future__ import annotations

from typing import Any

import pytest
from simfixture import RunKubectl, RunningSim, needs_kubectl, raw


def get(sim: RunningSim, path: str, accept: str = "application/json") -> tuple[int, Any]:
    return raw(sim, "GET", path, headers={"Accept": accept})


BUILTIN_KINDS = [
    ("v1", "Namespace", False),
    ("v1", "ConfigMap", True),
    ("v1", "Secret", True),
    ("v1", "Service", True),
    ("v1", "ServiceAccount", True),
    ("v1", "Pod", True),
    ("v1", "PersistentVolumeClaim", True),
    ("v1", "PersistentVolume", False),
    ("v1", "Node", False),
    ("v1", "Event", True),
    ("v1", "Endpoints", True),
    ("apps/v1", "Deployment", True),
    ("apps/v1", "StatefulSet", True),
    ("apps/v1", "ReplicaSet", True),
    ("apps/v1", "DaemonSet", True),
    ("batch/v1", "Job", True),
    ("batch/v1", "CronJob", True),
    ("networking.k8s.io/v1", "Ingress", True),
    ("networking.k8s.io/v1", "NetworkPolicy", True),
    ("rbac.authorization.k8s.io/v1", "Role", True),
    ("rbac.authorization.k8s.io/v1", "RoleBinding", True),
    ("rbac.authorization.k8s.io/v1", "ClusterRole", False),
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", False),
    ("autoscaling/v2", "HorizontalPodAutoscaler", True),
    ("policy/v1", "PodDisruptionBudget", True),
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition", False),
    ("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration", False),
    ("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", False),
    ("autoscaling/v1", "HorizontalPodAutoscaler", True),
    ("v1", "PodTemplate", True),
    ("node.k8s.io/v1", "RuntimeClass", False),
    ("storage.k8s.io/v1", "CSIDriver", False),
    ("storage.k8s.io/v1", "CSINode", False),
    ("storage.k8s.io/v1", "CSIStorageCapacity", True),
    ("storage.k8s.io/v1", "VolumeAttachment", False),
    ("discovery.k8s.io/v1", "EndpointSlice", True),
]


@pytest.mark.parametrize(
    ("api_version", "kind", "namespaced"),
    [pytest.param(*row, id=row[1]) for row in BUILTIN_KINDS],
)
def test_dynamic_client_finds_builtin_kind(
    sim_cluster: RunningSim, api_version: str, kind: str, namespaced: bool
) -> None:
    resource = sim_cluster.resource(api_version, kind)
    assert resource.kind == kind
    assert resource.namespaced is namespaced
    assert "list" in resource.verbs


def test_version_reports_configured_kubernetes_version(make_sim_cluster: Any) -> None:
    sim = make_sim_cluster(kubernetes_version="v1.29.3")
    assert sim.dynamic.version["kubernetes"]["gitVersion"] == "v1.29.3"
    assert sim.dynamic.version["kubernetes"]["minor"] == "29"


def test_api_and_apis_documents(sim_cluster: RunningSim) -> None:
    _, core = get(sim_cluster, "/api")
    _, groups = get(sim_cluster, "/apis")
    assert core["versions"] == ["v1"]
    by_name = {group["name"]: group for group in groups["groups"]}
    assert by_name["apps"]["preferredVersion"] == {"groupVersion": "apps/v1", "version": "v1"}
    assert {"batch", "rbac.authorization.k8s.io", "apiextensions.k8s.io"} <= set(by_name)


def test_resource_list_describes_each_resource(sim_cluster: RunningSim) -> None:
    _, document = get(sim_cluster, "/apis/apps/v1")
    resources = {r["name"]: r for r in document["resources"]}
    assert document["kind"] == "APIResourceList"
    assert document["groupVersion"] == "apps/v1"
    assert resources["deployments"]["kind"] == "Deployment"
    assert resources["deployments"]["namespaced"] is True
    assert resources["deployments"]["singularName"] == "deployment"
    assert resources["deployments"]["shortNames"] == ["deploy"]
    assert set(resources["deployments"]["verbs"]) >= {"create", "get", "list", "watch", "patch"}
    assert resources["deployments/status"]["verbs"] == ["get", "patch", "update"]


def test_aggregated_discovery_request_gets_plain_documents(sim_cluster: RunningSim) -> None:
    aggregated = (
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"
    )
    status, document = get(sim_cluster, "/apis", accept=aggregated)
    assert status == 200
    assert document["kind"] == "APIGroupList"


@pytest.mark.parametrize(
    "path",
    [
        pytest.param("/apis/example.com/v1", id="unknown group"),
        pytest.param("/apis/apps/v2", id="unknown version"),
        pytest.param("/api/v1/widgets", id="unknown resource"),
        pytest.param("/openapi/v1", id="unknown openapi version"),
    ],
)
def test_unknown_paths_are_not_found(sim_cluster: RunningSim, path: str) -> None:
    status, body = get(sim_cluster, path)
    assert status == 404
    assert body["kind"] == "Status"
    assert body["reason"] == "NotFound"


def test_discovery_is_read_only(sim_cluster: RunningSim) -> None:
    status, body = raw(sim_cluster, "POST", "/apis/apps/v1", body={})
    assert status == 405
    assert body["reason"] == "MethodNotAllowed"


@needs_kubectl
def test_raw_documents_as_kubectl_prints_them(run_kubectl: RunKubectl) -> None:
    """Compact JSON ending in a newline, `/version` indented, health checks listed with
    `?verbose`, as a real API server writes them."""
    group = run_kubectl("get", "--raw", "/apis/apps")
    version = run_kubectl("get", "--raw", "/version")
    ready = run_kubectl("get", "--raw", "/readyz?verbose")
    ping = run_kubectl("get", "--raw", "/livez/ping")
    assert group.out.startswith('{"kind":"APIGroup","apiVersion":"v1","name":"apps",')
    assert group.out.endswith("}\n")
    assert version.out.startswith('{\n  "major": "1",\n')
    assert ready.out.splitlines()[0] == "[+]ping ok"
    assert ready.out.splitlines()[-1] == "readyz check passed"
    assert ping.out == "ok"
