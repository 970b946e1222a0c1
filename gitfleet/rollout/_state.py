"""What a rollout remembers between looks, and its document (`RolloutStatus`, kept in Git by the
reconciler): everything else is read again from the refs at each look.

Refs say what is desired (the rendered branch's tip), released (each cluster's ref) and applied
(the status refs). What they cannot say is recorded here: which source commit the rollout is
of, its phase (halted, aborted, ...), when each wave was reached, became healthy and finished,
and per cluster the last render seen healthy on it, which a rollback goes back to.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
from collections.abc import Mapping
from typing import Any

from gitfleet.model import times

API_VERSION = "gitfleet.io/v1alpha1"
KIND = "RolloutStatus"


class Phase(enum.StrEnum):
    PROGRESSING = "Progressing"
    PAUSED = "Paused"
    COMPLETE = "Complete"
    HALTED = "Halted"
    """A wave was not healthy within its timeout: nothing more is released for this source."""
    ABORTED = "Aborted"
    SKIPPED = "Skipped"
    """The source commit asked to skip the waves (`Gitfleet-Rollout: skip`)."""


class WavePhase(enum.StrEnum):
    WAITING = "Waiting"
    """An earlier wave is not done yet."""
    PROGRESSING = "Progressing"
    """Its clusters are being given the render, or are not healthy on it yet."""
    BAKING = "Baking"
    DONE = "Done"
    FAILED = "Failed"


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Ref:
    """A cluster's ref: its commit, its `works/<cluster>` folder (None: empty) and the source
    commit it was rendered from."""

    commit: str
    folder: str | None
    source_commit: str


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class WaveState:
    name: str
    clusters: tuple[str, ...] = ()
    phase: WavePhase = WavePhase.WAITING
    waiting_for: str = ""
    """What the wave waits for, in words (stable between looks: no countdown)."""
    reached: float | None = None
    """When the rollout first worked on the wave (its timeout counts from then)."""
    healthy_since: float | None = None
    done: float | None = None


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class State:
    source_commit: str
    """The rollout's source commit: the rendered branch tip's `Source-Commit`."""
    rendered_commit: str = ""
    phase: Phase = Phase.PROGRESSING
    started: float = 0.0
    message: str = ""
    """Why the rollout is in its phase (a failure names its wave and clusters)."""
    waves: tuple[WaveState, ...] = ()
    last_healthy: Mapping[str, Ref] = dataclasses.field(default_factory=dict)
    """Per cluster, the ref last seen applied and healthy before this rollout changed it."""


def when(seconds: float | None) -> str | None:
    """An RFC 3339 UTC time to the millisecond (bake times may be fractions of a second)."""
    if seconds is None:
        return None
    moment = datetime.datetime.fromtimestamp(seconds, datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _seconds(text: Any) -> float | None:
    found = times.parse(text) if isinstance(text, str) else None
    return found.timestamp() if found is not None else None


def _ref_doc(ref: Ref) -> dict[str, Any]:
    return {"commit": ref.commit, "folder": ref.folder, "sourceCommit": ref.source_commit}


def to_doc(state: State) -> dict[str, Any]:
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "sourceCommit": state.source_commit,
        "renderedCommit": state.rendered_commit,
        "phase": str(state.phase),
        "started": when(state.started),
        "message": state.message,
        "waves": [
            {
                "name": w.name,
                "clusters": list(w.clusters),
                "phase": str(w.phase),
                "waitingFor": w.waiting_for,
                "reached": when(w.reached),
                "healthySince": when(w.healthy_since),
                "done": when(w.done),
            }
            for w in state.waves
        ],
        "lastHealthy": {name: _ref_doc(ref) for name, ref in sorted(state.last_healthy.items())},
    }


def _text(doc: Mapping[str, Any], key: str) -> str:
    value = doc.get(key)
    return value if isinstance(value, str) else ""


def _enum(kind: type[enum.StrEnum], value: Any, default: Any) -> Any:
    try:
        return kind(value)
    except ValueError:
        return default


def from_doc(doc: Any) -> State | None:
    """The state a document holds; None when it is not a RolloutStatus (a damaged or foreign
    file: the rollout then starts over from what the refs say)."""
    if not isinstance(doc, dict) or doc.get("kind") != KIND or not _text(doc, "sourceCommit"):
        return None
    waves = doc.get("waves")
    healthy = doc.get("lastHealthy")
    return State(
        source_commit=_text(doc, "sourceCommit"),
        rendered_commit=_text(doc, "renderedCommit"),
        phase=_enum(Phase, doc.get("phase"), Phase.PROGRESSING),
        started=_seconds(doc.get("started")) or 0.0,
        message=_text(doc, "message"),
        waves=tuple(
            WaveState(
                name=_text(w, "name"),
                clusters=tuple(str(c) for c in w.get("clusters") or () if isinstance(c, str)),
                phase=_enum(WavePhase, w.get("phase"), WavePhase.WAITING),
                waiting_for=_text(w, "waitingFor"),
                reached=_seconds(w.get("reached")),
                healthy_since=_seconds(w.get("healthySince")),
                done=_seconds(w.get("done")),
            )
            for w in (waves if isinstance(waves, list) else [])
            if isinstance(w, dict)
        ),
        last_healthy={
            str(name): Ref(
                commit=_text(r, "commit"),
                folder=r.get("folder") if isinstance(r.get("folder"), str) else None,
                source_commit=_text(r, "sourceCommit"),
            )
            for name, r in (healthy.items() if isinstance(healthy, dict) else [])
            if isinstance(r, dict) and _text(r, "commit")
        },
    )
