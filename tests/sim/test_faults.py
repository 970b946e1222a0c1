"""Faults switched on and off while a cluster runs, and the request counters.

Covers: unreachable refuses connections (including ones the client kept open) and healing
serves the same objects on the same port; error answers every request with a 500 Status;
slow still answers correctly; read-only refuses writes with 403 and serves reads; a wrong
token is 401; requests are counted by verb, split into reads and writes, and can be reset;
a fault set before the cluster starts holds from the start; a canned answer (any status and
JSON body) replaces the API's for one method and path, only for authorized requests, until
it is taken back.
"""

from __future__ import annotations

import pytest
from simfixture import RunningSim, config_map, failure, raw, status_of

from gitfleet import sim


def test_unreachable_refuses_connections_then_heals(sim_cluster: RunningSim) -> None:
    from urllib3 import exceptions

    maps = sim_cluster.resource("v1", "ConfigMap")
    maps.create(body=config_map("kept"), namespace="default")
    port = sim_cluster.cluster.port
    sim_cluster.cluster.set_fault(sim.Fault.UNREACHABLE)
    with pytest.raises(exceptions.MaxRetryError):
        maps.get(name="kept", namespace="default", _request_timeout=5)
    sim_cluster.cluster.set_fault(sim.Fault.NONE)
    assert maps.get(name="kept", namespace="default").metadata.name == "kept"
    assert sim_cluster.cluster.port == port


def test_error_fault_fails_every_request(sim_cluster: RunningSim) -> None:
    maps = sim_cluster.resource("v1", "ConfigMap")
    sim_cluster.cluster.set_fault(sim.Fault.ERROR)
    error = failure(lambda: maps.get(namespace="default"))
    assert (error.status, status_of(error)["reason"]) == (500, "InternalError")
    status, _ = raw(sim_cluster, "GET", "/version")
    assert status == 500


def test_slow_fault_still_answers(sim_cluster: RunningSim) -> None:
    maps = sim_cluster.resource("v1", "ConfigMap")
    sim_cluster.cluster.set_fault(sim.Fault.SLOW, latency=0.01)
    maps.create(body=config_map("slow"), namespace="default")
    assert sim_cluster.cluster.fault is sim.Fault.SLOW
    assert maps.get(name="slow", namespace="default").metadata.name == "slow"


def test_readonly_refuses_writes_and_serves_reads(sim_cluster: RunningSim) -> None:
    maps = sim_cluster.resource("v1", "ConfigMap")
    maps.create(body=config_map("ro"), namespace="default")
    sim_cluster.cluster.set_fault("readonly")
    error = failure(lambda: maps.create(body=config_map("new"), namespace="default"))
    assert (error.status, status_of(error)["reason"]) == (403, "Forbidden")
    assert maps.get(name="ro", namespace="default").metadata.name == "ro"
    sim_cluster.cluster.set_fault(sim.Fault.NONE)
    assert maps.create(body=config_map("new"), namespace="default").metadata.name == "new"


def test_wrong_token_is_unauthorized(sim_cluster: RunningSim) -> None:
    status, body = raw(sim_cluster, "GET", "/api/v1/namespaces", token="wrong")
    assert (status, body["reason"]) == (401, "Unauthorized")


def test_requests_are_counted_by_verb(sim_cluster: RunningSim) -> None:
    maps = sim_cluster.resource("v1", "ConfigMap")
    sim_cluster.cluster.reset_requests()
    maps.create(body=config_map("n"), namespace="default")
    maps.get(name="n", namespace="default")
    maps.get(namespace="default")
    maps.server_side_apply(body=config_map("n"), field_manager="test")
    counts = sim_cluster.cluster.requests
    assert (counts["create"], counts["get"], counts["list"], counts["patch"]) == (1, 1, 1, 1)
    assert (counts.reads, counts.writes) == (2, 2)
    sim_cluster.cluster.reset_requests()
    assert sim_cluster.cluster.requests.writes == 0


def test_fault_set_before_start_holds() -> None:
    import urllib.error
    import urllib.request

    cluster = sim.SimCluster("early", ready_delay=0)
    cluster.set_fault(sim.Fault.UNREACHABLE)
    tls = cluster.client_tls()
    with cluster:
        with pytest.raises(urllib.error.URLError):
            urllib.request.urlopen(cluster.url + "/version", timeout=5, context=tls)
        cluster.set_fault(sim.Fault.NONE)
        with urllib.request.urlopen(cluster.url + "/version", timeout=5, context=tls) as response:
            assert response.status == 200


def test_a_canned_answer_replaces_one_method_and_path(sim_cluster: RunningSim) -> None:
    path = "/api/v1/namespaces/default/configmaps/odd"
    body = {"kind": "Status", "message": "from a proxy", "details": "x", "code": 422}
    sim_cluster.cluster.set_answer("post", path, 422, body)
    sim_cluster.cluster.set_answer("GET", path, 200, None)
    assert raw(sim_cluster, "POST", path) == (422, body)
    assert raw(sim_cluster, "GET", path) == (200, None)
    assert raw(sim_cluster, "GET", path, token="wrong")[0] == 401
    assert raw(sim_cluster, "GET", path + "s")[0] == 404
    sim_cluster.cluster.set_answer("GET", path, None)
    assert raw(sim_cluster, "GET", path)[0] == 404
    assert raw(sim_cluster, "POST", path)[0] == 422
