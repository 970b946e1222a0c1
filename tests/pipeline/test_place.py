"""The placement half of the pipeline: detect, schedule, distribute dependencies
(gitfleet.pipeline.place).

Aspects: a workload divided over the clusters its policy selects with its ConfigMap following it;
reported cluster status superseding the declared one field by field; a render fed its own result
is a fixed point (same bindings, same generations); a Divided result that stays put when a
cluster is added (Karmada's sticky division); a binding that cannot be scheduled does not stop
the others; observed generation; determinism.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from builders import (
    make_cluster,
    make_configmap,
    make_deployment,
    make_policy,
    object_set,
    previous_map,
    selector,
)

from gitfleet import interpreter, pipeline
from gitfleet.detector import detection
from gitfleet.model import cluster, meta

VOLUMES = [{"name": "conf", "configMap": {"name": "settings"}}]
DIVIDED = {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"}


def web_policy(*clusters: str, **placement: Any) -> dict[str, Any]:
    return make_policy(
        "web",
        selector(name="web"),
        propagateDeps=True,
        placement={
            "clusterAffinity": {"clusterNames": list(clusters)},
            "replicaScheduling": DIVIDED,
            **placement,
        },
    )


def place(
    docs: list[dict[str, Any]],
    previous: pipeline.Placement | None = None,
    **kwargs: Any,
) -> pipeline.Placement:
    prior = previous_map(previous.bindings if previous else None)
    return pipeline.place(object_set(docs), interpreter.Interpreter(), prior, **kwargs)


def clusters_of(result: pipeline.Placement, name: str) -> dict[str, int]:
    (b,) = [b for b in result.bindings if b.name == name]
    return {t.name: t.replicas for t in b.spec.clusters}


BASE = [
    make_deployment("web", replicas=4, volumes=VOLUMES),
    make_configmap(),
    web_policy("a", "b"),
    make_cluster("a", cpu="8"),
    make_cluster("b", cpu="8"),
    make_cluster("c", cpu="8"),
]


def test_workload_and_its_dependency_are_placed() -> None:
    result = place(BASE)
    assert clusters_of(result, "web-deployment") == {"a": 2, "b": 2}
    (attached,) = [b for b in result.bindings if b.name == "settings-configmap"]
    assert [(s.name, [c.name for c in s.clusters]) for s in attached.spec.required_by] == [
        ("web-deployment", ["a", "b"])
    ]
    ref = detection.BindingRef("ResourceBinding", "shop", "web-deployment")
    outcome = result.outcome(ref)
    assert outcome is not None and outcome.error is None
    assert any("a=2, b=2" in line for line in outcome.diagnosis.lines())
    assert result.dependencies[0].attached[0].name == "settings"
    assert [c.name for c in result.clusters] == ["a", "b", "c"]


def test_own_result_is_a_fixed_point() -> None:
    first = place(BASE)
    second = place(BASE, previous=first)
    assert [b.to_doc() for b in second.bindings] == [b.to_doc() for b in first.bindings]
    web = second.binding(detection.BindingRef("ResourceBinding", "shop", "web-deployment"))
    assert web is not None
    assert web.metadata.generation == web.status.scheduler_observed_generation == 1


def test_placement_is_deterministic() -> None:
    assert [b.to_doc() for b in place(BASE).bindings] == [
        b.to_doc() for b in place(list(reversed(BASE))).bindings
    ]


def test_divided_result_is_sticky_when_clusters_change() -> None:
    """Karmada reschedules a Divided workload only on a trigger (placement or replicas
    changed), not when a cluster joins."""
    anywhere = make_policy("web", selector(name="web"), placement={"replicaScheduling": DIVIDED})
    two = [make_deployment("web", replicas=4), anywhere, make_cluster("a"), make_cluster("b")]
    first = place(two)
    assert clusters_of(first, "web-deployment") == {"a": 2, "b": 2}
    three = [*two, make_cluster("c")]
    kept = place(three, previous=first)
    assert clusters_of(kept, "web-deployment") == {"a": 2, "b": 2}
    scaled = [make_deployment("web", replicas=6), *three[1:]]
    moved = place(scaled, previous=kept)
    assert clusters_of(moved, "web-deployment") == {"a": 2, "b": 2, "c": 2}
    web = moved.binding(detection.BindingRef("ResourceBinding", "shop", "web-deployment"))
    assert web is not None and web.metadata.generation == 2


def test_reported_status_supersedes_the_declared_one() -> None:
    without_apps = make_cluster("a", cpu="8")
    without_apps["status"]["apiEnablements"] = []
    docs = [make_deployment("web", replicas=2), web_policy("a"), without_apps]
    assert clusters_of(place(docs), "web-deployment") == {}
    reported = cluster.ClusterStatus(
        api_enablements=(
            cluster.APIEnablement(
                group_version="apps/v1",
                resources=(cluster.APIResource(name="deployments", kind="Deployment"),),
            ),
        )
    )
    result = place(docs, cluster_status={"a": reported})
    assert clusters_of(result, "web-deployment") == {"a": 2}
    (a,) = result.clusters
    assert a.status.resource_summary is not None, "declared capacity is kept"


@pytest.mark.parametrize(
    ("declared", "reported", "expected"),
    [
        pytest.param(
            cluster.ClusterStatus(kubernetes_version="v1.29.0"),
            None,
            cluster.ClusterStatus(kubernetes_version="v1.29.0"),
            id="nothing reported: declared",
        ),
        pytest.param(
            cluster.ClusterStatus(kubernetes_version="v1.29.0"),
            cluster.ClusterStatus(kubernetes_version="v1.30.1"),
            cluster.ClusterStatus(kubernetes_version="v1.30.1"),
            id="reported field wins",
        ),
        pytest.param(
            cluster.ClusterStatus(
                kubernetes_version="v1.29.0",
                node_summary=cluster.NodeSummary(total_num=3, ready_num=3),
            ),
            cluster.ClusterStatus(
                conditions=(meta.Condition(type="Ready", status="False"),),
            ),
            cluster.ClusterStatus(
                kubernetes_version="v1.29.0",
                node_summary=cluster.NodeSummary(total_num=3, ready_num=3),
                conditions=(meta.Condition(type="Ready", status="False"),),
            ),
            id="unreported fields keep their declared value",
        ),
    ],
)
def test_merge_status(
    declared: cluster.ClusterStatus,
    reported: cluster.ClusterStatus | None,
    expected: cluster.ClusterStatus,
) -> None:
    assert pipeline.merge_status(declared, reported) == expected


def test_unschedulable_binding_does_not_stop_the_others() -> None:
    """No cluster fits `api` (FitError: result cleared, Scheduled=False); `web` is placed."""
    docs = [
        *BASE,
        make_deployment("api", replicas=1),
        make_policy(
            "api", selector(name="api"), placement={"clusterAffinity": {"clusterNames": ["zz"]}}
        ),
    ]
    result = place(docs)
    assert clusters_of(result, "web-deployment") == {"a": 2, "b": 2}
    assert clusters_of(result, "api-deployment") == {}
    api = result.outcome(detection.BindingRef("ResourceBinding", "shop", "api-deployment"))
    assert api is not None and api.error is not None
    (b,) = [b for b in result.bindings if b.name == "api-deployment"]
    scheduled = [c for c in b.status.conditions if c.type == "Scheduled"]
    assert scheduled[0].status == "False"
    assert b.status.scheduler_observed_generation == 0


def test_failed_schedule_keeps_the_previous_result() -> None:
    """A failure other than 'no cluster fits' leaves Karmada's previous result in place."""
    aggregated = web_policy(
        "a",
        "b",
        replicaScheduling={
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Aggregated",
        },
    )
    docs = [*BASE[:2], aggregated, *BASE[3:]]
    first = place(docs)
    before = clusters_of(first, "web-deployment")
    assert sum(before.values()) == 4
    full = cluster.ClusterStatus(
        resource_summary=cluster.ResourceSummary(
            allocatable={"cpu": "8", "memory": "64Gi", "pods": 110},
            allocated={"cpu": "8", "memory": "64Gi", "pods": 110},
        )
    )
    grown = [make_deployment("web", replicas=9, volumes=VOLUMES), *docs[1:]]
    second = place(grown, previous=first, cluster_status={"a": full, "b": full})
    outcome = second.outcome(detection.BindingRef("ResourceBinding", "shop", "web-deployment"))
    assert outcome is not None and outcome.error is not None
    assert clusters_of(second, "web-deployment") == before


def test_diagnostics_of_every_stage_are_collected() -> None:
    dup = make_configmap()
    result = place([*BASE, dup])
    assert any("already defined" in d.message for d in result.diagnostics)
    assert dataclasses.is_dataclass(result)
