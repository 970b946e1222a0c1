"""Why a binding went where it went: the data `gitfleet explain` prints.

A `Diagnosis` holds the reschedule decision, which clusterAffinities term was used and why,
and for every run of the algorithm each cluster's verdict from each filter plugin, the scores,
the ordered candidates with their capacity, the spread selection and the replica arithmetic.
`to_json()` gives stable keys for `-o json`; `lines()` a human explanation.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from gitfleet.model import work
from gitfleet.scheduler import core, framework


@dataclasses.dataclass(frozen=True, slots=True)
class Diagnosis:
    """Everything the scheduler decided for one binding, and why."""

    resource: work.ObjectReference
    rescheduled: bool
    decision: str
    """Why the binding was scheduled again, or kept its previous result."""
    affinity: tuple[str, ...] = ()
    """Which clusterAffinities term was used and why, one sentence a line."""
    attempts: tuple[core.Attempt, ...] = ()
    result: tuple[work.TargetCluster, ...] = ()
    failure: framework.Failure | None = None

    def to_json(self) -> dict[str, Any]:
        r = self.resource
        return {
            "resource": {
                "apiVersion": r.api_version,
                "kind": r.kind,
                "namespace": r.namespace,
                "name": r.name,
            },
            "rescheduled": self.rescheduled,
            "decision": self.decision,
            "affinity": list(self.affinity),
            "attempts": [_attempt_json(a) for a in self.attempts],
            "result": _targets_json(self.result),
            "error": (
                None
                if self.failure is None
                else {"reason": self.failure.reason, "message": self.failure.message}
            ),
        }

    def lines(self) -> list[str]:
        r = self.resource
        where = f"{r.namespace}/{r.name}" if r.namespace else r.name
        out = [
            f"{r.kind} {where}: {'scheduler ran' if self.rescheduled else 'scheduler did not run'}"
            f": {self.decision}"
        ]
        out.extend(f"affinity: {line}" for line in self.affinity)
        for attempt in self.attempts:
            out.extend(_attempt_lines(attempt))
        if self.failure is not None:
            out.append(f"error ({self.failure.reason}): {self.failure.message}")
        out.append(f"result: {_targets_text(self.result)}")
        return out


def _targets_json(targets: tuple[work.TargetCluster, ...] | None) -> list[dict[str, Any]] | None:
    if targets is None:
        return None
    return [{"name": t.name, "replicas": t.replicas} for t in targets]


def _targets_text(targets: tuple[work.TargetCluster, ...]) -> str:
    return ", ".join(f"{t.name}={t.replicas}" for t in targets) or "no clusters"


def _attempt_json(a: core.Attempt) -> dict[str, Any]:
    return {
        "affinityName": a.affinity_name,
        "filters": [
            {
                "cluster": name,
                "feasible": all(r.success for _, r in a.filters[name]),
                "verdicts": [
                    {"plugin": plugin, "code": str(r.code), "reasons": list(r.reasons)}
                    for plugin, r in a.filters[name]
                ],
            }
            for name in sorted(a.filters)
        ],
        "scores": {plugin: dict(sorted(s.items())) for plugin, s in sorted(a.scores.items())},
        "candidates": [
            {
                "name": c.name,
                "score": c.score,
                "overflowOrder": c.overflow_order,
                "allocatable": c.allocatable,
                "available": c.available,
            }
            for c in a.candidates
        ],
        "selection": (
            None
            if a.selection is None
            else {
                "method": a.selection.method,
                "notes": list(a.selection.notes),
                "clusters": [c.name for c in a.selection.clusters],
            }
        ),
        "assignment": list(a.steps),
        "result": _targets_json(a.result),
        "error": None
        if a.error is None
        else {"reason": a.error.reason, "message": a.error.message},
    }


def _attempt_lines(a: core.Attempt) -> list[str]:
    head = f"term {a.affinity_name}: " if a.affinity_name else ""
    feasible = [n for n in sorted(a.filters) if all(r.success for _, r in a.filters[n])]
    out = [f"{head}{len(feasible)}/{a.num_clusters} clusters feasible"]
    for name in sorted(a.filters):
        failed = [
            f"{plugin}: {'; '.join(r.reasons)}" for plugin, r in a.filters[name] if not r.success
        ]
        out.append(f"  {name}: {'fits' if not failed else ' | '.join(failed)}")
    if a.candidates:
        out.append(f"{head}candidates in order (score, allocatable, available, tier):")
        out.extend(
            f"  {c.name}: {c.score}, {c.allocatable}, {c.available}, {c.overflow_order}"
            for c in a.candidates
        )
    if a.selection is not None:
        chosen = ", ".join(c.name for c in a.selection.clusters) or "none"
        out.append(f"{head}selection ({a.selection.method}): {chosen}")
        out.extend(f"  {note}" for note in a.selection.notes)
    out.extend(f"{head}assign: {step}" for step in a.steps)
    if a.error is not None:
        out.append(f"{head}failed ({a.error.reason}): {a.error.message}")
    return out
