"""An object its member cluster is deleting, held there by a finalizer, as a sync reports it.

Aspects covered (against the simulated cluster, which keeps an object with finalizers
Terminating until they are removed):
- a Deployment that was Healthy and is now being deleted is reported not applied, its health
  Unknown, with a message naming since when and the finalizer holding it; its status is still
  reflected; the sync has not converged;
- works.yaml says the same, and `gitfleet status`'s view counts it as not applied on that
  cluster, shows the binding's health Unknown, and lists the message among the cluster's errors;
- on a simulated and on a real API server: a ConfigMap held by a finalizer is reported not
  applied, its health Unknown, naming the finalizer; once the finalizer goes and the object
  with it, the next sync creates it again and reports it applied and Healthy.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Iterator

import pytest
import realk8s_session
from agent.agent_kit import CLUSTER, FAST, Sync, work_set
from builders import make_configmap, make_deployment, make_object
from simfixture import RunningSim
from status.status_kit import binding, ready_status

from gitfleet import status
from gitfleet.agent import apply, inventory, kube, report, stamp
from gitfleet.interpreter import Interpreter
from gitfleet.model import work
from gitfleet.status import reports

NAMESPACE = make_object("v1", "Namespace", "shop")
HOLD = "example.com/hold"
DOCS = [NAMESPACE, make_deployment(replicas=2)]


CONFIGMAPS = kube.ResourceType("v1", "ConfigMap", "configmaps", True)
REAL_CLUSTER = "gcp-euw1-gpu"
HOLDING = "holding"
"""The namespace of the ConfigMap held by a finalizer: its own, on the shared real tier."""


@dataclasses.dataclass(frozen=True)
class Member:
    client: kube.KubeClient
    cluster: str
    """The name its agent syncs as."""


@pytest.fixture(name="member", params=realk8s_session.SERVER_KINDS)
def member_fixture(request: pytest.FixtureRequest) -> Iterator[Member]:
    """An administrator's client of a simulated member, then of a real API server. The real
    tier serves the whole session: the sync there takes the name the server's inventory was
    written for when another test synced there first, as that member's agent would, and its
    first sync may prune what that test left; the inventory goes afterwards, so that the
    tier's next test finds none."""
    if request.param == "sim":
        kubeconfig = request.getfixturevalue("sim_cluster").kubeconfig
    else:
        kubeconfig = request.getfixturevalue("real_tier")(REAL_CLUSTER, "admin")
    client = kube.KubeClient(kubeconfig, name=CLUSTER, retry=kube.NO_WAIT)
    held = client.get(inventory.CONFIGMAP, inventory.NAMESPACE, inventory.NAME)
    notes = (held or {}).get("metadata", {}).get("annotations") or {}
    try:
        yield Member(client, notes.get(stamp.CLUSTER_LABEL, CLUSTER))
    finally:
        client.delete(inventory.CONFIGMAP, inventory.NAMESPACE, inventory.NAME)
        client.close()


def _named(result: apply.SyncResult, name: str) -> apply.ObjectResult:
    (found,) = [o for o in result.objects if o.ref.name == name]
    return found


def _web(result: apply.SyncResult) -> apply.ObjectResult:
    return _named(result, "web")


def _hold_and_delete(sim_cluster: RunningSim) -> str:
    """Put a finalizer on the Deployment and delete it, as another controller and a user
    would; returns its deletionTimestamp."""
    live = sim_cluster.objects.get("apps/v1", "Deployment", "web", "shop")
    assert live is not None
    live["metadata"]["finalizers"] = [HOLD]
    sim_cluster.objects.put(live)
    assert sim_cluster.objects.delete("apps/v1", "Deployment", "web", "shop") is False
    held = sim_cluster.objects.get("apps/v1", "Deployment", "web", "shop")
    assert held is not None
    since: str = held["metadata"]["deletionTimestamp"]
    return since


def test_a_terminating_object_is_not_applied(sync: Sync, sim_cluster: RunningSim) -> None:
    first = _web(sync(DOCS))
    assert first.applied
    assert first.health is work.ResourceHealth.HEALTHY
    since = _hold_and_delete(sim_cluster)
    result = sync(DOCS, commit="r2")
    web = _web(result)
    assert not web.applied
    assert web.health is work.ResourceHealth.UNKNOWN
    assert web.message == (
        f"being deleted since {since}, held by finalizers {HOLD}; created again once it is gone"
    )
    assert web.status["readyReplicas"] == 2
    assert not result.converged

    files = {
        report.WORKS_FILE: report.encode(report.works_document(result)),
        report.CLUSTER_FILE: report.encode(
            report.cluster_document(
                "member1", ready_status(), heartbeat="2026-01-01T00:00:00Z", rendered_commit="r2"
            )
        ),
    }
    (entry,) = [m for m in report.works_document(result)["manifests"] if m["name"] == "web"]
    assert (entry["applied"], entry["health"], entry["message"]) == (
        False,
        "Unknown",
        web.message,
    )
    view = status.fleet(
        status.Rendered(branch="gitfleet/rendered", commit="r2", source_commit="s-r2"),
        bindings=[binding(clusters={"member1": 2}, replicas=2)],
        reports_by_cluster={"member1": reports.decode("member1", files)},
        modes={},
        applied={},
        templates={},
        interp=Interpreter(),
        now=datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC),
        grace=40,
    )
    (row,) = view.resources
    assert [(i.applied, i.applied_message) for i in row.items] == [(False, web.message)]
    assert row.health is work.ResourceHealth.UNKNOWN
    (member,) = view.clusters
    assert f"works/member1/shop/Deployment.apps/web.yaml: {web.message}" in member.errors


def _finalize(client: kube.KubeClient, finalizers: list[str]) -> None:
    """Set the ConfigMap's finalizers, as a controller of its own would (its field manager)."""
    body = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "settings", "namespace": HOLDING, "finalizers": finalizers},
    }
    client.apply(CONFIGMAPS, body, manager="holder")


def test_terminating_then_gone_then_created_again(member: Member) -> None:
    client = member.client
    docs = [make_object("v1", "Namespace", HOLDING), make_configmap(namespace=HOLDING)]
    ours = work_set(docs, cluster=member.cluster, allow_prune=True)  # what others left there
    first = apply.sync(client, ours, options=FAST)
    assert _named(first, "settings").applied, first
    _finalize(client, [HOLD])
    client.delete(CONFIGMAPS, HOLDING, "settings")
    held = client.get(CONFIGMAPS, HOLDING, "settings")
    assert held is not None and held["metadata"].get("deletionTimestamp")
    result = apply.sync(client, work_set(docs, commit="r2", cluster=member.cluster), options=FAST)
    settings = _named(result, "settings")
    assert (settings.applied, settings.health) == (False, work.ResourceHealth.UNKNOWN)
    assert f"held by finalizers {HOLD}" in settings.message
    assert not result.converged
    _finalize(client, [])
    assert client.get(CONFIGMAPS, HOLDING, "settings") is None
    again = apply.sync(client, work_set(docs, commit="r3", cluster=member.cluster), options=FAST)
    settings = _named(again, "settings")
    assert settings.action is apply.Action.CREATED
    assert (settings.applied, settings.health) == (True, work.ResourceHealth.HEALTHY)
    assert again.converged
