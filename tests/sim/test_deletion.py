"""Deletion: finalizers, namespaces, owner references.

Covers: deleting an object with finalizers sets deletionTimestamp and keeps it (202) until
the last finalizer is removed; no finalizer may be added while deleting; delete
preconditions; deleting a namespace deletes its objects and then the namespace, waiting for
an object's finalizers (the namespace stays Terminating, new objects are refused with 403);
objects whose owners are gone are garbage-collected; propagationPolicy=Orphan keeps them.
"""

from __future__ import annotations

from typing import Any

from simfixture import RunningSim, config_map, deployment, failure, raw, status_of


def _with_finalizer(name: str, namespace: str = "default") -> dict[str, Any]:
    body = config_map(name, namespace)
    body["metadata"]["finalizers"] = ["example.com/hold"]
    return body


def test_finalizer_holds_object_until_removed(sim_cluster: RunningSim) -> None:
    maps = sim_cluster.resource("v1", "ConfigMap")
    maps.create(body=_with_finalizer("held"), namespace="default")
    status, body = raw(sim_cluster, "DELETE", "/api/v1/namespaces/default/configmaps/held")
    held = maps.get(name="held", namespace="default")
    assert status == 202
    assert body["metadata"]["deletionTimestamp"]
    assert held.metadata.deletionTimestamp == body["metadata"]["deletionTimestamp"]
    maps.patch(
        name="held",
        namespace="default",
        body={"metadata": {"finalizers": None}},
        content_type="application/merge-patch+json",
    )
    assert failure(lambda: maps.get(name="held", namespace="default")).status == 404


def test_no_new_finalizers_while_deleting(sim_cluster: RunningSim) -> None:
    maps = sim_cluster.resource("v1", "ConfigMap")
    maps.create(body=_with_finalizer("held"), namespace="default")
    maps.delete(name="held", namespace="default")
    error = failure(
        lambda: maps.patch(
            name="held",
            namespace="default",
            body={"metadata": {"finalizers": ["example.com/hold", "example.com/more"]}},
            content_type="application/merge-patch+json",
        )
    )
    assert error.status == 422


def test_delete_precondition_on_uid(sim_cluster: RunningSim) -> None:
    maps = sim_cluster.resource("v1", "ConfigMap")
    maps.create(body=config_map("pre"), namespace="default")
    error = failure(
        lambda: maps.delete(
            name="pre", namespace="default", body={"preconditions": {"uid": "not-the-uid"}}
        )
    )
    assert (error.status, status_of(error)["reason"]) == (409, "Conflict")
    assert sim_cluster.objects.get("v1", "ConfigMap", "pre", "default") is not None


def _namespace(sim: RunningSim, name: str) -> None:
    sim.resource("v1", "Namespace").create(
        body={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
    )


def test_deleting_a_namespace_deletes_its_objects(sim_cluster: RunningSim) -> None:
    _namespace(sim_cluster, "team")
    sim_cluster.resource("v1", "ConfigMap").create(body=config_map("c", "team"), namespace="team")
    sim_cluster.resource("apps/v1", "Deployment").create(
        body=deployment(namespace="team"), namespace="team"
    )
    sim_cluster.resource("v1", "Namespace").delete(name="team")
    assert sim_cluster.objects.get("v1", "Namespace", "team") is None
    assert sim_cluster.objects.list("v1", "ConfigMap", "team") == []
    assert sim_cluster.objects.list("v1", "Pod", "team") == []


def test_finalizer_keeps_namespace_terminating(sim_cluster: RunningSim) -> None:
    _namespace(sim_cluster, "team")
    maps = sim_cluster.resource("v1", "ConfigMap")
    maps.create(body=_with_finalizer("held", "team"), namespace="team")
    sim_cluster.resource("v1", "Namespace").delete(name="team")
    terminating = sim_cluster.resource("v1", "Namespace").get(name="team")
    refused = failure(lambda: maps.create(body=config_map("late", "team"), namespace="team"))
    assert terminating.status.phase == "Terminating"
    assert refused.status == 403
    maps.patch(
        name="held",
        namespace="team",
        body={"metadata": {"finalizers": []}},
        content_type="application/merge-patch+json",
    )
    assert sim_cluster.objects.get("v1", "Namespace", "team") is None


def test_new_namespace_gets_default_service_account(sim_cluster: RunningSim) -> None:
    _namespace(sim_cluster, "team")
    accounts = sim_cluster.resource("v1", "ServiceAccount").get(namespace="team").items
    assert [a.metadata.name for a in accounts] == ["default"]


def _owned(name: str, owner: Any) -> dict[str, Any]:
    body = config_map(name)
    body["metadata"]["ownerReferences"] = [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "name": owner.metadata.name,
            "uid": owner.metadata.uid,
        }
    ]
    return body


def test_garbage_collection_follows_owner_references(sim_cluster: RunningSim) -> None:
    maps = sim_cluster.resource("v1", "ConfigMap")
    owner = maps.create(body=config_map("owner"), namespace="default")
    maps.create(body=_owned("dependent", owner), namespace="default")
    maps.delete(name="owner", namespace="default")
    assert sim_cluster.objects.get("v1", "ConfigMap", "dependent", "default") is None


def test_orphan_propagation_keeps_dependents(sim_cluster: RunningSim) -> None:
    maps = sim_cluster.resource("v1", "ConfigMap")
    owner = maps.create(body=config_map("owner"), namespace="default")
    maps.create(body=_owned("dependent", owner), namespace="default")
    maps.delete(name="owner", namespace="default", propagation_policy="Orphan")
    kept = sim_cluster.objects.get("v1", "ConfigMap", "dependent", "default")
    assert kept is not None
    assert "ownerReferences" not in kept["metadata"]
