"""The rollout stage: which cluster refs move now, and why, so that a rendered change reaches the
fleet wave by wave (a pure function of the waves, the clusters, the desired render, the refs,
the agents' reports, the recorded state and the time).

At each look (`step`), each cluster is one of:
- current: its ref holds the desired folder (the rendered branch tip's `works/<cluster>`);
- free: it moves at once: it has no ref yet (nothing runs there to protect), it left the
  source (its empty folder must reach it), or its ref is already of the rollout's source
  commit (a later render of a source commit released to it: failover, capacity);
- pending: the waves decide.

The waves are looked at in order (`model.rollout.assign`; clusters no wave selects form the
last). A wave is done when every cluster of it is current and healthy (its agent applied the
ref's folder, every manifest applied and Healthy, a heartbeat within the grace period) and,
if this rollout changed any of its clusters, has stayed so for its `bake` time. The first wave
not done is the active one: its pending clusters are released, at most `maxUnavailable` of
them given the change and not healthy yet at a time (a cluster unhealthy before the
rollout reached it does not count); the waves after it wait. An active wave not healthy within its
`timeout` (counted from when the rollout reached it) halts the rollout; with
`onFailure: rollback` its clusters that this rollout changed go back to the render last seen
healthy on them. A halted rollout releases nothing more; a render of another source commit
starts a new rollout from the first wave.

The rollout's identity is the tip's source commit, so a commit that changes no rendered file
(`control: Pause`, say) continues the rollout in progress rather than starting a new one.
`Control.PAUSE` releases nothing and stops timeouts (they start again on resume);
`Control.ABORT` rolls back what the rollout released and holds everything while set; the
commit that sets `Run` again starts the rollout over. `skip` (the source commit's
`Gitfleet-Rollout: skip` trailer) releases every cluster at once.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Mapping, Sequence

from gitfleet.model import cluster
from gitfleet.model import rollout as rollout_model
from gitfleet.rollout import _state

Ref = _state.Ref
State = _state.State
WaveState = _state.WaveState
Phase = _state.Phase
WavePhase = _state.WavePhase
to_doc = _state.to_doc
from_doc = _state.from_doc
when = _state.when


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Report:
    """What a cluster's agent last reported, as far as a rollout cares."""

    applied_folder: str | None
    """The `works/<cluster>` folder of the commit it applied (None: empty, or unknown)."""
    applied: bool
    """It reported applying a commit at all (and that commit could be read)."""
    heartbeat: datetime.datetime | None
    problem: str = ""
    """Why it is not healthy ("": converged, every manifest applied and Healthy)."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Desired:
    """The rendered branch's tip: its commit, source commit and folder of each cluster."""

    commit: str
    source_commit: str
    folders: Mapping[str, str | None]


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Inputs:
    settings: rollout_model.RolloutSettings
    clusters: Sequence[cluster.Cluster]
    desired: Desired
    refs: Mapping[str, Ref]
    reports: Mapping[str, Report]
    state: State | None
    now: float
    grace: float
    """Seconds after its last heartbeat a report no longer counts."""
    skip: bool = False


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Release:
    """Move one cluster ref to `folder` (of `source_commit`'s render), saying why."""

    cluster: str
    folder: str | None
    source_commit: str
    wave: str
    reason: str
    rollback: bool = False
    restores: str = ""
    """For a rollback: the commit of the cluster's ref whose folder it restores."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Decision:
    releases: tuple[Release, ...]
    state: State


class _Look:
    """One look's working state (see the module docstring)."""

    def __init__(self, inputs: Inputs) -> None:
        self.inputs = inputs
        self.now = inputs.now
        self.desired = inputs.desired
        self.source = inputs.desired.source_commit
        self.plan = rollout_model.assign(inputs.settings.waves, inputs.clusters)
        self.releases: list[Release] = []
        self.pending: set[str] = set()

    def folder(self, name: str) -> str | None:
        return self.desired.folders.get(name)

    def current(self, name: str) -> bool:
        ref = self.inputs.refs.get(name)
        return ref is not None and ref.folder == self.folder(name)

    def healthy(self, name: str) -> str:
        """ "" when the cluster's agent reports its ref's folder applied and healthy, else why
        not."""
        report = self.inputs.reports.get(name)
        ref = self.inputs.refs.get(name)
        if report is None or not report.applied:
            return "no report from its agent"
        if ref is None or report.applied_folder != ref.folder:
            return "its agent has not applied its render yet"
        if report.problem:
            return report.problem
        beat = report.heartbeat
        if beat is None or self.now - beat.timestamp() > self.inputs.grace:
            return "no recent heartbeat from its agent"
        return ""

    def released(self, name: str) -> bool:
        """Whether this rollout has given the cluster its source commit's render."""
        ref = self.inputs.refs.get(name)
        return ref is not None and ref.source_commit == self.source

    def release(self, name: str, wave: str, reason: str) -> None:
        self.releases.append(
            Release(
                cluster=name,
                folder=self.folder(name),
                source_commit=self.source,
                wave=wave,
                reason=reason,
            )
        )

    def sort(self) -> None:
        """Release the free clusters; the others are pending."""
        waves = {name: wave.name for wave, names in self.plan for name in names}
        names = sorted(set(self.desired.folders) | set(self.inputs.refs))
        for name in names:
            ref = self.inputs.refs.get(name)
            if self.current(name):
                continue
            if name not in waves:
                self.release(name, "", "not a cluster of the source: its folder is emptied")
            elif ref is None:
                self.release(name, waves[name], "a new cluster: nothing runs there to hold back")
            elif ref.source_commit == self.source:
                self.release(name, waves[name], "a new render of a source commit it runs")
            else:
                self.pending.add(name)

    def remembered(self, state: State) -> dict[str, Ref]:
        """The last render seen healthy on each cluster, as of this look: a ref of this
        rollout's source counts only once the rollout is complete (a rollback must go back
        to what ran before it)."""
        found = dict(state.last_healthy)
        finished = state.phase in (Phase.COMPLETE, Phase.SKIPPED)
        for name, ref in self.inputs.refs.items():
            if (ref.source_commit != self.source or finished) and not self.healthy(name):
                found[name] = ref
        return found

    def roll_back(self, names: Sequence[str], state: State, wave: str, why: str) -> list[str]:
        """Give each of `names` that this rollout changed the render last healthy on it; the
        clusters it could not roll back (no healthy render known)."""
        missing = []
        for name in names:
            ref = self.inputs.refs.get(name)
            if ref is None or ref.source_commit != self.source:
                continue
            good = state.last_healthy.get(name)
            if good is None or good.source_commit == self.source:
                missing.append(name)
                continue
            self.releases.append(
                Release(
                    cluster=name,
                    folder=good.folder,
                    source_commit=good.source_commit,
                    wave=wave,
                    reason=f"{why}: back to {good.commit}, the render last healthy on it",
                    rollback=True,
                    restores=good.commit,
                )
            )
        return missing


def _fresh(look: _Look, before: State | None) -> State:
    """A new rollout of the tip's source, remembering what was healthy before it."""
    return State(
        source_commit=look.source,
        rendered_commit=look.desired.commit,
        started=look.now,
        waves=tuple(WaveState(name=w.name, clusters=names) for w, names in look.plan),
        last_healthy=before.last_healthy if before is not None else {},
    )


def _with_plan(look: _Look, state: State) -> State:
    """`state`'s waves lined up with this look's plan (a wave's clusters may change)."""
    kept = {w.name: w for w in state.waves}
    waves = tuple(
        dataclasses.replace(kept.get(w.name) or WaveState(name=w.name), clusters=names)
        for w, names in look.plan
    )
    return dataclasses.replace(state, waves=waves, rendered_commit=look.desired.commit)


def step(inputs: Inputs) -> Decision:
    """The refs to move now and the state to record (see the module docstring)."""
    look = _Look(inputs)
    look.sort()
    control = inputs.settings.control
    state = inputs.state
    if state is None or state.source_commit != look.source:
        state = _fresh(look, state)
    state = _with_plan(look, state)
    state = dataclasses.replace(state, last_healthy=look.remembered(state))
    if inputs.skip:
        for name in sorted(look.pending):
            look.release(name, "", "the source commit skips the waves (Gitfleet-Rollout: skip)")
        message = f"source {look.source} skips the waves ({rollout_model.TRAILER}: skip)"
        state = dataclasses.replace(state, phase=Phase.SKIPPED, message=message)
        return Decision(releases=tuple(look.releases), state=state)
    if control is rollout_model.Control.ABORT:
        return _abort(look, state)
    if state.phase is Phase.ABORTED:
        state = _with_plan(look, _fresh(look, state))
    if state.phase is Phase.HALTED:
        return Decision(releases=tuple(look.releases), state=state)
    paused = control is rollout_model.Control.PAUSE
    if state.phase is Phase.PAUSED and not paused:
        state = _resumed(state, look.now)
    return _progress(look, state, paused)


def _abort(look: _Look, state: State) -> Decision:
    names = sorted(n for _, names in look.plan for n in names)
    why = "rollout aborted by rollout.control: Abort"
    if state.phase is not Phase.ABORTED:
        missing = look.roll_back(names, state, "", why)
        message = why + (f"; no healthy render known for {', '.join(missing)}" if missing else "")
        state = dataclasses.replace(state, phase=Phase.ABORTED, message=message)
    return Decision(releases=tuple(look.releases), state=state)


def _resumed(state: State, now: float) -> State:
    """Timeouts start again: a paused wave had no chance to become healthy."""
    waves = tuple(
        dataclasses.replace(w, reached=now) if w.reached is not None and w.done is None else w
        for w in state.waves
    )
    return dataclasses.replace(state, waves=waves, phase=Phase.PROGRESSING, message="")


def _progress(look: _Look, state: State, paused: bool) -> Decision:
    """Follow the waves in order (see the module docstring); `paused`: watch their health,
    release nothing and let no timeout run."""
    waves: list[WaveState] = []
    settings = {w.name: w for w, _ in look.plan}
    count = len(look.plan)
    active: tuple[int, WaveState, str] | None = None
    for index, kept in enumerate(state.waves):
        wave = settings[kept.name]
        label = f"wave {kept.name} ({index + 1}/{count})"
        if active is not None:
            waiting = f"wave {active[1].name}"
            waves.append(dataclasses.replace(kept, phase=WavePhase.WAITING, waiting_for=waiting))
            continue
        members = kept.clusters
        unhealthy = {n: why for n in members if (why := look.healthy(n))}
        pending = [n for n in members if n in look.pending]
        changed = any(look.released(n) for n in members)
        reached = kept.reached if kept.reached is not None else look.now
        if not pending and not unhealthy and all(look.current(n) for n in members):
            since = kept.healthy_since if kept.healthy_since is not None else look.now
            if kept.done is not None or not changed or look.now - since >= wave.bake_seconds:
                done = kept.done if kept.done is not None else look.now
                waves.append(
                    dataclasses.replace(
                        kept, phase=WavePhase.DONE, waiting_for="", reached=reached,
                        healthy_since=since, done=done,
                    )
                )  # fmt: skip
                continue
            waiting = f"healthy for its bake time ({wave.bake_seconds:g}s)"
            baking = dataclasses.replace(
                kept, phase=WavePhase.BAKING, waiting_for=waiting, reached=reached,
                healthy_since=since,
            )  # fmt: skip
            waves.append(baking)
            active = (index, baking, label)
            continue
        if not paused and look.now - reached > wave.timeout_seconds:
            return _fail(look, state, index, waves, unhealthy)
        in_flight = [n for n in members if n in unhealthy and look.released(n)]
        room = 0 if paused else wave.max_unavailable.limit(len(members)) - len(in_flight)
        earlier = f"wave {state.waves[index - 1].name} is done" if index else "first wave"
        for name in pending[: max(0, room)]:
            look.release(name, kept.name, f"{label} released ({earlier})")
        left = pending[max(0, room) :]
        reasons = [f"{n}: {unhealthy[n]}" for n in members if n in unhealthy and n not in pending]
        if left:
            reasons.append(f"{len(left)} more to release (maxUnavailable {wave.max_unavailable})")
        progressing = dataclasses.replace(
            kept, phase=WavePhase.PROGRESSING, waiting_for="; ".join(reasons) or "its clusters",
            reached=reached, healthy_since=None, done=None,
        )  # fmt: skip
        waves.append(progressing)
        active = (index, progressing, label)
    phase = Phase.PROGRESSING if active is not None else Phase.COMPLETE
    message = f"{active[2]}: waiting for {active[1].waiting_for}" if active is not None else ""
    if paused and active is not None:
        phase, message = Phase.PAUSED, f"paused by rollout.control: Pause; {message}"
    state = dataclasses.replace(state, waves=tuple(waves), phase=phase, message=message)
    return Decision(releases=tuple(look.releases), state=state)


def _fail(
    look: _Look, state: State, index: int, done: list[WaveState], unhealthy: Mapping[str, str]
) -> Decision:
    """The active wave ran out of time: halt, and roll back when the wave says so."""
    kept = state.waves[index]
    wave = next(w for w, _ in look.plan if w.name == kept.name)
    reasons = "; ".join(f"{n}: {why}" for n, why in sorted(unhealthy.items()))
    why = f"wave {kept.name} not healthy within {wave.timeout_seconds:g}s ({reasons})"
    message = f"halted: {why}"
    if wave.on_failure is rollout_model.OnFailure.ROLLBACK:
        missing = look.roll_back(kept.clusters, state, kept.name, why)
        message += "; rolled back"
        if missing:
            message += f" (no healthy render known for {', '.join(missing)})"
    failed = dataclasses.replace(kept, phase=WavePhase.FAILED, waiting_for=why)
    waiting = [
        dataclasses.replace(w, phase=WavePhase.WAITING, waiting_for=f"wave {kept.name}")
        for w in state.waves[index + 1 :]
    ]
    waves = (*done, failed, *waiting)
    state = dataclasses.replace(state, phase=Phase.HALTED, message=message, waves=waves)
    return Decision(releases=tuple(look.releases), state=state)
