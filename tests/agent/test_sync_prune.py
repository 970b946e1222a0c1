"""Pruning: only from the inventory, behind the guard.

Aspects covered:
- a manifest removed from the Work set is deleted from the cluster and from the inventory;
- deletions run in reverse order (namespaced objects before their Namespace);
- an object gitfleet never applied is never deleted, even with gitfleet's labels on it;
- an inventory entry whose object lost gitfleet's labels is forgotten, not deleted;
- a version change of a manifest is not a deletion;
- the guard refuses (and writes nothing) when more than the share would go, and when the
  desired set is empty; a Work set allowed to prune goes through;
- a delete the API refuses stays in the inventory and succeeds on a later sync;
- an object applied with `gitfleet.io/preserve-on-deletion: "true"` (a binding with
  preserveResourcesOnDeletion) is released, not deleted: it stays, without gitfleet's labels
  and annotations nor Karmada's marks (its other labels kept), and is forgotten; a
  cluster-scoped one keeps a ClusterPropagationPolicy's claim only as Karmada does; when its
  manifest comes back it is someone else's object (left alone, the manifest fails), unless
  the manifest allows a takeover (`work.karmada.io/conflict-resolution: overwrite`).
"""

from __future__ import annotations

import pytest
from agent.agent_kit import Sync
from builders import make_configmap, make_deployment, make_object
from simfixture import RunningSim

from gitfleet import sim
from gitfleet.agent import apply, inventory, stamp

NAMESPACE = make_object("v1", "Namespace", "shop")


def _configmaps(n: int) -> list[dict[str, object]]:
    return [make_configmap(f"c{i}") for i in range(n)]


def _inventory_names(sim_cluster: RunningSim) -> list[str]:
    held = sim_cluster.objects.get("v1", "ConfigMap", inventory.NAME, inventory.NAMESPACE)
    assert held is not None
    return sorted(e.ref.name for e in inventory.decode(held).entries.values())


def test_a_removed_manifest_is_deleted(sync: Sync, sim_cluster: RunningSim) -> None:
    sync([NAMESPACE, make_deployment(), *_configmaps(3)])
    result = sync([NAMESPACE, make_deployment(), *_configmaps(2)], commit="r2")
    assert result.converged
    assert [(p.ref.name, p.action) for p in result.pruned] == [("c2", apply.Action.PRUNED)]
    assert sim_cluster.objects.get("v1", "ConfigMap", "c2", "shop") is None
    assert sim_cluster.objects.get("v1", "ConfigMap", "c1", "shop") is not None
    assert "c2" not in _inventory_names(sim_cluster)


def test_deletions_run_namespaced_objects_first(sync: Sync, sim_cluster: RunningSim) -> None:
    other = make_object("v1", "Namespace", "old")
    sync([NAMESPACE, other, make_configmap("gone", namespace="old"), *_configmaps(3)])
    result = sync([NAMESPACE, *_configmaps(3)], commit="r2")
    assert [p.ref.kind for p in result.pruned if p.action is apply.Action.PRUNED] == [
        "ConfigMap",
        "Namespace",
    ]
    sim_cluster.cluster.settle()  # the namespace controller empties it, then it goes
    assert sim_cluster.objects.get("v1", "Namespace", "old") is None


def test_objects_gitfleet_never_applied_are_left_alone(sync: Sync, sim_cluster: RunningSim) -> None:
    labels = {stamp.MANAGED_BY_LABEL: "gitfleet", stamp.CLUSTER_LABEL: "member1"}
    sync([NAMESPACE, *_configmaps(2)])
    sim_cluster.objects.put(make_configmap("intruder", labels=labels))
    result = sync([NAMESPACE, *_configmaps(2)], commit="r2")
    assert result.pruned == ()
    assert sim_cluster.objects.get("v1", "ConfigMap", "intruder", "shop") is not None


def test_an_object_that_lost_its_labels_is_forgotten(sync: Sync, sim_cluster: RunningSim) -> None:
    sync([NAMESPACE, *_configmaps(3)])
    taken = sim_cluster.objects.get("v1", "ConfigMap", "c2", "shop")
    assert taken is not None
    taken["metadata"]["labels"] = {"owner": "someone-else"}
    sim_cluster.objects.put(taken)
    result = sync([NAMESPACE, *_configmaps(2)], commit="r2")
    assert [(p.ref.name, p.action) for p in result.pruned] == [("c2", apply.Action.GONE)]
    assert sim_cluster.objects.get("v1", "ConfigMap", "c2", "shop") is not None
    assert "c2" not in _inventory_names(sim_cluster)


def test_a_version_change_is_not_a_deletion(sync: Sync, sim_cluster: RunningSim) -> None:
    role = make_object("rbac.authorization.k8s.io/v1", "ClusterRole", "reader")
    sync([NAMESPACE, role])
    moved = {**role, "apiVersion": "rbac.authorization.k8s.io/v1beta1"}
    # the simulated cluster serves only v1; what matters is that nothing is pruned
    result = sync([NAMESPACE, moved], commit="r2")
    assert result.pruned == ()
    assert sim_cluster.objects.get("rbac.authorization.k8s.io/v1", "ClusterRole", "reader")


@pytest.mark.parametrize(
    ("kept", "allowed", "refused"),
    [
        pytest.param(2, False, False, id="less than half may go"),
        pytest.param(1, False, True, id="more than half is refused"),
        pytest.param(0, False, True, id="an empty desired set is refused"),
        pytest.param(1, True, False, id="allowed by the rendered commit"),
        pytest.param(0, True, False, id="emptying allowed by the rendered commit"),
    ],
)
def test_the_guard(
    sync: Sync, sim_cluster: RunningSim, kept: int, allowed: bool, refused: bool
) -> None:
    sync([NAMESPACE, *_configmaps(4)])  # 5 managed objects
    desired = [NAMESPACE, *_configmaps(kept)] if kept else []
    sim_cluster.cluster.reset_requests()
    result = sync(desired, commit="r2", allow_prune=allowed)
    if refused:
        assert "refusing to delete" in result.error
        assert "Gitfleet-Allow-Prune" in result.error
        assert sim_cluster.cluster.requests.writes == 0
        assert sim_cluster.objects.get("v1", "ConfigMap", "c0", "shop") is not None
    else:
        assert result.error == ""
        assert sim_cluster.objects.get("v1", "ConfigMap", "c3", "shop") is None


def test_a_refused_delete_is_retried_next_sync(sync: Sync, sim_cluster: RunningSim) -> None:
    sync([NAMESPACE, *_configmaps(3)])
    sim_cluster.cluster.set_fault(sim.Fault.READONLY)
    refused = sync([NAMESPACE, *_configmaps(2)], commit="r2")
    assert [p.action for p in refused.pruned] == [apply.Action.PRUNE_FAILED]
    assert "read-only" in refused.pruned[0].message
    assert not refused.converged
    assert "c2" in _inventory_names(sim_cluster)
    sim_cluster.cluster.set_fault(sim.Fault.NONE)
    retried = sync([NAMESPACE, *_configmaps(2)], commit="r2")
    assert [p.action for p in retried.pruned] == [apply.Action.PRUNED]
    assert sim_cluster.objects.get("v1", "ConfigMap", "c2", "shop") is None
    assert "c2" not in _inventory_names(sim_cluster)


KARMADA_MARKS = {
    "labels": {
        "propagationpolicy.karmada.io/permanent-id": "p-1",
        "resourcebinding.karmada.io/permanent-id": "b-1",
        "team": "shop",
    },
    "annotations": {
        "propagationpolicy.karmada.io/name": "web",
        "propagationpolicy.karmada.io/namespace": "shop",
        "resourcebinding.karmada.io/name": "web-configmap",
        "resourcebinding.karmada.io/namespace": "shop",
        "work.karmada.io/conflict-resolution": "abort",
        stamp.PRESERVE_ON_DELETION: "true",
    },
}


def _preserved(name: str) -> dict[str, object]:
    return make_configmap(name, **KARMADA_MARKS)


def test_a_preserved_object_is_released_not_deleted(sync: Sync, sim_cluster: RunningSim) -> None:
    sync([NAMESPACE, *_configmaps(3), _preserved("kept")])
    result = sync([NAMESPACE, *_configmaps(3)], commit="r2")
    assert result.converged
    assert [(p.ref.name, p.action) for p in result.pruned] == [("kept", apply.Action.RELEASED)]
    found = sim_cluster.objects.get("v1", "ConfigMap", "kept", "shop")
    assert found is not None
    assert found["data"] == {"key": "value"}
    assert found["metadata"]["labels"] == {"team": "shop"}
    assert found["metadata"]["annotations"] == {"work.karmada.io/conflict-resolution": "abort"}
    assert "kept" not in _inventory_names(sim_cluster)
    again = sync([NAMESPACE, *_configmaps(3)], commit="r3")
    assert again.pruned == ()
    assert sim_cluster.objects.get("v1", "ConfigMap", "kept", "shop") is not None


def test_a_released_object_is_someone_else_s_when_its_manifest_returns(
    sync: Sync, sim_cluster: RunningSim
) -> None:
    """As in Karmada: released, it carries no manager's marks, and conflict resolution Abort
    (the default) leaves it alone."""
    sync([NAMESPACE, *_configmaps(2), _preserved("kept")])
    sync([NAMESPACE, *_configmaps(2)], commit="r2")
    released = sim_cluster.objects.get("v1", "ConfigMap", "kept", "shop")
    back = sync([NAMESPACE, *_configmaps(2), _preserved("kept")], commit="r3")
    assert not back.converged
    (kept,) = [o for o in back.objects if o.ref.name == "kept"]
    assert kept.action is apply.Action.FAILED
    assert "ConfigMap/shop/kept already exists in the cluster and is not managed by" in kept.message
    assert sim_cluster.objects.get("v1", "ConfigMap", "kept", "shop") == released


def test_a_released_object_is_managed_again_when_its_manifest_allows_a_takeover(
    sync: Sync, sim_cluster: RunningSim
) -> None:
    sync([NAMESPACE, *_configmaps(2), _preserved("kept")])
    sync([NAMESPACE, *_configmaps(2)], commit="r2")
    returning = _preserved("kept")
    returning["metadata"]["annotations"]["work.karmada.io/conflict-resolution"] = "overwrite"  # type: ignore[index]
    back = sync([NAMESPACE, *_configmaps(2), returning], commit="r3")
    assert back.converged
    found = sim_cluster.objects.get("v1", "ConfigMap", "kept", "shop")
    assert found is not None
    assert stamp.is_managed(found, "member1")
    assert "kept" in _inventory_names(sim_cluster)


def test_a_released_cluster_scoped_object_keeps_a_cluster_policy_claim_as_karmada_does(
    sync: Sync, sim_cluster: RunningSim
) -> None:
    """Karmada takes the claim of a cluster-scoped object for a ClusterPropagationPolicy's, and
    drops the binding marks of `util.ManagedResourceLabels`, which name no
    ClusterResourceBinding: its id label stays."""
    marks = {
        "labels": {
            "clusterpropagationpolicy.karmada.io/permanent-id": "c-1",
            "clusterresourcebinding.karmada.io/permanent-id": "b-2",
        },
        "annotations": {
            "clusterpropagationpolicy.karmada.io/name": "all",
            stamp.PRESERVE_ON_DELETION: "true",
        },
    }
    role = make_object("rbac.authorization.k8s.io/v1", "ClusterRole", "reader", **marks)
    sync([NAMESPACE, *_configmaps(2), role])
    result = sync([NAMESPACE, *_configmaps(2)], commit="r2")
    assert [(p.ref.name, p.action) for p in result.pruned] == [("reader", apply.Action.RELEASED)]
    found = sim_cluster.objects.get("rbac.authorization.k8s.io/v1", "ClusterRole", "reader")
    assert found is not None
    assert found["metadata"]["labels"] == {"clusterresourcebinding.karmada.io/permanent-id": "b-2"}
    assert not found["metadata"].get("annotations")
