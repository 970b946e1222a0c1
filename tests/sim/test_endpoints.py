"""The simulated endpoints and EndpointSlice controllers, through the kubernetes client and
kubectl, as users of a real cluster see them.

Aspects covered:
- a Service selecting a Deployment's pods gets an Endpoints of its name and one EndpointSlice
  (owned by the Service, labelled with its name), listing each ready pod's address, node and
  pod, with the target port resolved (a named one through the pods' container ports);
- pods not ready yet are `notReadyAddresses` (ready false in the slice), and scaling changes
  the list;
- a Service without a selector, or of type ExternalName, gets none; a deleted Service's
  Endpoints and slice go;
- `kubectl get endpoints` and `kubectl describe service` show the addresses.
"""

from __future__ import annotations

import subprocess
from typing import Any

from simfixture import RunningSim, deployment, service


def _named_port_deployment(replicas: int) -> dict[str, Any]:
    doc = deployment(replicas=replicas)
    (container,) = doc["spec"]["template"]["spec"]["containers"]
    container["ports"] = [{"name": "http", "containerPort": 8080}]
    return doc


def _create(sim: RunningSim, *docs: dict[str, Any]) -> None:
    for doc in docs:
        sim.resource(doc["apiVersion"], doc["kind"]).create(body=doc, namespace="default")


def _slices(sim: RunningSim) -> list[dict[str, Any]]:
    return sim.objects.list("discovery.k8s.io/v1", "EndpointSlice", "default")


def test_a_service_lists_its_ready_pods(sim_cluster: RunningSim) -> None:
    selected = service("web", selector={"app": "web"})
    selected["spec"]["ports"][0].update(name="http", targetPort="http")
    _create(sim_cluster, _named_port_deployment(2), selected)
    pods = {p["status"]["podIP"]: p for p in sim_cluster.objects.list("v1", "Pod", "default")}
    endpoints = sim_cluster.objects.get("v1", "Endpoints", "web", "default")
    (subset,) = endpoints["subsets"]
    assert subset["ports"] == [{"name": "http", "port": 8080, "protocol": "TCP"}]
    assert {a["ip"] for a in subset["addresses"]} == set(pods)
    for address in subset["addresses"]:
        pod = pods[address["ip"]]
        assert address["nodeName"] == pod["spec"]["nodeName"]
        assert address["targetRef"]["uid"] == pod["metadata"]["uid"]
    assert "notReadyAddresses" not in subset
    (endpoint_slice,) = _slices(sim_cluster)
    web = sim_cluster.objects.get("v1", "Service", "web", "default")
    assert endpoint_slice["metadata"]["name"].startswith("web-")
    assert endpoint_slice["metadata"]["labels"]["kubernetes.io/service-name"] == "web"
    assert endpoint_slice["metadata"]["ownerReferences"][0]["uid"] == web["metadata"]["uid"]
    assert endpoint_slice["ports"] == [{"name": "http", "port": 8080, "protocol": "TCP"}]
    assert sorted(e["addresses"][0] for e in endpoint_slice["endpoints"]) == sorted(pods)
    assert all(e["conditions"]["ready"] for e in endpoint_slice["endpoints"])

    sim_cluster.resource("apps/v1", "Deployment").patch(
        name="web", namespace="default", body={"spec": {"replicas": 3}},
        content_type="application/merge-patch+json",
    )  # fmt: skip
    (subset,) = sim_cluster.objects.get("v1", "Endpoints", "web", "default")["subsets"]
    assert len(subset["addresses"]) == 3
    (endpoint_slice,) = _slices(sim_cluster)
    assert len(endpoint_slice["endpoints"]) == 3


def test_pods_not_ready_are_listed_apart(make_sim_cluster: Any) -> None:
    sim = make_sim_cluster(ready_delay=600)
    _create(sim, deployment(replicas=2), service("web", selector={"app": "web"}))
    endpoints = sim.objects.get("v1", "Endpoints", "web", "default")
    assert "subsets" not in endpoints  # no pod has an address before it starts
    assert _slices(sim)[0]["endpoints"] == []


def test_services_without_endpoints_and_deleted_ones(sim_cluster: RunningSim) -> None:
    _create(
        sim_cluster,
        deployment(replicas=1),
        service("manual"),
        service("outside", type="ExternalName", externalName="example.com"),
        service("web", selector={"app": "web"}),
    )
    names = {e["metadata"]["name"] for e in sim_cluster.objects.list("v1", "Endpoints", "default")}
    assert names == {"web"}
    sim_cluster.resource("v1", "Service").delete(name="web", namespace="default")
    assert sim_cluster.objects.get("v1", "Endpoints", "web", "default") is None
    assert _slices(sim_cluster) == []


def test_kubectl_shows_the_addresses(sim_cluster: RunningSim) -> None:
    _create(sim_cluster, deployment(replicas=2), service("web", selector={"app": "web"}))
    ips = sorted(p["status"]["podIP"] for p in sim_cluster.objects.list("v1", "Pod", "default"))
    kubectl = ["kubectl", "--kubeconfig", str(sim_cluster.kubeconfig)]
    listed = subprocess.run(
        [*kubectl, "get", "endpoints", "web", "--no-headers"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert listed.split()[1] == ",".join(f"{ip}:80" for ip in ips)
    described = subprocess.run(
        [*kubectl, "describe", "service", "web"], capture_output=True, text=True, check=True
    ).stdout
    assert f"Endpoints:         {','.join(f'{ip}:80' for ip in ips)}" in described
