"""One cluster's worker: sync it to the current round, report its status, and do it again.

`ClusterWorker.step(round)` checks that the agent can use the cluster, syncs it (`apply.sync`),
collects the cluster's own status (`clusterinfo`) when the heartbeat is due or the sync did
something or failed, and writes the status ref (`report`); it never raises. A cluster that does
not answer is reported not Ready (ClusterNotReachable); an agent whose own configuration is at
fault (no kubeconfig, an unreadable one, credentials refused) reports nothing at all. `run()`
loops: it syncs every `Pace.interval` seconds (drift is repaired then) and at once when woken
(a new rendered commit); after a failed sync it waits with exponential backoff instead, so a
cluster that is down is tried ever more rarely.
Each worker has its own client, repository handle and interpreter (Lua runtimes are not shared
between threads), so workers never wait for each other. The push agent runs one per Push
cluster; an agent inside a cluster can run one for itself.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Mapping

from gitfleet import errors
from gitfleet.agent import apply, clusterinfo, fleet, kube, report, verify
from gitfleet.gitstore import repository, status
from gitfleet.interpreter import Interpreter
from gitfleet.model import cluster
from gitfleet.monitor import health, metrics

log = logging.getLogger(__name__)

MISCONFIGURED = "the agent cannot use its access to the cluster, so it reports nothing"
_COUNTED_APPLIES = frozenset({*apply.WRITTEN, apply.Action.FAILED})
"""The actions `gitfleet_cluster_applies_total` counts: writes, and writes that failed."""
_COUNTED_PRUNES = {
    apply.Action.PRUNED: "pruned",
    apply.Action.RELEASED: "released",
    apply.Action.PRUNE_FAILED: "failed",
}


@dataclasses.dataclass(frozen=True, slots=True)
class Backoff:
    """The wait before retrying a cluster whose sync failed `n` times in a row."""

    base: float = 5.0
    cap: float = 300.0

    def delay(self, failures: int) -> float:
        return float(min(self.cap, self.base * 2 ** max(0, failures - 1)))


@dataclasses.dataclass(frozen=True, slots=True)
class Pace:
    """How often a worker syncs, reports when nothing changes, and retries after failures."""

    interval: float = 30.0
    heartbeat: float = 10.0
    backoff: Backoff = dataclasses.field(default_factory=Backoff)


class ClusterWorker:
    """Syncs and reports one cluster; `run` loops until stopped, `step` does one round."""

    def __init__(
        self,
        target: fleet.Target,
        *,
        repo: repository.Repository,
        current: Callable[[], fleet.Round | None],
        move: status.MoveRef | None = None,
        retry: kube.Retry | None = None,
        options: apply.Options | None = None,
        pace: Pace = Pace(),
        clock: Callable[[], float] = time.time,
        counts: metrics.AgentMetrics | None = None,
        alive: health.Health | None = None,
        follows: verify.Follows | None = None,
    ) -> None:
        """`repo` is the worker's own handle (closed with it); `current` gives the round to
        sync to; `move` publishes the status ref elsewhere (a remote); `counts` and `alive`
        are the agent's metrics and health (by default, the worker's own, served by nobody);
        `follows`, when verifying, tells whether a commit may be applied after the last one
        (`verify`)."""
        self.target = target
        self.name = target.name
        self.repo = repo
        self.current = current
        self.move = move
        self.retry = retry or kube.Retry()
        self.options = options or apply.Options()
        self.pace = pace
        self.clock = clock
        self.counts = counts or metrics.AgentMetrics(metrics.new_registry(), clock)
        self.alive = alive or health.Health()
        self.loop = f"cluster {target.name}"
        """The worker's loop, as health knows it (not ready until its first sync is done)."""
        self.alive.pending(self.loop, "no sync done yet")
        self.stop = threading.Event()
        self.wake = threading.Event()
        self.client: kube.KubeClient | None = None
        self.failures = 0
        self.status: cluster.ClusterStatus | None = None
        self._interpreter: tuple[str, Interpreter] | None = None
        stored = status.read_status(self.repo, self.name)
        self.reporter = report.Reporter.resume(
            self.name, self._write, pace.heartbeat, stored.files if stored else {}
        )
        if self.reporter.last_beat is not None:
            self.counts.heartbeat(self.name, self.reporter.last_beat)
        self.follows = follows
        self.applied = self.reporter.last_applied()
        """The rendered commit last applied: no commit that does not follow it is."""
        self._history: tuple[tuple[str, str | None], verify.Refusal | None] | None = None
        self.thread: threading.Thread | None = None

    # ---- one round ---------------------------------------------------------------------

    def _client(self) -> kube.KubeClient:
        """The cluster's client; `kube.ConfigurationError` when there is no kubeconfig."""
        path = self.target.kubeconfig
        if path is None:
            raise kube.ConfigurationError(self.target.problem)
        if self.client is None or self.client.kubeconfig != path:
            if self.client is not None:
                self.client.close()
            self.client = kube.KubeClient(path, name=self.name, retry=self.retry, stop=self.stop)
        return self.client

    def step(self, round_: fleet.Round) -> apply.SyncResult:
        """Sync the cluster to `round_` and report; never raises.

        An agent that cannot use its own access to the cluster (`kube.ConfigurationError`: no
        kubeconfig, an unreadable one, credentials refused) reports nothing, not even a
        heartbeat: its cluster is not known to be down, so it must not look NotReady. The
        result says why; the heartbeat on the status ref ages, and failover treats the
        cluster as it treats any agent that stopped reporting."""
        started = time.monotonic()
        mine = round_.of(self.name)
        result = (
            self._step(mine)
            if mine is not None
            else self._skipped(round_, f"nothing released to cluster {self.name} yet")
        )
        self._count(result, time.monotonic() - started)
        return result

    def _step(self, round_: fleet.Round) -> apply.SyncResult:
        try:
            result, reached = self._sync(round_)
        except kube.ConfigurationError as exc:
            return self._misconfigured(round_, exc)
        except Exception as exc:  # a bug must not end the worker: report it and go on
            log.exception("cluster %s: sync failed", self.name)
            result, reached = self._skipped(round_, f"internal error: {exc}"), True
        if self.stop.is_set():
            return result
        try:
            unreported = self._report(result, reached)
        except kube.ConfigurationError as exc:  # refused while collecting the cluster's status
            return self._misconfigured(round_, exc)
        if unreported:  # the fleet cannot see this sync: not converged as far as it knows
            error = "; ".join(e for e in (result.error, unreported) if e)
            return dataclasses.replace(result, error=error)
        return result

    def _count(self, result: apply.SyncResult, seconds: float) -> None:
        """What a sync did, into the agent's metrics."""
        name, counts = self.name, self.counts
        if result.guard_refused:
            counts.guard_refusals.labels(name).inc()
        refused = result.guard_refused or bool(result.refused)
        outcome = "converged" if result.converged else "refused" if refused else "failed"
        counts.syncs.labels(name, outcome).inc()
        counts.sync_duration.labels(name).observe(seconds)
        for each in result.objects:
            if each.action in _COUNTED_APPLIES:
                counts.applies.labels(name, str(each.action)).inc()
            if each.drift:
                counts.drift_repaired.labels(name).inc()
        for each in result.pruned:
            if each.action in _COUNTED_PRUNES:
                counts.prunes.labels(name, _COUNTED_PRUNES[each.action]).inc()

    def _misconfigured(self, round_: fleet.Round, error: Exception) -> apply.SyncResult:
        log.error("cluster %s: %s; nothing reported", self.name, error)
        return self._skipped(round_, f"{MISCONFIGURED}: {error}")

    def _skipped(self, round_: fleet.Round, error: str) -> apply.SyncResult:
        return apply.SyncResult(
            cluster=self.name,
            rendered_commit=round_.rendered.commit,
            source_commit=round_.rendered.source_commit,
            error=error,
        )

    def _sync(self, round_: fleet.Round) -> tuple[apply.SyncResult, bool]:
        """The sync's result, and whether the cluster answered (`kube.ConfigurationError`
        when the agent cannot use its access to it). A refused rendered commit (its
        signature, or one that does not follow the commit last applied) is not read, and
        nothing is written to the cluster."""
        refusal = round_.refusal or self._rollback(round_.rendered.commit)
        if refusal is not None:
            return self._refused(round_, refusal), self._reachable()
        self.applied = round_.rendered.commit
        work_set = round_.work_set(self.repo, self.name)
        client = self._client()
        try:
            client.check_access()
        except kube.ConfigurationError:
            raise
        except errors.ClusterAPIError as exc:
            skipped = tuple(
                apply.ObjectResult(
                    ref=m.ref, path=m.path, action=apply.Action.SKIPPED, message=str(exc)
                )
                for m in work_set.manifests
            )
            result = apply.SyncResult(
                cluster=self.name,
                rendered_commit=work_set.rendered_commit,
                source_commit=work_set.source_commit,
                objects=skipped,
                error=str(exc),
            )
            return result, False
        synced = apply.sync(
            client,
            work_set,
            interpreter=self._interpreter_for(round_),
            options=self.options,
            stop=self.stop,
        )
        return synced, True

    def _refused(self, round_: fleet.Round, refusal: verify.Refusal) -> apply.SyncResult:
        log.error("cluster %s: %s", self.name, refusal.message)
        return dataclasses.replace(
            self._skipped(round_, refusal.message),
            refused=refusal.reason,
            last_applied=self.applied or "",
        )

    def _rollback(self, commit: str) -> verify.Refusal | None:
        """Why `commit` does not follow the commit last applied (checked once per pair)."""
        if self.follows is None:
            return None
        key = (commit, self.applied)
        if self._history is None or self._history[0] != key:
            self._history = (key, verify.rollback(commit, self.applied, self.follows))
        return self._history[1]

    def _reachable(self) -> bool:
        """Whether the cluster answers (`kube.ConfigurationError` when the agent cannot use
        its access to it)."""
        try:
            self._client().check_access()
        except kube.ConfigurationError:
            raise
        except errors.ClusterAPIError:
            return False
        return True

    def _interpreter_for(self, round_: fleet.Round) -> Interpreter:
        """The round's interpreter chain, made once per rendered commit for this thread."""
        commit = round_.rendered.commit
        if self._interpreter is None or self._interpreter[0] != commit:
            self._interpreter = (commit, round_.interpreter())
        return self._interpreter[1]

    def _report(self, result: apply.SyncResult, reached: bool) -> str:
        """Write the report of `result`, with the cluster's status collected again when it
        may have changed (`reached`: the cluster answered at all); why it could not be
        written ("" when it was, or had nothing new to say)."""
        now = self.clock()
        stamp = report.timestamp(now)
        wrote = any(o.action in apply.WRITTEN for o in result.objects) or any(
            p.action in (apply.Action.PRUNED, apply.Action.RELEASED) for p in result.pruned
        )
        previous = self.status or self.reporter.remembered_status()
        if not reached:
            self.status = _unreachable(previous, result.error, stamp)
        elif self.status is None or wrote or result.error or self.reporter.due(now):
            self.status = clusterinfo.collect(self._client(), previous, stamp)
        try:
            if self.reporter.report(result, self.status, now=now, timestamp=stamp):
                self.counts.heartbeat(self.name, now)
        except errors.GitfleetError as exc:
            log.warning("cluster %s: cannot write its status: %s", self.name, exc)
            stored = status.read_status(self.repo, self.name)
            self.reporter.last = stored.files if stored else {}
            return f"cannot write its status: {exc}"
        return ""

    def _write(self, files: Mapping[str, bytes], rendered_commit: str) -> None:
        current = status.read_status(self.repo, self.name)
        status.write_status(
            self.repo,
            self.name,
            files,
            expected=current.commit if current else None,
            rendered_commit=rendered_commit,
            move=self.move,
        )

    # ---- the loop ----------------------------------------------------------------------

    def start(self) -> None:
        # A daemon: a worker stuck in a request must not keep the process alive once `close`
        # has given up on it.
        self.thread = threading.Thread(
            target=self.run, name=f"gitfleet-push-{self.name}", daemon=True
        )
        self.thread.start()

    def run(self) -> None:
        pace = self.pace
        allowance = health.allowance(pace.interval)
        self.alive.beat(self.loop, allowance)
        while not self.stop.is_set():
            round_ = self.current()
            if round_ is not None:
                result = self.step(round_)
                self.failures = self.failures + 1 if result.error else 0
                self.alive.done(self.loop)
            # A quiet cluster still reports every heartbeat, so failover never mistakes it for
            # a dead one.
            quiet = min(pace.interval, pace.heartbeat)
            delay = pace.backoff.delay(self.failures) if self.failures else quiet
            self.alive.beat(self.loop, delay + allowance)
            self.wake.wait(delay)
            self.wake.clear()
        self.alive.end(self.loop)

    def halt(self) -> None:
        self.stop.set()
        self.wake.set()

    def close(self, timeout: float | None = None) -> bool:
        """Wait for the thread (at most `timeout` seconds), then release the client and the
        repository; whether the thread ended. A thread still running keeps them: it is still
        using them."""
        if self.thread is not None:
            self.thread.join(timeout)
            if self.thread.is_alive():
                return False
        if self.client is not None:
            self.client.close()
        self.repo.close()
        return True


def _unreachable(
    previous: cluster.ClusterStatus | None, message: str, now: str
) -> cluster.ClusterStatus:
    condition = clusterinfo.ready_condition(previous, "False", "ClusterNotReachable", message, now)
    return dataclasses.replace(previous or cluster.ClusterStatus(), conditions=(condition,))
