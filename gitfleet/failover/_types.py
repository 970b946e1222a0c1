"""The values failover reads and returns."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from gitfleet.model import meta, replicas, work
from gitfleet.model.template import ResourceKey


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Report:
    """What one cluster's agent last reported on its status ref, as failover reads it."""

    heartbeat: str | None = None
    """When the agent last reported (RFC 3339): Karmada's cluster lease."""
    ready: meta.Condition | None = None
    """The Ready condition the agent reported for its cluster."""
    rendered_commit: str = ""
    """The rendered commit the agent applied (what makes a new report of the same health a
    different one)."""
    current: bool = False
    """The report is of the Works the previous render wrote for the cluster (the rendered
    branch's tip, or the cluster's own ref at that tip): only then does `health` say anything
    about them."""
    health: Mapping[ResourceKey, work.ResourceHealth] = dataclasses.field(default_factory=dict)
    """Health of each applied object, by the identity of its template."""
    replicas: Mapping[ResourceKey, replicas.WorkloadReplicas] = dataclasses.field(
        default_factory=dict
    )
    """Ready and unschedulable replicas of each workload that has any of either (for the
    descheduler, which reads the same snapshot)."""
    unhealthy_since: Mapping[ResourceKey, str] = dataclasses.field(default_factory=dict)
    """Since when each applied object reported Unhealthy has been so (RFC 3339), by the
    identity of its template: what application failover measures its toleration against."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Observed:
    """A status snapshot: when it was taken and each cluster's last report, by cluster name."""

    at: str
    """The time of the render (RFC 3339): what heartbeats, tolerations and grace periods are
    measured against."""
    reports: Mapping[str, Report] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True, slots=True)
class ClusterHealth:
    """An unhealthy cluster's Ready condition: False (its agent says so) or Unknown (its agent
    went silent), why, and since when."""

    status: str
    reason: str
    message: str
    since: str
