"""A FederatedHPA's file on the rendered branch, `autoscaling/<namespace>/<name>.yaml`: its
status as Karmada writes it (currentReplicas, desiredReplicas, lastScaleTime, currentMetrics,
conditions) and, under `autoscaler`, what Karmada's controller keeps in memory and gitfleet
keeps in Git so that a restart changes nothing: the replicas the source said when last read,
the recommendations of the stabilization windows, the scale events the policies count, and
the last decision.

The file is rewritten only when a decision changes something (replicas, recommendations,
conditions); the metrics it shows are those of the last such evaluation.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from gitfleet.autoscaling import _behavior
from gitfleet.model import autoscaling

FOLDER = "autoscaling"


def path(namespace: str, name: str) -> str:
    return f"{FOLDER}/{namespace}/{name}.yaml"


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Decision:
    """The last change of replicas: when, from what to what, and why."""

    time: str
    before: int
    after: int
    reason: str

    def to_doc(self) -> dict[str, Any]:
        return {"time": self.time, "from": self.before, "to": self.after, "reason": self.reason}


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class State:
    """Everything the next evaluation needs, and the status shown."""

    template_replicas: int | None = None
    """The template's replicas in the source when last read: a change there is a user's
    scale, which the autoscaler takes as the current replicas (as Karmada's does)."""
    current: int | None = None
    """The replicas at the last evaluation (None: never evaluated)."""
    desired: int = 0
    """The replicas the autoscaler decided: the template's, until the next decision."""
    recommendations: tuple[_behavior.Recommendation, ...] = ()
    scale_up: tuple[_behavior.ScaleEvent, ...] = ()
    scale_down: tuple[_behavior.ScaleEvent, ...] = ()
    last_scale_time: str | None = None
    metrics: tuple[dict[str, Any], ...] = ()
    conditions: tuple[dict[str, Any], ...] = ()
    last: Decision | None = None

    def memory(self) -> dict[str, Any]:
        """What decides the next evaluation (the metrics shown aside)."""
        doc = self.document(autoscaling.FederatedHPA.KIND, "", "")
        doc["status"].pop("currentMetrics", None)
        return doc

    def document(self, kind: str, namespace: str, name: str) -> dict[str, Any]:
        status: dict[str, Any] = {
            "currentReplicas": self.current or 0,
            "desiredReplicas": self.desired,
        }
        if self.last_scale_time:
            status["lastScaleTime"] = self.last_scale_time
        if self.metrics:
            status["currentMetrics"] = list(self.metrics)
        if self.conditions:
            status["conditions"] = list(self.conditions)
        memory: dict[str, Any] = {
            "recommendations": [
                {"replicas": r.replicas, "since": r.since} for r in self.recommendations
            ],
            "scaleUpEvents": [{"change": e.change, "time": e.time} for e in self.scale_up],
            "scaleDownEvents": [{"change": e.change, "time": e.time} for e in self.scale_down],
        }
        if self.template_replicas is not None:
            memory["templateReplicas"] = self.template_replicas
        if self.last is not None:
            memory["lastDecision"] = self.last.to_doc()
        return {
            "apiVersion": autoscaling.API_VERSION,
            "kind": kind,
            "metadata": {"name": name, "namespace": namespace},
            "status": status,
            "autoscaler": memory,
        }


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _items(doc: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
    found = doc.get(key)
    return [i for i in found if isinstance(i, dict)] if isinstance(found, list) else []


def _events(doc: Mapping[str, Any], key: str) -> tuple[_behavior.ScaleEvent, ...]:
    return tuple(
        _behavior.ScaleEvent(change, e["time"])
        for e in _items(doc, key)
        if (change := _whole(e.get("change"))) is not None and isinstance(e.get("time"), str)
    )


def read(doc: Mapping[str, Any] | None) -> State:
    """The state a file holds; what cannot be read is left at its empty value (the file is
    gitfleet's own output: a damaged one restarts the autoscaler's memory, never fails)."""
    if not isinstance(doc, dict):
        return State()
    status = doc.get("status") if isinstance(doc.get("status"), dict) else {}
    memory = doc.get("autoscaler") if isinstance(doc.get("autoscaler"), dict) else {}
    assert isinstance(status, dict) and isinstance(memory, dict)
    runs = tuple(
        _behavior.Recommendation(replicas, r["since"])
        for r in _items(memory, "recommendations")
        if (replicas := _whole(r.get("replicas"))) is not None and isinstance(r.get("since"), str)
    )
    last = memory.get("lastDecision")
    decision = None
    if isinstance(last, dict):
        before, after = _whole(last.get("from")), _whole(last.get("to"))
        if before is not None and after is not None:
            decision = Decision(
                time=str(last.get("time", "")), before=before, after=after,
                reason=str(last.get("reason", "")),
            )  # fmt: skip
    scale_time = status.get("lastScaleTime")
    return State(
        template_replicas=_whole(memory.get("templateReplicas")),
        current=_whole(status.get("currentReplicas")),
        desired=_whole(status.get("desiredReplicas")) or 0,
        recommendations=runs,
        scale_up=_events(memory, "scaleUpEvents"),
        scale_down=_events(memory, "scaleDownEvents"),
        last_scale_time=scale_time if isinstance(scale_time, str) else None,
        metrics=tuple(_items(status, "currentMetrics")),
        conditions=tuple(_items(status, "conditions")),
        last=decision,
    )
