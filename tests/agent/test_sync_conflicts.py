"""Objects the cluster already has and gitfleet does not manage (Karmada's conflict
resolution), against a simulated cluster.

Aspects covered:
- a manifest whose object someone else made (no `gitfleet.io/managed-by` label) fails with
  the way to take it over, and the object is left as it was, in every field; the sync is not
  converged; the next sync leaves it too, and once the manifest is gone it is never deleted;
  so among many new objects of a namespace, which one list reads;
- `work.karmada.io/conflict-resolution: overwrite` on the manifest takes it over: labelled,
  then pruned once the manifest is gone; taken over after an aborted sync, it is not reported
  as drift (it was never deleted);
- a Namespace the source defines that the cluster already has is someone else's as well
  (Karmada's namespace sync aborts the same way);
- a namespace gitfleet generated that the cluster already has is used as it is: the manifest
  counts as applied, nothing is written to it, and removing it from the Work set deletes
  nothing, whatever it holds; its result carries no message (status shows no problem);
- an object with gitfleet's label but another cluster's is gitfleet's: written.
"""

from __future__ import annotations

from typing import Any

from agent.agent_kit import Sync
from builders import make_configmap, make_object
from simfixture import RunningSim

from gitfleet.agent import apply, stamp

NAMESPACE = make_object("v1", "Namespace", "shop")
OVERWRITE = {"work.karmada.io/conflict-resolution": "overwrite"}
GENERATED = {"gitfleet.io/generated-namespace": "true"}


def _theirs(sim_cluster: RunningSim, doc: dict[str, Any]) -> dict[str, Any]:
    """`doc` created by another client, as the cluster stores it."""
    meta = doc["metadata"]
    sim_cluster.resource(doc["apiVersion"], doc["kind"]).create(
        body=doc, namespace=meta.get("namespace"), field_manager="kubectl-create"
    )
    found = sim_cluster.objects.get(
        doc["apiVersion"], doc["kind"], meta["name"], meta.get("namespace", "")
    )
    assert found is not None
    return found


def _result(result: apply.SyncResult, name: str) -> apply.ObjectResult:
    return next(o for o in result.objects if o.ref.name == name)


def test_someone_else_s_object_is_left_alone(sync: Sync, sim_cluster: RunningSim) -> None:
    sync([NAMESPACE])
    before = _theirs(sim_cluster, make_configmap("app", data={"owner": "platform"}))
    mine = make_configmap("app", data={"owner": "gitfleet"})
    for commit in ("r1", "r2"):
        result = sync([NAMESPACE, mine, make_configmap("other")], commit=commit)
        assert not result.converged
        found = _result(result, "app")
        assert found.action is apply.Action.FAILED
        assert found.message == (
            "ConfigMap/shop/app already exists in the cluster and is not managed by gitfleet"
            " (work.karmada.io/conflict-resolution: abort): left as it is; to take it over, set"
            " conflictResolution: Overwrite in its policy, or annotate the template"
            " work.karmada.io/conflict-resolution: overwrite"
        )
        assert _result(result, "other").action in apply.WRITTEN | {apply.Action.UNCHANGED}
        assert sim_cluster.objects.get("v1", "ConfigMap", "app", "shop") == before
    gone = sync([NAMESPACE, make_configmap("other")], commit="r3")
    assert all(p.action is not apply.Action.PRUNED for p in gone.pruned), gone.pruned
    assert sim_cluster.objects.get("v1", "ConfigMap", "app", "shop") == before


def test_many_new_objects_are_looked_up_with_one_list(sync: Sync, sim_cluster: RunningSim) -> None:
    """A first sync of many objects of one kind to one namespace: someone else's among them is
    found all the same, and left alone."""
    sync([NAMESPACE])
    before = _theirs(sim_cluster, make_configmap("c17", data={"owner": "platform"}))
    many = [make_configmap(f"c{i}") for i in range(60)]
    sim_cluster.cluster.reset_requests()
    result = sync([NAMESPACE, *many], commit="r2")
    assert sim_cluster.cluster.requests.reads < 30  # one list, not sixty reads
    assert _result(result, "c17").action is apply.Action.FAILED
    assert "already exists in the cluster and is not managed by gitfleet" in (
        _result(result, "c17").message
    )
    assert sum(o.action is apply.Action.CREATED for o in result.objects) == 59
    assert sim_cluster.objects.get("v1", "ConfigMap", "c17", "shop") == before


def test_overwrite_takes_it_over(sync: Sync, sim_cluster: RunningSim) -> None:
    sync([NAMESPACE, make_configmap("c1"), make_configmap("c2")])
    _theirs(sim_cluster, make_configmap("app", data={"owner": "platform"}))
    mine = make_configmap("app", data={"owner": "gitfleet"}, annotations=OVERWRITE)
    result = sync([NAMESPACE, make_configmap("c1"), make_configmap("c2"), mine], commit="r2")
    assert result.converged
    assert _result(result, "app").action is apply.Action.CONFIGURED
    live = sim_cluster.objects.get("v1", "ConfigMap", "app", "shop")
    assert live is not None and live["data"] == {"owner": "gitfleet"}
    assert stamp.is_managed(live, "member1")
    gone = sync([NAMESPACE, make_configmap("c1"), make_configmap("c2")], commit="r3")
    assert [(p.ref.name, p.action) for p in gone.pruned] == [("app", apply.Action.PRUNED)]
    assert sim_cluster.objects.get("v1", "ConfigMap", "app", "shop") is None


def test_a_takeover_after_an_abort_is_no_drift(sync: Sync, sim_cluster: RunningSim) -> None:
    """The aborted manifest was listed in the inventory: its object, there all along, is
    taken over, not reported as created again."""
    sync([NAMESPACE, make_configmap("c1"), make_configmap("c2")])
    _theirs(sim_cluster, make_configmap("app", data={"owner": "platform"}))
    docs = [NAMESPACE, make_configmap("c1"), make_configmap("c2")]
    aborted = sync([*docs, make_configmap("app")], commit="r2")
    assert _result(aborted, "app").action is apply.Action.FAILED
    allowed = make_configmap("app", annotations=OVERWRITE)
    taken = sync([*docs, allowed], commit="r3")
    assert taken.converged
    assert _result(taken, "app").action is apply.Action.CONFIGURED
    assert _result(taken, "app").drift == ()


def test_a_namespace_the_source_defines_is_not_taken(sync: Sync, sim_cluster: RunningSim) -> None:
    before = _theirs(sim_cluster, make_object("v1", "Namespace", "shop", labels={"team": "a"}))
    result = sync([NAMESPACE, make_configmap("c1")])
    assert _result(result, "shop").action is apply.Action.FAILED
    assert "Namespace/shop already exists in the cluster" in _result(result, "shop").message
    assert _result(result, "c1").action is apply.Action.CREATED
    assert sim_cluster.objects.get("v1", "Namespace", "shop") == before


def test_a_generated_namespace_found_is_used_as_it_is(sync: Sync, sim_cluster: RunningSim) -> None:
    before = _theirs(sim_cluster, make_object("v1", "Namespace", "team-b", labels={"team": "b"}))
    precious = _theirs(sim_cluster, make_configmap("precious", namespace="team-b"))
    generated = make_object("v1", "Namespace", "team-b", annotations=GENERATED)
    mine = make_configmap("app", namespace="team-b")
    result = sync([generated, mine])
    assert result.converged
    assert _result(result, "team-b").action is apply.Action.UNCHANGED
    assert _result(result, "team-b").message == ""  # no problem: nothing for status to show
    assert _result(result, "app").action is apply.Action.CREATED
    assert sim_cluster.objects.get("v1", "Namespace", "team-b") == before
    emptied = sync([make_configmap("keep", namespace="default")], commit="r2", allow_prune=True)
    assert [p.ref.name for p in emptied.pruned if p.action is apply.Action.PRUNED] == ["app"]
    assert sim_cluster.objects.get("v1", "Namespace", "team-b") == before
    assert sim_cluster.objects.get("v1", "ConfigMap", "precious", "team-b") == precious


def test_another_cluster_s_object_is_gitfleet_s(sync: Sync, sim_cluster: RunningSim) -> None:
    sync([NAMESPACE])
    labels = {stamp.MANAGED_BY_LABEL: stamp.MANAGED_BY, stamp.CLUSTER_LABEL: "elsewhere"}
    _theirs(sim_cluster, make_configmap("app", labels=labels))
    result = sync([NAMESPACE, make_configmap("app", data={"k": "mine"})], commit="r2")
    assert result.converged
    live = sim_cluster.objects.get("v1", "ConfigMap", "app", "shop")
    assert live is not None and live["data"]["k"] == "mine"
    assert stamp.is_managed(live, "member1")
