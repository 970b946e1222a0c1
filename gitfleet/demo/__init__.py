"""`gitfleet demo`: all of gitfleet on one machine, in well under a minute.

A `Demo` makes a workspace (`_workspace`: a source repository copied from the example fleet,
committed, and a bare repository it pushes to), starts one simulated cluster per Cluster of the
example with the reconciler, the push agent and a pull agent per Pull cluster (`_services`),
and plays the story of `_scenario` while a status table follows the fleet (`_display`, from what
`_state` reads in Git). `close` stops every thread and server and removes the workspace, unless
it is kept for exploring (`Options.keep`), in which case everything runs until `close`.

The agents' and the reconciler's log records are held back while the demo runs (they would
scroll the table away); the last ones are shown when a step fails.
"""

from __future__ import annotations

import collections
import dataclasses
import logging
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from gitfleet.demo import _display, _scenario, _services, _workspace, simulated
from gitfleet.service import events

Display = _display.Display
Step = _scenario.Step
LOG_LINES = 20
STOP_RELAY_SECONDS = 1.0
"""How long a failed demo waits for a stop signal that came with the failure to be relayed:
the relay is a thread woken at once, so this is spent only when the failure had no signal."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Options:
    directory: Path | None = None
    """Where to work: an empty folder (`gitfleet demo --dir` makes it, and refuses one that
    is not empty); default: a new temporary folder."""
    keep: bool = False
    """Leave everything running (and the folder in place) until `close`."""
    fast: bool = False
    """Shorter intervals and no pauses between steps (for tests)."""
    timeout: float = 45.0
    """The longest wait for any one step."""

    @property
    def pace(self) -> _services.Pace:
        if self.fast:
            return _services.Pace(interval=0.2, heartbeat=1.0, ready_delay=0.05, retry_cap=1.0)
        return _services.Pace()

    @property
    def poll(self) -> float:
        return 0.25 if self.fast else 0.5


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Summary:
    """How the demo went."""

    ok: bool
    clusters: dict[str, str]
    """Every cluster, with its sync mode."""
    steps: tuple[Step, ...]
    failover: _scenario.Failover | None
    error: str | None
    workspace: str | None
    """The workspace, when it is kept."""
    stuck: tuple[str, ...] = ()
    """Threads that did not stop in time (none when all went well)."""
    stopped: bool = False
    """Stopped (Ctrl-C, SIGTERM) before the story ended: not a failure of the fleet."""
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "clusters": self.clusters,
            "steps": [s.to_json() for s in self.steps],
            "failover": self.failover.to_json() if self.failover else None,
            "error": self.error,
            "workspace": self.workspace,
            "stuck": list(self.stuck),
            "stopped": self.stopped,
            "seconds": round(self.seconds, 2),
        }

    def lines(self) -> list[str]:
        modes = collections.Counter(self.clusters.values())
        kinds = ", ".join(f"{n} {mode}" for mode, n in sorted(modes.items()))
        found = [f"clusters: {len(self.clusters)} ({kinds})"]
        found += [f"{s.name}: {s.detail} in {s.seconds:.1f}s" for s in self.steps]
        if self.failover is not None:
            f, show = self.failover, _scenario.placement
            found.append(
                f"failover: {f.cluster} down, shop/web {show(f.before)} -> {show(f.after)};"
                f" after recovery {show(f.recovered)}"
            )
        if self.error:
            found.append(f"error: {self.error}")
        if self.stuck:
            found.append(f"still running: {', '.join(self.stuck)}")
        found.append(f"kept in {self.workspace}" if self.workspace else "workspace removed")
        verdict = "demo complete" if self.ok else "demo stopped" if self.stopped else "demo failed"
        found.append(f"{verdict} in {self.seconds:.1f}s")
        return found


class _Held(logging.Handler):
    """Keeps the last log records instead of printing them."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: collections.deque[str] = collections.deque(maxlen=LOG_LINES)
        self.setFormatter(logging.Formatter("%(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


class Demo:
    def __init__(self, options: Options, display: Display, stop: threading.Event) -> None:
        self.options = options
        self.display = display
        self.stop = stop
        self.root: Path | None = None
        self.services: _services.Services | None = None
        self.scenario: _scenario.Scenario | None = None
        self.events: collections.deque[events.Event] = collections.deque(maxlen=LOG_LINES)
        self.held = _Held()
        self._logger = logging.getLogger("gitfleet")
        self._level = self._logger.level
        self._started = time.monotonic()

    def _workspace(self) -> _workspace.Workspace:
        chosen = self.options.directory
        self.root = chosen if chosen is not None else Path(tempfile.mkdtemp(prefix="gitfleet-"))
        return _workspace.Workspace.create(self.root)

    def run(self) -> Summary:
        """Set everything up and play the story; the summary (its workspace is named only
        when it is kept)."""
        self._logger.addHandler(self.held)
        self._logger.propagate = False
        self._logger.setLevel(logging.INFO)
        error, stopped = None, False
        try:
            self._unless_stopped()
            workspace = self._workspace()
            self.display.say(f"Source repository: {workspace.source} (from the example fleet)")
            plans = simulated.plans_from_repo(str(workspace.source))
            self.services = _services.Services(
                workspace, plans, self.options.pace, self.events.append
            )
            modes = ", ".join(f"{p.name} ({p.mode})" for p in plans)
            self.display.say(f"Simulated clusters: {modes}")
            self._unless_stopped()
            self.services.start()
            pulls = ", ".join(self.services.pull_clusters) or "none"
            self.display.say(
                "Running: the reconciler, the push agent"
                f" ({len(self.services.push_clusters)} clusters), a pull agent for {pulls}"
            )
            self.scenario = _scenario.Scenario(
                workspace,
                self.services,
                self.display,
                timeout=self.options.timeout,
                poll=self.options.poll,
                stop=self.stop,
            )
            self.scenario.run()
        except _scenario.Stopped as stopping:
            error, stopped = str(stopping), True
        except _scenario.Failed as failure:
            error = str(failure)
        except Exception as failure:  # any failure must still end with a summary
            error = f"{type(failure).__name__}: {failure}"
        finally:
            self.display.close()
        if error is not None and not stopped and self._stopped_meanwhile():
            error, stopped = "stopped", True
        if error is not None and not stopped and self.held.lines:
            self.display.say("last log lines:")
            for line in self.held.lines:
                self.display.say(f"  {line}")
        return self._summary(error, stopped)

    def _stopped_meanwhile(self) -> bool:
        """Whether a stop signal came with the failure. Ctrl-C reaches the whole process group,
        so a git process the story runs can die of it, and fail the story, before the signal's
        relay sets `stop`: what ended the demo is then the stop, not a fault of the fleet."""
        return self.stop.wait(STOP_RELAY_SECONDS)

    def _unless_stopped(self) -> None:
        """`Stopped` when a signal came during the setup, before anything more is started
        (the story checks on its own)."""
        if self.stop.is_set():
            raise _scenario.Stopped("stopped")

    def _summary(self, error: str | None, stopped: bool) -> Summary:
        scenario = self.scenario
        plans = self.services.plans if self.services else ()
        kept = self.options.keep or self.options.directory is not None
        return Summary(
            ok=error is None,
            clusters={p.name: p.mode for p in plans},
            steps=tuple(scenario.steps) if scenario else (),
            failover=scenario.failover if scenario else None,
            error=error,
            workspace=str(self.root) if kept and self.root is not None else None,
            stopped=stopped,
            seconds=time.monotonic() - self._started,
        )

    def where(self) -> list[str]:
        """Where things are, for exploring a kept demo."""
        if self.services is None or self.root is None:
            return []
        ws = self.services.workspace
        found = [
            f"source repository (commit and push here): {ws.source}",
            f"shared repository (the 'Git host'): {ws.remote}",
            f"kubeconfigs of the simulated clusters: {ws.kubeconfigs}",
            f"try: gitfleet status --repo {ws.remote}",
            f"try: git -C {ws.remote} log --format='%h %s' gitfleet/rendered",
        ]
        found += [
            f"try: kubectl --kubeconfig {ws.kubeconfigs / c.name}.yaml get deployments -A"
            for c in list(self.services.clusters)[:1]
        ]
        return found

    def close(self, summary: Summary) -> Summary:
        """Stop every thread and server and remove the workspace unless kept; the summary
        with what did not stop."""
        stuck: tuple[str, ...] = ()
        if self.services is not None:
            self.display.say("stopping the agents, the reconciler and the simulated clusters")
            stuck = tuple(self.services.stop())
        self._logger.removeHandler(self.held)
        self._logger.propagate = True
        self._logger.setLevel(self._level)
        kept = self.options.keep or self.options.directory is not None
        if self.root is not None and not kept:
            shutil.rmtree(self.root, ignore_errors=True)
        return dataclasses.replace(
            summary,
            ok=summary.ok and not stuck,
            stuck=stuck,
            seconds=time.monotonic() - self._started,
        )
