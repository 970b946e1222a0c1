"""The binding the detector builds (Karmada pkg/detector/detector.go BuildResourceBinding,
BuildClusterResourceBinding, ApplyPolicy's update function, applyReplicaInterpretation;
pkg/util/names GenerateBindingName; pkg/util/binding.go MergePolicySuspension).

Aspects: names (lowercase, `:` as `.`) and scope (ResourceBinding in the template's namespace,
also under a ClusterPropagationPolicy; ClusterResourceBinding for cluster-scoped templates);
spec fields copied from the policy; replicas and requirements from the interpreter only for
kinds it interprets; claim labels and deterministic permanent ids; what is carried over from the
previous binding (schedule result, status, foreign labels and annotations, suspension.scheduling)
and what is not (a ClusterResourceBinding keeps its propagateDeps); generation; schedulePriority
from PriorityClasses; binding name collisions, and names over the API server's limit.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from builders import (
    make_cluster_policy,
    make_configmap,
    make_deployment,
    make_object,
    make_policy,
    selector,
)
from detector.detector_checks import Detect, binding_of, decision_of

from gitfleet.detector import detection
from gitfleet.model import diagnostic, meta, work

WEB = make_deployment("web", replicas=4, cpu="250m")
ALL = selector()


def test_namespaced_template_gets_a_resource_binding(detect: Detect) -> None:
    b = binding_of(detect([WEB, make_policy("p", ALL)]))
    assert isinstance(b, work.ResourceBinding)
    assert (b.namespace, b.name) == ("shop", "web-deployment")
    r = b.spec.resource
    assert (r.api_version, r.kind, r.namespace, r.name, r.uid) == (
        "apps/v1",
        "Deployment",
        "shop",
        "web",
        "",
    )
    assert b.metadata.finalizers == ("karmada.io/binding-controller",)
    assert b.metadata.owner_references[0]["kind"] == "Deployment"


def test_cluster_policy_on_namespaced_template_still_gives_a_resource_binding(
    detect: Detect,
) -> None:
    """ApplyClusterPolicy: a namespaced template gets a ResourceBinding (CPP claim)."""
    b = binding_of(detect([WEB, make_cluster_policy("c", ALL)]))
    assert isinstance(b, work.ResourceBinding)
    assert b.namespace == "shop"
    assert (b.metadata.annotations or {})["clusterpropagationpolicy.karmada.io/name"] == "c"


def test_cluster_scoped_template_gets_a_cluster_resource_binding(detect: Detect) -> None:
    role = make_object("rbac.authorization.k8s.io/v1", "ClusterRole", "system:reader", uid="u-1")
    sel = selector("ClusterRole", "rbac.authorization.k8s.io/v1")
    b = binding_of(detect([role, make_cluster_policy("c", sel)]), "system:reader")
    assert isinstance(b, work.ClusterResourceBinding)
    assert (b.namespace, b.name) == ("", "system.reader-clusterrole")
    assert b.spec.resource.uid == "u-1"
    assert b.metadata.finalizers == ("karmada.io/cluster-resource-binding-controller",)
    assert "clusterresourcebinding.karmada.io/permanent-id" in (b.metadata.labels or {})


def test_policy_fields_are_copied(detect: Detect) -> None:
    policy = make_policy(
        "p",
        ALL,
        propagateDeps=True,
        schedulerName="special",
        conflictResolution="Overwrite",
        preserveResourcesOnDeletion=True,
        suspension={"dispatching": True},
        failover={"cluster": {"purgeMode": "Directly"}},
        placement={"clusterAffinity": {"clusterNames": ["a"]}},
    )
    spec = binding_of(detect([WEB, policy])).spec
    assert spec.propagate_deps is True
    assert spec.scheduler_name == "special"
    assert spec.conflict_resolution == "Overwrite"
    assert spec.preserve_resources_on_deletion is True
    assert spec.suspension == work.BindingSuspension(dispatching=True)
    assert spec.failover is not None and spec.failover.cluster is not None
    assert spec.failover.cluster.purge_mode == "Directly"
    assert spec.placement is not None and spec.placement.cluster_affinity is not None
    assert spec.placement.cluster_affinity.cluster_names == ("a",)


def test_replicas_come_from_the_interpreter(detect: Detect) -> None:
    """applyReplicaInterpretation: GetReplicas for kinds with the InterpretReplica hook."""
    spec = binding_of(detect([WEB, make_policy("p", ALL)])).spec
    assert spec.replicas == 4
    assert spec.replica_requirements is not None
    assert spec.replica_requirements.resource_request == {"cpu": "250m"}


def test_kinds_without_replicas_have_none(detect: Detect) -> None:
    cm = make_configmap()
    spec = binding_of(detect([cm, make_policy("p", selector("ConfigMap", "v1"))]), "settings").spec
    assert (spec.replicas, spec.replica_requirements) == (0, None)


def test_interpreter_failure_keeps_the_previous_binding(detect: Detect) -> None:
    """Karmada retries on a GetReplicas error and leaves the binding as it was."""
    before = detect([WEB, make_policy("p", ALL)])
    broken = make_deployment("web")
    broken["spec"]["replicas"] = "many"
    after = detect([broken, make_policy("p", ALL)], previous=before)
    decision = decision_of(after)
    assert decision.outcome == detection.Outcome.FAILED
    assert binding_of(after) == binding_of(before)
    assert any(d.severity == diagnostic.Severity.ERROR for d in after.diagnostics)


def test_permanent_ids_are_deterministic(detect: Detect) -> None:
    docs = [WEB, make_policy("p", ALL)]
    first, second = binding_of(detect(docs)), binding_of(detect(list(reversed(docs))))
    labels = first.metadata.labels or {}
    assert labels == (second.metadata.labels or {})
    assert labels["propagationpolicy.karmada.io/permanent-id"] != (
        binding_of(detect([WEB, make_policy("q", ALL)])).metadata.labels or {}
    ).get("propagationpolicy.karmada.io/permanent-id")
    assert len(labels["resourcebinding.karmada.io/permanent-id"]) == 36


def test_previous_state_is_carried_over(detect: Detect) -> None:
    """ApplyPolicy updates only its fields; spec.clusters is the scheduler's."""
    old = binding_of(detect([WEB, make_policy("p", ALL)]))
    condition = meta.Condition(type="Scheduled", status="True", reason="Success")
    old = dataclasses.replace(
        old,
        metadata=dataclasses.replace(
            old.metadata,
            labels={**(old.metadata.labels or {}), "team": "shop"},
            annotations={
                **(old.metadata.annotations or {}),
                "policy.karmada.io/applied-placement": "{}",
            },
        ),
        spec=dataclasses.replace(
            old.spec,
            clusters=(work.TargetCluster(name="a", replicas=4),),
            reschedule_triggered_at="2026-01-01T00:00:00Z",
            suspension=work.BindingSuspension(scheduling=True),
            replicas=99,
        ),
        status=dataclasses.replace(old.status, conditions=(condition,)),
    )
    b = binding_of(detect([WEB, make_policy("p", ALL)], previous=[old]))
    assert b.spec.clusters == (work.TargetCluster(name="a", replicas=4),)
    assert b.spec.reschedule_triggered_at == "2026-01-01T00:00:00Z"
    assert b.spec.suspension == work.BindingSuspension(scheduling=True)
    assert b.spec.replicas == 4, "replicas are the detector's and are refreshed"
    assert b.status.conditions == (condition,)
    assert (b.metadata.labels or {})["team"] == "shop"
    assert (b.metadata.annotations or {})["policy.karmada.io/applied-placement"] == "{}"
    assert b.metadata.generation == 2


def test_unchanged_source_keeps_the_generation(detect: Detect) -> None:
    docs = [WEB, make_policy("p", ALL)]
    first = detect(docs)
    assert binding_of(detect(docs, previous=first)) == binding_of(first)
    assert binding_of(first).metadata.generation == 1


@pytest.mark.parametrize(
    ("schedule_priority", "classes", "expected"),
    [
        pytest.param(
            {"priorityClassSource": "KubePriorityClass", "priorityClassName": "high"},
            [{"name": "high", "value": 1000}],
            1000,
            id="detector.go BuildResourceBinding: value of the Kubernetes PriorityClass",
        ),
        pytest.param(
            {"priorityClassSource": "KubePriorityClass", "priorityClassName": "missing"},
            [],
            None,
            id="detector.go BuildResourceBinding: a missing PriorityClass fails the build",
        ),
    ],
)
def test_schedule_priority(
    detect: Detect,
    schedule_priority: dict[str, str],
    classes: list[dict[str, Any]],
    expected: int | None,
) -> None:
    docs: list[dict[str, Any]] = [
        WEB,
        make_policy("p", ALL, schedulePriority=schedule_priority),
        *(
            {**make_object("scheduling.k8s.io/v1", "PriorityClass", c["name"]), "value": c["value"]}
            for c in classes
        ),
    ]
    result = detect(docs)
    decision = decision_of(result)
    if expected is None:
        assert decision.outcome == detection.Outcome.FAILED
        assert decision.binding is None
        assert "schedulePriority" in result.diagnostics[0].message
    else:
        spec = binding_of(result).spec
        assert spec.schedule_priority == work.BindingSchedulePriority(priority=expected)


def test_binding_name_collision_keeps_the_first(detect: Detect) -> None:
    """GenerateBindingName lowercases: `Web` and `web` of one kind share a binding name."""
    docs = [make_deployment("web"), make_deployment("Web"), make_policy("p", ALL)]
    result = detect(docs)
    assert len(result.bindings) == 1
    assert result.bindings[0].spec.resource.name == "Web"
    loser = decision_of(result, "web")
    assert loser.outcome == detection.Outcome.FAILED
    assert "already the binding of" in loser.message


@pytest.mark.parametrize(("length", "bound"), [(242, True), (243, False)])
def test_a_binding_name_over_the_api_servers_limit_gets_no_binding(
    detect: Detect, length: int, bound: bool
) -> None:
    """`<name>-deployment` of a 243-character name is 254 characters: the API server refuses
    the binding Karmada creates, which never exists."""
    name = "w" * length
    result = detect([make_deployment(name), make_policy("p", ALL)])
    assert len(result.bindings) == int(bound)
    if bound:
        return
    assert decision_of(result, name).outcome == detection.Outcome.FAILED
    (error,) = [d for d in result.diagnostics if d.severity == diagnostic.Severity.ERROR]
    assert error.origin.keys[-2:] == ("metadata", "name")
    assert "its binding's name (254 characters" in error.message
    assert "longer than the 253 an object name may have" in error.message


@pytest.mark.parametrize("before", [True, False])
def test_cluster_resource_binding_keeps_its_propagate_deps(detect: Detect, before: bool) -> None:
    """ApplyClusterPolicy's update of an existing ClusterResourceBinding copies every policy
    field but propagateDeps: Karmada's binding keeps the value it was created with."""
    role = make_object("rbac.authorization.k8s.io/v1", "ClusterRole", "reader")
    sel = selector("ClusterRole", "rbac.authorization.k8s.io/v1")
    first = detect([role, make_cluster_policy("c", sel, propagateDeps=before)])
    assert binding_of(first, "reader").spec.propagate_deps is before
    policy = make_cluster_policy("c", sel, propagateDeps=not before, schedulerName="other")
    b = binding_of(detect([role, policy], previous=first), "reader")
    assert b.spec.scheduler_name == "other"
    assert b.spec.propagate_deps is before
    swapped = detect([role, make_cluster_policy("d", sel, propagateDeps=not before)])
    assert binding_of(swapped, "reader").spec.propagate_deps is (not before)


def test_resource_binding_takes_the_policy_propagate_deps(detect: Detect) -> None:
    """ApplyPolicy and ApplyClusterPolicy refresh a ResourceBinding's propagateDeps."""
    first = detect([WEB, make_cluster_policy("c", ALL, propagateDeps=True)])
    b = binding_of(detect([WEB, make_cluster_policy("c", ALL)], previous=first))
    assert b.spec.propagate_deps is False
