"""How many of a cluster's nodes fall in each grade of its resource models, as Karmada's cluster
status controller counts them into `status.resourceSummary.allocatableModelings` (Karmada:
pkg/modeling/modeling.go, pkg/controllers/status/cluster_status_controller.go
getAllocatableModelings). Its general estimator then packs replicas onto one virtual node per
counted node (`estimator`).

The models are the ones Karmada stores for the Cluster (`cluster.standard_resource_models`:
its nine default grades when none are written). The resources graded are those of the first
model, in its order; Karmada counts nothing when that model names a resource twice, or names
none. A node's grade is, per graded resource, the last model whose `min` is at most what the
node has available (an absent resource counts as zero), and then the lowest of those: `max`
is never read, and resources the models do not name do not matter. A node below the first
model's `min` in some resource (an overcommitted one: its pods request more than it offers)
is in no grade and not counted. Every model gets its count, zero included, grades ascending.

Which nodes are graded, and what each has available, is the agent's part
(`agent.clusterinfo.node_available`); the pipeline grades them here when it merges a
cluster's reported status into its Cluster, at render time, against the models the source
declares now.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from gitfleet.interpreter import _quantity as quantity
from gitfleet.model import cluster


def allocatable_modelings(
    models: tuple[cluster.ResourceModel, ...], nodes: Sequence[cluster.NodeAvailable]
) -> tuple[cluster.AllocatableModeling, ...]:
    """The count of `nodes` in each grade of `models` (as the Cluster declares them); none
    when Karmada's modeling cannot be built from the models (InitSummary fails), or when a
    `min` does not parse (validation reports that, and nothing is rendered)."""
    stored = cluster.standard_resource_models(models)
    names = _graded_names(stored)
    if names is None:
        return ()
    try:
        mins = [{r.name: quantity.parse(r.min).nanos for r in m.ranges} for m in stored]
    except quantity.QuantityError:
        return ()
    columns = [[row.get(name, 0) for row in mins] for name in names]
    counts = [0] * len(stored)
    for group in nodes:
        available = {n: quantity.parse(q).nanos for n, q in (group.resources or {}).items()}
        grade = min(
            bisect.bisect_right(column, available.get(name, 0)) - 1
            for name, column in zip(names, columns, strict=True)
        )
        if grade >= 0:
            counts[grade] += group.count
    return tuple(
        cluster.AllocatableModeling(grade=m.grade, count=count)
        for m, count in zip(stored, counts, strict=True)
    )


def _graded_names(models: tuple[cluster.ResourceModel, ...]) -> list[str] | None:
    """The resources grades are read from, as InitSummary collects them: names are taken from
    each model in turn while fewer have been taken than that model has ranges, so a model
    with another number of them adds names; when the names are not the first model's
    resources one for one (or there are none) Karmada builds no modeling: None."""
    names: list[str] = []
    for model in models:
        for item in model.ranges:
            if len(names) != len(model.ranges):
                names.append(item.name)
    if not names or len(names) != len({r.name for r in models[0].ranges}):
        return None
    return names
