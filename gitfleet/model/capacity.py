"""Where the capacity the scheduler reads for a cluster comes from, as its agent's report says.

The agent writes the condition `CompleteResourceSummary` with each report (`agent.clusterinfo`):
True when it listed the nodes and pods, False with the reason when it could not (it then keeps
the summaries of its previous report, or none on a first report). `gitfleet status` shows the
provenance per cluster and `gitfleet explain` names it where a cluster's capacity limited the
replicas: a capacity of zero from a cluster that reported no nodes is the cluster being empty;
one from a summary that was not collected is the last known or the declared capacity.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

from gitfleet.model import cluster, meta

SUMMARY_CONDITION = "CompleteResourceSummary"
"""Whether the node and resource summaries were collected by this report."""
SUMMARY_COLLECTED = "ResourceSummaryCollected"
SUMMARY_UNAVAILABLE = "ResourceSummaryUnavailable"


class Source(enum.StrEnum):
    COLLECTED = "Collected"
    """The agent listed the nodes and pods for this report."""
    EMPTY = "Empty"
    """Collected, and the cluster has no nodes: its capacity is zero."""
    LAST_KNOWN = "LastKnown"
    """Not collected; the summaries of an earlier report stand."""
    DECLARED = "Declared"
    """Never collected: the capacity declared in the source (if any) stands."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Capacity:
    source: Source
    nodes: cluster.NodeSummary | None = None
    reason: str = ""
    """Why it was not collected (the condition's reason), for LastKnown and Declared."""
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        nodes = self.nodes
        return {
            "source": str(self.source),
            "nodes": None
            if nodes is None
            else {"ready": nodes.ready_num, "total": nodes.total_num},
            "reason": self.reason,
            "message": self.message,
        }


def _condition(status: cluster.ClusterStatus) -> meta.Condition | None:
    return next((c for c in status.conditions if c.type == SUMMARY_CONDITION), None)


def of(reported: cluster.ClusterStatus | None) -> Capacity:
    """The provenance of the capacity in `reported`, a cluster's reported status (None: it has
    not reported). A report without the condition (an agent or a Karmada that does not write
    it) is taken as collected when it holds summaries."""
    if reported is None:
        return Capacity(source=Source.DECLARED)
    nodes = reported.node_summary
    condition = _condition(reported)
    has_summary = nodes is not None or reported.resource_summary is not None
    if condition is not None and condition.status != "True":
        source = Source.LAST_KNOWN if has_summary else Source.DECLARED
        return Capacity(
            source=source, nodes=nodes, reason=condition.reason, message=condition.message
        )
    if not has_summary:
        return Capacity(source=Source.DECLARED)
    if nodes is not None and nodes.total_num == 0:
        return Capacity(source=Source.EMPTY, nodes=nodes)
    return Capacity(source=Source.COLLECTED, nodes=nodes)
