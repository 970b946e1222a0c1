"""The typed kubernetes client (CoreV1Api, AppsV1Api, ...) reads what the simulator serves:
its models reject objects that lack required fields, so every kind the simulated
controllers write is listed through them.

Covers: nodes, namespaces, pods, services (with a load balancer), claims, volumes,
deployments, statefulsets, daemonsets, replicasets, jobs, cronjobs, CRDs and their custom
objects, events; typed create and status reads.
"""

from __future__ import annotations

from typing import Any

import pytest
from simfixture import WIDGETS_CRD, RunningSim, claim, deployment, service


@pytest.fixture(name="populated")
def populated_fixture(sim_cluster: RunningSim) -> RunningSim:
    put = sim_cluster.objects.put
    put(deployment())
    for kind in ("StatefulSet", "DaemonSet", "ReplicaSet"):
        put({**deployment(kind.lower()), "kind": kind})
    job = {**deployment("job"), "apiVersion": "batch/v1", "kind": "Job"}
    job["spec"] = {"template": job["spec"]["template"]}
    put(job)
    put(
        {
            "apiVersion": "batch/v1",
            "kind": "CronJob",
            "metadata": {"name": "nightly", "namespace": "default"},
            "spec": {
                "schedule": "0 0 * * *",
                "jobTemplate": {"spec": {"template": job["spec"]["template"]}},
            },
        }
    )
    put(service("lb", type="LoadBalancer", selector={"app": "web"}))
    put(claim("data"))
    put(
        {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {"name": "pv1"},
            "spec": {
                "capacity": {"storage": "1Gi"},
                "accessModes": ["ReadWriteOnce"],
                "hostPath": {"path": "/data"},
            },
        }
    )
    put(
        {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": "e1", "namespace": "default"},
            "involvedObject": {"kind": "Pod", "name": "x", "namespace": "default"},
            "reason": "Created",
            "message": "created",
            "type": "Normal",
        }
    )
    put(WIDGETS_CRD)
    put(
        {
            "apiVersion": "example.com/v1",
            "kind": "Widget",
            "metadata": {"name": "w", "namespace": "default"},
            "spec": {"size": 1},
        }
    )
    return sim_cluster


def _listings(api: Any) -> list[tuple[str, Any]]:
    from kubernetes import client

    core, apps, batch = client.CoreV1Api(api), client.AppsV1Api(api), client.BatchV1Api(api)
    extensions = client.ApiextensionsV1Api(api)
    return [
        ("nodes", core.list_node),
        ("namespaces", core.list_namespace),
        ("pods", core.list_pod_for_all_namespaces),
        ("services", core.list_service_for_all_namespaces),
        ("claims", core.list_persistent_volume_claim_for_all_namespaces),
        ("volumes", core.list_persistent_volume),
        ("service accounts", core.list_service_account_for_all_namespaces),
        ("config maps", core.list_config_map_for_all_namespaces),
        ("events", core.list_event_for_all_namespaces),
        ("deployments", apps.list_deployment_for_all_namespaces),
        ("statefulsets", apps.list_stateful_set_for_all_namespaces),
        ("daemonsets", apps.list_daemon_set_for_all_namespaces),
        ("replicasets", apps.list_replica_set_for_all_namespaces),
        ("jobs", batch.list_job_for_all_namespaces),
        ("cronjobs", batch.list_cron_job_for_all_namespaces),
        ("crds", extensions.list_custom_resource_definition),
    ]


def test_typed_lists_read_every_simulated_kind(populated: RunningSim) -> None:
    counts = {name: len(listing().items) for name, listing in _listings(populated.api_client)}
    assert all(counts.values()), counts
    assert counts["pods"] >= 6


def test_typed_reads_of_status_and_custom_objects(populated: RunningSim) -> None:
    from kubernetes import client

    api = populated.api_client
    deployment_status = client.AppsV1Api(api).read_namespaced_deployment_status("web", "default")
    widget = client.CustomObjectsApi(api).get_namespaced_custom_object(
        "example.com", "v1", "default", "widgets", "w"
    )
    assert deployment_status.status.ready_replicas == 2
    assert widget["spec"] == {"size": 1}


def test_typed_create(sim_cluster: RunningSim) -> None:
    from kubernetes import client

    apps = client.AppsV1Api(sim_cluster.api_client)
    created = apps.create_namespaced_deployment("default", deployment("typed"))
    assert created.metadata.uid
    assert apps.read_namespaced_deployment("typed", "default").spec.replicas == 2
