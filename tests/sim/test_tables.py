"""Server-side printing: the Table `kubectl get` asks for.

Covers: the Accept header decides (Table v1 or v1beta1 first, else the object); the columns of
namespaces, nodes, deployments, pods, configmaps, services and secrets, with the wide ones at
priority 1; their cells; a single object is a one-row Table; other kinds get Name and Created
At; a CRD's printer columns (fields, a filter, a date) and the default Age column;
includeObject (Metadata by default, Object, None); a watch sends each object as a Table;
paging metadata is kept; ages print as kubectl prints them; component statuses (healthy, with
the deprecation warning) and the nodes' Leases in their real columns; the columns of
ReplicaSets, StatefulSets, DaemonSets, Jobs and CronJobs, and a ReplicaSet's counts; the
cells of HorizontalPodAutoscalers, whose Targets name each resource from 1.30 on and show two
metrics at most; the columns and cells of service accounts, ingresses (three hosts at most),
network policies, disruption budgets, role bindings (subjects by kind, wide) and claims
(VolumeAttributesClass from 1.29 on); storage classes (the default marked, policies
defaulted) and ingress classes (their parameters); endpoints (three at most) and resource
quotas (Request and Limit from status).
"""

from __future__ import annotations

import http.client
import json
from typing import Any

import pytest
from simfixture import (
    GADGETS_CRD,
    WIDGETS_CRD,
    RunningSim,
    SimFactory,
    claim,
    config_map,
    deployment,
    exchange,
    gadget,
    raw,
    service,
)

from gitfleet.sim import _tables

TABLE = (
    "application/json;as=Table;v=v1;g=meta.k8s.io,"
    "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
)
"""What kubectl get sends."""


def _table(sim: RunningSim, path: str, accept: str = TABLE) -> Any:
    status, body = raw(sim, "GET", path, headers={"Accept": accept})
    assert status == 200, body
    return body


def _columns(table: Any, priority: int = 0) -> list[str]:
    return [c["name"] for c in table["columnDefinitions"] if c["priority"] == priority]


def _rows(table: Any) -> list[list[Any]]:
    return [row["cells"] for row in table["rows"]]


@pytest.mark.parametrize(
    ("accept", "kind"),
    [
        pytest.param(TABLE, "Table", id="kubectl get"),
        pytest.param("application/json;as=Table;v=v1beta1;g=meta.k8s.io", "Table", id="v1beta1"),
        pytest.param("application/json", "NamespaceList", id="json"),
        pytest.param(
            "application/json, application/json;as=Table;v=v1;g=meta.k8s.io",
            "NamespaceList",
            id="json first",
        ),
        pytest.param(
            "application/json;as=Table;v=v9;g=meta.k8s.io,application/json",
            "NamespaceList",
            id="unknown version",
        ),
    ],
)
def test_accept_header_decides(sim_cluster: RunningSim, accept: str, kind: str) -> None:
    assert _table(sim_cluster, "/api/v1/namespaces", accept)["kind"] == kind


@pytest.mark.parametrize(
    ("path", "columns", "wide"),
    [
        pytest.param("/api/v1/namespaces", ["Name", "Status", "Age"], [], id="namespaces"),
        pytest.param(
            "/api/v1/nodes",
            ["Name", "Status", "Roles", "Age", "Version"],
            ["Internal-IP", "External-IP", "OS-Image", "Kernel-Version", "Container-Runtime"],
            id="nodes",
        ),
        pytest.param(
            "/apis/apps/v1/deployments",
            ["Name", "Ready", "Up-to-date", "Available", "Age"],
            ["Containers", "Images", "Selector"],
            id="deployments",
        ),
        pytest.param(
            "/api/v1/pods",
            ["Name", "Ready", "Status", "Restarts", "Age"],
            ["IP", "Node", "Nominated Node", "Readiness Gates"],
            id="pods",
        ),
        pytest.param("/api/v1/configmaps", ["Name", "Data", "Age"], [], id="configmaps"),
        pytest.param(
            "/api/v1/services",
            ["Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age"],
            ["Selector"],
            id="services",
        ),
        pytest.param("/api/v1/secrets", ["Name", "Type", "Data", "Age"], [], id="secrets"),
        pytest.param(
            "/apis/rbac.authorization.k8s.io/v1/roles", ["Name", "Created At"], [], id="default"
        ),
        pytest.param("/api/v1/serviceaccounts", ["Name", "Secrets", "Age"], [], id="accounts"),
        pytest.param(
            "/apis/networking.k8s.io/v1/ingresses",
            ["Name", "Class", "Hosts", "Address", "Ports", "Age"],
            [],
            id="ingresses",
        ),
        pytest.param(
            "/apis/networking.k8s.io/v1/networkpolicies",
            ["Name", "Pod-Selector", "Age"],
            [],
            id="network policies",
        ),
        pytest.param(
            "/apis/policy/v1/poddisruptionbudgets",
            ["Name", "Min Available", "Max Unavailable", "Allowed Disruptions", "Age"],
            [],
            id="disruption budgets",
        ),
        pytest.param(
            "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
            ["Name", "Role", "Age"],
            ["Users", "Groups", "ServiceAccounts"],
            id="cluster role bindings",
        ),
        pytest.param(
            "/api/v1/persistentvolumeclaims",
            [
                "Name",
                "Status",
                "Volume",
                "Capacity",
                "Access Modes",
                "StorageClass",
                "VolumeAttributesClass",
                "Age",
            ],
            ["VolumeMode"],
            id="claims",
        ),
    ],
)
def test_columns_as_a_real_server_gives(
    sim_cluster: RunningSim, path: str, columns: list[str], wide: list[str]
) -> None:
    table = _table(sim_cluster, path)
    assert (table["kind"], table["apiVersion"]) == ("Table", "meta.k8s.io/v1")
    assert (_columns(table), _columns(table, 1)) == (columns, wide)
    assert table["columnDefinitions"][0]["format"] == "name"


def test_cells_of_the_everyday_kinds(sim_cluster: RunningSim) -> None:
    sim_cluster.objects.put(deployment("web", replicas=2))
    sim_cluster.objects.put(config_map("settings", a="1", b="2"))
    sim_cluster.objects.put(service("front", port=80, selector={"app": "web"}))
    namespaces = _rows(_table(sim_cluster, "/api/v1/namespaces"))
    nodes = _rows(_table(sim_cluster, "/api/v1/nodes"))
    deployments = _rows(_table(sim_cluster, "/apis/apps/v1/namespaces/default/deployments"))
    pods = _rows(_table(sim_cluster, "/api/v1/namespaces/default/pods"))
    maps = _rows(_table(sim_cluster, "/api/v1/namespaces/default/configmaps/settings"))
    services = _rows(_table(sim_cluster, "/api/v1/namespaces/default/services/front"))
    assert namespaces[0][:2] == ["default", "Active"]
    assert namespaces[0][2].endswith("s")
    assert nodes[0][:3] == ["member1-node-1", "Ready", "<none>"]
    assert nodes[0][4:] == [
        "v1.30.0",
        "172.18.0.2",
        "<none>",
        "gitfleet simulated node",
        "6.0.0",
        "containerd://1.7.0",
    ]
    assert deployments[0][:4] == ["web", "2/2", 2, 2]
    assert deployments[0][5:] == ["web", "nginx:1.27", "app=web"]
    assert [row[1:4] for row in pods] == [["1/1", "Running", "0"]] * 2
    assert all(row[6] and row[6].startswith("member1-node-") for row in pods)
    assert maps == [["settings", 2, maps[0][2]]]
    assert services[0][1:5] == ["ClusterIP", "10.96.0.2", "<none>", "80/TCP"]
    assert services[0][6] == "app=web"


def test_rows_carry_metadata_unless_asked_otherwise(sim_cluster: RunningSim) -> None:
    sim_cluster.objects.put(config_map("c", a="1"))
    path = "/api/v1/namespaces/default/configmaps/c"
    default = _table(sim_cluster, path)["rows"][0]["object"]
    whole = _table(sim_cluster, path + "?includeObject=Object")["rows"][0]["object"]
    none = _table(sim_cluster, path + "?includeObject=None")["rows"][0]
    assert (default["kind"], default["metadata"]["name"]) == ("PartialObjectMetadata", "c")
    assert "data" not in default
    assert (whole["kind"], whole["data"]) == ("ConfigMap", {"a": "1"})
    assert "object" not in none


def test_custom_resources_print_their_crd_columns(sim_cluster: RunningSim) -> None:
    sim_cluster.objects.put(GADGETS_CRD)
    sim_cluster.objects.put(WIDGETS_CRD)
    ready = {
        "conditions": [{"type": "Synced", "status": "False"}, {"type": "Ready", "status": "True"}]
    }
    sim_cluster.objects.put(gadget("g1", count=3, status=ready))
    sim_cluster.objects.put(gadget("g2", count=1))
    sim_cluster.objects.put(
        {
            "apiVersion": "example.com/v1",
            "kind": "Widget",
            "metadata": {"name": "w", "namespace": "default"},
        }
    )
    gadgets = _table(sim_cluster, "/apis/example.com/v1/namespaces/default/gadgets")
    widgets = _table(sim_cluster, "/apis/example.com/v1/namespaces/default/widgets")
    assert (_columns(gadgets), _columns(gadgets, 1)) == (
        ["Name", "Count", "Ready", "Age"],
        ["Colour"],
    )
    assert [row[:4] for row in _rows(gadgets)] == [["g1", 3, "True", None], ["g2", 1, None, None]]
    assert all(row[4].endswith("s") for row in _rows(gadgets))
    assert _columns(widgets) == ["Name", "Age"]
    assert _rows(widgets)[0][0] == "w"


def test_watch_sends_tables(sim_cluster: RunningSim) -> None:
    connection = http.client.HTTPSConnection(
        "127.0.0.1", sim_cluster.cluster.port, timeout=10, context=sim_cluster.cluster.client_tls()
    )
    headers = {"Authorization": f"Bearer {sim_cluster.cluster.token}", "Accept": TABLE}
    connection.request(
        "GET",
        "/api/v1/namespaces?watch=true&fieldSelector=metadata.name%3Ddefault",
        headers=headers,
    )
    event = json.loads(connection.getresponse().readline())
    connection.close()
    assert (event["type"], event["object"]["kind"]) == ("ADDED", "Table")
    assert _rows(event["object"])[0][:2] == ["default", "Active"]


def test_paging_is_kept(sim_cluster: RunningSim) -> None:
    table = _table(sim_cluster, "/api/v1/namespaces?limit=2")
    assert len(table["rows"]) == 2
    assert table["metadata"]["continue"]
    assert table["metadata"]["remainingItemCount"] == 2


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [
        (-5, "<invalid>"),
        (-1, "0s"),
        (59, "59s"),
        (119, "119s"),
        (130, "2m10s"),
        (600, "10m"),
        (3 * 3600 + 120, "3h2m"),
        (10 * 3600, "10h"),
        (3 * 86400 + 3600, "3d1h"),
        (30 * 86400, "30d"),
        (3 * 365 * 86400 + 86400, "3y1d"),
        (9 * 365 * 86400, "9y"),
    ],
)
def test_ages_print_as_kubectl_shows_them(seconds: int, shown: str) -> None:
    assert _tables.human_duration(seconds) == shown


def test_component_statuses_and_node_leases(sim_cluster: RunningSim) -> None:
    """What a fresh cluster lists, in a real server's columns: its components healthy (with
    the deprecation warning a real server sends), each node's Lease held by the node."""
    status, headers, statuses = exchange(
        sim_cluster, "GET", "/api/v1/componentstatuses", headers={"Accept": TABLE}
    )
    leases = _table(sim_cluster, "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases")
    assert status == 200
    assert ("Warning", '299 - "v1 ComponentStatus is deprecated in v1.19+"') in headers
    assert _columns(statuses) == ["Name", "Status", "Message", "Error"]
    assert {row[0]: row[1] for row in _rows(statuses)} == {
        "controller-manager": "Healthy",
        "etcd-0": "Healthy",
        "scheduler": "Healthy",
    }
    assert _columns(leases) == ["Name", "Holder", "Age"]
    assert [row[:2] for row in _rows(leases)] == [
        [f"member1-node-{n}", f"member1-node-{n}"] for n in (1, 2, 3)
    ]


@pytest.mark.parametrize(
    ("path", "columns"),
    [
        pytest.param(
            "/apis/apps/v1/namespaces/default/replicasets",
            ["Name", "Desired", "Current", "Ready", "Age"],
            id="replicasets",
        ),
        pytest.param(
            "/apis/apps/v1/namespaces/default/statefulsets",
            ["Name", "Ready", "Age"],
            id="statefulsets",
        ),
        pytest.param(
            "/apis/apps/v1/namespaces/default/daemonsets",
            [
                "Name",
                "Desired",
                "Current",
                "Ready",
                "Up-to-date",
                "Available",
                "Node Selector",
                "Age",
            ],
            id="daemonsets",
        ),
        pytest.param(
            "/apis/batch/v1/namespaces/default/jobs",
            ["Name", "Completions", "Duration", "Age"],
            id="jobs",
        ),
        pytest.param(
            "/apis/batch/v1/namespaces/default/cronjobs",
            ["Name", "Schedule", "Timezone", "Suspend", "Active", "Last Schedule", "Age"],
            id="cronjobs",
        ),
    ],
)
def test_workload_columns(sim_cluster: RunningSim, path: str, columns: list[str]) -> None:
    """The columns `kubectl get all` shows for the other workloads, as a real server's."""
    assert _columns(_table(sim_cluster, path)) == columns


def test_replica_set_cells(sim_cluster: RunningSim) -> None:
    sim_cluster.objects.put(deployment("web", replicas=2))
    sim_cluster.cluster.settle()
    table = _table(sim_cluster, "/apis/apps/v1/namespaces/default/replicasets")
    assert [row[1:4] for row in _rows(table)] == [[2, 2, 2]]


def _autoscaler(name: str, *metrics: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "maxReplicas": 5,
            "metrics": list(metrics),
        },
    }


def _utilization(resource: str, percent: int) -> dict[str, Any]:
    target = {"type": "Utilization", "averageUtilization": percent}
    return {"type": "Resource", "resource": {"name": resource, "target": target}}


@pytest.mark.parametrize(
    ("version", "targets"),
    [
        pytest.param(
            "v1.30.0",
            ["cpu: <unknown>/80%", "cpu: 40%/60%, memory: <unknown>/70% + 1 more..."],
            id="1.30 names the resource",
        ),
        pytest.param(
            "v1.20.2",
            ["<unknown>/80%", "40%/60%, <unknown>/70% + 1 more..."],
            id="1.20",
        ),
    ],
)
def test_autoscaler_cells(make_sim_cluster: SimFactory, version: str, targets: list[str]) -> None:
    sim = make_sim_cluster(kubernetes_version=version)
    sim.objects.put(_autoscaler("alone"))
    pods = {"type": "Pods", "pods": {"metric": {"name": "rps"}, "target": {"averageValue": "10"}}}
    busy = _autoscaler("busy", _utilization("cpu", 60), _utilization("memory", 70), pods)
    busy["status"] = {
        "currentReplicas": 3,
        "desiredReplicas": 3,
        "currentMetrics": [
            {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 40}}}
        ],
    }
    sim.objects.put(busy)
    table = _table(sim, "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers")
    assert _columns(table) == [
        "Name",
        "Reference",
        "Targets",
        "MinPods",
        "MaxPods",
        "Replicas",
        "Age",
    ]
    assert [row[:6] for row in _rows(table)] == [
        ["alone", "Deployment/web", targets[0], "1", 5, 0],
        ["busy", "Deployment/web", targets[1], "1", 5, 3],
    ]


def test_cells_of_ingresses_bindings_and_claims(make_sim_cluster: SimFactory) -> None:
    sim = make_sim_cluster(kubernetes_version="v1.20.2")
    rules = [{"host": f"{name}.example.com"} for name in ("a", "b", "c", "d")]
    sim.objects.put(
        {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "Ingress",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"rules": rules, "tls": [{"hosts": ["a.example.com"]}]},
        }
    )
    sim.objects.put(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": "readers", "namespace": "default"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"},
            "subjects": [
                {"kind": "User", "name": "alice"},
                {"kind": "Group", "name": "devs"},
                {"kind": "ServiceAccount", "name": "bot", "namespace": "ci"},
            ],
        }
    )
    sim.objects.put(claim("data"))
    ingresses = _table(sim, "/apis/networking.k8s.io/v1/namespaces/default/ingresses")
    bindings = _table(sim, "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings")
    claims = _table(sim, "/api/v1/namespaces/default/persistentvolumeclaims")
    assert [row[:5] for row in _rows(ingresses)] == [
        ["web", "<none>", "a.example.com,b.example.com,c.example.com + 1 more...", "", "80, 443"]
    ]
    assert [row[:2] + row[3:] for row in _rows(bindings)] == [
        ["readers", "Role/r", "alice", "devs", "ci/bot"]
    ]
    assert _columns(claims) == [
        "Name",
        "Status",
        "Volume",
        "Capacity",
        "Access Modes",
        "StorageClass",
        "Age",
    ]
    assert [row[:6] + row[7:] for row in _rows(claims)] == [
        ["data", "Bound", "", "", "", "", "Filesystem"]
    ]


def test_storage_and_ingress_classes(sim_cluster: RunningSim) -> None:
    """printStorageClass and printIngressClass (kubernetes v1.20.2, the same columns in the
    newer printers.go): the default class marked in its name, the policies defaulted."""
    sim_cluster.objects.put(
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "StorageClass",
            "metadata": {"name": "plain"},
            "provisioner": "example.com/a",
        }
    )
    sim_cluster.objects.put(
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "StorageClass",
            "metadata": {
                "name": "fast",
                "annotations": {"storageclass.beta.kubernetes.io/is-default-class": "true"},
            },
            "provisioner": "example.com/b",
            "reclaimPolicy": "Retain",
            "volumeBindingMode": "WaitForFirstConsumer",
            "allowVolumeExpansion": True,
        }
    )
    for name, parameters in (
        ("plain", None),
        ("params", {"apiGroup": "k8s.example.com", "kind": "Params", "name": "lb"}),
        ("core", {"kind": "ConfigMap", "name": "cfg"}),
    ):
        sim_cluster.objects.put(
            {
                "apiVersion": "networking.k8s.io/v1",
                "kind": "IngressClass",
                "metadata": {"name": name},
                "spec": {"controller": "example.com/ingress", "parameters": parameters},
            }
        )
    classes = _table(sim_cluster, "/apis/storage.k8s.io/v1/storageclasses")
    ingress_classes = _table(sim_cluster, "/apis/networking.k8s.io/v1/ingressclasses")
    assert [(c["name"], c["type"], c["priority"]) for c in classes["columnDefinitions"]] == [
        ("Name", "string", 0),
        ("Provisioner", "string", 0),
        ("ReclaimPolicy", "string", 0),
        ("VolumeBindingMode", "string", 0),
        ("AllowVolumeExpansion", "string", 0),
        ("Age", "string", 0),
    ]
    assert sorted(row[:5] for row in _rows(classes)) == [
        ["fast (default)", "example.com/b", "Retain", "WaitForFirstConsumer", True],
        ["plain", "example.com/a", "Delete", "Immediate", False],
    ]
    assert _columns(ingress_classes) == ["Name", "Controller", "Parameters", "Age"]
    assert sorted(row[:3] for row in _rows(ingress_classes)) == [
        ["core", "example.com/ingress", "ConfigMap/cfg"],
        ["params", "example.com/ingress", "Params.k8s.example.com/lb"],
        ["plain", "example.com/ingress", "<none>"],
    ]


def test_endpoints_and_resource_quotas(sim_cluster: RunningSim) -> None:
    """printEndpoints and printResourceQuota (kubernetes v1.20.2; the newer printers.go
    formats endpoints alike): three endpoints at most, a quota's status by resource."""
    two = {
        "addresses": [{"ip": f"10.1.0.{n}"} for n in (1, 2)],
        "ports": [{"name": f"p{port}", "port": port} for port in (80, 81)],
    }
    six = [{"addresses": [{"ip": "fd00::1"}], "ports": [{"port": 1}]}] * 6
    subsets_of = {"many": [two], "empty": [], "headless": [{"addresses": [{"ip": "10.1.0.3"}]}]}
    for name, subsets in [*subsets_of.items(), ("six", six)]:
        sim_cluster.objects.put(
            {
                "apiVersion": "v1",
                "kind": "Endpoints",
                "metadata": {"name": name, "namespace": "default"},
                "subsets": subsets,
            }
        )
    sim_cluster.objects.put(
        {
            "apiVersion": "v1",
            "kind": "ResourceQuota",
            "metadata": {"name": "q", "namespace": "default"},
            "spec": {"hard": {"pods": "10", "requests.cpu": "1", "limits.memory": "1Gi"}},
            "status": {
                "hard": {"pods": "10", "requests.cpu": "1", "limits.memory": "1Gi"},
                "used": {"pods": "2", "limits.memory": "512Mi"},
            },
        }
    )
    endpoints = _table(sim_cluster, "/api/v1/namespaces/default/endpoints")
    quotas = _table(sim_cluster, "/api/v1/namespaces/default/resourcequotas")
    assert _columns(endpoints) == ["Name", "Endpoints", "Age"]
    assert sorted(row[:2] for row in _rows(endpoints)) == [
        ["empty", "<none>"],
        ["headless", "10.1.0.3"],
        ["many", "10.1.0.1:80,10.1.0.2:80,10.1.0.1:81 + 1 more..."],
        ["six", "[fd00::1]:1,[fd00::1]:1,[fd00::1]:1 + 3 more..."],
    ]
    assert _columns(quotas) == ["Name", "Age", "Request", "Limit"]
    assert [[row[0], *row[2:]] for row in _rows(quotas)] == [
        ["q", "pods: 2/10, requests.cpu: 0/1", "limits.memory: 512Mi/1Gi"]
    ]
