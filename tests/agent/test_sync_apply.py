"""Applying a Work set to a simulated cluster through the official client.

Aspects covered:
- the first sync creates every object with gitfleet's labels, source annotations and content
  hash, owned by field manager `gitfleet`, and records them in the inventory;
- a second sync of the same Work set makes zero write requests and reports every object
  unchanged; a changed manifest is configured, the others stay untouched;
- a new rendered commit that changes no manifest writes nothing (the source commit is not
  hashed);
- order: Namespaces and CRDs first (a custom resource of a CRD created in the same sync is
  applied), webhook configurations last;
- one bad object (its namespace does not exist) fails alone, the others are applied;
- a CRD whose names the server refuses (another CRD of its group has them) fails at once with
  the server's reason, not after waiting for it to be Established, and the others go on;
- an incomplete Work set writes nothing and reports its problems;
- health and reflected status come from the interpreter, Lua customizations included;
- Retain keeps the member's replicas of a Deployment labelled retain-replicas;
- a stop requested before the sync writes nothing.
"""

from __future__ import annotations

import threading
import time

import workfiles
from agent.agent_kit import CLUSTER, FAST, Sync, work_set
from builders import make_configmap, make_deployment, make_object
from simfixture import WIDGETS_CRD, RunningSim

from gitfleet.agent import apply, inventory, kube, stamp, workdir
from gitfleet.interpreter import Interpreter
from gitfleet.model import config, work
from gitfleet.model.template import ResourceKey

NAMESPACE = make_object("v1", "Namespace", "shop")
WIDGET = {
    "apiVersion": "example.com/v1",
    "kind": "Widget",
    "metadata": {"name": "banner", "namespace": "shop"},
    "spec": {"replicas": 2},
}
WIDGET_HEALTH = {
    "apiVersion": "config.karmada.io/v1alpha1",
    "kind": "ResourceInterpreterCustomization",
    "metadata": {"name": "widgets"},
    "spec": {
        "target": {"apiVersion": "example.com/v1", "kind": "Widget"},
        "customizations": {
            "healthInterpretation": {
                "luaScript": (
                    "function InterpretHealth(observedObj)\n"
                    "  return observedObj.spec.replicas > 5\nend\n"
                )
            }
        },
    },
}


def _written_at(sim_cluster: RunningSim, ref: ResourceKey) -> int:
    """When an object was last written (resourceVersions count up in the simulator)."""
    live = sim_cluster.objects[(ref.api_version, ref.kind, ref.namespace, ref.name)]
    return int(live["metadata"]["resourceVersion"])


def _by_name(result: apply.SyncResult) -> dict[str, apply.ObjectResult]:
    return {o.ref.name: o for o in result.objects}


def test_first_sync_creates_stamped_objects_and_records_them(
    sync: Sync, sim_cluster: RunningSim
) -> None:
    result = sync([NAMESPACE, make_deployment(replicas=2), make_configmap()])
    assert result.converged, result
    assert {o.action for o in result.objects} == {apply.Action.CREATED}
    live = sim_cluster.objects.get("apps/v1", "Deployment", "web", "shop")
    assert live is not None
    assert live["spec"]["replicas"] == 2
    labels, notes = live["metadata"]["labels"], live["metadata"]["annotations"]
    assert labels[stamp.MANAGED_BY_LABEL] == "gitfleet"
    assert labels[stamp.CLUSTER_LABEL] == CLUSTER
    assert notes[stamp.SOURCE_PATH] == "works/member1/shop/Deployment.apps/web.yaml"
    assert notes[stamp.SOURCE_COMMIT] == "s-r1"
    assert len(notes[stamp.CONTENT_HASH]) == 64
    managers = {e["manager"] for e in live["metadata"]["managedFields"]}
    assert "gitfleet" in managers
    held = sim_cluster.objects.get("v1", "ConfigMap", inventory.NAME, inventory.NAMESPACE)
    assert held is not None
    names = sorted(e.ref.name for e in inventory.decode(held).entries.values())
    assert names == ["settings", "shop", "web"]


def test_a_sync_that_changes_nothing_writes_nothing(sync: Sync, sim_cluster: RunningSim) -> None:
    docs = [NAMESPACE, make_deployment(), make_configmap()]
    sync(docs)
    sim_cluster.cluster.reset_requests()
    result = sync(docs)
    assert result.converged
    assert {o.action for o in result.objects} == {apply.Action.UNCHANGED}
    assert sim_cluster.cluster.requests.writes == 0


def test_a_new_rendered_commit_without_changes_writes_nothing(
    sync: Sync, sim_cluster: RunningSim
) -> None:
    docs = [NAMESPACE, make_deployment()]
    sync(docs, commit="r1")
    sim_cluster.cluster.reset_requests()
    result = sync(docs, commit="r2")
    assert {o.action for o in result.objects} == {apply.Action.UNCHANGED}
    assert sim_cluster.cluster.requests.writes == 0


def test_only_changed_manifests_are_written(sync: Sync, sim_cluster: RunningSim) -> None:
    sync([NAMESPACE, make_deployment(replicas=2), make_configmap()])
    sim_cluster.cluster.reset_requests()
    result = sync([NAMESPACE, make_deployment(replicas=5), make_configmap()], commit="r2")
    actions = {name: o.action for name, o in _by_name(result).items()}
    assert actions == {
        "shop": apply.Action.UNCHANGED,
        "web": apply.Action.CONFIGURED,
        "settings": apply.Action.UNCHANGED,
    }
    assert sim_cluster.cluster.requests.writes == 2  # the Deployment, and the inventory's hash
    live = sim_cluster.objects.get("apps/v1", "Deployment", "web", "shop")
    assert live is not None and live["spec"]["replicas"] == 5
    assert live["metadata"]["annotations"][stamp.SOURCE_COMMIT] == "s-r2"


def test_namespaces_and_crds_come_first_webhooks_last(sync: Sync, sim_cluster: RunningSim) -> None:
    webhook = make_object("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", "v")
    webhook["webhooks"] = []
    result = sync([webhook, WIDGET, make_configmap(), WIDGETS_CRD, NAMESPACE])
    assert result.converged, result
    versions = {o.ref.name: _written_at(sim_cluster, o.ref) for o in result.objects}
    assert max(versions["shop"], versions["widgets.example.com"]) < versions["settings"]
    assert versions["settings"] < versions["v"]
    assert versions["banner"] < versions["v"]


def test_one_failing_object_does_not_stop_the_others(sync: Sync, sim_cluster: RunningSim) -> None:
    result = sync([NAMESPACE, make_configmap(namespace="nowhere"), make_deployment()])
    by_name = _by_name(result)
    assert by_name["settings"].action is apply.Action.FAILED
    assert "nowhere" in by_name["settings"].message
    assert by_name["web"].action is apply.Action.CREATED
    assert not result.converged
    assert sim_cluster.objects.get("apps/v1", "Deployment", "web", "shop") is not None


def _crd(plural: str, kind: str) -> dict[str, object]:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.names.example.com"},
        "spec": {
            "group": "names.example.com",
            "scope": "Namespaced",
            "names": {"kind": kind, "plural": plural},
            "versions": [
                {"name": "v1", "served": True, "storage": True,
                 "schema": {"openAPIV3Schema": {"type": "object"}}}
            ],
        },
    }  # fmt: skip


def test_a_crd_whose_names_are_in_use_fails_at_once(sync: Sync) -> None:
    assert sync([_crd("gizmos", "Gizmo")]).converged
    started = time.monotonic()
    result = sync([_crd("gizmos", "Gizmo"), _crd("gadgets", "Gizmo"), NAMESPACE])
    assert time.monotonic() - started < FAST.wait_timeout
    by_name = _by_name(result)
    refused = by_name["gadgets.names.example.com"]
    assert refused.action is apply.Action.FAILED
    assert refused.message == (
        "CustomResourceDefinition gadgets.names.example.com cannot be Established: its names"
        ' are not accepted (ListKindConflict): "GizmoList" is already in use'
    )
    assert by_name["shop"].action is apply.Action.CREATED


def test_an_incomplete_work_set_writes_nothing(
    client: kube.KubeClient, sim_cluster: RunningSim
) -> None:
    files = workfiles.work_files({CLUSTER: [NAMESPACE]})
    files["works/member1/shop/ConfigMap.core/broken.yaml"] = b"a: [unclosed\n"
    incomplete = workdir.parse(CLUSTER, files, rendered_commit="r1")
    sim_cluster.cluster.reset_requests()
    result = apply.sync(client, incomplete)
    assert "did not load completely" in result.error
    assert "broken.yaml" in result.error
    assert [o.action for o in result.objects] == [apply.Action.SKIPPED]
    assert sim_cluster.cluster.requests.writes == 0
    assert sim_cluster.objects.get("v1", "Namespace", "shop") is None


def test_health_and_status_come_from_the_interpreter(sync: Sync) -> None:
    customization = config.ResourceInterpreterCustomization.from_doc(WIDGET_HEALTH)
    chain = Interpreter([customization])
    result = sync([NAMESPACE, WIDGETS_CRD, WIDGET, make_deployment(replicas=2)], interpreter=chain)
    by_name = _by_name(result)
    assert by_name["banner"].health is work.ResourceHealth.UNHEALTHY  # the Lua rule: > 5
    assert by_name["web"].health is work.ResourceHealth.HEALTHY
    assert by_name["web"].status["readyReplicas"] == 2
    assert by_name["shop"].status == {"phase": "Active"}


def test_retain_keeps_the_members_replicas(sync: Sync, sim_cluster: RunningSim) -> None:
    label = {"resourcetemplate.karmada.io/retain-replicas": "true"}
    sync([NAMESPACE, make_deployment(replicas=2, labels=label)])
    live = sim_cluster.objects.get("apps/v1", "Deployment", "web", "shop")
    assert live is not None
    live["spec"]["replicas"] = 7  # an autoscaler in the member scaled it
    sim_cluster.objects.put(live)
    result = sync([NAMESPACE, make_deployment(replicas=3, labels=label)], commit="r2")
    assert _by_name(result)["web"].action is apply.Action.CONFIGURED
    after = sim_cluster.objects.get("apps/v1", "Deployment", "web", "shop")
    assert after is not None and after["spec"]["replicas"] == 7


def test_a_stop_before_the_sync_writes_nothing(
    client: kube.KubeClient, sim_cluster: RunningSim
) -> None:
    stop = threading.Event()
    stop.set()
    sim_cluster.cluster.reset_requests()
    result = apply.sync(client, work_set([NAMESPACE, make_configmap()]), stop=stop)
    assert result.cancelled
    assert not result.converged
    assert {o.action for o in result.objects} == {apply.Action.SKIPPED}
    assert sim_cluster.objects.get("v1", "Namespace", "shop") is None
