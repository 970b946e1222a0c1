"""Every metric gitfleet exports, declared once, with its type and labels (docs/design.md has
the table). Each process makes its own `CollectorRegistry`, so two services in one process
(tests, the demo) never count into each other.

Results are labels with few values (a render's outcome, an object's action, an HTTP status),
clusters a label of the agents' metrics: a fleet has tens or hundreds of clusters, never
millions. Durations are histograms in seconds, times Unix seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import prometheus_client

DURATION_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
"""Seconds: a small render or sync takes tenths of a second, a fleet's can take minutes."""


def new_registry() -> prometheus_client.CollectorRegistry:
    return prometheus_client.CollectorRegistry(auto_describe=True)


class ReconcilerMetrics:
    """What `gitfleet reconcile` counts."""

    def __init__(self, registry: prometheus_client.CollectorRegistry) -> None:
        self.registry = registry
        self.renders = prometheus_client.Counter(
            "gitfleet_renders",
            "Looks that handled a new source commit (or a failover due), by result: rendered,"
            " unchanged, up-to-date, invalid, unverified, blocked, error.",
            ["result"],
            registry=registry,
        )
        self.render_duration = prometheus_client.Histogram(
            "gitfleet_render_duration_seconds",
            "Time a look took to fetch, load, render and publish a source commit.",
            buckets=DURATION_BUCKETS,
            registry=registry,
        )
        self.last_success = prometheus_client.Gauge(
            "gitfleet_last_successful_render_timestamp_seconds",
            "When the rendered branch was last found to render the source branch's commit.",
            registry=registry,
        )
        self.bindings = prometheus_client.Gauge(
            "gitfleet_bindings",
            "ResourceBindings in the last render.",
            registry=registry,
        )
        self.refusals = prometheus_client.Gauge(
            "gitfleet_render_refusals",
            "Manifests the last render refused to write for a cluster.",
            registry=registry,
        )
        self.unscheduled = prometheus_client.Gauge(
            "gitfleet_unscheduled_resources",
            "Resources the last render could not schedule.",
            registry=registry,
        )
        self.webhook_requests = prometheus_client.Counter(
            "gitfleet_webhook_requests",
            "Requests the webhook endpoint answered, by HTTP status.",
            ["code"],
            registry=registry,
        )
        self.leader = prometheus_client.Gauge(
            "gitfleet_leader",
            "1 while this reconciler holds the lease (or runs without leader election).",
            registry=registry,
        )


class AgentMetrics:
    """What the push and pull agents count, per cluster."""

    def __init__(
        self,
        registry: prometheus_client.CollectorRegistry,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.registry = registry
        self.clock = clock
        self.syncs = prometheus_client.Counter(
            "gitfleet_cluster_syncs",
            "Syncs of a cluster, by result: converged, failed, refused (by the prune guard, or a"
            " rendered commit that failed verification).",
            ["cluster", "result"],
            registry=registry,
        )
        self.applies = prometheus_client.Counter(
            "gitfleet_cluster_applies",
            "Objects written to a cluster, by action: created, configured, recreated, failed.",
            ["cluster", "action"],
            registry=registry,
        )
        self.drift_repaired = prometheus_client.Counter(
            "gitfleet_cluster_drift_repaired",
            "Objects found changed in a cluster and put back.",
            ["cluster"],
            registry=registry,
        )
        self.prunes = prometheus_client.Counter(
            "gitfleet_cluster_prunes",
            "Leftover objects taken out of a cluster, by result: pruned, released, failed.",
            ["cluster", "result"],
            registry=registry,
        )
        self.guard_refusals = prometheus_client.Counter(
            "gitfleet_cluster_guard_refusals",
            "Syncs the prune guard refused (they would delete too much of a cluster).",
            ["cluster"],
            registry=registry,
        )
        self.sync_duration = prometheus_client.Histogram(
            "gitfleet_cluster_sync_duration_seconds",
            "Time a sync of a cluster took (apply, prune, read back, report).",
            ["cluster"],
            buckets=DURATION_BUCKETS,
            registry=registry,
        )
        self.heartbeat_age = prometheus_client.Gauge(
            "gitfleet_cluster_heartbeat_age_seconds",
            "Seconds since the agent last wrote the cluster's status ref.",
            ["cluster"],
            registry=registry,
        )

    def heartbeat(self, cluster: str, when: float) -> None:
        """The status ref of `cluster` was written at `when` (the age is read at scrape time)."""
        self.heartbeat_age.labels(cluster).set_function(lambda: self.clock() - when)
