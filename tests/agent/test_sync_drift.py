"""Drift, take-over and immutable fields, against a simulated cluster.

Aspects covered:
- a field changed by hand is put back by the next sync and reported as drifted; the same
  value written back by hand is not drift;
- quantities the server stores in another form (`cpu: 0.5` as `500m`, `0.5Gi` as `512Mi`,
  `1000m` as `1`, a YAML number) are not drift: a second sync writes nothing;
- a label removed by hand is drift; a field gitfleet does not set is not;
- an object deleted by hand is created again and reported;
- an object `kubectl apply` created is taken over where its manifest allows a takeover: the
  last-applied annotation and kubectl's field owner are gone, and a field missing from Git is
  removed;
- an immutable field change is reported with the way out; with
  `gitfleet.io/recreate-on-immutable: "true"` the object is deleted and created again;
- a StatefulSet's changed volumeClaimTemplates and a RoleBinding's changed roleRef, refused
  without the word "immutable", are treated the same way;
- a claim's changed spec, refused with a report over many lines, is reported on one line (the
  first, how many lines follow, the way out) in the result and in works.yaml; the agent's log
  keeps the server's whole message;
- a Deployment changed to the Recreate strategy, or a StatefulSet to OnDelete, gets it, without
  the rollingUpdate the server defaulted (which an apply cannot remove and the server refuses
  beside the new type);
- a recreated Job is created from its manifest, not with the selector and pod labels Retain
  kept from the Job it replaces (the server refuses another Job's uid there).
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from agent.agent_kit import Sync
from builders import make_deployment, make_object
from simfixture import RunningSim

from gitfleet.agent import apply, report, stamp, takeover

NAMESPACE = make_object("v1", "Namespace", "shop")
MANUAL = "kubectl-edit"
OVERWRITE = {"work.karmada.io/conflict-resolution": "overwrite"}


def _live(sim_cluster: RunningSim) -> dict[str, Any]:
    found = sim_cluster.objects.get("apps/v1", "Deployment", "web", "shop")
    assert found is not None
    return found


def _edit(sim_cluster: RunningSim, patch: dict[str, Any]) -> None:
    """A merge patch by another field manager, as `kubectl edit` sends it."""
    resource = sim_cluster.resource("apps/v1", "Deployment")
    resource.patch(
        name="web",
        namespace="shop",
        body=patch,
        content_type="application/merge-patch+json",
        field_manager=MANUAL,
    )


def _web(result: apply.SyncResult) -> apply.ObjectResult:
    return next(o for o in result.objects if o.ref.name == "web")


def test_a_field_changed_by_hand_is_put_back(sync: Sync, sim_cluster: RunningSim) -> None:
    docs = [NAMESPACE, make_deployment(replicas=2)]
    sync(docs)
    _edit(sim_cluster, {"spec": {"replicas": 9}})
    result = sync(docs)
    assert _web(result).action is apply.Action.CONFIGURED
    assert _web(result).drift == ("spec.replicas",)
    assert result.drifted == (_web(result),)
    assert _live(sim_cluster)["spec"]["replicas"] == 2
    again = sync(docs)
    assert _web(again).action is apply.Action.UNCHANGED
    assert again.drifted == ()


def test_the_same_value_written_back_is_not_drift(sync: Sync, sim_cluster: RunningSim) -> None:
    docs = [NAMESPACE, make_deployment(replicas=2)]
    sync(docs)
    _edit(sim_cluster, {"spec": {"replicas": 9}})
    _edit(sim_cluster, {"spec": {"replicas": 2}})
    sim_cluster.cluster.reset_requests()
    result = sync(docs)
    assert _web(result).action is apply.Action.UNCHANGED
    assert sim_cluster.cluster.requests.writes == 0


def test_quantities_the_server_rewrites_are_not_drift(sync: Sync, sim_cluster: RunningSim) -> None:
    web = make_deployment(cpu="0.5")
    container = web["spec"]["template"]["spec"]["containers"][0]
    container["resources"]["limits"] = {"cpu": "1000m", "memory": "0.5Gi"}
    container["resources"]["requests"]["memory"] = 0.25  # a YAML number
    docs = [NAMESPACE, web]
    assert _web(sync(docs)).action is apply.Action.CREATED
    resources = _live(sim_cluster)["spec"]["template"]["spec"]["containers"][0]["resources"]
    assert resources == {
        "limits": {"cpu": "1", "memory": "512Mi"},
        "requests": {"cpu": "500m", "memory": "250m"},
    }
    sim_cluster.cluster.reset_requests()
    again = sync(docs)
    assert _web(again).action is apply.Action.UNCHANGED
    assert again.drifted == ()
    assert sim_cluster.cluster.requests.writes == 0


def test_a_label_removed_by_hand_is_drift(sync: Sync, sim_cluster: RunningSim) -> None:
    docs = [NAMESPACE, make_deployment(labels={"tier": "front"})]
    sync(docs)
    _edit(sim_cluster, {"metadata": {"labels": {"tier": None}}})
    result = sync(docs)
    assert _web(result).drift == ("metadata.labels.tier",)
    assert _live(sim_cluster)["metadata"]["labels"]["tier"] == "front"


def test_a_field_gitfleet_does_not_set_is_not_drift(sync: Sync, sim_cluster: RunningSim) -> None:
    docs = [NAMESPACE, make_deployment()]
    sync(docs)
    _edit(sim_cluster, {"metadata": {"annotations": {"note": "by hand"}}})
    result = sync(docs)
    assert _web(result).action is apply.Action.UNCHANGED
    assert _live(sim_cluster)["metadata"]["annotations"]["note"] == "by hand"


def test_an_object_deleted_by_hand_is_created_again(sync: Sync, sim_cluster: RunningSim) -> None:
    docs = [NAMESPACE, make_deployment()]
    sync(docs)
    sim_cluster.objects.delete("apps/v1", "Deployment", "web", "shop")
    result = sync(docs)
    assert _web(result).action is apply.Action.CREATED
    assert _web(result).drift == ("(object)",)
    assert _live(sim_cluster)["spec"]["replicas"] == 3


def test_an_object_kubectl_applied_is_taken_over(sync: Sync, sim_cluster: RunningSim) -> None:
    sync([NAMESPACE])
    old = make_deployment(labels={"legacy": "yes"})
    old["metadata"]["annotations"] = {takeover.LAST_APPLIED: json.dumps(old)}
    resource = sim_cluster.resource("apps/v1", "Deployment")
    resource.create(body=old, namespace="shop", field_manager="kubectl-client-side-apply")
    result = sync([NAMESPACE, make_deployment(replicas=4, annotations=OVERWRITE)])
    assert _web(result).action is apply.Action.CONFIGURED
    live = _live(sim_cluster)
    assert live["spec"]["replicas"] == 4
    assert "legacy" not in live["metadata"]["labels"]
    assert takeover.LAST_APPLIED not in live["metadata"]["annotations"]
    assert live["metadata"]["labels"][stamp.MANAGED_BY_LABEL] == "gitfleet"
    managers = {e["manager"] for e in live["metadata"]["managedFields"]}
    assert "kubectl-client-side-apply" not in managers
    assert not takeover.needed(live)


def test_an_immutable_change_is_reported(sync: Sync, sim_cluster: RunningSim) -> None:
    sync([NAMESPACE, make_deployment()])
    changed = make_deployment()
    changed["spec"]["selector"] = {"matchLabels": {"app": "web", "track": "stable"}}
    changed["spec"]["template"]["metadata"]["labels"]["track"] = "stable"
    result = sync([NAMESPACE, changed])
    assert _web(result).action is apply.Action.FAILED
    assert "immutable" in _web(result).message
    assert stamp.RECREATE_ON_IMMUTABLE in _web(result).message
    assert "track" not in _live(sim_cluster)["spec"]["selector"]["matchLabels"]


def test_an_immutable_change_recreates_when_allowed(sync: Sync, sim_cluster: RunningSim) -> None:
    sync([NAMESPACE, make_deployment()])
    uid = _live(sim_cluster)["metadata"]["uid"]
    changed = make_deployment(annotations={stamp.RECREATE_ON_IMMUTABLE: "true"})
    changed["spec"]["selector"] = {"matchLabels": {"app": "web", "track": "stable"}}
    changed["spec"]["template"]["metadata"]["labels"]["track"] = "stable"
    result = sync([NAMESPACE, changed])
    assert _web(result).action is apply.Action.RECREATED
    live = _live(sim_cluster)
    assert live["metadata"]["uid"] != uid
    assert live["spec"]["selector"]["matchLabels"]["track"] == "stable"


def _statefulset(storage: str, annotations: dict[str, str] | None = None) -> dict[str, Any]:
    labels = {"app": "db"}
    pod = {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "db", "image": "pg"}]}}
    claim = {"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"],
             "resources": {"requests": {"storage": storage}}}}  # fmt: skip
    spec = {"serviceName": "db", "selector": {"matchLabels": labels}, "template": pod,
            "volumeClaimTemplates": [claim]}  # fmt: skip
    meta = {"annotations": annotations} if annotations else {}
    return {**make_object("apps/v1", "StatefulSet", "db", "shop", **meta), "spec": spec}


def test_a_statefulset_claim_template_change_is_immutable(
    sync: Sync, sim_cluster: RunningSim
) -> None:
    sync([NAMESPACE, _statefulset("1Gi")])
    result = sync([NAMESPACE, _statefulset("2Gi")])
    (db,) = (o for o in result.objects if o.ref.name == "db")
    assert db.action is apply.Action.FAILED
    assert "updates to statefulset spec" in db.message
    assert stamp.RECREATE_ON_IMMUTABLE in db.message
    allowed = _statefulset("2Gi", annotations={stamp.RECREATE_ON_IMMUTABLE: "true"})
    result = sync([NAMESPACE, allowed])
    (db,) = (o for o in result.objects if o.ref.name == "db")
    assert db.action is apply.Action.RECREATED
    live = sim_cluster.objects.get("apps/v1", "StatefulSet", "db", "shop")
    assert live is not None
    assert live["spec"]["volumeClaimTemplates"][0]["spec"]["resources"]["requests"] == {
        "storage": "2Gi"
    }


def _claim(mode: str) -> dict[str, Any]:
    spec = {"accessModes": [mode], "resources": {"requests": {"storage": "1Gi"}}}
    return {**make_object("v1", "PersistentVolumeClaim", "data", "shop"), "spec": spec}


def test_a_claim_change_is_reported_on_one_line(
    sync: Sync, sim_cluster: RunningSim, caplog: pytest.LogCaptureFixture
) -> None:
    sync([NAMESPACE, _claim("ReadWriteOnce")])
    with caplog.at_level(logging.INFO, logger="gitfleet.agent.kube"):
        result = sync([NAMESPACE, _claim("ReadWriteMany")])
    (data,) = (o for o in result.objects if o.ref.name == "data")
    assert data.action is apply.Action.FAILED
    first = (
        'PersistentVolumeClaim "data" is invalid: spec: Forbidden: spec is immutable after'
        " creation except resources.requests for bound claims (+7 more lines); to let gitfleet"
        f' delete and create it again, annotate the manifest {stamp.RECREATE_ON_IMMUTABLE}: "true"'
    )
    assert data.message.endswith(first)
    assert "\n" not in data.message
    (entry,) = (m for m in report.works_document(result)["manifests"] if m["name"] == "data")
    assert entry["message"] == data.message
    assert '- \tAccessModes: []core.PersistentVolumeAccessMode{"ReadWriteMany"},' in caplog.text


def _job(command: str) -> dict[str, Any]:
    container = {"name": "m", "image": "busybox", "command": [command]}
    pod = {"spec": {"restartPolicy": "Never", "containers": [container]}}
    meta = {"annotations": {stamp.RECREATE_ON_IMMUTABLE: "true"}}
    return {**make_object("batch/v1", "Job", "migrate", "shop", **meta), "spec": {"template": pod}}


def test_a_recreated_job_gets_a_selector_of_its_own(sync: Sync, sim_cluster: RunningSim) -> None:
    sync([NAMESPACE, _job("v1")])
    result = sync([NAMESPACE, _job("v2")])
    (job,) = (o for o in result.objects if o.ref.name == "migrate")
    assert (job.action, job.message) == (apply.Action.RECREATED, "")
    live = sim_cluster.objects.get("batch/v1", "Job", "migrate", "shop")
    assert live is not None
    uid = live["metadata"]["uid"]
    assert live["spec"]["selector"]["matchLabels"] == {"batch.kubernetes.io/controller-uid": uid}
    assert live["spec"]["template"]["spec"]["containers"][0]["command"] == ["v2"]


def _binding(role: str, annotations: dict[str, str] | None = None) -> dict[str, Any]:
    meta = {"annotations": annotations} if annotations else {}
    binding = make_object("rbac.authorization.k8s.io/v1", "RoleBinding", "read", "shop", **meta)
    subject = {"kind": "ServiceAccount", "name": "app", "namespace": "shop"}
    ref = {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role}
    return {**binding, "roleRef": ref, "subjects": [subject]}


def test_a_changed_role_ref_is_immutable(sync: Sync, sim_cluster: RunningSim) -> None:
    sync([NAMESPACE, _binding("view")])
    result = sync([NAMESPACE, _binding("edit")])
    (read,) = (o for o in result.objects if o.ref.name == "read")
    assert read.action is apply.Action.FAILED
    assert stamp.RECREATE_ON_IMMUTABLE in read.message
    result = sync([NAMESPACE, _binding("edit", {stamp.RECREATE_ON_IMMUTABLE: "true"})])
    (read,) = (o for o in result.objects if o.ref.name == "read")
    assert read.action is apply.Action.RECREATED
    live = sim_cluster.objects.get("rbac.authorization.k8s.io/v1", "RoleBinding", "read", "shop")
    assert live is not None
    assert live["roleRef"]["name"] == "edit"


def test_a_statefulset_changed_to_on_delete_gets_it(sync: Sync, sim_cluster: RunningSim) -> None:
    """As a Deployment changed to Recreate (below): the defaulted `rollingUpdate` goes."""
    stateful = {**make_deployment(), "kind": "StatefulSet"}
    stateful["spec"] = {**stateful["spec"], "serviceName": "web"}
    sync([NAMESPACE, stateful])

    def live() -> dict[str, Any]:
        found = sim_cluster.objects.get("apps/v1", "StatefulSet", "web", "shop")
        assert found is not None
        return found

    assert "rollingUpdate" in live()["spec"]["updateStrategy"]
    changed = {**stateful, "spec": {**stateful["spec"], "updateStrategy": {"type": "OnDelete"}}}
    result = sync([NAMESPACE, changed])
    assert (_web(result).action, _web(result).message) == (apply.Action.CONFIGURED, "")
    assert live()["spec"]["updateStrategy"] == {"type": "OnDelete"}
    assert _web(sync([NAMESPACE, changed])).action is apply.Action.UNCHANGED


def test_a_change_to_the_recreate_strategy_applies(sync: Sync, sim_cluster: RunningSim) -> None:
    sync([NAMESPACE, make_deployment()])
    assert "rollingUpdate" in _live(sim_cluster)["spec"]["strategy"]
    changed = make_deployment()
    changed["spec"]["strategy"] = {"type": "Recreate"}
    result = sync([NAMESPACE, changed])
    assert (_web(result).action, _web(result).message) == (apply.Action.CONFIGURED, "")
    assert _live(sim_cluster)["spec"]["strategy"] == {"type": "Recreate"}
    assert _web(sync([NAMESPACE, changed])).action is apply.Action.UNCHANGED
