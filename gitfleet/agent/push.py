"""The push agent: applies the rendered branch to every Push cluster, from outside them.

`PushAgent.run()` watches the rendered branch — file events on a local repository's refs plus
polling every `interval` seconds; a remote URL is fetched into a bare copy in a cache folder
each round — and hands every new rendered commit (`fleet.resolve`) to one worker thread per
cluster. A worker syncs its cluster (`apply.sync`), collects the cluster's own status
(`clusterinfo`) when the heartbeat is due or the sync did something, and writes its status ref
(`report`). It syncs again every `interval` (drift is repaired then) and at once on a new
rendered commit; after a failed sync it waits with exponential backoff instead, so a cluster
that is down is retried ever more rarely and never delays the others, which run in their own
threads.

`PushAgent.once()` syncs the current rendered commit to every Push cluster in parallel, writes
their status refs and returns each cluster's result. `stop()` (SIGTERM) makes every worker give up
at its next request boundary: a half-done sync is abandoned cleanly (the inventory already
lists what it may have written) and nothing is pruned.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import yaml

from gitfleet import errors
from gitfleet.agent import apply, clusterinfo, fleet, kube, report
from gitfleet.gitstore import remote, rendered, repository, status, tree
from gitfleet.interpreter import Interpreter
from gitfleet.model import cluster, loaded
from gitfleet.model.origin import Origin

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True, slots=True)
class Backoff:
    """The wait before retrying a cluster whose sync failed `n` times in a row."""

    base: float = 5.0
    cap: float = 300.0

    def delay(self, failures: int) -> float:
        return float(min(self.cap, self.base * 2 ** max(0, failures - 1)))


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    repo: str
    """A local repository (its top folder, or a bare repository) or a remote URL."""
    kubeconfig_dir: Path
    branch: str | None = None
    """The rendered branch; default: gitfleet.yaml's renderedBranch at HEAD, else
    gitfleet/rendered."""
    interval: float = 30.0
    heartbeat: float = 60.0
    cache_dir: Path | None = None
    """Where remote repositories are copied (default: `~/.cache/gitfleet`)."""
    retry: kube.Retry = dataclasses.field(default_factory=kube.Retry)
    options: apply.Options = dataclasses.field(default_factory=apply.Options)
    backoff: Backoff = dataclasses.field(default_factory=Backoff)
    watch: bool = True
    """React to ref changes of a local repository at once (else: only every `interval`)."""


class _Repo:
    """The repository the agent reads and reports to: local, or a copy of a remote."""

    def __init__(self, settings: Settings) -> None:
        self.mirror: remote.Mirror | None = None
        if remote.is_remote(settings.repo):
            cache = settings.cache_dir or Path.home() / ".cache" / "gitfleet"
            self.mirror = remote.Mirror(settings.repo, cache)
            self.mirror.fetch()
            self.path = self.mirror.path
            self.git_dir = self.mirror.path
        else:
            self.path = Path(settings.repo)
            found = repository.find_git_dir(self.path)
            if found is None:
                raise errors.SourceError(
                    Origin(settings.repo), "not a Git repository (its top must hold .git)"
                )
            self.git_dir = found
        self.repo = self.open()

    def open(self) -> repository.Repository:
        """A handle of its own for a thread."""
        return repository.Repository(self.git_dir, str(self.path))

    def refresh(self) -> None:
        if self.mirror is not None:
            self.mirror.fetch()

    @property
    def move(self) -> status.MoveRef | None:
        return self.mirror.push if self.mirror is not None else None

    def rendered_branch(self) -> str:
        """gitfleet.yaml's renderedBranch at HEAD, else the default."""
        head = self.repo.commit_of("HEAD")
        entry = tree.find(self.repo, head, loaded.CONFIG_FILE) if head else None
        if entry is None or entry.kind is not tree.EntryKind.FILE:
            return loaded.DEFAULT_RENDERED_BRANCH
        try:
            settings = yaml.safe_load(tree.read_blobs(self.repo, [entry])[entry.path])
        except (yaml.YAMLError, errors.GitfleetError):
            return loaded.DEFAULT_RENDERED_BRANCH
        branch = settings.get("renderedBranch") if isinstance(settings, dict) else None
        return branch if isinstance(branch, str) and branch else loaded.DEFAULT_RENDERED_BRANCH


class ClusterWorker:
    """Syncs and reports one cluster; `run` loops until stopped, `step` does one round."""

    def __init__(self, agent: PushAgent, target: fleet.Target) -> None:
        self.agent = agent
        self.target = target
        self.name = target.name
        self.stop = threading.Event()
        self.wake = threading.Event()
        self.repo = agent.repo.open()
        self.client: kube.KubeClient | None = None
        self.failures = 0
        self.status: cluster.ClusterStatus | None = None
        self._interpreter: tuple[str, Interpreter] | None = None
        stored = status.read_status(self.repo, self.name)
        self.reporter = report.Reporter.resume(
            self.name, self._write, agent.settings.heartbeat, stored.files if stored else {}
        )
        self.thread: threading.Thread | None = None

    # ---- one round ---------------------------------------------------------------------

    def _client(self) -> kube.KubeClient | None:
        path = self.target.kubeconfig
        if path is None:
            return None
        if self.client is None or self.client.kubeconfig != path:
            if self.client is not None:
                self.client.close()
            settings = self.agent.settings
            self.client = kube.KubeClient(
                path, name=self.name, retry=settings.retry, stop=self.stop
            )
        return self.client

    def step(self, round_: fleet.Round) -> apply.SyncResult:
        """Sync the cluster to `round_` and report; never raises."""
        try:
            result = self._sync(round_)
        except Exception as exc:  # a bug must not end the worker: report it and go on
            log.exception("cluster %s: sync failed", self.name)
            result = apply.SyncResult(
                cluster=self.name,
                rendered_commit=round_.rendered.commit,
                source_commit=round_.rendered.source_commit,
                error=f"internal error: {exc}",
            )
        if not self.stop.is_set():
            self._report(result)
        return result

    def _sync(self, round_: fleet.Round) -> apply.SyncResult:
        work_set = round_.work_set(self.repo, self.name)
        client = self._client()
        if client is None:
            return apply.SyncResult(
                cluster=self.name,
                rendered_commit=work_set.rendered_commit,
                source_commit=work_set.source_commit,
                objects=tuple(
                    apply.ObjectResult(
                        ref=m.ref,
                        path=m.path,
                        action=apply.Action.SKIPPED,
                        message=self.target.problem,
                    )
                    for m in work_set.manifests
                ),
                error=self.target.problem,
            )
        return apply.sync(
            client,
            work_set,
            interpreter=self._interpreter_for(round_),
            options=self.agent.settings.options,
            stop=self.stop,
        )

    def _interpreter_for(self, round_: fleet.Round) -> Interpreter:
        """The round's interpreter chain, made once per rendered commit for this thread."""
        commit = round_.rendered.commit
        if self._interpreter is None or self._interpreter[0] != commit:
            self._interpreter = (commit, round_.interpreter())
        return self._interpreter[1]

    def _report(self, result: apply.SyncResult) -> None:
        now = self.agent.clock()
        stamp = report.timestamp(now)
        client = self._client()
        wrote = any(o.action in apply.WRITTEN for o in result.objects) or any(
            p.action is apply.Action.PRUNED for p in result.pruned
        )
        if client is None:
            self.status = _unreachable(
                self.reporter.remembered_status(), self.target.problem, stamp
            )
        elif self.status is None or wrote or result.error or self.reporter.due(now):
            previous = self.status or self.reporter.remembered_status()
            self.status = clusterinfo.collect(client, previous, stamp)
        try:
            self.reporter.report(result, self.status, now=now, timestamp=stamp)
        except errors.GitfleetError as exc:
            log.warning("cluster %s: cannot write its status: %s", self.name, exc)
            stored = status.read_status(self.repo, self.name)
            self.reporter.last = stored.files if stored else {}

    def _write(self, files: Mapping[str, bytes], rendered_commit: str) -> None:
        current = status.read_status(self.repo, self.name)
        status.write_status(
            self.repo,
            self.name,
            files,
            expected=current.commit if current else None,
            rendered_commit=rendered_commit,
            move=self.agent.repo.move,
        )

    # ---- the loop ----------------------------------------------------------------------

    def start(self) -> None:
        self.thread = threading.Thread(target=self.run, name=f"gitfleet-push-{self.name}")
        self.thread.start()

    def run(self) -> None:
        settings = self.agent.settings
        while not self.stop.is_set():
            round_ = self.agent.current
            if round_ is not None:
                result = self.step(round_)
                self.failures = self.failures + 1 if result.error else 0
            delay = settings.backoff.delay(self.failures) if self.failures else settings.interval
            self.wake.wait(delay)
            self.wake.clear()

    def halt(self) -> None:
        self.stop.set()
        self.wake.set()

    def close(self) -> None:
        if self.thread is not None:
            self.thread.join()
        if self.client is not None:
            self.client.close()
        self.repo.close()


def _unreachable(
    previous: cluster.ClusterStatus | None, message: str, now: str
) -> cluster.ClusterStatus:
    condition = clusterinfo.ready_condition(previous, "False", "ClusterNotReachable", message, now)
    return dataclasses.replace(previous or cluster.ClusterStatus(), conditions=(condition,))


class PushAgent:
    """The push agent over one repository and one kubeconfig folder."""

    def __init__(
        self,
        settings: Settings,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.settings = settings
        self.clock = clock
        self.stopping = threading.Event()
        self.changed = threading.Event()
        self.repo = _Repo(settings)
        self.branch = rendered.branch_ref(settings.branch or self.repo.rendered_branch())
        self.current: fleet.Round | None = None
        self.workers: dict[str, ClusterWorker] = {}

    def stop(self) -> None:
        """Stop every worker at its next request boundary, and the loop."""
        self.stopping.set()
        self.changed.set()
        for worker in self.workers.values():
            worker.halt()

    def _resolve(self) -> fleet.Round | None:
        """The round of the branch's tip (the current one if the tip did not move)."""
        try:
            self.repo.refresh()
            tip = self.repo.repo.commit_of(self.branch)
            if tip is None:
                log.warning("%s does not exist yet", self.branch)
                return self.current
            if self.current is not None and self.current.rendered.commit == tip:
                return self.current
            return fleet.resolve(self.repo.repo, self.repo.path, tip, self.settings.kubeconfig_dir)
        except errors.GitfleetError as exc:
            log.warning("cannot read %s: %s", self.branch, exc)
            return self.current

    def _staff(self, round_: fleet.Round) -> None:
        """One worker per target of `round_`; workers of clusters that left stop."""
        wanted = {t.name: t for t in round_.targets}
        for name in sorted(set(self.workers) - set(wanted)):
            leaving = self.workers.pop(name)
            leaving.halt()
            leaving.close()
        for name, target in sorted(wanted.items()):
            found = self.workers.get(name)
            if found is None:
                self.workers[name] = ClusterWorker(self, target)
            else:
                found.target = target

    def once(self) -> dict[str, apply.SyncResult] | None:
        """Sync the current rendered commit to every Push cluster, in parallel; each cluster's
        result, or None when there is no rendered commit to apply."""
        round_ = self._resolve()
        if round_ is None:
            log.error("nothing to apply: %s does not exist", self.branch)
            return None
        self.current = round_
        self._staff(round_)
        workers = list(self.workers.values())
        results: dict[str, apply.SyncResult] = {}
        if workers:
            with concurrent.futures.ThreadPoolExecutor(len(workers)) as pool:
                done = pool.map(lambda w: w.step(round_), workers)
                results = {r.cluster: r for r in done}
        for worker in workers:
            worker.close()
        return results

    def run(self) -> None:
        """Sync every new rendered commit until `stop()`."""
        watcher = None
        if self.settings.watch and self.repo.mirror is None:
            watcher = threading.Thread(target=self._watch, name="gitfleet-push-watch", daemon=True)
            watcher.start()
        try:
            while not self.stopping.is_set():
                round_ = self._resolve()
                if round_ is not None and round_ is not self.current:
                    log.info("applying %s", round_.rendered.commit)
                    self.current = round_
                    self._staff(round_)
                    for worker in self.workers.values():
                        if worker.thread is None:
                            worker.start()
                        else:
                            worker.wake.set()
                self.changed.wait(self.settings.interval)
                self.changed.clear()
        finally:
            self.stop()
            for worker in list(self.workers.values()):
                worker.close()

    def _watch(self) -> None:
        """Wake the loop when the rendered branch's ref (or the packed refs) change."""
        import watchfiles

        ref_file = str(self.repo.git_dir / self.branch)
        packed = str(self.repo.git_dir / "packed-refs")

        def relevant(_: object, path: str) -> bool:
            return path.startswith(ref_file) or path == packed

        try:
            for _ in watchfiles.watch(
                self.repo.git_dir,
                watch_filter=relevant,
                stop_event=self.stopping,
                debounce=50,
                step=10,
                rust_timeout=1000,
                raise_interrupt=False,
            ):
                self.changed.set()
        except (OSError, RuntimeError) as exc:  # no file events here: polling still works
            log.warning("not watching %s: %s", self.repo.git_dir, exc)
