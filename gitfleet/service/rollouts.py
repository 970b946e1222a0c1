"""The reconciler's progressive rollout: at every look, read what the refs say, ask the rollout
stage (`gitfleet.rollout`) which cluster refs move, move them, and record what the refs cannot
say.

The rendered branch's tip is the desired state of the whole fleet; each cluster's ref
(`refs/heads/gitfleet/works/<cluster>`) is what is released to it; each status ref says what
its agent applied and how healthy it is. The rest (the rollout's phase, when each wave was
reached, became healthy and finished, the render last healthy on each cluster) is recorded on
`refs/heads/gitfleet/status/_rollout` (`status.rollout_state`), written only when it changed:
a reconciler restarted mid-rollout reads it back and goes on where it was.

Every ref move is a commit on the cluster's ref (`gitstore.releases`) whose message says which
wave, which source commit and why; a remote takes the moves in one atomic push.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from gitfleet import __version__, rollout
from gitfleet.errors import GitfleetError, RefConflictError
from gitfleet.gitstore import lookup, refs, releases, rendered, signing
from gitfleet.gitstore.repository import Repository
from gitfleet.model import cluster, times, work
from gitfleet.model import rollout as rollout_model
from gitfleet.service import events, target
from gitfleet.status import read as status_read
from gitfleet.status import reports, rollout_state

Emit = Callable[..., None]
"""`Reconciler._emit`: an event name, the source commit, then fields."""


def _folders(repo: Repository, commits: Mapping[str, str]) -> dict[str, str | None]:
    """Per cluster, the `works/<cluster>` folder of the commit given for it."""
    names = sorted(commits)
    found = lookup.object_ids(repo, [f"{commits[n]}:{rendered.WORKS}/{n}" for n in names])
    return dict(zip(names, found, strict=True))


def _problem(report: reports.ClusterReport) -> str:
    """Why a report does not say "healthy" ("" when it does)."""
    if report.refused:
        return f"its agent refused the render ({report.refused})"
    if report.error:
        return report.error
    if report.converged is not True:
        return "its agent has not converged"
    for manifest in report.manifests:
        if not manifest.applied:
            return f"{manifest.path or manifest.key}: not applied"
        if manifest.health is not work.ResourceHealth.HEALTHY:
            return f"{manifest.path or manifest.key}: {manifest.health}"
    return ""


def read_refs(repo: Repository) -> dict[str, rollout.Ref]:
    """Every cluster ref, with its folder and source commit."""
    commits = {
        ref[len(rendered.CLUSTER_REFS) :]: state.commit
        for ref, state in refs.list_refs(repo, rendered.CLUSTER_REFS).items()
    }
    folders = _folders(repo, commits)
    sources = lookup.source_commits(repo, commits.values())
    return {
        name: rollout.Ref(commit=c, folder=folders[name], source_commit=sources.get(c, ""))
        for name, c in sorted(commits.items())
    }


def read_reports(repo: Repository) -> dict[str, rollout.Report]:
    """Every cluster's last report, as the rollout stage reads it."""
    found = status_read.reports_of(repo)
    applied = {n: r.rendered_commit for n, r in found.items() if r.rendered_commit}
    names = sorted(applied)
    present = lookup.object_ids(repo, [applied[n] for n in names])
    known = {n for n, oid in zip(names, present, strict=True) if oid}
    folders = _folders(repo, applied)
    return {
        name: rollout.Report(
            applied_folder=folders.get(name),
            applied=name in known,
            heartbeat=times.parse(report.heartbeat),
            problem=_problem(report),
        )
        for name, report in sorted(found.items())
    }


class Rollouts:
    """Moves cluster refs wave by wave for one reconciler."""

    def __init__(
        self,
        target_: target.Target,
        emit: Emit,
        clock: Callable[[], float],
        signer: signing.Signer | None,
    ) -> None:
        self.target = target_
        self.repo = target_.repo
        self.emit = emit
        self.clock = clock
        self.signer = signer

    def look(
        self,
        settings: rollout_model.RolloutSettings,
        clusters: Sequence[cluster.Cluster],
        branch: str,
        grace: float,
    ) -> tuple[refs.Move, ...]:
        """One step of the rollout of the rendered branch's tip; the ref moves made (pushed,
        for a remote). `RefConflictError` when a ref moved meanwhile: the next look decides
        again from the new refs."""
        tip = rendered.read_tip(self.repo, branch)
        if tip is None or not tip.is_render or not tip.source_commit:
            return ()
        current = read_refs(self.repo)
        names = {c.name for c in clusters} | set(current)
        desired = rollout.Desired(
            commit=tip.commit,
            source_commit=tip.source_commit,
            folders={n: tip.folders.get(f"{rendered.WORKS}/{n}") for n in sorted(names)},
        )
        stored, stored_commit = rollout_state.read(self.repo)
        trailers = rendered.commit_trailers(self.repo, tip.source_commit) or {}
        decision = rollout.step(
            rollout.Inputs(
                settings=settings,
                clusters=clusters,
                desired=desired,
                refs=current,
                reports=read_reports(self.repo),
                state=stored,
                now=self.clock(),
                grace=grace,
                skip=trailers.get(rollout_model.TRAILER, "").strip().lower() == rollout_model.SKIP,
            )
        )
        modes = {c.name: str(c.spec.sync_mode) for c in clusters}
        moves = self._move(decision.releases, current, tip.source_commit, modes)
        if stored is None or rollout.to_doc(stored) != rollout.to_doc(decision.state):
            self._record(decision.state, stored_commit, stored)
        return moves

    def _move(
        self,
        decided: Sequence[rollout.Release],
        current: Mapping[str, rollout.Ref],
        source_commit: str,
        sync_modes: Mapping[str, str],
    ) -> tuple[refs.Move, ...]:
        if not decided:
            return ()
        made = [
            releases.Release(
                cluster=r.cluster,
                folder=r.folder,
                source_commit=r.source_commit,
                version=__version__,
                message=_message(r),
                wave=r.wave,
                expected=current[r.cluster].commit if r.cluster in current else None,
                sync_mode=sync_modes.get(r.cluster),
            )
            for r in decided
        ]
        moves = self.target.release(made, self.signer)
        self.target.push_refs(moves)
        for r in decided:
            event = "rolled-back" if r.rollback else "released"
            fields: dict[str, events.Value] = {"cluster": r.cluster, "reason": r.reason}
            if r.wave:
                fields["wave"] = r.wave
            self.emit(event, source_commit, **fields)
        return moves

    def _record(
        self, state: rollout.State, expected: str | None, before: rollout.State | None
    ) -> None:
        """Write `state` (best effort: a failure is logged, the next look writes again)."""
        if before is None or before.phase != state.phase:
            self.emit("rollout", state.source_commit, phase=str(state.phase), message=state.message)
        try:
            rollout_state.write(
                self.repo, state, expected=expected, move=self.target.move_ref(), signer=self.signer
            )
        except (RefConflictError, GitfleetError) as error:
            self.emit("status-error", state.source_commit, error=str(error))


def _message(release: rollout.Release) -> str:
    """The commit message: what moved where, then why."""
    if release.rollback:
        head = f"rollout: roll back {release.cluster} to source {release.source_commit}"
    else:
        wave = f" in wave {release.wave}" if release.wave else ""
        head = f"rollout: release source {release.source_commit} to {release.cluster}{wave}"
    return f"{head}\n\n{release.reason}\n"
