"""The schedule stage: where each binding goes and with how many replicas, as Karmada's
scheduler decides (Karmada: pkg/scheduler).

Entry point: `schedule(binding, clusters, previous=None, *, now=None) -> Outcome`. For many
bindings against the same clusters, pass a `ClusterIndex` built once instead of the list.

Modules: `framework` (plugin interfaces, results, registry, errors), `plugins` (the in-tree
filter and score plugins), `core` (find feasible, prioritize, select, assign), `spread`
(candidates and spread constraints), `assignment` (replica strategies), `webster` (division),
`estimator` (available replicas), `modeling` (nodes per resource model grade), `index`
(per-render caches), `diagnosis` (what `explain` prints), `_steady` (a schedule that changed
nothing keeps its time). The stage is pure: no I/O, clock or randomness.
"""

from gitfleet.scheduler._scheduler import Outcome, reads_capacity, schedule
from gitfleet.scheduler._steady import steady
from gitfleet.scheduler.diagnosis import Diagnosis
from gitfleet.scheduler.index import ClusterIndex

__all__ = ["ClusterIndex", "Diagnosis", "Outcome", "reads_capacity", "schedule", "steady"]
