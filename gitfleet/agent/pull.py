"""The pull agent: runs inside one member cluster that nothing outside can reach, and reaches
out only to Git (Karmada's karmada-agent, for clusters in Pull mode).

Each look (`look`) asks the remote where the cluster's Work ref and status ref are, and fetches
what is new (`_fetch`): by default the cluster's own ref `refs/heads/gitfleet/works/<cluster>`,
which holds only its folder, so a credential can be limited to it; or, with `ref`, any ref
holding `works/<cluster>/` (the shared rendered branch), fetched sparsely. The repository URL may
name the cluster (`…/fleet-{cluster}.git`): one repository per cluster, for hosts that scope
credentials per repository (see docs/security.md).

A fetched commit becomes the desired state only once every object of the cluster's folder is in
the copy; the `worker` (the same one the push agent runs per cluster) then syncs the cluster to
it with the shared applier, every `interval` and at once when a new commit arrives, and writes
the status ref, which the agent pushes, alone, with a lease (`_fetch.ClusterRemote.push_status`).
So nothing is ever applied, let alone pruned, from a fetch that failed or a commit that did not
arrive whole: the last complete commit stays the desired state, and drift is still repaired
while the remote is down. A remote that cannot be reached is looked at with exponential backoff;
a force-pushed ref is simply the next desired state if it is a render (with `allowed_signers`,
only if the reconciler signed it for this cluster, and it follows the commit last applied: see
`verify`).
On a start the agent resumes from what it finds: the status ref's last report (so a restart
writes nothing new, and the commit it names as applied is the one to follow), the cluster's
inventory (read by the applier), and, when the remote is down, the last complete commit of its
copy.

`once()` does one look and one sync; `run()` loops until `stop()`.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path

from gitfleet import errors
from gitfleet.agent import _credentials, _fetch, apply, fleet, kube, verify, worker
from gitfleet.gitstore import clusterrepos, rendered, works
from gitfleet.model import cluster as cluster_model
from gitfleet.monitor import health, metrics

log = logging.getLogger(__name__)

_CLUSTER_NAME = re.compile(r"[a-z0-9]([-a-z0-9]{0,46}[a-z0-9])?")
"""Karmada's cluster names: DNS labels of at most 48 characters."""
_LOOP = "look"
"""The loop that looks at the remote, as health knows it."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    repo: str
    """The repository's URL; `{cluster}` in it stands for the cluster's name."""
    cluster: str
    kubeconfig: Path | None = None
    """None: the pod's own service account (`kube.IN_CLUSTER`)."""
    ref: str | None = None
    """The ref to apply (a branch name or a full ref); default: the cluster's own ref."""
    pace: worker.Pace = dataclasses.field(default_factory=worker.Pace)
    cache_dir: Path | None = None
    """Where the copy of the repository lives (default: `~/.cache/gitfleet`)."""
    credentials: Path | None = None
    """A folder holding the Git credential (a mounted Secret, see `_credentials`)."""
    retry: kube.Retry = dataclasses.field(default_factory=kube.Retry)
    options: apply.Options = dataclasses.field(default_factory=apply.Options)
    allowed_signers: Path | None = None
    """Apply only commits signed by a key this file lists (None: any commit)."""

    @property
    def url(self) -> str:
        return clusterrepos.cluster_url(self.repo, self.cluster)

    @property
    def works_ref(self) -> str:
        return rendered.branch_ref(self.ref) if self.ref else rendered.cluster_ref(self.cluster)

    @property
    def sparse(self) -> bool:
        """Whether the ref holds other clusters' folders too (then it is fetched sparsely)."""
        return self.works_ref != rendered.cluster_ref(self.cluster)


def check(settings: Settings) -> None:
    """`UsageError` for settings no agent can run with."""
    if not _CLUSTER_NAME.fullmatch(settings.cluster):
        raise errors.UsageError(
            f"--cluster {settings.cluster!r}: not a cluster name (a DNS label of at most 48 "
            "characters)"
        )


class PullAgent:
    """The agent of one cluster, over one remote repository."""

    def __init__(
        self,
        settings: Settings,
        *,
        clock: Callable[[], float] = time.time,
        counts: metrics.AgentMetrics | None = None,
        alive: health.Health | None = None,
    ) -> None:
        """`counts` and `alive`: the metrics and health the agent's endpoint serves."""
        check(settings)
        self.alive = alive or health.Health()
        self.settings = settings
        self.name = settings.cluster
        cache = settings.cache_dir or Path.home() / ".cache" / "gitfleet"
        credential = _credentials.git_settings(settings.credentials) if settings.credentials else []
        self.remote = _fetch.ClusterRemote(
            settings.url,
            self.name,
            settings.works_ref,
            cache / "pull",
            sparse=settings.sparse,
            settings=credential,
        )
        self.repo = self.remote.open()
        self.stopping = threading.Event()
        self.current: fleet.Round | None = None
        """The round of the last commit that arrived whole: the desired state."""
        self.error = ""
        """Why the last look did not bring a new desired state ("" when it did, or when
        nothing changed)."""
        self.received = 0
        """Bytes fetched so far."""
        self.failures = 0
        self._read_status()
        self.target = fleet.Target(self.name, settings.kubeconfig or kube.IN_CLUSTER)
        self.worker = worker.ClusterWorker(
            self.target,
            repo=self.remote.open(),
            current=lambda: self.current,
            move=self.remote.push_status,
            retry=settings.retry,
            options=settings.options,
            pace=settings.pace,
            clock=clock,
            counts=counts,
            alive=self.alive,
            follows=self.remote.follows if settings.allowed_signers else None,
        )

    def _read_status(self) -> None:
        """Bring the status ref's last report into the copy, for the worker to resume from."""
        try:
            self.received += self.remote.fetch_status(self.remote.tips().status)
        except errors.SourceError as exc:
            log.warning("cluster %s: cannot read its status ref: %s", self.name, exc)

    # ---- looking at the remote -------------------------------------------------------------

    def look(self) -> bool:
        """Fetch what is new; whether the desired state changed. On failure `error` says why
        and the desired state stays as it was."""
        ref = self.settings.works_ref
        try:
            tips = self.remote.tips()
            self._fetch_status(tips.status)
            if tips.works is None:
                return self._keep(f"{ref} does not exist on {self.remote.mirror.shown}")
            fetched = self.remote.fetch_works(tips.works)
        except errors.SourceError as exc:
            if self.current is None:  # a start with the remote away: the copy's last commit
                self._resume()
            return self._keep(str(exc))
        self.received += fetched.received
        if not fetched.complete:
            return self._keep(
                f"{fetched.commit}: {len(fetched.missing)} objects of works/{self.name}/ did"
                " not arrive"
            )
        if not fetched.folder and self.settings.sparse:
            return self._keep(f"{fetched.commit} of {ref} has no works/{self.name}/ folder")
        return self._take(fetched.commit)

    def _fetch_status(self, tip: str | None) -> None:
        """Bring the remote's status ref into the copy (best effort: the worker may have just
        moved it by pushing a report, and a report is no reason to miss a new Work commit)."""
        try:
            self.received += self.remote.fetch_status(tip)
        except errors.SourceError as exc:
            log.info("cluster %s: status ref not brought in: %s", self.name, exc)

    def _keep(self, problem: str) -> bool:
        """Say why the desired state stays as it was: the commit this agent applied, or, before
        it applied one, whatever the cluster runs (an earlier agent's work included)."""
        kept = self.current.rendered.commit if self.current else "what the cluster runs"
        self.error = f"{problem}; keeping {kept}"
        return False

    def _take(self, commit: str) -> bool:
        self.error = ""
        if self.current is not None and self.current.rendered.commit == commit:
            return False
        trailers = rendered.commit_trailers(self.repo, commit) or {}
        own = trailers.get(rendered.CLUSTER_TRAILER) == self.name  # else `verify` refuses it
        if own and trailers.get(rendered.SYNC_MODE_TRAILER) == cluster_model.SyncMode.PUSH:
            return self._not_pull(commit)
        commit_info = works.RenderedCommit(commit=commit, trailers=trailers, clusters=(self.name,))
        cluster = None if self.settings.sparse else self.name
        refusal = verify.check(
            self.repo, commit, self.settings.allowed_signers, cluster=cluster
        ) or verify.render_check(commit, trailers)
        self.current = fleet.Round(commit_info, (), refusal=refusal)
        log.info("cluster %s: desired state is now %s", self.name, commit)
        return True

    def _not_pull(self, commit: str) -> bool:
        """A commit for a Push cluster: its push agent applies it and writes its status, so this
        agent drops any desired state it had (syncing nothing, reporting nothing) rather than
        apply and report beside it."""
        self.current = None
        self.error = (
            f"{commit} of {self.settings.works_ref} is for a Push cluster: {self.name}'s Cluster"
            " has spec.syncMode Push, so the push agent applies it and reports its status. A"
            " pull agent runs only for a Pull cluster: set spec.syncMode: Pull in its Cluster"
            " (and stop the push agent from reaching it)"
        )
        return False

    def _resume(self) -> None:
        """Take the copy's commit of the Work ref if it is whole (no fetch can happen: the
        remote is away)."""
        local = self.repo.commit_of(self.settings.works_ref)
        if local is None:
            return
        try:
            fetched = self.remote.fetch_works(local)
        except errors.SourceError:
            return
        if fetched.complete and (fetched.folder or not self.settings.sparse):
            self._take(local)

    # ---- syncing -------------------------------------------------------------------------

    def once(self, step: Callable[[str], None] | None = None) -> apply.SyncResult | None:
        """One look and one sync of the desired state (None: there is none); the result's
        error includes a failed look. `step` is told what is being done (a progress line on a
        terminal)."""
        say = step or (lambda text: None)
        say(f"fetching {self.settings.works_ref} from {self.remote.mirror.shown}")
        self.look()
        if self.current is None:
            return None
        say(f"syncing cluster {self.name} to {self.current.rendered.commit[:12]}")
        result = self.worker.step(self.current)
        if self.error and self.error not in result.error:
            error = "; ".join(e for e in (self.error, result.error) if e)
            return dataclasses.replace(result, error=error)
        return result

    def run(self) -> None:
        """Look every `interval` (with backoff while looks fail) and sync, until `stop()`."""
        pace = self.settings.pace
        allowance = health.allowance(pace.interval)
        self.alive.done(health.STARTING)  # the worker waits for its first sync
        self.worker.start()
        try:
            while not self.stopping.is_set():
                self.alive.beat(_LOOP, pace.interval + allowance)
                if self.look():
                    self.worker.wake.set()
                if self.error:
                    log.warning("cluster %s: %s", self.name, self.error)
                self.failures = self.failures + 1 if self.error else 0
                delay = pace.backoff.delay(self.failures) if self.failures else pace.interval
                self.alive.beat(_LOOP, delay + allowance)
                self.stopping.wait(delay)
        finally:
            self.worker.halt()
            self.alive.end(_LOOP)

    def stop(self) -> None:
        """Stop looking, and the worker at its next request boundary."""
        self.stopping.set()
        self.worker.halt()

    def close(self, timeout: float | None = None) -> bool:
        """Wait for the worker (at most `timeout` seconds) and release the copy; whether the
        worker ended (one still running keeps the copy, which it pushes reports from)."""
        if not self.worker.close(timeout):
            return False
        self.repo.close()
        self.remote.close()
        return True
