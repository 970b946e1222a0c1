"""Starting and stopping simulated clusters, and the Python API around them.

Covers: several clusters in one process on their own ports, each with its own objects; stop
closes the port, ends open watches and keep-alive connections and leaves no thread; stop and
start are idempotent; a fleet starts, writes one kubeconfig per cluster and stops together;
the kubeconfig works with the kubernetes client; a fleet removes the kubeconfigs it wrote, but
not one a user wrote over; the objects view (get, list, put, delete, item access, unknown
kinds).
"""

from __future__ import annotations

import socket
import threading
from pathlib import Path
from typing import Any

import pytest
import yaml
from simfixture import RunningSim, config_map, service

from gitfleet import sim


def _sim_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("sim-")]


def _refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except ConnectionRefusedError:
        return True
    return False


def test_clusters_are_independent(make_sim_cluster: Any) -> None:
    first, second = make_sim_cluster("one"), make_sim_cluster("two")
    first.objects.put(config_map("only-in-one"))
    assert first.cluster.port != second.cluster.port
    assert second.objects.get("v1", "ConfigMap", "only-in-one", "default") is None
    assert second.resource("v1", "Node").get().items[0].metadata.name == "two-node-1"


def test_stop_leaves_no_thread_and_no_listener(tmp_path: Path) -> None:
    from kubernetes import config, dynamic, watch

    cluster = sim.SimCluster("gone", ready_delay=0)
    cluster.start()
    client = config.new_client_from_config(str(cluster.kubeconfig(tmp_path / "k.yaml")))
    maps = dynamic.DynamicClient(client, cache_file=str(tmp_path / "c.json")).resources.get(
        api_version="v1", kind="ConfigMap"
    )
    watching = threading.Event()
    events: list[str] = []

    def read() -> None:
        for event in maps.watch(namespace="default", watcher=watch.Watch(), timeout=60):
            events.append(event["type"])
            watching.set()

    reader = threading.Thread(target=read)
    reader.start()
    assert watching.wait(10), "the watch got no event"
    cluster.stop()
    reader.join(10)
    client.close()
    assert not reader.is_alive()
    assert _sim_threads() == []
    assert _refused(cluster.port)
    assert set(events) == {"ADDED"}
    cluster.stop()


def test_start_twice_keeps_the_port(sim_cluster: RunningSim) -> None:
    url = sim_cluster.url
    assert sim_cluster.cluster.start() == url


def test_fleet_writes_kubeconfigs(tmp_path: Path) -> None:
    from kubernetes import client, config

    with sim.SimFleet.of(2, ready_delay=0) as fleet:
        paths = fleet.write_kubeconfigs(tmp_path)
        assert sorted(paths) == ["member1", "member2"]
        document = yaml.safe_load(paths["member2"].read_text())
        api = config.new_client_from_config(str(paths["member2"]))
        nodes = client.CoreV1Api(api).list_node().items
        api.close()
        assert document["current-context"] == "member2"
        assert document["clusters"][0]["cluster"]["server"] == fleet["member2"].url
        assert nodes[0].metadata.name == "member2-node-1"
    assert _sim_threads() == []


def test_fleet_removes_the_kubeconfigs_it_wrote(tmp_path: Path) -> None:
    """Only those still the clusters': one a user wrote over stays."""
    with sim.SimFleet.of(2, ready_delay=0) as fleet:
        paths = fleet.write_kubeconfigs(tmp_path)
    paths["member2"].write_text("apiVersion: v1\nkind: Config\n")
    fleet.remove_kubeconfigs(paths)
    assert not paths["member1"].exists()
    assert paths["member2"].read_text() == "apiVersion: v1\nkind: Config\n"
    assert fleet["member1"].remove_kubeconfig(paths["member1"]) is False


def test_fleet_refuses_duplicate_names() -> None:
    with pytest.raises(ValueError, match="member1"):
        sim.SimFleet([sim.SimCluster("member1"), sim.SimCluster("member1")])


def test_objects_view(sim_cluster: RunningSim) -> None:
    objects = sim_cluster.objects
    objects[("v1", "ConfigMap", "default", "seed")] = {"data": {"k": "v"}}
    stored = objects[("v1", "ConfigMap", "default", "seed")]
    assert stored["data"] == {"k": "v"}
    assert stored["metadata"]["uid"]
    assert ("v1", "ConfigMap", "default", "seed") in objects
    assert [
        m["metadata"]["name"]
        for m in objects.list("v1", "ConfigMap", "default")
        if m["metadata"]["name"] == "seed"
    ] == ["seed"]
    stored["data"]["k"] = "changed locally"
    assert objects.get("v1", "ConfigMap", "seed", "default")["data"] == {"k": "v"}
    del objects[("v1", "ConfigMap", "default", "seed")]
    assert ("v1", "ConfigMap", "default", "seed") not in objects
    with pytest.raises(KeyError):
        objects[("v1", "ConfigMap", "default", "seed")]
    with pytest.raises(KeyError):
        objects.list("example.com/v1", "Widget")


def test_objects_put_keeps_given_status(sim_cluster: RunningSim) -> None:
    ingress = {"loadBalancer": {"ingress": [{"hostname": "lb.example.com"}]}}
    stored = sim_cluster.objects.put({**service("s"), "status": ingress})
    assert stored["status"]["loadBalancer"]["ingress"] == [{"hostname": "lb.example.com"}]
