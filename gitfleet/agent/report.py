"""Status reports: a sync's outcome and the cluster's own status, written to its status ref.

The ref `refs/heads/gitfleet/status/<cluster>` holds two files (DESIGN.md section 4):

- `cluster.yaml`: `cluster`, `heartbeatTime`, `renderedCommit`, and `status` — a Karmada
  ClusterStatus (`kubernetesVersion`, `apiEnablements`, `conditions` with `Ready`,
  `nodeSummary`, `resourceSummary` with `allocatable`, `allocating`, `allocated`), in
  Karmada's field names, so it decodes as `model.cluster.ClusterStatus`; and beside it
  `nodeAvailable`, each distinct `resources` a node has available with the `count` of nodes
  that have it (`agent.clusterinfo.node_available`);
- `works.yaml`: `cluster`, `renderedCommit`, `sourceCommit`, `converged`, the `error` that
  stopped the sync if any, and `manifests`: for each file of the Work directory its `path`,
  `apiVersion`, `kind`, `namespace`, `name`, whether it is `applied` (not while the member is
  deleting it: `agent.health.terminating`), its `health` (Healthy, Unhealthy, Unknown), the
  `status` the interpreter reflects, `observed`: the few fields of the live object
  `gitfleet get` prints (`agent.observed`: labels, creation time, replicas, selector,
  containers' images, a Service's addresses), the `message` of a failure (as every message
  here, one bounded line: `model.messages`), the fields found `drifted` by this sync
  and, for a FederatedHPA's target, the `metrics` of its pods (`agent.podmetrics`), and for
  an Unhealthy object `unhealthySince`: the time of the first report that found it Unhealthy,
  carried over while it stays so (what application failover measures its toleration against);
  then `pendingDeletions`, leftovers whose deletion failed; and `refused`, the reason a
  rendered commit was not applied at all (see `verify`), with `lastAppliedCommit`, the one
  the cluster keeps.

What the report names as applied (`Reporter.last_applied`: `renderedCommit`, or
`lastAppliedCommit` after a refusal) is where a restarted agent takes up its check that it
never goes backwards.

A report is written only when it says something new: when either file changed (the heartbeat
time aside), or when the last heartbeat is older than the heartbeat interval. A fresh agent
compares with what the ref already holds, so restarting writes nothing new (but once, after a
report in the layout older agents wrote, PyYAML's: the files are now written as rendered files
are, `status.encode_file`).
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
import re
from collections.abc import Callable, Mapping
from typing import Any

import yaml

from gitfleet.agent import apply, identity
from gitfleet.gitstore import status
from gitfleet.model import cluster, messages, work

log = logging.getLogger(__name__)

CLUSTER_FILE = status.CLUSTER_FILE
WORKS_FILE = "works.yaml"
HEARTBEAT_KEY = "heartbeatTime"
_COMMIT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def _ref_fields(ref: identity.ObjectRef) -> dict[str, str]:
    fields = {"apiVersion": ref.api_version, "kind": ref.kind, "name": ref.name}
    if ref.namespace:
        fields["namespace"] = ref.namespace
    return fields


Since = Mapping[tuple[str, ...], str]
"""When each object reported Unhealthy became so, by its reference fields."""


def _since_key(fields: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(str(fields.get(k, "")) for k in ("apiVersion", "kind", "namespace", "name"))


def _since_in(works: Mapping[str, Any]) -> Since:
    """The `unhealthySince` times of a works.yaml's document."""
    entries = works.get("manifests")
    return {
        _since_key(e): e["unhealthySince"]
        for e in (entries if isinstance(entries, list) else [])
        if isinstance(e, dict) and isinstance(e.get("unhealthySince"), str)
    }


def _manifest(result: apply.ObjectResult, since: Since, at: str) -> dict[str, Any]:
    fields = _ref_fields(result.ref)
    entry: dict[str, Any] = {
        "path": result.path,
        **fields,
        "applied": result.applied,
        "health": str(result.health),
    }
    if result.health is work.ResourceHealth.UNHEALTHY:
        entry["unhealthySince"] = since.get(_since_key(fields), at)
    if result.status is not None:
        entry["status"] = result.status
    if result.observed:
        entry["observed"] = result.observed
    message = messages.one_line(result.message)
    if message:
        entry["message"] = message
    if result.drift:
        entry["drifted"] = list(result.drift)
    if result.unschedulable:
        entry["unschedulable"] = [
            {"since": p.since, "replicas": p.replicas} for p in result.unschedulable
        ]
    if result.metrics is not None:
        entry["metrics"] = result.metrics
    return entry


def works_document(
    result: apply.SyncResult, since: Since | None = None, at: str = ""
) -> dict[str, Any]:
    """works.yaml of `result`, reported at `at`; `since` holds the `unhealthySince` times of the
    previous report, kept for objects still Unhealthy."""
    doc: dict[str, Any] = {
        "cluster": result.cluster,
        "renderedCommit": result.rendered_commit,
        "sourceCommit": result.source_commit,
        "converged": result.converged,
        "manifests": [_manifest(o, since or {}, at) for o in result.objects],
    }
    if result.error:
        doc["error"] = messages.one_line(result.error)
    if result.refused:
        doc["refused"] = messages.one_line(result.refused)
    if result.refused and result.last_applied:
        doc["lastAppliedCommit"] = result.last_applied
    pending = [
        {**_ref_fields(p.ref), "message": messages.one_line(p.message)}
        for p in result.pruned
        if p.action is apply.Action.PRUNE_FAILED
    ]
    if pending:
        doc["pendingDeletions"] = pending
    return doc


def cluster_document(
    name: str, observed: cluster.ClusterStatus, *, heartbeat: str, rendered_commit: str
) -> dict[str, Any]:
    return {
        "cluster": name,
        HEARTBEAT_KEY: heartbeat,
        "renderedCommit": rendered_commit,
        **status.cluster_document(observed),
    }


def encode(doc: Mapping[str, Any]) -> bytes:
    return status.encode_file(doc)


def _decode(data: bytes | None) -> dict[str, Any]:
    if not data:
        return {}
    try:
        found = status.decode_file(data)
    except yaml.YAMLError:
        return {}
    return found if isinstance(found, dict) else {}


def _applied_in(works: Mapping[str, Any]) -> str | None:
    found = works.get("lastAppliedCommit" if works.get("refused") else "renderedCommit")
    return found if isinstance(found, str) and _COMMIT_ID.fullmatch(found) else None


Write = Callable[[Mapping[str, bytes], str], None]
"""Stores the files of a report, for a rendered commit."""


@dataclasses.dataclass(slots=True)
class Reporter:
    """Decides when one cluster's report is worth a commit, and writes it."""

    name: str
    """The cluster's name."""
    write: Write
    heartbeat: float
    """Seconds between reports when nothing changes."""
    last: Mapping[str, bytes] = dataclasses.field(default_factory=dict)
    """What the status ref holds (as written last, or read at start)."""
    last_beat: float | None = None
    _works: tuple[bytes | None, Mapping[str, Any]] = dataclasses.field(
        init=False, repr=False, compare=False, default_factory=lambda: (None, {})
    )
    """`last`'s works.yaml and its document: a works.yaml of thousands of manifests is read
    once, not at every report; one the reporter wrote is never read back."""

    def _last_works(self) -> Mapping[str, Any]:
        data = self.last.get(WORKS_FILE)
        if self._works[0] is not data:
            self._works = (data, _decode(data))
        return self._works[1]

    def last_applied(self) -> str | None:
        """The commit the last report says was applied last, None when it names none."""
        return _applied_in(self._last_works())

    def due(self, now: float) -> bool:
        return self.last_beat is None or now - self.last_beat >= self.heartbeat

    def report(
        self,
        result: apply.SyncResult,
        observed: cluster.ClusterStatus,
        *,
        now: float,
        timestamp: str,
    ) -> bool:
        """Write the report of `result` and `observed` if it is new or the heartbeat is due;
        whether it was written."""
        document = works_document(result, _since_in(self._last_works()), timestamp)
        works = encode(document)
        summary = cluster_document(
            self.name, observed, heartbeat=timestamp, rendered_commit=result.rendered_commit
        )
        previous = _decode(self.last.get(CLUSTER_FILE))
        unchanged = works == self.last.get(WORKS_FILE) and {
            k: v for k, v in summary.items() if k != HEARTBEAT_KEY
        } == {k: v for k, v in previous.items() if k != HEARTBEAT_KEY}
        if unchanged and not self.due(now):
            return False
        files = {CLUSTER_FILE: encode(summary), WORKS_FILE: works}
        self.write(files, result.rendered_commit)
        self.last, self.last_beat, self._works = files, now, (works, document)
        return True

    def remembered_status(self) -> cluster.ClusterStatus | None:
        """The cluster status of the last report, to carry over while the cluster is away."""
        return status.decode_cluster_status(self.last.get(CLUSTER_FILE), CLUSTER_FILE)

    @classmethod
    def resume(
        cls, cluster_name: str, write: Write, heartbeat: float, stored: Mapping[str, bytes]
    ) -> Reporter:
        """A reporter that knows what the status ref already holds, and when it was written."""
        beat = _decode(stored.get(CLUSTER_FILE)).get(HEARTBEAT_KEY)
        last_beat = None
        if isinstance(beat, str):
            try:
                last_beat = datetime.datetime.fromisoformat(beat).timestamp()
            except ValueError:
                last_beat = None
        return cls(cluster_name, write, heartbeat, dict(stored), last_beat)


def timestamp(now: float) -> str:
    """RFC 3339 in UTC, to the second, as Kubernetes writes times."""
    moment = datetime.datetime.fromtimestamp(int(now), tz=datetime.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
