"""Karmada's policy defaults as the bindings carry them (CRD `+kubebuilder:default` markers in
pkg/apis/policy/v1alpha1/propagation_types.go; webhooks pkg/webhook/{propagationpolicy,
clusterpropagationpolicy}/mutating.go; pkg/util/helper/policy.go).

Aspects: replicaScheduling (nil stays nil, empty type Divided, Divided gets Weighted, explicit
values kept), spread constraints (cluster field, minGroups 1, label untouched), schedulerName,
conflictResolution, failover (purge modes, grace period, toleration), ServiceImport forcing
propagateDeps, a PropagationPolicy's selectors defaulting to its namespace; the replica fields
the API server defaults in a template (apps/v1 replicas, batch/v1 Job parallelism and
completions), counted by the binding but never written into the template.
"""

from __future__ import annotations

from typing import Any

import pytest
from builders import make_cluster_policy, make_deployment, make_object, make_policy, selector
from detector.detector_checks import Detect, binding_of

from gitfleet.model import _codec

WEB = make_deployment("web")


def placement_after(detect: Detect, placement: dict[str, Any]) -> dict[str, Any]:
    spec = binding_of(detect([WEB, make_policy("p", placement=placement)])).spec
    assert spec.placement is not None
    encoded: dict[str, Any] = _codec.encode(spec.placement)
    return encoded


@pytest.mark.parametrize(
    ("placement", "expected"),
    [
        pytest.param({}, {}, id="propagation_helper: nil replicaScheduling stays nil (Duplicated)"),
        pytest.param(
            {"replicaScheduling": {}},
            {
                "replicaScheduling": {
                    "replicaSchedulingType": "Divided",
                    "replicaDivisionPreference": "Weighted",
                }
            },
            id="CRD default Divided, then webhook Weighted",
        ),
        pytest.param(
            {"replicaScheduling": {"replicaSchedulingType": "Duplicated"}},
            {"replicaScheduling": {"replicaSchedulingType": "Duplicated"}},
            id="policy.go SetReplicaDivisionPreferenceWeighted: only for Divided",
        ),
        pytest.param(
            {
                "replicaScheduling": {
                    "replicaSchedulingType": "Divided",
                    "replicaDivisionPreference": "Aggregated",
                }
            },
            {
                "replicaScheduling": {
                    "replicaSchedulingType": "Divided",
                    "replicaDivisionPreference": "Aggregated",
                }
            },
            id="policy.go SetReplicaDivisionPreferenceWeighted: explicit preference kept",
        ),
        pytest.param(
            {"spreadConstraints": [{"maxGroups": 2}]},
            {"spreadConstraints": [{"spreadByField": "cluster", "maxGroups": 2, "minGroups": 1}]},
            id="policy.go SetDefaultSpreadConstraints: cluster field and minGroups 1",
        ),
        pytest.param(
            {"spreadConstraints": [{"spreadByLabel": "zone", "minGroups": 2}]},
            {"spreadConstraints": [{"spreadByLabel": "zone", "minGroups": 2}]},
            id="policy.go SetDefaultSpreadConstraints: a label constraint keeps no field",
        ),
    ],
)
def test_placement_defaults(
    detect: Detect, placement: dict[str, Any], expected: dict[str, Any]
) -> None:
    assert placement_after(detect, placement) == expected


def test_spec_defaults(detect: Detect) -> None:
    spec = binding_of(detect([WEB, make_policy("p")])).spec
    assert spec.scheduler_name == "default-scheduler"
    assert spec.conflict_resolution == "Abort"
    assert spec.propagate_deps is False
    assert spec.failover is None


@pytest.mark.parametrize(
    ("failover", "expected"),
    [
        pytest.param(
            {"application": {"decisionConditions": {}}},
            {
                "application": {
                    "decisionConditions": {"tolerationSeconds": 300},
                    "purgeMode": "Gracefully",
                    "gracePeriodSeconds": 600,
                }
            },
            id="CRD tolerationSeconds 300, purgeMode Gracefully; webhook grace 600",
        ),
        pytest.param(
            {"application": {"decisionConditions": {"tolerationSeconds": 0}, "purgeMode": "Never"}},
            {"application": {"decisionConditions": {"tolerationSeconds": 0}, "purgeMode": "Never"}},
            id="policy.go SetDefaultGracePeriodSeconds: only when purging Gracefully",
        ),
        pytest.param(
            {"cluster": {}},
            {"cluster": {"purgeMode": "Gracefully"}},
            id="CRD: cluster failover purgeMode Gracefully",
        ),
    ],
)
def test_failover_defaults(
    detect: Detect, failover: dict[str, Any], expected: dict[str, Any]
) -> None:
    spec = binding_of(detect([WEB, make_policy("p", failover=failover)])).spec
    assert _codec.encode(spec.failover) == expected


def test_service_import_forces_propagate_deps(detect: Detect) -> None:
    """mutating.go: ContainsServiceImport sets propagateDeps."""
    si = make_object("multicluster.x-k8s.io/v1alpha1", "ServiceImport", "web", "shop")
    policy = make_cluster_policy("c", selector("ServiceImport", "multicluster.x-k8s.io/v1alpha1"))
    assert binding_of(detect([si, policy])).spec.propagate_deps is True


def test_propagation_policy_selectors_default_to_its_namespace(detect: Detect) -> None:
    """mutating.go: an empty selector namespace becomes the policy's namespace, so a policy of
    another namespace never selects the template, even when a claim names it."""
    claimed = make_deployment(
        "web",
        labels={"propagationpolicy.karmada.io/permanent-id": "x"},
        annotations={
            "propagationpolicy.karmada.io/namespace": "billing",
            "propagationpolicy.karmada.io/name": "p",
        },
    )
    decision = detect([claimed, make_policy("p", namespace="billing")]).decisions[0]
    assert decision.winner is None
    assert "PropagationPolicy billing/p no longer selects it" in decision.message


def _job(**spec: Any) -> dict[str, Any]:
    job = make_object("batch/v1", "Job", "web", "shop")
    job["spec"] = {"template": {"spec": {"containers": [{"name": "pi", "image": "perl"}]}}, **spec}
    return job


def _without_replicas(kind: str, api_version: str = "apps/v1") -> dict[str, Any]:
    doc = make_deployment("web")
    doc.update(apiVersion=api_version, kind=kind)
    del doc["spec"]["replicas"]
    return doc


@pytest.mark.parametrize(
    ("template", "replicas"),
    [
        pytest.param(_without_replicas("Deployment"), 1, id="deployment without replicas: 1"),
        pytest.param(_without_replicas("StatefulSet"), 1, id="statefulset without replicas: 1"),
        pytest.param(_without_replicas("ReplicaSet"), 1, id="replicaset without replicas: 1"),
        pytest.param(make_deployment("web", replicas=None), 1, id="replicas null: 1"),
        pytest.param(make_deployment("web", replicas=0), 0, id="replicas 0 stays 0"),
        pytest.param(_job(), 1, id="job with neither count: 1"),
        pytest.param(_job(completions=5), 1, id="job with completions only: parallelism 1"),
        pytest.param(_job(parallelism=4), 4, id="job with parallelism only: 4"),
        pytest.param(_job(parallelism=4, completions=2), 2, id="job: capped by completions"),
    ],
)
def test_replica_fields_the_api_server_defaults(
    detect: Detect, template: dict[str, Any], replicas: int
) -> None:
    """k8s.io/kubernetes pkg/apis/apps/v1 and batch/v1 SetDefaults_*: Karmada's detector reads
    the template as its API server stored it."""
    kind, version = template["kind"], template["apiVersion"]
    policy = make_policy("p", selector(kind, version))
    before = repr(template)
    assert binding_of(detect([template, policy])).spec.replicas == replicas
    assert repr(template) == before
