"""Health and reported status of a member object, through the resource interpreter.

Karmada's work status controller asks the interpreter chain (user Lua, third-party Lua,
native) for each manifest's health and reflected status
(pkg/controllers/status/work_status_controller.go): a kind without a health rule is Healthy,
a rule that fails makes it Unknown. A status rule that fails reports no status.

An object the member is deleting (its `deletionTimestamp` set, finalizers holding it) is
another matter: Karmada's controllers ask the interpreter all the same, which answers for the
object as it was (a Deployment stays Healthy to the end), and its Work stays Applied. gitfleet
reports it as Argo CD shows one "pending deletion": not applied, its health Unknown, with a
message saying since when and which finalizers hold it (`terminating`); the agent's next sync
creates it again once it is gone.
"""

from __future__ import annotations

import logging
from typing import Any, cast

from gitfleet import errors
from gitfleet.interpreter import Interpreter
from gitfleet.model import work
from gitfleet.model.template import RawObject

log = logging.getLogger(__name__)


def terminating(obj: dict[str, Any]) -> str:
    """Why a live object being deleted is not applied, "" for one that is not."""
    metadata = obj.get("metadata")
    if not isinstance(metadata, dict) or not metadata.get("deletionTimestamp"):
        return ""
    since = metadata["deletionTimestamp"]
    held = [str(f) for f in metadata.get("finalizers") or []]
    holders = f", held by finalizers {', '.join(held)}" if held else ""
    return f"being deleted since {since}{holders}; created again once it is gone"


def observe(interpreter: Interpreter, obj: dict[str, Any]) -> tuple[work.ResourceHealth, Any]:
    """(health, reflected status) of a live object."""
    raw = cast(RawObject, obj)
    try:
        healthy = interpreter.interpret_health(raw)
        health = work.ResourceHealth.HEALTHY if healthy else work.ResourceHealth.UNHEALTHY
    except (errors.GitfleetError, ValueError, TypeError) as exc:
        log.debug("health of %s: %s", obj.get("kind"), exc)
        health = work.ResourceHealth.UNKNOWN
    try:
        status = interpreter.reflect_status(raw)
    except (errors.GitfleetError, ValueError, TypeError) as exc:
        log.debug("status of %s: %s", obj.get("kind"), exc)
        status = None
    return health, status
