"""A status ref's files, read back: what one cluster's agent last reported.

The agents write `cluster.yaml` and `works.yaml` (`agent.report` says what each holds);
`decode(cluster, files)` turns them into a `ClusterReport`. Nothing here fails on a report it
cannot read in full: a file another version wrote, or a damaged one, gives what could be read
and a line in `problems`, because one cluster's odd report must not hide the fleet.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import yaml

from gitfleet.gitstore import status
from gitfleet.model import cluster, messages, meta, replicas, times, work
from gitfleet.model.template import ResourceKey

WORKS_FILE = "works.yaml"
HEARTBEAT_KEY = "heartbeatTime"


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class ManifestReport:
    """One manifest of the cluster's Work folder, as the last sync left it."""

    path: str
    key: ResourceKey
    applied: bool
    health: work.ResourceHealth
    status: Any = None
    """The status the interpreter reflected (None: none)."""
    observed: dict[str, Any] | None = None
    """The few fields of the live object the agent kept (`agent.observed`); None in reports
    of agents that did not keep them."""
    message: str = ""
    """Why it failed, when it did."""
    drifted: tuple[str, ...] = ()
    """Fields found changed in the cluster by the last sync (and put back)."""
    metrics: Any = None
    """The workload's pods as measured for FederatedHPAs (`agent.podmetrics`); None when the
    agent measured nothing (older agents, workloads no FederatedHPA targets)."""
    unschedulable: tuple[replicas.Pending, ...] = ()
    """The workload's pods waiting for a node, by since when (`agent.unschedulable`); empty
    in reports of agents that did not count them."""
    unhealthy_since: str | None = None
    """Since when the object has been reported Unhealthy (RFC 3339), for application failover;
    None when it is not, or for reports of agents that did not say."""

    @property
    def replicas(self) -> replicas.WorkloadReplicas:
        """Ready and unschedulable replicas, as the descheduler reads them."""
        found = self.status.get("readyReplicas") if isinstance(self.status, dict) else None
        ready = found if isinstance(found, int) and not isinstance(found, bool) else None
        return replicas.WorkloadReplicas(ready=ready, unschedulable=self.unschedulable)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class ClusterReport:
    """What one cluster's agent last reported."""

    name: str
    heartbeat: str | None = None
    """The last heartbeat (RFC 3339); None when there is none, or it is not a time."""
    rendered_commit: str = ""
    """The rendered commit (of the rendered branch, or of the cluster's own ref) applied."""
    source_commit: str = ""
    status: cluster.ClusterStatus | None = None
    converged: bool | None = None
    """None: no `works.yaml` yet."""
    error: str = ""
    """What stopped the last sync, if anything did."""
    refused: str = ""
    """Why the agent refused the rendered commit (its signature), "" when it did not."""
    manifests: tuple[ManifestReport, ...] = ()
    pending_deletions: tuple[str, ...] = ()
    """Leftovers whose deletion failed, each `Kind/namespace/name: message`."""
    problems: tuple[str, ...] = ()
    """What could not be read."""
    _by_key: dict[ResourceKey, ManifestReport] = dataclasses.field(
        init=False, repr=False, compare=False
    )
    """The first manifest of each key: `status` looks up every resource in every cluster."""

    def __post_init__(self) -> None:
        by_key: dict[ResourceKey, ManifestReport] = {}
        for each in self.manifests:
            by_key.setdefault(each.key, each)
        object.__setattr__(self, "_by_key", by_key)

    @property
    def ready(self) -> str | None:
        """The agent's Ready condition status (True, False, Unknown), None when absent."""
        found = self.ready_condition
        return found.status if found is not None else None

    @property
    def ready_condition(self) -> meta.Condition | None:
        conditions = self.status.conditions if self.status is not None else ()
        return next((c for c in conditions if c.type == "Ready"), None)

    def manifest(self, key: ResourceKey) -> ManifestReport | None:
        return self._by_key.get(key)


def _document(data: bytes | None, name: str, problems: list[str]) -> dict[str, Any]:
    if data is None:
        return {}
    try:
        doc = status.decode_file(data)
    except yaml.YAMLError as exc:
        problems.append(f"{name}: not valid YAML: {exc}".replace("\n", " "))
        return {}
    if not isinstance(doc, dict):
        problems.append(f"{name}: not a mapping")
        return {}
    return doc


def _text(doc: Mapping[str, Any], key: str) -> str:
    value = doc.get(key)
    return value if isinstance(value, str) else ""


def _key(entry: Mapping[str, Any]) -> ResourceKey:
    return ResourceKey(
        _text(entry, "apiVersion"),
        _text(entry, "kind"),
        _text(entry, "namespace"),
        _text(entry, "name"),
    )


def _time(value: Any) -> str | None:
    """An RFC 3339 time read back from a report, None when it is anything else."""
    return value if isinstance(value, str) and times.parse(value) is not None else None


def _health(value: Any) -> work.ResourceHealth:
    try:
        return work.ResourceHealth(value)
    except ValueError:
        return work.ResourceHealth.UNKNOWN


def _message(entry: Mapping[str, Any], key: str) -> str:
    """A message as agents record it now, one bounded line, also from a report an older agent
    wrote whole (many lines of a server's refusal)."""
    return messages.one_line(_text(entry, key))


def _manifest(entry: Any, problems: list[str]) -> ManifestReport | None:
    if not isinstance(entry, dict) or not _text(entry, "kind") or not _text(entry, "name"):
        problems.append(f"{WORKS_FILE}: a manifest without kind and name: {entry!r}"[:200])
        return None
    drifted = entry.get("drifted")
    observed = entry.get("observed")
    return ManifestReport(
        path=_text(entry, "path"),
        key=_key(entry),
        applied=entry.get("applied") is True,
        health=_health(entry.get("health")),
        status=entry.get("status"),
        observed=observed if isinstance(observed, dict) else None,
        message=_message(entry, "message"),
        drifted=tuple(str(f) for f in drifted) if isinstance(drifted, list) else (),
        unschedulable=_unschedulable(entry.get("unschedulable")),
        metrics=entry.get("metrics"),
        unhealthy_since=_time(entry.get("unhealthySince")),
    )


def _unschedulable(value: Any) -> tuple[replicas.Pending, ...]:
    """A manifest's `unschedulable` entries (anything unreadable left out, at most
    `replicas.MAX_PENDING` of them)."""
    if not isinstance(value, list):
        return ()
    found = [
        replicas.Pending(e["since"], e["replicas"])
        for e in value
        if isinstance(e, dict)
        and isinstance(e.get("since"), str)
        and isinstance(e.get("replicas"), int)
        and not isinstance(e.get("replicas"), bool)
        and e["replicas"] > 0
    ]
    return tuple(sorted(found)[: replicas.MAX_PENDING])


def _pending(entry: Any) -> str:
    if not isinstance(entry, dict):
        return str(entry)
    return f"{_key(entry)}: {_message(entry, 'message')}"


def decode(
    name: str, files: Mapping[str, bytes], rendered_commit: str | None = None
) -> ClusterReport:
    """The report of cluster `name` from its status ref's files (`rendered_commit`: the
    commit's `Rendered-Commit` trailer, used when the files do not name one)."""
    problems: list[str] = []
    summary = _document(files.get(status.CLUSTER_FILE), status.CLUSTER_FILE, problems)
    works = _document(files.get(WORKS_FILE), WORKS_FILE, problems)
    where = f"{status.status_ref(name)}:{status.CLUSTER_FILE}"
    decoded = status.decode_cluster_status(files.get(status.CLUSTER_FILE), where)
    if summary.get("status") is not None and decoded is None:
        problems.append(f"{status.CLUSTER_FILE}: status is not a Karmada ClusterStatus")
    entries = works.get("manifests")
    manifests = [_manifest(e, problems) for e in entries] if isinstance(entries, list) else []
    pending = works.get("pendingDeletions")
    beat = summary.get(HEARTBEAT_KEY)
    heartbeat = _time(beat)
    if beat is not None and heartbeat is None:
        problems.append(f"{status.CLUSTER_FILE}: {HEARTBEAT_KEY} is not a time")
    converged = works.get("converged")
    return ClusterReport(
        name=name,
        heartbeat=heartbeat,
        rendered_commit=_text(works, "renderedCommit")
        or _text(summary, "renderedCommit")
        or (rendered_commit or ""),
        source_commit=_text(works, "sourceCommit"),
        status=decoded,
        converged=converged if isinstance(converged, bool) else None,
        error=_message(works, "error"),
        refused=_message(works, "refused"),
        manifests=tuple(m for m in manifests if m is not None),
        pending_deletions=tuple(_pending(p) for p in pending) if isinstance(pending, list) else (),
        problems=tuple(problems),
    )
