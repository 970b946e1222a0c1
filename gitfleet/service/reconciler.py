"""The reconciler: render every new commit of the source branch onto the rendered branch.

One look (`cycle`) fetches (for a remote), reads the source branch, and when its commit has
not been handled yet: loads it, renders it on top of the rendered branch's tip (whose bindings
carry the previous schedule) with the clusters' reported status, and publishes the result by
compare-and-swap. A commit with errors is not rendered: the rendered branch keeps the last good
render and the error (file and line) goes to the log and to the reconciler's status ref. Nor is
anything rendered while the rendered branch or a cluster ref is at a commit that is not a render
(`rendered.foreign_refs`): the error, saying how to recover, goes to the log and the status ref
once, and every look checks again, so the render follows as soon as the ref is fixed. A cluster
ref deleted while the branch renders the source commit (plainly, or as the way out of a ref not
at a render) makes that commit render again, which writes the ref back: every look lists the
cluster refs for that, so it does not wait for the next source commit.

Publishing can lose a race: someone (another reconciler, a person) moved the rendered branch
since it was read. The render is then made again on top of the new tip, never over it; if the
new tip already renders this commit, another reconciler did the work and nothing is left to do.

`run` loops until stopped: it looks once at start, then whenever a trigger pokes (ref watcher,
webhook) or `interval` seconds pass. Pokes arriving during a look collapse into one more look,
at the newest commit. A remote that cannot be reached is retried with exponential backoff;
pokes cannot shorten the wait. A stop request is honoured between steps: a render that has not
been published yet is abandoned (nothing half-written is ever visible), and `run` returns.

The source branch is `Settings.branch`, else the `sourceBranch` of gitfleet.yaml on the
repository's default branch (what HEAD names; a remote's HEAD), else main. It is read once, at
the first look that finds a commit there (for a local repository, when the reconciler is made,
so the ref watcher watches the right branch); changing it takes a restart. The rendered branch
is `Settings.rendered_branch`, else the `renderedBranch` of the commit rendered.

With a repository per cluster (`Settings.cluster_repos`), each look also fetches the clusters'
status refs from their repositories before reading any status, and copies the works refs to
them after publishing (`copies`); what fails there is logged and kept in the status ref, and
never keeps the render or the other clusters from going ahead.

Every event is logged as one line naming the source commit (`events`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from gitfleet import __version__, collector, failover, inputs, pipeline, source
from gitfleet import render as rendering
from gitfleet.errors import (
    ForeignHistoryError,
    GitfleetError,
    InputError,
    RefConflictError,
    UsageError,
)
from gitfleet.gitstore import branchnames, refs, remote, rendered, repository, signing
from gitfleet.model import diagnostic, loaded
from gitfleet.model.origin import Origin
from gitfleet.monitor import health, metrics
from gitfleet.service import (
    autoscaler,
    backoff,
    copies,
    events,
    observed,
    retry,
    rollouts,
    server,
    target,
    wakeup,
    watcher,
)
from gitfleet.status import reconciler_state

MAX_CONFLICTS = 5
"""Renders made again in one look after lost races before giving up until the next look."""
DEFAULT_BRANCH = "main"
"""The source branch when neither the settings nor gitfleet.yaml name one."""
ERROR_RESULT = "error"
"""The result a look that failed (remote unreachable, lost races, a bug) is counted under."""
_LOOP = "reconcile"
"""The reconciler's loop, as health knows it."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    repo: str
    """A local repository (top folder or bare) or a remote URL."""
    branch: str | None = None
    """The source branch; None: gitfleet.yaml's `sourceBranch` on the repository's default
    branch, else `DEFAULT_BRANCH`."""
    rendered_branch: str | None = None
    """The rendered branch (`--rendered-branch`); None: gitfleet.yaml's `renderedBranch` of the
    commit rendered."""
    interval: float = 30.0
    """Seconds between looks when nothing pokes."""
    watch: bool = True
    """Watch a local repository's source ref and look at once when it moves."""
    webhook: tuple[str, int] | None = None
    """Address of the webhook endpoint, if any."""
    webhook_secret: bytes = b""
    webhook_limits: server.Limits = dataclasses.field(default_factory=server.Limits)
    """What one client may take of the webhook endpoint."""
    cache: Path | None = None
    """Where remote repositories are mirrored (default: `target.default_cache()`)."""
    retry_base: float = 1.0
    retry_cap: float = 60.0
    cluster_repos: str | None = None
    """URL of each cluster's own repository, `{cluster}` standing for its name (None: the
    clusters use the main repository)."""
    signing_key: Path | None = None
    """An SSH private key: every commit the reconciler writes (renders, cluster refs, its
    status ref) is signed with it."""
    source_signers: Path | None = None
    """An allowed-signers file: only source commits signed by a key it lists are rendered."""


class Outcome(enum.StrEnum):
    """What one look did."""

    IDLE = "idle"
    """Nothing new since the last look."""
    NO_SOURCE = "no-source"
    RENDERED = "rendered"
    UNCHANGED = "unchanged"
    """Rendered, and the result equals the rendered branch: no commit."""
    UP_TO_DATE = "up-to-date"
    """The rendered branch already renders this commit (made earlier, or by another
    reconciler)."""
    INVALID = "invalid"
    BLOCKED = "blocked"
    """The rendered branch or a cluster ref is not at a render: nothing is built on it."""
    UNVERIFIED = "unverified"
    """The source commit is not signed by an allowed key (`Settings.source_signers`)."""
    STOPPED = "stopped"


_DOING = {
    "fetch": "fetching the repository",
    "load": "loading the source",
    "render": "placing and rendering the templates",
    "commit": "committing the render",
    "push": "pushing the render",
}
"""What each timed step of a look does, as a progress line says it."""


@contextlib.contextmanager
def _timed(
    timings: dict[str, float], step: str, say: Callable[[str], None] | None = None
) -> Iterator[None]:
    """Time `step` into `timings`, telling `say` (a progress line) that it runs."""
    if say is not None:
        say(_DOING[step])
    start = time.perf_counter()
    try:
        yield
    finally:
        timings[step] = timings.get(step, 0.0) + time.perf_counter() - start


class Reconciler:
    """The engine. `cycle` looks once; `run` loops until `wake.stop()` (from any thread)."""

    def __init__(
        self,
        settings: Settings,
        sink: events.Sink,
        wake: wakeup.Wakeup | None = None,
        clock: Callable[[], float] = time.time,
        *,
        counts: metrics.ReconcilerMetrics | None = None,
        alive: health.Health | None = None,
        step: Callable[[str], None] | None = None,
    ) -> None:
        """`counts` and `alive` are what the metrics endpoint serves (by default, a registry
        and a health of the reconciler's own, served by nobody); `step` is told each step a
        look takes (a progress line on a terminal, for `--once`)."""
        self.step = step
        self.settings = settings
        self.sink = sink
        self.wake = wake or wakeup.Wakeup()
        self.clock = clock
        self.counts = counts or metrics.ReconcilerMetrics(metrics.new_registry())
        self.alive = alive or health.Health()
        self.target = target.open_target(settings.repo, settings.cache)
        self.repo = self.target.repo
        self._signer = signing.Signer(settings.signing_key) if settings.signing_key else None
        self._source_branch = settings.branch
        """None until known (`_settle_branch`)."""
        self._hook: server.WebhookServer | None = None
        self._branch = settings.rendered_branch or loaded.DEFAULT_RENDERED_BRANCH
        self._handled: tuple[str, str | None] | None = None
        """(source commit, rendered tip) of the last look that had nothing left to do."""
        self._failed: str | None = None
        """A source commit known to be invalid (not rendered again until the branch moves, or
        the branches in its way are gone: `_in_the_way`)."""
        self._in_the_way = False
        """Whether `_failed` failed only for refs another branch is in the way of (a branch
        named `gitfleet/works`, say): rendered again once no branch is."""
        self._blocked_on: str | None = None
        """A source commit the last look could not render for a ref not at a render: once the
        ref is fixed, it is published even if the branch renders it (a cluster ref pointed
        back at another render gets the tip's folder; a deleted one comes back in any case,
        `_ref_lost`)."""
        self._state = reconciler_state.ReconcilerState(
            source_branch=self.source_branch, rendered_branch=self._branch, updated=""
        )
        self._state_loaded = False
        self._failover = observed.FailoverWatch(self.repo, clock)
        self._retry = retry.UnscheduledWatch(self.repo)
        self._autoscale = autoscaler.AutoscaleWatch(clock)
        self._copies = (
            copies.ClusterRepos(self.repo, settings.cluster_repos, sink, clock)
            if settings.cluster_repos is not None
            else None
        )
        self._clusters: tuple[str, ...] = ()
        """The Cluster objects of the source last loaded, by name."""
        self._rollouts = rollouts.Rollouts(self.target, self._emit, clock, self._signer)
        self._rollout: loaded.LoadedSource | None = None
        """The source last rendered (or found rendered) if it has a `rollout` section: its
        settings and clusters drive the rollout at every look (`_roll`)."""
        if not self.target.remote:
            self._settle_branch()

    @property
    def source_branch(self) -> str:
        return self._source_branch or DEFAULT_BRANCH

    @property
    def _source_ref(self) -> str:
        return rendered.branch_ref(self.source_branch)

    def _settle_branch(self) -> None:
        """Learn the source branch from gitfleet.yaml on the default branch, once it has a
        commit whose tree can be read (until then `DEFAULT_BRANCH` is looked at)."""
        if self._source_branch is not None:
            return
        head = self.target.head()
        if head is None:
            return
        try:  # gitfleet.yaml only: the rest of the tree is read (or refused) when rendered
            configured = source.settings(self.repo.git_dir, head).source_branch
        except InputError:
            return  # a tree that cannot be read says nothing: DEFAULT_BRANCH until one does
        self._source_branch = configured or DEFAULT_BRANCH
        if self._hook is not None:
            self._hook.source_ref = self._source_ref

    # -- one look -------------------------------------------------------------------------

    def cycle(self, trigger: str = "") -> Outcome:
        """Look at the source once; `target.RemoteUnavailable` when the remote cannot be
        reached, `RefConflictError` after MAX_CONFLICTS lost races."""
        timings: dict[str, float] = {}
        with _timed(timings, "fetch", self.step):
            self.target.refresh()
        self._settle_branch()
        self._load_state()
        commit = self.repo.commit_of(self._source_ref)
        if commit is None:
            if self._handled != ("", None):
                message = (
                    f"the source branch {self.source_branch!r} does not exist: push it, or name"
                    " the branch to render (--branch, or sourceBranch in gitfleet.yaml on the"
                    " default branch)"
                )
                self._refuse_once("", message, timings, "no-source", branch=self.source_branch)
                self._handled = ("", None)
            return Outcome.NO_SOURCE
        if self._copies is not None:
            self._copies.new_look()
            self._copies.fetch_status(commit, self._clusters)
        tip = rendered.read_tip(self.repo, self._branch)
        idle = (
            self._handled == (commit, tip.commit if tip is not None else None)
            and not self._unblocked()
            and (self._failed == commit or not self._ref_lost(commit, tip))  # invalid: not again
        )
        if (
            idle
            and not self._failover_due(tip)
            and not self._retry.due(bool(self._state.unscheduled))
        ):
            outcome = Outcome.IDLE
            self._roll(commit)
            self._copy_works(commit)
        else:
            if commit != self._state.last_seen:
                self._emit("seen", commit, branch=self.source_branch, trigger=trigger)
                self._state = dataclasses.replace(self._state, last_seen=commit)
            outcome = self._handle(commit, timings)
            if outcome not in (Outcome.STOPPED, Outcome.BLOCKED):
                if self._roll(commit):
                    self._copy_works(commit)
                self._handled = (commit, self._tip_commit())
            if outcome is not Outcome.STOPPED:
                self.counts.renders.labels(str(outcome)).inc()
                self.counts.render_duration.observe(sum(timings.values()))
        if self._cluster_repo_errors() != self._state.cluster_repos or (
            outcome is Outcome.IDLE and not reconciler_state.present(self.repo)
        ):
            self._record(self._state, dict(self._state.timings))
        return outcome

    def _failover_due(
        self, tip: rendered.Tip | None, snapshot: failover.Observed | None = None
    ) -> bool:
        """Whether time or the agents' reports may change the render of the rendered branch's
        `tip` (`observed.FailoverWatch`), or the FederatedHPAs are due for an evaluation
        (`autoscaler.AutoscaleWatch`)."""
        return self._failover.due(tip, self._render_report, snapshot) or self._autoscale.due()

    def _render_report(self, tip: rendered.Tip) -> Mapping[str, object]:
        previous = self._previous(tip)
        return previous.report if previous is not None else {}

    def _tip_commit(self) -> str | None:
        found = refs.read_ref(self.repo, rendered.branch_ref(self._branch))
        return found.commit if found is not None else None

    def _ref_lost(self, commit: str, tip: rendered.Tip | None) -> bool:
        """Whether the rendered branch's `tip` renders `commit` and a cluster of it has no ref
        (deleted, as the way out of a ref not at a render or to start it over): a render of
        the same commit then writes the ref again (in a progressive rollout, the rollout
        releases it at once, as a cluster with no ref). One ref listing a look."""
        if tip is None or tip.source_commit != commit:
            return False
        return bool(rendered.clusters_without_ref(self.repo, tip))

    def _unblocked(self) -> bool:
        """Whether the commit that failed for branches in the way of its refs can now be
        rendered (one `git for-each-ref` a look, only while it is so)."""
        if self._failed is None or not self._in_the_way:
            return False
        if branchnames.own_conflicts(self.repo, self._clusters, statuses=True):
            return False
        return branchnames.conflict(self.repo, self._branch, self.source_branch) is None

    def _handle(self, commit: str, timings: dict[str, float]) -> Outcome:
        if self._failed == commit and not self._unblocked():
            return Outcome.INVALID
        if self.settings.source_signers is not None:
            verdict = signing.verify(self.repo, commit, self.settings.source_signers)
            if not verdict.trusted:
                return self._unverified(commit, verdict, self.settings.source_signers, timings)
        with _timed(timings, "load", self.step):
            try:
                loaded_source = source.load(self.repo.git_dir, commit)
            except InputError as error:
                problem = diagnostic.error(error.origin, error.message)
                return self._invalid(commit, [problem], timings)
        self._branch = self.settings.rendered_branch or loaded_source.config.rendered_branch
        checked = self._branch_checked(loaded_source)
        self._in_the_way = loaded_source.ok and not checked.ok
        loaded_source = checked
        self._failover.settings = loaded_source.config.failover
        self._failover.deschedule = loaded_source.config.descheduler
        self._clusters = tuple(c.name for c in loaded_source.objects.clusters)
        if self._copies is not None:
            self._copies.fetch_status(commit, self._clusters)
        try:
            return self._render(commit, loaded_source, timings)
        except ForeignHistoryError as error:
            return self._blocked(commit, error, timings)

    def _branch_checked(self, loaded_source: loaded.LoadedSource) -> loaded.LoadedSource:
        """`loaded_source`, with an error at its renderedBranch when the repository cannot hold
        that branch, and at each Cluster whose Work or status ref it cannot hold (the commit is
        then invalid, as for any error of the source); a `rendered_branch` setting it cannot
        hold is `UsageError`, at every look."""
        loaded_source = inputs.cluster_refs_checked(self.repo, loaded_source, statuses=True)
        if self.settings.rendered_branch is None:
            return inputs.branch_checked(self.repo, loaded_source, self.source_branch)
        found = branchnames.conflict(self.repo, self._branch, self.source_branch)
        if found is not None:
            raise UsageError(f"--rendered-branch: {found}")
        return loaded_source

    def _render(
        self, commit: str, loaded_source: loaded.LoadedSource, timings: dict[str, float]
    ) -> Outcome:
        """Render `commit` onto the rendered branch, again after each lost race (a source
        with errors is invalid whatever the branch: its errors are what to fix in it)."""
        foreign = rendered.foreign_refs(self.repo, self._branch) if loaded_source.ok else []
        if foreign:
            raise rendered.history_error(foreign)
        for _ in range(MAX_CONFLICTS):
            found = inputs.read(self.repo, loaded_source, self._branch, self._signer)
            tip = found.tip
            snapshot = self._failover.observe(tip)
            kept = found.previous.unscheduled if found.previous is not None else ()
            if (
                tip is not None
                and loaded_source.ok  # a branch may have got in the way since its render
                and tip.source_commit == commit
                and self._blocked_on != commit
                and not self._ref_lost(commit, tip)
                and not self._failover_due(tip, snapshot)
                and not self._retry.due(bool(kept), found.snapshot)  # the tip's own list
            ):
                self._rendered_source(loaded_source)
                return self._done(Outcome.UP_TO_DATE, commit, tip.commit, timings, kept)
            if self.wake.stopped:
                return self._abandon(commit)
            self._emit("rendering", commit, branch=self._branch, onto=tip.commit if tip else None)
            with _timed(timings, "render", self.step), collector.paused():
                result = pipeline.render(
                    loaded_source,
                    found.previous,
                    found.status,
                    now=found.now,
                    observed=snapshot,
                    measured=autoscaler.measure(self.repo, loaded_source),
                )
            if not result.ok:
                return self._invalid(commit, list(result.diagnostics), timings)
            self._rendered_source(loaded_source)
            if self.wake.stopped:
                return self._abandon(commit)
            try:
                with collector.paused():
                    publication = self._publish(commit, tip, result, timings)
            except RefConflictError as error:
                self._emit("conflict", commit, branch=self._branch, error=str(error))
                self.target.refresh()
                continue
            if publication is None:
                return self._abandon(commit)
            published = publication.published
            self._failover.remember(result, published.commit, loaded_source.config.failover)
            self._retry.remember(found.snapshot)
            self._autoscale.remember(loaded_source)
            outcome = Outcome.RENDERED if published.created else Outcome.UNCHANGED
            unscheduled = result.unscheduled
            return self._done(outcome, commit, published.commit, timings, unscheduled, result)
        raise RefConflictError(
            f"{rendered.branch_ref(self._branch)} kept moving: gave up after {MAX_CONFLICTS} "
            "renders; trying again at the next look"
        )

    def _publish(
        self,
        commit: str,
        tip: rendered.Tip | None,
        result: pipeline.RenderResult,
        timings: dict[str, float],
    ) -> target.Publication | None:
        """Commit, then (for a remote) push; None when a stop came in between."""
        with _timed(timings, "commit", self.step):
            publication = self.target.commit(
                self._branch,
                result.changes,
                tip=tip,
                source_commit=commit,
                version=__version__,
                message=result.message(f"render {commit}"),
                signer=self._signer,
                hold_clusters=self._rollout is not None,
                sync_modes=result.sync_modes,
            )
        if not self.target.remote:
            return publication
        self._emit(
            "committed", commit, commit=publication.published.commit, refs=len(publication.moves)
        )
        if self.wake.stopped:
            return None
        with _timed(timings, "push", self.step):
            self.target.push(publication)
        return publication

    def _previous(self, tip: rendered.Tip | None) -> pipeline.PreviousRender | None:
        """The tip as the next render reads it (its bindings and render.yaml)."""
        return inputs.previous_of(self.repo, tip)

    # -- outcomes -------------------------------------------------------------------------

    def _done(
        self,
        outcome: Outcome,
        commit: str,
        rendered_commit: str,
        timings: dict[str, float],
        unscheduled: tuple[rendering.Unscheduled, ...],
        result: pipeline.RenderResult | None = None,
    ) -> Outcome:
        """`unscheduled`: the resources the render on the branch could not schedule."""
        fields: dict[str, events.Value] = {"branch": self._branch, "commit": rendered_commit}
        if result is not None:
            fields["clusters"] = sum(
                1 for c in result.clusters.values() if c.added or c.changed or c.removed
            )
            fields["refused"] = len(result.refusals)
        fields["unscheduled"] = len(unscheduled)
        fields["seconds"] = sum(timings.values())
        self._count(result, unscheduled)
        self._emit(str(outcome), commit, **fields)
        self._copy_works(commit)
        self._failed = self._blocked_on = None
        self._record(
            dataclasses.replace(
                self._state,
                last_rendered_source=commit,
                last_rendered=rendered_commit,
                last_error=None,
                unscheduled=unscheduled,
            ),
            timings,
        )
        return outcome

    def _count(
        self,
        result: pipeline.RenderResult | None,
        unscheduled: tuple[rendering.Unscheduled, ...],
    ) -> None:
        """The gauges of a render now on the rendered branch (`result`: None when it was made
        before, whose bindings and refusals are then left as last counted)."""
        self.counts.last_success.set(self.clock())
        self.counts.unscheduled.set(len(unscheduled))
        if result is not None:
            placement = result.placement
            self.counts.bindings.set(len(placement.bindings) if placement is not None else 0)
            self.counts.refusals.set(len(result.refusals))

    def _invalid(
        self, commit: str, found: list[diagnostic.Diagnostic], timings: dict[str, float]
    ) -> Outcome:
        errors = [d for d in found if d.severity is diagnostic.Severity.ERROR]
        first = errors[0] if errors else diagnostic.error(Origin(""), "source not rendered")
        self._emit(
            "invalid",
            commit,
            errors=len(errors),
            path=first.origin.path,
            line=first.origin.line,
            col=first.origin.col,
            error=first.message,
        )
        self._failed = commit
        error = reconciler_state.LastError.of(commit, first, reconciler_state.rfc3339(self.clock()))
        self._record(dataclasses.replace(self._state, last_error=error), timings)
        return Outcome.INVALID

    def _blocked(
        self, commit: str, error: ForeignHistoryError, timings: dict[str, float]
    ) -> Outcome:
        """Log and record `error` (once for the same commit and error: every look finds it
        again until the ref is fixed)."""
        self._blocked_on = commit
        self._refuse_once(commit, str(error), timings, "blocked", branch=self._branch)
        return Outcome.BLOCKED

    def _unverified(
        self,
        commit: str,
        verdict: signing.Verdict,
        allowed: Path,
        timings: dict[str, float],
    ) -> Outcome:
        """A source commit not signed by an allowed key: reported, not rendered (once for the
        same commit; the next commit of the branch is checked afresh)."""
        message = f"not rendered: {verdict.describe(allowed)} ({verdict.trust})"
        self._refuse_once(commit, message, timings, "unverified", reason=str(verdict.trust))
        return Outcome.UNVERIFIED

    def _refuse_once(
        self,
        commit: str,
        message: str,
        timings: dict[str, float],
        event: str,
        **fields: events.Value,
    ) -> None:
        """Log `event` and record `message` as the last error, unless they are already
        recorded for `commit` (every look finds the same again)."""
        last = self._state.last_error
        if last is None or (last.source_commit, last.message) != (commit, message):
            self._emit(event, commit, **fields, error=message)
            when = reconciler_state.rfc3339(self.clock())
            found = reconciler_state.LastError(source_commit=commit, message=message, time=when)
            self._record(dataclasses.replace(self._state, last_error=found), timings)

    def _abandon(self, commit: str) -> Outcome:
        self._emit("abandoned", commit, reason="stopping")
        return Outcome.STOPPED

    # -- progressive rollout --------------------------------------------------------------

    def _rendered_source(self, loaded_source: loaded.LoadedSource) -> None:
        """Take the rollout settings of a source commit that rendered (an invalid commit's
        settings never drive a rollout)."""
        self._rollout = loaded_source if loaded_source.config.rollout is not None else None

    def _roll(self, commit: str) -> bool:
        """One step of the rollout, with a `rollout` section; whether a cluster ref moved.
        What fails is logged: the render stands, and the next look tries again."""
        config = self._rollout.config if self._rollout is not None else None
        if self._rollout is None or config is None or config.rollout is None:
            return False
        try:
            moves = self._rollouts.look(
                config.rollout,
                self._rollout.objects.clusters,
                self._branch,
                float(config.failover.heartbeat_grace_seconds),
            )
        except target.RemoteUnavailable:
            raise
        except GitfleetError as error:
            self._emit("rollout-error", commit, error=str(error))
            return False
        return bool(moves)

    # -- a repository per cluster ---------------------------------------------------------

    def _copy_works(self, commit: str) -> None:
        """Called only once the render is published (pushed, for a remote): a cluster's
        repository must never hold a render its main repository does not."""
        if self._copies is not None:
            self._copies.push_works(commit)

    def _cluster_repo_errors(self) -> tuple[reconciler_state.ClusterRepoError, ...]:
        return self._copies.errors if self._copies is not None else ()

    # -- status ref -----------------------------------------------------------------------

    def _load_state(self) -> None:
        """Carry over what the status ref says (once), so a restart knows the last render."""
        if self._state_loaded:
            return
        self._state_loaded = True
        stored, _ = reconciler_state.read(self.repo)
        if stored is not None:
            self._state = dataclasses.replace(
                stored, source_branch=self.source_branch, rendered_branch=self._branch
            )

    def _record(self, new: reconciler_state.ReconcilerState, timings: dict[str, float]) -> None:
        """Keep `new` (stamped now, with `timings`) and write it to the status ref (best
        effort: a failure is logged, the render it describes stands)."""
        self._state = dataclasses.replace(
            new,
            source_branch=self.source_branch,
            rendered_branch=self._branch,
            updated=reconciler_state.rfc3339(self.clock()),
            timings=timings,
            cluster_repos=self._cluster_repo_errors(),
        )
        for _ in range(2):
            _, expected = reconciler_state.read(self.repo)
            try:
                reconciler_state.write(
                    self.repo,
                    self._state,
                    expected=expected,
                    move=self.target.move_ref(),
                    signer=self._signer,
                )
                return
            except RefConflictError:
                self.target.refresh()
            except GitfleetError as error:
                self._emit("status-error", self._state.last_seen, error=str(error))
                return

    # -- the loop -------------------------------------------------------------------------

    def _emit(self, name: str, source_commit: str, /, **fields: events.Value) -> None:
        self.sink(events.Event(name, source_commit, self.clock(), fields))

    def _triggers(self) -> tuple[watcher.RefWatcher | None, server.WebhookServer | None]:
        watch = None
        if self.settings.watch and not self.target.remote:
            refs_home = repository.common_dir(self.repo.git_dir)
            watch = watcher.RefWatcher(refs_home, self._source_ref, self.wake)
        hook = None
        if self.settings.webhook is not None:
            hook = server.WebhookServer(
                self.settings.webhook,
                self.settings.webhook_secret,
                self._source_ref,
                self.wake,
                self.sink,
                self.clock,
                self.settings.webhook_limits,
                replied=lambda status: self.counts.webhook_requests.labels(str(status)).inc(),
            )
        self._hook = hook
        return watch, hook

    def run(self) -> None:
        """Look at start, then on every poke or interval, until stopped."""
        self.alive.pending(_LOOP, "no look done yet")
        self.alive.done(health.STARTING)
        watch, hook = self._triggers()
        try:
            if watch is not None:
                watch.start()
            if hook is not None:
                hook.start()
                host, port = hook.address
                self._emit("listening", "", address=f"{host}:{port}")
            self._emit(
                "started",
                "",
                repo=remote.shown(self.target.location),
                branch=self._source_branch,
                interval=self.settings.interval,
                watch=watch is not None,
                webhook=hook is not None,
            )
            self._loop()
        finally:
            self.wake.stop()
            if hook is not None:
                hook.close()
            if watch is not None:
                watch.join(5)
            self.alive.end(_LOOP)
            self._emit("stopped", self._state.last_seen)

    def _loop(self) -> None:
        delays = backoff.Backoff(self.settings.retry_base, self.settings.retry_cap)
        self.wake.poke("start")
        allowance = health.allowance(self.settings.interval)
        while not self.wake.stopped:
            self.alive.beat(_LOOP, self.settings.interval + allowance)
            reasons = self.wake.wait(self._autoscale.wait(self.settings.interval))
            if self.wake.stopped:
                return
            try:
                self.cycle(",".join(reasons) or "poll")
                delays.reset()
                self.alive.done(_LOOP)
                continue
            except target.RemoteUnavailable as error:
                delay = delays.next_delay()
                self._emit("remote-error", self._state.last_seen, error=str(error), retry_in=delay)
            except Exception as error:  # a bug in one look must not end the service
                delay = delays.next_delay()
                message = f"{type(error).__name__}: {error}"
                self._emit("error", self._state.last_seen, error=message, retry_in=delay)
            self.counts.renders.labels(ERROR_RESULT).inc()
            self.alive.beat(_LOOP, delay + allowance)
            if not self.wake.sleep(delay):
                return
            self.wake.poke("retry")

    def close(self) -> None:
        self.target.close()
