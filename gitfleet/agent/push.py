"""The push agent: applies the rendered branch to every Push cluster, from outside them.

With a `rollout` section in the source, each cluster applies its own ref
(`refs/heads/gitfleet/works/<cluster>`, which the reconciler moves wave by wave), as a pull
agent does, checked as a pull agent checks it; the agent looks at the cluster refs as it looks
at the branch.

`PushAgent.run()` watches the rendered branch — file events on a local repository's refs plus
polling every `interval` seconds; a remote URL is fetched into a bare copy in a cache folder
each round — and hands every new rendered commit (`fleet.resolve`) to one `worker` thread per
cluster, which syncs and reports its cluster, again every `interval` and at once on a new
rendered commit, with backoff after failures: a cluster that is down never delays the others.

A Push cluster that left the fleet (its Cluster deleted from the source) is served until its
status ref says it converged on its ref's leaving commit, which has no files: that prunes what
gitfleet made there (`fleet.Departures`). Every look lists the cluster refs for it.

`PushAgent.once()` syncs the current rendered commit to every Push cluster in parallel, writes
their status refs and returns each cluster's result. `stop()` (SIGTERM) makes every worker give up
at its next request boundary: a half-done sync is abandoned cleanly (the inventory already
lists what it may have written) and nothing is pruned.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import functools
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

import yaml

from gitfleet import errors
from gitfleet.agent import apply, fleet, kube, verify, worker
from gitfleet.gitstore import branchnames, lineage, remote, rendered, repository, status, tree
from gitfleet.model import loaded, yamllimits
from gitfleet.model.origin import Origin
from gitfleet.monitor import health, metrics

log = logging.getLogger(__name__)

_LOOP = "rendered branch"
"""The loop that reads the rendered branch, as health knows it."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    repo: str
    """A local repository (its top folder, or a bare repository) or a remote URL."""
    kubeconfig_dir: Path
    branch: str | None = None
    """The rendered branch; default: gitfleet.yaml's renderedBranch at HEAD, else
    gitfleet/rendered."""
    interval: float = 30.0
    heartbeat: float = 10.0
    cache_dir: Path | None = None
    """Where remote repositories are copied (default: `~/.cache/gitfleet`)."""
    retry: kube.Retry = dataclasses.field(default_factory=kube.Retry)
    options: apply.Options = dataclasses.field(default_factory=apply.Options)
    backoff: worker.Backoff = dataclasses.field(default_factory=worker.Backoff)
    watch: bool = True
    """React to ref changes of a local repository at once (else: only every `interval`)."""
    allowed_signers: Path | None = None
    """Apply only rendered commits signed by a key this file lists (None: any commit)."""


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
                raise repository.not_a_repository(settings.repo)
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
        """gitfleet.yaml's renderedBranch at HEAD, else the default; `InputError` for a name
        no render is made on (a tag, `HEAD`, a cluster's ref), as render refuses it."""
        head = self.repo.commit_of("HEAD")
        entry = tree.find(self.repo, head, loaded.CONFIG_FILE) if head else None
        if entry is None or entry.kind is not tree.EntryKind.FILE:
            return loaded.DEFAULT_RENDERED_BRANCH
        try:
            settings = yamllimits.load(tree.read_blobs(self.repo, [entry])[entry.path])
        except (yaml.YAMLError, errors.GitfleetError):
            return loaded.DEFAULT_RENDERED_BRANCH
        branch = settings.get("renderedBranch") if isinstance(settings, dict) else None
        if not isinstance(branch, str) or not branch:
            return loaded.DEFAULT_RENDERED_BRANCH
        wrong = branchnames.problem(branch)
        if wrong is not None:  # no render is made there: the agent would watch a ref at random
            raise errors.InputError(
                Origin(loaded.CONFIG_FILE), f"renderedBranch at HEAD: {wrong}; render refuses it"
            )
        return branch


class PushAgent:
    """The push agent over one repository and one kubeconfig folder."""

    def __init__(
        self,
        settings: Settings,
        *,
        clock: Callable[[], float] = time.time,
        counts: metrics.AgentMetrics | None = None,
        alive: health.Health | None = None,
    ) -> None:
        """`counts` and `alive`: the metrics and health the agent's endpoint serves."""
        self.settings = settings
        self.clock = clock
        self.counts = counts or metrics.AgentMetrics(metrics.new_registry(), clock)
        self.alive = alive or health.Health()
        self.stopping = threading.Event()
        self.changed = threading.Event()
        self.repo = _Repo(settings)
        self.branch = rendered.branch_ref(settings.branch or self.repo.rendered_branch())
        self.current: fleet.Round | None = None
        self.workers: dict[str, worker.ClusterWorker] = {}
        self.departures = fleet.Departures(
            self.repo.path, settings.kubeconfig_dir, settings.allowed_signers
        )

    def stop(self) -> None:
        """Stop every worker at its next request boundary, and the loop (from any thread: the
        loop may be adding workers meanwhile, and halts them all again when it ends)."""
        self.stopping.set()
        self.changed.set()
        for each in list(self.workers.values()):
            each.halt()

    def _resolve(self) -> fleet.Round | None:
        """The round of the branch's tip (the current one if neither the tip, nor a cluster
        ref it follows, nor the clusters that left and are still to be served changed)."""
        try:
            self.repo.refresh()
            tip = self.repo.repo.commit_of(self.branch)
            if tip is None:
                log.warning("%s does not exist yet", self.branch)
                return self.current
            allowed = self.settings.allowed_signers
            current = self.current
            if current is None or current.rendered.commit != tip:
                round_ = fleet.resolve(
                    self.repo.repo, self.repo.path, tip, self.settings.kubeconfig_dir
                )
                refusal = verify.check(self.repo.repo, tip, allowed, cluster=None)
                current = dataclasses.replace(round_, refusal=refusal)
            if current.per_cluster:
                commits = fleet.cluster_commits(self.repo.repo, current)
                held = {n: r.rendered.commit for n, r in current.released.items()}
                if current is not self.current or commits != held:
                    current = fleet.released(self.repo.repo, current, commits, allowed)
            left = self.departures.find(self.repo.repo, current)
            if left == current.left:
                return current
            for name in sorted(left.keys() - current.left.keys()):
                commit = left[name].round.rendered.commit
                log.info("cluster %s left the fleet: applying %s, which has no files", name, commit)
            return dataclasses.replace(current, left=left)
        except errors.GitfleetError as exc:
            log.warning("cannot read %s: %s", self.branch, exc)
            return self.current

    def _worker(self, target: fleet.Target) -> worker.ClusterWorker:
        settings = self.settings
        repo = self.repo.open()
        return worker.ClusterWorker(
            target,
            repo=repo,
            current=lambda: self.current,
            move=self.repo.move,
            retry=settings.retry,
            options=settings.options,
            pace=worker.Pace(settings.interval, settings.heartbeat, settings.backoff),
            clock=self.clock,
            counts=self.counts,
            alive=self.alive,
            follows=functools.partial(lineage.follows, repo) if settings.allowed_signers else None,
        )

    def _staff(self, round_: fleet.Round) -> None:
        """One worker per cluster `round_` serves; workers of the others stop."""
        wanted = {t.name: t for t in round_.served}
        for name in sorted(set(self.workers) - set(wanted)):
            leaving = self.workers.pop(name)
            leaving.halt()
            leaving.close()
        for name, target in sorted(wanted.items()):
            found = self.workers.get(name)
            if found is None:
                self.workers[name] = self._worker(target)
            else:
                found.target = target

    def once(self, step: Callable[[str], None] | None = None) -> dict[str, apply.SyncResult] | None:
        """Sync the current rendered commit to every Push cluster, in parallel; each cluster's
        result, or None when there is no rendered commit to apply. `step` is told what is
        being done (a progress line on a terminal)."""
        say = step or (lambda text: None)
        say(f"reading {self.branch}")
        round_ = self._resolve()
        if round_ is None:
            log.error("nothing to apply: %s does not exist", self.branch)
            return None
        self.current = round_
        self._staff(round_)
        workers = list(self.workers.values())
        results: dict[str, apply.SyncResult] = {}
        if workers:
            count = f"{len(workers)} cluster{'' if len(workers) == 1 else 's'}"
            say(f"syncing {count}")
            with concurrent.futures.ThreadPoolExecutor(len(workers)) as pool:
                futures = [pool.submit(w.step, round_) for w in workers]
                finished = concurrent.futures.as_completed(futures)
                for done, future in enumerate(finished, start=1):
                    say(f"syncing {count}: {done} done (last {future.result().cluster})")
            results = {r.cluster: r for r in (f.result() for f in futures)}
        for each in workers:
            each.close()
        return results

    def run(self) -> None:
        """Sync every new rendered commit until `stop()`."""
        watcher = None
        if self.settings.watch and self.repo.mirror is None:
            watcher = threading.Thread(target=self._watch, name="gitfleet-push-watch", daemon=True)
            watcher.start()
        allowance = health.allowance(self.settings.interval)
        self.alive.pending(_LOOP, f"no rendered commit read from {self.branch} yet")
        self.alive.done(health.STARTING)
        try:
            while not self.stopping.is_set():
                self.alive.beat(_LOOP, self.settings.interval + allowance)
                round_ = self._resolve()
                if round_ is not None and round_ is not self.current:
                    log.info("applying %s", round_.rendered.commit)
                    self.current = round_
                    self._staff(round_)
                    for each in self.workers.values():
                        if each.thread is None:
                            each.start()
                        else:
                            each.wake.set()
                    self.alive.done(_LOOP)
                self.changed.wait(self.settings.interval)
                self.changed.clear()
        finally:
            self.stop()
            for each in list(self.workers.values()):
                each.close()
            self.alive.end(_LOOP)

    def _watch(self) -> None:
        """Wake the loop when the rendered branch's ref (or the packed refs) change."""
        import watchfiles

        refs_home = repository.common_dir(self.repo.git_dir)
        ref_file = str(refs_home / self.branch)
        cluster_refs = str(refs_home / rendered.CLUSTER_REFS)
        packed = str(refs_home / "packed-refs")

        def relevant(_: object, path: str) -> bool:
            return path.startswith((ref_file, cluster_refs)) or path == packed

        try:
            for _ in watchfiles.watch(
                refs_home,
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
