"""The nodes an agent reports are graded against the Cluster's own resource models when its
status is merged in (gitfleet.pipeline.effective_clusters), and the estimator reads the
grades as Karmada's reads `allocatableModelings`.

Aspects covered:
- the models the source declares grade the nodes (not Karmada's defaults), every grade listed;
  the estimate packs replicas onto the grades' virtual nodes;
- `allocatableModelings` declared in the source give way to the graded ones;
- a report without nodes (an older agent's) keeps its summary, estimated as a whole.
"""

from __future__ import annotations

from builders import make_cluster, object_set

from gitfleet import pipeline
from gitfleet.model import cluster, work
from gitfleet.scheduler import estimator

MODELS = [
    {"grade": 0, "ranges": [{"name": "cpu", "min": "0", "max": "3"}]},
    {"grade": 1, "ranges": [{"name": "cpu", "min": "3", "max": "100"}]},
]
ONE_CPU = work.ReplicaRequirements(resource_request={"cpu": "1"})


def _effective(nodes: tuple[cluster.NodeAvailable, ...] | None) -> cluster.Cluster:
    declared = make_cluster("m1", resourceModels=MODELS)
    declared["status"]["resourceSummary"] = {
        "allocatable": {"cpu": "12", "pods": "330"},
        "allocatableModelings": [{"grade": 0, "count": 9}],
    }
    summary = cluster.ResourceSummary(
        allocatable={"cpu": "12", "pods": "330"}, node_available=nodes
    )
    reported = {"m1": cluster.ClusterStatus(resource_summary=summary)}
    (found,) = pipeline.effective_clusters(object_set([declared]).clusters, reported)
    return found


def _modelings(c: cluster.Cluster) -> list[tuple[int, int]]:
    summary = c.status.resource_summary
    assert summary is not None
    return [(m.grade, m.count) for m in summary.allocatable_modelings]


def test_the_clusters_own_models_grade_its_nodes() -> None:
    nodes = (
        cluster.NodeAvailable(count=3, resources={"cpu": "4"}),
        cluster.NodeAvailable(count=1, resources={"cpu": "2999m"}),
    )
    found = _effective(nodes)
    assert _modelings(found) == [(0, 1), (1, 3)]
    assert estimator.max_available_replicas(found, ONE_CPU) == 9


def test_a_report_without_nodes_is_estimated_from_its_summary() -> None:
    found = _effective(None)
    assert _modelings(found) == []
    assert estimator.max_available_replicas(found, ONE_CPU) == 12
