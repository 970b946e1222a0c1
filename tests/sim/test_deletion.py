"""Deletion: finalizers, namespaces, owner references.

Covers: deleting an object with finalizers sets deletionTimestamp and keeps it (200, the
object; 202 when orphanDependents=false) until the last finalizer is removed; a deletion
answers with a Status Success naming the object, or with the object for the kinds whose real
registry returns it (Namespace, Pod, Job, ...), for a dry run too; a dryRun other than All is
422 and deletes nothing; orphanDependents=false in the query does not orphan; no finalizer may
be added while deleting; delete preconditions; a deleted namespace is Terminating, keeps its
objects until the namespace controller's next pass (they can still be deleted; new ones are
refused with NamespaceLifecycle's 403, the namespace itself with "object is being deleted"),
which deletes them and then the namespace, waiting for an object's finalizers; objects whose
owners are gone are garbage-collected;
propagationPolicy=Orphan keeps them.
"""

from __future__ import annotations

from typing import Any

import pytest
from simfixture import RunningSim, SimFactory, config_map, deployment, failure, raw, status_of


def _with_finalizer(name: str, namespace: str = "default") -> dict[str, Any]:
    body = config_map(name, namespace)
    body["metadata"]["finalizers"] = ["example.com/hold"]
    return body


def test_finalizer_holds_object_until_removed(sim_cluster: RunningSim) -> None:
    maps = sim_cluster.resource("v1", "ConfigMap")
    maps.create(body=_with_finalizer("held"), namespace="default")
    status, body = raw(sim_cluster, "DELETE", "/api/v1/namespaces/default/configmaps/held")
    held = maps.get(name="held", namespace="default")
    assert status == 200
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
    sim_cluster.cluster.settle()
    assert sim_cluster.objects.get("v1", "Namespace", "team") is None
    assert sim_cluster.objects.list("v1", "ConfigMap", "team") == []
    assert sim_cluster.objects.list("v1", "Pod", "team") == []


def test_a_deleted_namespace_keeps_its_objects_until_its_controller_runs(
    make_sim_cluster: SimFactory,
) -> None:
    sim_cluster = make_sim_cluster(namespace_cleanup_delay=3600)
    _namespace(sim_cluster, "team")
    maps = sim_cluster.resource("v1", "ConfigMap")
    maps.create(body=config_map("first", "team"), namespace="team")
    maps.create(body=config_map("second", "team"), namespace="team")
    status, deleted = raw(sim_cluster, "DELETE", "/api/v1/namespaces/team")
    terminating = sim_cluster.resource("v1", "Namespace").get(name="team")
    maps.delete(name="first", namespace="team")
    assert status == 200
    assert deleted["status"] == {"phase": "Terminating"}
    assert deleted["spec"] == {"finalizers": ["kubernetes"]}
    assert "deletionGracePeriodSeconds" not in deleted["metadata"]
    assert terminating.metadata.deletionTimestamp
    assert sim_cluster.objects.get("v1", "ConfigMap", "second", "team") is not None
    assert sim_cluster.objects.get("v1", "ConfigMap", "first", "team") is None


def test_creating_in_a_terminating_namespace_is_forbidden(sim_cluster: RunningSim) -> None:
    _namespace(sim_cluster, "team")
    sim_cluster.resource("v1", "Namespace").delete(name="team")
    named = failure(
        lambda: sim_cluster.resource("apps/v1", "Deployment").create(
            body=deployment(namespace="team"), namespace="team"
        )
    )
    generated = config_map("", "team")
    generated["metadata"] = {"generateName": "late-", "namespace": "team"}
    prefixed = failure(
        lambda: sim_cluster.resource("v1", "ConfigMap").create(body=generated, namespace="team")
    )
    again = failure(
        lambda: sim_cluster.resource("v1", "Namespace").create(
            body={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}
        )
    )
    assert named.status == 403
    assert status_of(named)["reason"] == "Forbidden"
    assert status_of(named)["message"] == (
        'deployments.apps "web" is forbidden: unable to create new content in namespace team '
        "because it is being terminated"
    )
    assert status_of(named)["details"] == {
        "name": "web",
        "group": "apps",
        "kind": "deployments",
        "causes": [
            {
                "reason": "NamespaceTerminating",
                "message": "namespace team is being terminated",
                "field": "metadata.namespace",
            }
        ],
    }
    assert status_of(prefixed)["message"].startswith('configmaps "late-" is forbidden: ')
    assert status_of(prefixed)["details"]["name"] == "late-"
    assert again.status == 409
    assert status_of(again)["message"] == (
        'object is being deleted: namespaces "team" already exists'
    )


def test_finalizer_keeps_namespace_terminating(sim_cluster: RunningSim) -> None:
    _namespace(sim_cluster, "team")
    maps = sim_cluster.resource("v1", "ConfigMap")
    maps.create(body=_with_finalizer("held", "team"), namespace="team")
    sim_cluster.resource("v1", "Namespace").delete(name="team")
    sim_cluster.cluster.settle()
    terminating = sim_cluster.resource("v1", "Namespace").get(name="team")
    held = maps.get(name="held", namespace="team")
    assert terminating.status.phase == "Terminating"
    assert held.metadata.deletionTimestamp
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


def test_held_object_with_orphan_dependents_false_is_accepted(sim_cluster: RunningSim) -> None:
    sim_cluster.objects.put(_with_finalizer("held"))
    status, body = raw(
        sim_cluster, "DELETE", "/api/v1/namespaces/default/configmaps/held?orphanDependents=false"
    )
    assert (status, body["kind"]) == (202, "ConfigMap")


@pytest.mark.parametrize(
    ("obj", "path", "answer"),
    [
        pytest.param(
            config_map("cfg"), "/api/v1/namespaces/default/configmaps/cfg", "Status", id="ConfigMap"
        ),
        pytest.param(
            deployment("web"),
            "/apis/apps/v1/namespaces/default/deployments/web",
            "Status",
            id="Deployment",
        ),
        pytest.param(
            {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa"}},
            "/api/v1/namespaces/default/serviceaccounts/sa",
            "ServiceAccount",
            id="ServiceAccount",
        ),
        pytest.param(
            {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "pt"}},
            "/api/v1/namespaces/default/podtemplates/pt",
            "PodTemplate",
            id="PodTemplate",
        ),
        pytest.param(
            {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": "d"}},
            "/apis/storage.k8s.io/v1/csidrivers/d",
            "CSIDriver",
            id="CSIDriver",
        ),
        pytest.param(
            {
                "apiVersion": "node.k8s.io/v1",
                "kind": "RuntimeClass",
                "metadata": {"name": "gvisor"},
                "handler": "runsc",
            },
            "/apis/node.k8s.io/v1/runtimeclasses/gvisor",
            "Status",
            id="RuntimeClass",
        ),
    ],
)
def test_what_a_deletion_answers(
    sim_cluster: RunningSim, obj: dict[str, Any], path: str, answer: str
) -> None:
    obj["metadata"].setdefault("namespace", "default")
    uid = sim_cluster.objects.put(obj)["metadata"]["uid"]
    dry, dry_body = raw(sim_cluster, "DELETE", f"{path}?dryRun=All")
    status, body = raw(sim_cluster, "DELETE", path)
    assert (dry, dry_body["kind"]) == (200, answer)
    assert (status, body["kind"]) == (200, answer)
    if answer == "Status":
        assert body["status"] == "Success"
        assert body["details"]["name"] == obj["metadata"]["name"]
        assert body["details"]["uid"] == uid


def test_unsupported_dry_run_deletes_nothing(sim_cluster: RunningSim) -> None:
    sim_cluster.objects.put(config_map("cfg"))
    status, body = raw(
        sim_cluster, "DELETE", "/api/v1/namespaces/default/configmaps/cfg?dryRun=Some"
    )
    assert (status, body["reason"]) == (422, "Invalid")
    assert body["message"] == (
        'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: '
        'supported values: "All"'
    )
    assert sim_cluster.objects.get("v1", "ConfigMap", "cfg", "default") is not None


def test_orphan_dependents_false_in_the_query_does_not_orphan(sim_cluster: RunningSim) -> None:
    owner = sim_cluster.objects.put(config_map("owner"))
    child = config_map("child")
    child["metadata"]["ownerReferences"] = [
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": owner["metadata"]["uid"]}
    ]
    sim_cluster.objects.put(child)
    raw(sim_cluster, "DELETE", "/api/v1/namespaces/default/configmaps/owner?orphanDependents=false")
    sim_cluster.cluster.settle()
    assert sim_cluster.objects.get("v1", "ConfigMap", "child", "default") is None
