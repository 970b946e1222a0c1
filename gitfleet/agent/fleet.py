"""What one rendered commit asks of the push agent: which clusters, reached how, interpreted how.

The clusters are read from the source commit the rendered commit names (`Source-Commit`): every
`Cluster` whose `spec.syncMode` is `Push`; Pull clusters run their own agent. The source also
gives the ResourceInterpreterCustomizations (and third-party rules) that health and status
use, and its commit message may carry `Gitfleet-Allow-Prune`. When the source commit is not
in the repository (a repository holding only the rendered branch), every cluster folder of the
rendered commit that has a kubeconfig is a Push cluster, and only the built-in interpreter
rules apply.

Each cluster's kubeconfig is a file of the kubeconfig folder `D`: `D/<namespace>/<name>.yaml`
when the Cluster has `spec.secretRef` (the Secret Karmada would read its credentials from) and
that file exists, else `D/<cluster>.yaml`.

A Push cluster that left the fleet (its Cluster deleted from the source) is served too, until
its agent has applied what it was left (`Departures`): a render gives its ref one commit with
no files and no sync mode (the Cluster that said it is gone), so the one before it on the ref
tells that it was a Push cluster, and the source commit that one was rendered from gives the
Cluster, for its kubeconfig. Applying that commit prunes everything gitfleet made there (the
prune guard, and the trailer lifting it, as for any deletion), as Karmada's unjoin deletes the
cluster's Works; once the cluster's status ref says it converged on that commit, the agent
leaves it alone. Without a kubeconfig it is left alone at once: what runs there stays.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Mapping
from pathlib import Path

from gitfleet import errors, source
from gitfleet.agent import verify, workdir
from gitfleet.gitstore import refs, status, works
from gitfleet.gitstore import rendered as rendered_branch
from gitfleet.gitstore.repository import Repository
from gitfleet.interpreter import Interpreter
from gitfleet.model import cluster, config
from gitfleet.status import reports

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True, slots=True)
class Target:
    """A Push cluster and the kubeconfig to reach it (None, with `problem`, when missing)."""

    name: str
    kubeconfig: Path | None
    problem: str = ""


@dataclasses.dataclass(frozen=True, slots=True)
class Round:
    """One rendered commit, resolved: what to sync where."""

    rendered: works.RenderedCommit
    targets: tuple[Target, ...]
    customizations: tuple[config.ResourceInterpreterCustomization, ...] = ()
    thirdparty: tuple[config.ResourceInterpreterCustomization, ...] = ()
    source_trailers: Mapping[str, str] = dataclasses.field(default_factory=dict)
    refusal: verify.Refusal | None = None
    """Why the rendered commit must not be applied (its signature), None when it may."""
    per_cluster: bool = False
    """The source has a `rollout` section: each cluster applies its own ref (`released`),
    which the reconciler moves wave by wave, not the rendered branch's tip."""
    released: Mapping[str, Round] = dataclasses.field(default_factory=dict)
    """With `per_cluster`: each cluster's round, of the commit its ref is at."""
    left: Mapping[str, Departure] = dataclasses.field(default_factory=dict)
    """The Push clusters that left the fleet and have yet to apply what they were left."""

    @property
    def served(self) -> tuple[Target, ...]:
        """The clusters to sync: the targets, and the clusters that left (`left`)."""
        return (*self.targets, *(d.target for _, d in sorted(self.left.items())))

    def of(self, name: str) -> Round | None:
        """The round cluster `name` syncs to (None: nothing released to it yet)."""
        departure = self.left.get(name)
        if departure is not None:
            return departure.round
        return self.released.get(name) if self.per_cluster else self

    def interpreter(self) -> Interpreter:
        """A fresh interpreter chain (Lua runtimes are not shared between threads)."""
        return Interpreter(self.customizations, self.thirdparty)

    def work_set(self, repo: Repository, name: str) -> workdir.WorkSet:
        """The cluster's Work set in this rendered commit (never raises for bad content)."""
        commit = self.rendered.commit
        try:
            folder = works.cluster_folder(repo, commit, name)
        except errors.GitfleetError as exc:
            return workdir.WorkSet(
                cluster=name, rendered_commit=commit, problems=(f"cannot read {commit}: {exc}",)
            )
        allowed = workdir.allows_prune([self.rendered.trailers, self.source_trailers], name)
        return workdir.parse(
            name,
            folder.files,
            rendered_commit=commit,
            source_commit=self.rendered.source_commit,
            allow_prune=allowed,
            problems=folder.problems,
        )


@dataclasses.dataclass(frozen=True, slots=True)
class Departure:
    """A Push cluster that left the fleet: where it is reached, and the round of its ref's
    leaving commit, which has no files."""

    target: Target
    round: Round


def kubeconfig_for(directory: Path, member: cluster.Cluster | None, name: str) -> Target:
    """Where the kubeconfig of cluster `name` is (see the module docstring)."""
    ref = member.spec.secret_ref if member is not None else None
    tried = []
    if ref is not None:
        tried.append(directory / ref.namespace / f"{ref.name}.yaml")
    tried.append(directory / f"{name}.yaml")
    for path in tried:
        if path.is_file():
            return Target(name, path)
    shown = " or ".join(os.fspath(p) for p in tried)
    return Target(name, None, f"no kubeconfig for cluster {name}: expected {shown}")


def resolve(repo: Repository, repo_path: Path, commit: str, kubeconfig_dir: Path) -> Round:
    """The round for rendered commit `commit` of the repository at `repo_path`."""
    rendered = works.read_commit(repo, commit)
    source_commit = rendered.source_commit
    trailers = rendered_branch.commit_trailers(repo, source_commit) if source_commit else None
    if trailers is None:
        log.info(
            "source commit %r is not in the repository: every folder with a kubeconfig"
            " is a Push cluster",
            source_commit,
        )
        targets = [kubeconfig_for(kubeconfig_dir, None, name) for name in rendered.clusters]
        return Round(rendered, tuple(t for t in targets if t.kubeconfig is not None))
    loaded = source.load(repo_path, source_commit)
    members = [c for c in loaded.objects.clusters if c.spec.sync_mode is cluster.SyncMode.PUSH]
    return Round(
        rendered,
        tuple(kubeconfig_for(kubeconfig_dir, c, c.name) for c in members),
        customizations=loaded.objects.customizations,
        thirdparty=loaded.third_party_customizations,
        source_trailers=trailers,
        per_cluster=loaded.config.rollout is not None,
    )


def cluster_commits(repo: Repository, round_: Round) -> dict[str, str]:
    """The commit of each target's own ref (targets without a ref left out)."""
    found = refs.list_refs(repo, rendered_branch.CLUSTER_REFS)
    wanted = {rendered_branch.cluster_ref(t.name): t.name for t in round_.targets}
    return {wanted[ref]: state.commit for ref, state in found.items() if ref in wanted}


def released(
    repo: Repository, round_: Round, commits: Mapping[str, str], allowed: Path | None
) -> Round:
    """`round_` with each cluster's round of the commit its own ref is at (`commits`)."""
    by_cluster = {
        name: _own(repo, round_, name, commit, allowed) for name, commit in sorted(commits.items())
    }
    return dataclasses.replace(round_, released=by_cluster)


def _own(repo: Repository, round_: Round, name: str, commit: str, allowed: Path | None) -> Round:
    """`round_` (its interpreter) for `commit` of cluster `name`'s own ref, checked as a pull
    agent checks its ref's commit (`verify.check` for that cluster)."""
    trailers = rendered_branch.commit_trailers(repo, commit) or {}
    source_commit = trailers.get(rendered_branch.SOURCE_TRAILER)
    source_trailers = (
        rendered_branch.commit_trailers(repo, source_commit) if source_commit else None
    )
    return dataclasses.replace(
        round_,
        rendered=works.RenderedCommit(commit=commit, trailers=trailers, clusters=(name,)),
        source_trailers=source_trailers or {},
        refusal=verify.check(repo, commit, allowed, cluster=name),
        per_cluster=False,
        released={},
        left={},
    )


class Departures:
    """Finds the Push clusters that left the fleet and have yet to apply their leaving commit
    (see the module docstring). A commit id names its content for good, so what one settles
    is remembered: whether it is a Push cluster's leaving commit, the Cluster it had, and that
    it converged on it. Each look then costs one ref listing, and for each cluster still to
    be served, a look for its kubeconfig and a read of its status ref."""

    def __init__(self, repo_path: Path, kubeconfig_dir: Path, allowed: Path | None) -> None:
        self.repo_path = repo_path
        self.kubeconfig_dir = kubeconfig_dir
        self.allowed = allowed
        self._leaving: dict[str, _Leaving | None] = {}
        """By leaving commit: what applying it takes (None: it is not a Push cluster's)."""
        self._members: dict[str, cluster.Cluster | None] = {}
        """By leaving commit: the Cluster its cluster had (None: not known)."""
        self._applied: set[str] = set()
        """Leaving commits their cluster converged on."""

    def find(self, repo: Repository, round_: Round) -> dict[str, Departure]:
        """The departures to serve beside `round_`'s clusters, by cluster name."""
        fleet = {*round_.rendered.clusters, *(t.name for t in round_.targets)}
        found = {}
        for name, commit in sorted(works.emptied(repo).items()):
            if name in fleet or commit in self._applied:
                continue
            if commit not in self._leaving:
                self._leaving[commit] = self._read(repo, name, commit)
            leaving = self._leaving[commit]
            if leaving is None:
                continue
            stored = status.read_status(repo, name)
            done = reports.decode(name, stored.files) if stored is not None else None
            if done is not None and done.rendered_commit == commit and done.converged:
                self._applied.add(commit)
                continue
            if commit not in self._members:
                self._members[commit] = self._member(repo, name, leaving.source_commit)
            target = kubeconfig_for(self.kubeconfig_dir, self._members[commit], name)
            if target.kubeconfig is not None:  # else what runs there stays
                found[name] = Departure(target, leaving.round)
        return found

    def _read(self, repo: Repository, name: str, commit: str) -> _Leaving | None:
        """What applying leaving commit `commit` of cluster `name` takes, None when it is not
        a render's commit for that cluster, or the cluster was not a Push one."""
        trailers = rendered_branch.commit_trailers(repo, commit) or {}
        own = trailers.get(rendered_branch.CLUSTER_TRAILER) == name
        before = rendered_branch.commit_trailers(repo, f"{commit}^") or {}
        mode = before.get(rendered_branch.SYNC_MODE_TRAILER)
        if not (rendered_branch.is_render(trailers) and own and mode == cluster.SyncMode.PUSH):
            return None
        nothing = Round(works.RenderedCommit(commit=commit, trailers={}, clusters=()), ())
        return _Leaving(
            round=_own(repo, nothing, name, commit, self.allowed),
            source_commit=before.get(rendered_branch.SOURCE_TRAILER, ""),
        )

    def _member(self, repo: Repository, name: str, source_commit: str) -> cluster.Cluster | None:
        """The Cluster `name` of `source_commit` (None: not in the repository, or it does not
        load)."""
        if not source_commit or repo.commit_of(source_commit) is None:
            return None
        try:
            loaded = source.load(self.repo_path, source_commit)
        except errors.GitfleetError as exc:
            log.warning("cluster %s: source commit %s not read: %s", name, source_commit, exc)
            return None
        return next((c for c in loaded.objects.clusters if c.name == name), None)


@dataclasses.dataclass(frozen=True, slots=True)
class _Leaving:
    """A Push cluster's leaving commit: its round, and the source commit of the render before
    it on the ref, whose Cluster tells where the cluster is reached."""

    round: Round
    source_commit: str
