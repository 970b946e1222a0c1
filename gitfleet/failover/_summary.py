"""What one render's failover records and says.

render.yaml's `failover` section holds state only, so that a render of the same inputs writes
the same section: the unhealthy clusters (Ready status, reason, since when, taints), the
evictions waiting for a toleration to end (and when they will happen), the evictions given up
(and why), the eviction tasks open (and when their grace period ends) and whether application
failover watches any binding. The commit message says what changed: clusters that became
unhealthy or recovered (against the previous render's section), applications that failed
over, bindings that left a cluster and where their replicas went, evictions given up, and
failed clusters' copies removed."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from gitfleet.failover import _types
from gitfleet.model import cluster, selectors, work

SUBJECT_LIMIT = 160
APPLICATIONS = "applicationFailover"
"""The section's flag (true, or absent) saying application failover watches some binding."""


def state(health: _types.ClusterHealth) -> str:
    """How messages name a cluster's state: NotReady, or unreachable."""
    return "NotReady" if health.status == "False" else "unreachable"


@dataclasses.dataclass(frozen=True, slots=True)
class Summary:
    """render.yaml's `failover` section and the lines of the commit message (none: nothing
    changed)."""

    section: Mapping[str, Any]
    changes: tuple[str, ...]
    headline: tuple[str, ...] = ()
    """The changes in short (evictions and removals counted per cluster), for the subject."""

    def message(self, default: str) -> str:
        """The commit message: the changes in short, then each (or `default` alone)."""
        if not self.changes:
            return default
        short = self.headline or self.changes
        subject = "failover: " + "; ".join(short)
        if len(subject) > SUBJECT_LIMIT:
            subject = f"failover: {short[0]} (and {len(short) - 1} more)"
        body = "\n".join(f"- {line}" for line in self.changes)
        return f"{subject}\n\n{body}\n\n{default}"


def mapping(value: Any) -> Mapping[str, Any]:
    """A mapping read back from render.yaml, or an empty one when it is something else."""
    return value if isinstance(value, dict) else {}


def items(section: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    """The mappings of a list read back from render.yaml (anything else left out)."""
    found = section.get(key)
    return [i for i in found if isinstance(i, dict)] if isinstance(found, list) else []


def _moves(before: work.ResourceBindingSpec, after: work.ResourceBindingSpec) -> list[str]:
    old = {t.name: t.replicas for t in before.clusters}
    return [
        f"{t.name} (+{t.replicas - old.get(t.name, 0)})"
        for t in sorted(after.clusters, key=lambda t: t.name)
        if t.replicas > old.get(t.name, 0) or t.name not in old
    ]


@dataclasses.dataclass(frozen=True, slots=True)
class _Move:
    resource: str
    left: str
    replicas: int
    line: str


def _grouped(lines: Sequence[str], what: str) -> str:
    return lines[0] if len(lines) == 1 else f"{len(lines)} resources {what}"


@dataclasses.dataclass(slots=True)
class Events:
    """The transitions one render makes, in the order bindings are scheduled."""

    waits: list[dict[str, str]] = dataclasses.field(default_factory=list)
    blocks: list[dict[str, str]] = dataclasses.field(default_factory=list)
    tasks: list[dict[str, str]] = dataclasses.field(default_factory=list)
    moves: list[_Move] = dataclasses.field(default_factory=list)
    releases: list[tuple[str, str, str]] = dataclasses.field(default_factory=list)
    """(cluster, why, line) of each old copy removed."""
    failures: list[str] = dataclasses.field(default_factory=list)
    """Each application that failed over, and where since when."""

    def failed(self, line: str) -> None:
        self.failures.append(line)

    def waiting(self, resource: str, name: str, until: str) -> None:
        self.waits.append({"resource": resource, "cluster": name, "evictAt": until})

    def evicting(self, resource: str, name: str, until: str | None) -> None:
        entry = {"resource": resource, "cluster": name}
        self.tasks.append({**entry, "until": until} if until else entry)

    def blocked(self, resource: str, name: str, message: str) -> None:
        self.blocks.append({"resource": resource, "cluster": name, "message": message})

    def moved(
        self,
        resource: str,
        left: Sequence[str],
        before: work.ResourceBindingSpec,
        after: work.ResourceBindingSpec,
    ) -> None:
        gone = {t.name: t.replicas for t in before.clusters if t.name in left}
        moves = _moves(before, after)
        where = ", ".join(sorted(gone))
        if sum(gone.values()) and moves:
            line = (
                f"{resource} moved {sum(gone.values())} replicas from {where} to {', '.join(moves)}"
            )
        elif moves:
            line = f"{resource} left {where} for {', '.join(moves)}"
        else:
            line = f"{resource} left {where}"
        self.moves.append(_Move(resource, where, sum(gone.values()), line))

    def released(self, resource: str, name: str, why: str) -> None:
        self.releases.append((name, why, f"{resource} removed from {name} ({why})"))

    def _headline(self) -> list[str]:
        """Evictions per cluster left (with the largest move of replicas), removals per
        cluster and reason."""
        found = []
        for where in sorted({m.left for m in self.moves}):
            moves = [m for m in self.moves if m.left == where]
            top = max(moves, key=lambda m: (m.replicas, m.resource))
            if len(moves) == 1:
                found.append(top.line)
            elif top.replicas:
                found.append(f"{len(moves)} resources left {where}, {top.line}")
            else:
                found.append(f"{len(moves)} resources left {where}")
        for name, why in sorted({(n, w) for n, w, _ in self.releases}):
            lines = [line for n, w, line in self.releases if (n, w) == (name, why)]
            found.append(_grouped(lines, f"removed from {name} ({why})"))
        return found

    def summary(
        self,
        health: Mapping[str, _types.ClusterHealth],
        clusters: Sequence[cluster.Cluster],
        previous: Mapping[str, Any] | None,
        applications: bool = False,
    ) -> Summary:
        taints = {c.name: c.spec.taints for c in clusters}
        section: dict[str, Any] = {
            "clusters": {
                name: {
                    "ready": h.status,
                    "reason": h.reason,
                    "since": h.since,
                    "taints": [selectors.taint_text(t) for t in taints.get(name, ())],
                }
                for name, h in sorted(health.items())
            },
            "waiting": sorted(self.waits, key=lambda w: (w["cluster"], w["resource"])),
            "blocked": sorted(self.blocks, key=lambda b: (b["cluster"], b["resource"])),
            "evicting": sorted(self.tasks, key=lambda t: (t["cluster"], t["resource"])),
        }
        if applications:
            section[APPLICATIONS] = True
        before = previous or {}
        was = mapping(before.get("clusters"))
        changes = []
        for name, h in sorted(health.items()):
            if mapping(was.get(name)).get("ready") != h.status:
                changes.append(f"{name} {state(h)} since {h.since} ({h.reason})")
        changes += [f"{name} Ready again" for name in sorted(was) if name not in health]
        changes += self.failures
        known = {(b.get("cluster"), b.get("resource")) for b in items(before, "blocked")}
        changes += [
            f"{b['resource']} stays on {b['cluster']}: no other cluster can take its replicas"
            for b in section["blocked"]
            if (b["cluster"], b["resource"]) not in known
        ]
        details = [m.line for m in self.moves] + [line for _, _, line in self.releases]
        return Summary(section, (*changes, *details), (*changes, *self._headline()))
