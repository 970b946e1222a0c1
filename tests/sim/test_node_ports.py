"""Node ports of Services, allocated as a real server allocates them.

Covers: a NodePort Service gets a node port in 30000-32767 and externalTrafficPolicy Cluster;
an update that leaves the node port out keeps it; a port another Service holds is 422;
changing the type to ClusterIP drops the allocated node port; a ClusterIP Service naming one
is 422.
"""

from __future__ import annotations

from typing import Any

from simfixture import RunningSim, raw, service

SERVICES = "/api/v1/namespaces/default/services"


def _ports(answer: dict[str, Any]) -> list[Any]:
    return [port.get("nodePort") for port in answer["spec"]["ports"]]


def test_node_ports_are_allocated_and_kept(sim_cluster: RunningSim) -> None:
    _, created = raw(sim_cluster, "POST", SERVICES, body=service("web", type="NodePort"))
    replaced = service("web", type="NodePort")
    replaced["metadata"]["resourceVersion"] = created["metadata"]["resourceVersion"]
    _, updated = raw(sim_cluster, "PUT", f"{SERVICES}/web", body=replaced)
    (allocated,) = _ports(created)
    assert 30000 <= allocated <= 32767
    assert created["spec"]["externalTrafficPolicy"] == "Cluster"
    assert _ports(updated) == [allocated]


def test_a_held_node_port_is_refused(sim_cluster: RunningSim) -> None:
    first = service("one", type="NodePort")
    first["spec"]["ports"][0]["nodePort"] = 30080
    second = service("two", type="NodePort")
    second["spec"]["ports"][0]["nodePort"] = 30080
    raw(sim_cluster, "POST", SERVICES, body=first)
    status, refused = raw(sim_cluster, "POST", SERVICES, body=second)
    assert status == 422
    assert refused["message"] == (
        'Service "two" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port '
        "is already allocated"
    )


def test_cluster_ip_services_have_no_node_port(sim_cluster: RunningSim) -> None:
    raw(sim_cluster, "POST", SERVICES, body=service("web", type="NodePort"))
    status, changed = raw(
        sim_cluster,
        "PATCH",
        f"{SERVICES}/web",
        body={"spec": {"type": "ClusterIP"}},
        headers={"Content-Type": "application/merge-patch+json"},
    )
    named = service("named")
    named["spec"]["ports"][0]["nodePort"] = 30090
    refused, answer = raw(sim_cluster, "POST", SERVICES, body=named)
    assert (status, _ports(changed)) == (200, [None])
    assert refused == 422
    assert answer["message"] == (
        'Service "named" is invalid: spec.ports[0].nodePort: Forbidden: may not be used when '
        "`type` is 'ClusterIP'"
    )
