"""Pod logs (`GET pods/<name>/log`), as `kubectl logs` reads them.

Covers: discovery lists pods/log (get); a running container's log is empty (simulated
containers print nothing); a pod of several containers needs `container`; a container the
pod does not have, and one not started yet (its pod fits no node), are 400 BadRequest worded
as the API server words them; a missing pod is 404; kubectl `logs` on a pod and on a
Deployment exits 0.
"""

from __future__ import annotations

from typing import Any

import pytest
from simfixture import (
    RunKubectl,
    RunningSim,
    deployment,
    failure,
    needs_kubectl,
    raw,
    status_of,
)


def _pod(name: str, *containers: str, cpu: str = "100m") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "containers": [
                {"name": c, "image": "app:1", "resources": {"requests": {"cpu": cpu}}}
                for c in containers
            ]
        },
    }


def _core(sim: RunningSim) -> Any:
    from kubernetes import client

    return client.CoreV1Api(sim.api_client)


def test_discovery_lists_pod_logs(sim_cluster: RunningSim) -> None:
    _, document = raw(sim_cluster, "GET", "/api/v1")
    logs = [r for r in document["resources"] if r["name"] == "pods/log"]
    assert [(r["kind"], r["verbs"]) for r in logs] == [("Pod", ["get"])]


def test_running_containers_have_empty_logs(sim_cluster: RunningSim) -> None:
    sim_cluster.objects.put(_pod("one", "app"))
    sim_cluster.objects.put(_pod("two", "app", "sidecar"))
    sim_cluster.cluster.settle()
    core = _core(sim_cluster)
    assert core.read_namespaced_pod_log("one", "default") == ""
    assert core.read_namespaced_pod_log("two", "default", container="sidecar") == ""


@pytest.mark.parametrize(
    ("pod", "container", "message"),
    [
        pytest.param(
            _pod("two", "app", "sidecar"),
            "",
            "a container name must be specified for pod two, choose one of: [app sidecar]",
            id="which container",
        ),
        pytest.param(
            _pod("one", "app"), "other", "container other is not valid for pod one", id="unknown"
        ),
        pytest.param(
            _pod("big", "app", cpu="1000"),
            "",
            'container "app" in pod "big" is waiting to start: ContainerCreating',
            id="not started",
        ),
    ],
)
def test_refused_logs(sim_cluster: RunningSim, pod: Any, container: str, message: str) -> None:
    sim_cluster.objects.put(pod)
    sim_cluster.cluster.settle()
    options = {"container": container} if container else {}
    name = pod["metadata"]["name"]
    error = failure(lambda: _core(sim_cluster).read_namespaced_pod_log(name, "default", **options))
    assert error.status == 400
    assert status_of(error)["message"] == message


def test_missing_pod(sim_cluster: RunningSim) -> None:
    error = failure(lambda: _core(sim_cluster).read_namespaced_pod_log("nope", "default"))
    assert (error.status, status_of(error)["message"]) == (404, 'pods "nope" not found')


@needs_kubectl
def test_kubectl_logs(sim_cluster: RunningSim, run_kubectl: RunKubectl) -> None:
    sim_cluster.objects.put(_pod("one", "app"))
    sim_cluster.objects.put(deployment("web", replicas=1))
    sim_cluster.cluster.settle()
    pod = run_kubectl("logs", "one")
    workload = run_kubectl("logs", "deploy/web")
    assert (pod.code, pod.out) == (0, ""), pod.err
    assert (workload.code, workload.out) == (0, ""), workload.err
