"""A Job's status, computed from the Jobs running in each member cluster.

Pod counts are summed. The Job has failed as soon as one member failed (the condition lists
those clusters), and completed once every member completed. It starts when all members have
started (at the earliest start) and completes when all have completed (at the latest
completion). A finished template is never updated again. Karmada:
pkg/resourceinterpreter/default/native/aggregatestatus.go (aggregateJobStatus),
pkg/util/helper/job.go (ParsingJobStatus, GetJobFinishedStatus).

Karmada stamps the conditions it adds with the controller's clock. Stages here have no clock,
so a condition takes the latest `lastTransitionTime` of the member conditions it summarises.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any

from gitfleet.interpreter import _aggregate, _fields, _gotypes, _reflect, _times
from gitfleet.model import times
from gitfleet.model.template import RawObject

COMPLETE = "Complete"
FAILED = "Failed"
SUCCESS_CRITERIA_MET = "SuccessCriteriaMet"

Conditions = list[dict[str, Any]]


def _conditions(status: dict[str, Any]) -> Conditions:
    key = ("status", "conditions")
    found = _fields.array(status.get("conditions"), key)
    return [_reflect.condition(c, (*key, i)) for i, c in enumerate(found)]


def finished(conditions: Conditions) -> str:
    """`Complete` or `Failed` when such a condition is true, else empty."""
    for condition in conditions:
        if condition.get("type") in (COMPLETE, FAILED) and condition.get("status") == "True":
            return str(condition["type"])
    return ""


def _true(conditions: Conditions, kind: str) -> dict[str, Any] | None:
    return next(
        (c for c in conditions if c.get("type") == kind and c.get("status") == "True"), None
    )


def _summary(kind: str, reason: str, message: str, sources: Sequence[Conditions]) -> dict[str, Any]:
    """A condition standing for the members' true conditions of `kind`."""
    when = ""
    for conditions in sources:
        found = _true(conditions, kind)
        if found is not None:
            path = ("status", "conditions")
            when = _aggregate.later(when, found.get("lastTransitionTime"), path)
    condition = {"type": kind, "status": "True", "lastProbeTime": when, "lastTransitionTime": when}
    return _fields.compact({**condition, "reason": reason, "message": message})


def aggregate(obj: RawObject, items: _aggregate.Items) -> RawObject:
    """The template with its status computed from the members'."""
    template_status = _fields.mapping(obj.get("status"), ("status",))
    if finished(_conditions(template_status)):
        return _fields.copy_tree(obj)
    counts = dict.fromkeys(("active", "succeeded", "failed"), 0)
    failed: list[str] = []
    member_conditions: list[Conditions] = []
    start: datetime.datetime | None = None
    end: Any = None  # the latest completion, as its member spelled it
    started = completed = 0
    for cluster, status in _aggregate.members(items):
        if status is None:
            continue
        with _aggregate.reported_by(cluster):
            for key in counts:
                count = _fields.json_integer(status.get(key), ("status", key))
                counts[key] = _aggregate.add_int32(counts[key], count)
            conditions = _conditions(status)
            if finished(conditions) == FAILED:
                failed.append(cluster)
            member_conditions.append(conditions)
            member_start = _times.parse(status.get("startTime"), ("status", "startTime"))
            member_end = status.get("completionTime")
            if member_start is not None:
                started += 1
                start = member_start if start is None else min(start, member_start)
            if member_end is not None:
                completed += 1
                end = _aggregate.latest(end, member_end, ("status", "completionTime"))
    new_conditions: Conditions = []
    if failed:
        message = f"Job executed failed in member clusters {','.join(failed)}"
        failing = [c for c in member_conditions if finished(c) == FAILED]
        new_conditions.append(_summary(FAILED, "JobFailed", message, failing))
    succeeded = sum(1 for c in member_conditions if finished(c) == COMPLETE)
    if succeeded == len(items) and succeeded > 0:
        new_conditions.append(_summary(COMPLETE, "Completed", "Job completed", member_conditions))
        if sum(1 for c in member_conditions if _true(c, SUCCESS_CRITERIA_MET)) == len(items):
            message = "All member clusters have met success criteria"
            new_conditions.append(
                _summary(SUCCESS_CRITERIA_MET, "CompletionsReached", message, member_conditions)
            )
    start_time = _times.written(template_status.get("startTime"), ("status", "startTime"))
    computed_start = start_time is None and start is not None and started == len(items)
    if computed_start and start is not None:
        start_time = times.text(start)
    if completed != len(items):
        end = None
    # without conditions, and with the template's own start time, the new status may equal it
    held = {"startTime": template_status.get("startTime"), "completionTime": end, **counts}
    if not (new_conditions or computed_start) and _gotypes.equal(
        _gotypes.JOB, template_status, held, ("status",), semantic=False
    ):
        return _fields.copy_tree(obj)
    new = {
        "conditions": new_conditions,
        "startTime": start_time,
        "completionTime": _times.written(end, ()),
        **counts,
    }
    out = _fields.copy_tree(obj)
    out["status"] = _fields.compact(new)
    return out
