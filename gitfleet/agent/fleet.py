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
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Mapping
from pathlib import Path

from gitfleet import errors, source
from gitfleet.agent import verify, workdir
from gitfleet.gitstore import refs, works
from gitfleet.gitstore import rendered as rendered_branch
from gitfleet.gitstore.repository import Repository
from gitfleet.interpreter import Interpreter
from gitfleet.model import cluster, config

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

    def of(self, name: str) -> Round | None:
        """The round cluster `name` syncs to (None: nothing released to it yet)."""
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
    """`round_` with each cluster's round of the commit its own ref is at (`commits`), checked
    as a pull agent checks its ref's commit (`verify.check` for that cluster)."""
    by_cluster = {}
    for name, commit in sorted(commits.items()):
        trailers = rendered_branch.commit_trailers(repo, commit) or {}
        source_commit = trailers.get(rendered_branch.SOURCE_TRAILER)
        source_trailers = (
            rendered_branch.commit_trailers(repo, source_commit) if source_commit else None
        )
        by_cluster[name] = dataclasses.replace(
            round_,
            rendered=works.RenderedCommit(commit=commit, trailers=trailers, clusters=(name,)),
            source_trailers=source_trailers or {},
            refusal=verify.check(repo, commit, allowed, cluster=name),
            per_cluster=False,
            released={},
        )
    return dataclasses.replace(round_, released=by_cluster)
