"""After a schedule finds no cluster that fits, the next schedules start from the state Karmada
is in: Karmada patched an empty result (scheduler.go scheduleResourceBindingWithClusterAffinity
and ...WithClusterAffinities, patchScheduleResultForResourceBinding), where gitfleet keeps the
previous clusters (docs/karmada-compatibility.md).

Aspects covered:
- a Divided workload whose policy names a cluster that joins later moves there (its replicas
  no longer add up in Karmada's empty result), in a source repository rendered as a user does;
- the schedule after it divides all replicas afresh: the kept clusters are neither a previous
  result to scale from nor preferred by locality;
- the kept clusters stay in the binding while schedules keep failing, NoClusterFit or
  Unschedulable, and are replaced at the first success, which drops the marker;
- every clusterAffinities term failing to fit clears Karmada's result as well;
- a Divided workload scaled to 0 meanwhile: Karmada has nothing to schedule and runs it
  nowhere, and the kept clusters go;
- `explain` says why the schedule reads an empty result;
- property: once the placement fits again, the result is the one a first schedule of the
  same binding on the same clusters gives, whatever the kept clusters were.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import yaml
from builders import DYNAMIC_WEIGHT, make_cluster, make_deployment, make_policy, selector
from conftest import GitRepo, Invoke
from hypothesis import given, settings
from scheduler_builders import dynamic, make_binding, summary, targets
from scheduler_builders import make_cluster as scheduler_cluster
from test_scheduling_properties import scenarios

from gitfleet.model import cluster, policy, work
from gitfleet.scheduler import schedule

NOW = "2026-05-01T10:00:00Z"
CLEARED = "gitfleet.io/result-cleared"


def _source(names: list[str], clusters: dict[str, str]) -> dict[str, str]:
    placement = {"clusterAffinity": {"clusterNames": names}, **DYNAMIC_WEIGHT}
    docs = {
        "apps/web.yaml": [make_deployment("web", replicas=4)],
        "policies/web.yaml": [make_policy("web", selector(name="web"), placement=placement)],
        "clusters.yaml": [make_cluster(name, cpu=cpu) for name, cpu in clusters.items()],
    }
    return {rel: yaml.safe_dump_all(d, sort_keys=False) for rel, d in docs.items()}


def _placed(git_repo: GitRepo) -> list[dict[str, object]]:
    text = git_repo.git("show", "gitfleet/rendered:bindings/shop/Deployment.apps/web.yaml")
    clusters: list[dict[str, object]] = yaml.safe_load(text)["spec"]["clusters"]
    return clusters


def test_a_cluster_joining_after_no_cluster_fit_takes_the_workload(
    cli: Invoke, git_repo: GitRepo
) -> None:
    git_repo.commit(_source(["east"], {"east": "8", "west": "8"}))
    assert cli("render", "--repo", str(git_repo.path)).exit_code == 0
    git_repo.commit(_source(["north"], {"east": "8", "west": "8"}))
    assert cli("render", "--repo", str(git_repo.path)).exit_code == 3
    assert _placed(git_repo) == [{"name": "east", "replicas": 4}]
    git_repo.commit(_source(["north"], {"east": "8", "west": "8", "north": "8"}))
    result = cli("render", "--repo", str(git_repo.path))
    assert result.exit_code == 0, result.output
    assert _placed(git_repo) == [{"name": "north", "replicas": 4}]


def _fleet(**cpus: int) -> list[cluster.Cluster]:
    return [
        scheduler_cluster(name, resource_summary=summary(cpu=str(cpu)))
        for name, cpu in cpus.items()
    ]


def _cleared_on_a(fleet: list[cluster.Cluster]) -> work.ResourceBinding:
    """6 replicas placed on cluster a, then kept there by a placement nothing matches."""
    first = schedule(
        make_binding(replicas=6, requests={"cpu": "1"}, placement=_placement(["a"])),
        fleet,
        now=NOW,
    ).binding
    assert targets(first.spec.clusters) == {"a": 6}
    return _no_fit(first, fleet)


def _no_fit(previous: work.ResourceBinding, fleet: list[cluster.Cluster]) -> work.ResourceBinding:
    """`previous` scheduled again with a placement no cluster of `fleet` matches."""
    placement = {"clusterAffinity": {"clusterNames": ["gone"]}, "replicaScheduling": dynamic()}
    replicas = previous.spec.replicas
    binding = make_binding(replicas=replicas, requests={"cpu": "1"}, placement=placement)
    outcome = schedule(binding, fleet, previous, now=NOW)
    assert outcome.error is not None and outcome.error.startswith("0/")
    assert targets(outcome.binding.spec.clusters) == targets(previous.spec.clusters)
    assert (outcome.binding.metadata.annotations or {}).get(CLEARED) == "true"
    return outcome.binding


def _placement(names: list[str]) -> dict[str, object]:
    return {"clusterAffinity": {"clusterNames": names}, "replicaScheduling": dynamic()}


def test_the_schedule_after_it_divides_afresh() -> None:
    """Karmada's result is empty: 6 replicas are divided by capacity (a 2 : b 4), not kept
    where they ran (a 6), which the previous result would give."""
    fleet = _fleet(a=10, b=20)
    cleared = _cleared_on_a(fleet)
    binding = make_binding(replicas=6, requests={"cpu": "1"}, placement=_placement(["a", "b"]))
    outcome = schedule(binding, fleet, cleared, now=NOW)
    assert outcome.error is None
    assert targets(outcome.binding.spec.clusters) == {"a": 2, "b": 4}
    assert outcome.diagnosis.decision == (
        "placement changed since the last schedule "
        "(no cluster fit since the last success: Karmada's result is empty)"
    )
    assert CLEARED not in (outcome.binding.metadata.annotations or {})


def test_kept_clusters_last_through_other_failures() -> None:
    """NoClusterFit, then Unschedulable (too few CPUs): the binding still shows a; when the
    capacity comes, Karmada schedules from its empty result (its replicas do not add up)."""
    cleared = _cleared_on_a(_fleet(a=10))
    short = make_binding(replicas=6, requests={"cpu": "1"}, placement=_placement(["b"]))
    failed = schedule(short, _fleet(a=10, b=2), cleared, now=NOW)
    assert failed.error is not None and "not enough" in failed.error
    assert targets(failed.binding.spec.clusters) == {"a": 6}
    assert (failed.binding.metadata.annotations or {}).get(CLEARED) == "true"
    roomy = schedule(short, _fleet(a=10, b=20), failed.binding, now=NOW)
    assert roomy.error is None
    assert targets(roomy.binding.spec.clusters) == {"b": 6}


def test_every_affinity_term_failing_to_fit_clears_as_well() -> None:
    terms = {
        "clusterAffinities": [
            {"affinityName": "first", "clusterNames": ["x"]},
            {"affinityName": "second", "clusterNames": ["y"]},
        ],
        "replicaScheduling": dynamic(),
    }
    previous = make_binding(
        replicas=2,
        requests={"cpu": "1"},
        placement=_placement(["a"]),
        clusters={"a": 2},
        status={"schedulerObservingAffinityName": ""},
    )
    binding = make_binding(replicas=2, requests={"cpu": "1"}, placement=terms)
    failed = schedule(binding, _fleet(a=4), previous, now=NOW)
    assert failed.error is not None
    assert targets(failed.binding.spec.clusters) == {"a": 2}
    assert (failed.binding.metadata.annotations or {}).get(CLEARED) == "true"
    joined = schedule(binding, _fleet(a=4, y=4), failed.binding, now=NOW)
    assert joined.error is None
    assert targets(joined.binding.spec.clusters) == {"y": 2}
    assert joined.binding.status.scheduler_observed_affinity_name == "second"


def test_a_workload_scaled_to_zero_meanwhile_leaves_the_kept_clusters() -> None:
    """Karmada's empty result adds up to 0 replicas, so Karmada schedules nothing and the
    workload runs nowhere; the kept clusters would run it, so they are replaced."""
    cleared = _cleared_on_a(_fleet(a=10))
    binding = make_binding(requests={"cpu": "1"}, placement=_placement(["gone"]))
    outcome = schedule(binding, _fleet(a=10, gone=10), cleared, now=NOW)
    assert outcome.rescheduled and outcome.error is None
    assert targets(outcome.binding.spec.clusters) == {}


@settings(max_examples=100, deadline=None)
@given(scenarios())
def test_a_schedule_after_no_cluster_fit_is_a_first_schedule(
    scenario: tuple[list[cluster.Cluster], work.ResourceBinding],
) -> None:
    clusters, binding = scenario
    placement = binding.spec.placement
    assert placement is not None
    nowhere = policy.ClusterAffinity(cluster_names=("gone",))
    unfit = _with(binding, placement=dataclasses.replace(placement, cluster_affinity=nowhere))
    cleared = schedule(unfit, clusters, binding, now=NOW)
    assert cleared.error is not None
    again = schedule(binding, clusters, cleared.binding, now=NOW)
    first = schedule(_with(binding, clusters=()), clusters, now=NOW)
    assert (again.error is None) == (first.error is None)
    if first.error is None:
        assert again.binding.spec.clusters == first.binding.spec.clusters


def _with(binding: work.ResourceBinding, **spec: Any) -> work.ResourceBinding:
    """`binding` with some fields of its spec replaced."""
    return dataclasses.replace(binding, spec=dataclasses.replace(binding.spec, **spec))
