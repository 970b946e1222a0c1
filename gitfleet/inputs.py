"""What a render of a source revision reads from its repository besides the source: the rendered
branch's tip as the previous render (its bindings hold the previous schedule results), the
clusters' reported status from their status refs (it supersedes the declared status, field by
field), and the source commit's time, which stamps schedules.

`gitfleet render`, `gitfleet explain` and the reconciler all read them here, so that an
explanation is made from the very inputs a render of the same revision uses. A source read from
a plain folder has none of them: it renders from scratch, on the status the clusters declare.

The rendered branch gitfleet.yaml names must also be one the repository can hold
(`branch_checked`): that is an error of the source, at the setting, as any other. So must the
refs written for each cluster (`cluster_refs_checked`), an error at each Cluster, and the source
branch it names must exist (`source_branch_checked`, for `validate`: `render` cannot read it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from gitfleet import pipeline
from gitfleet import render as rendering
from gitfleet import source as sources
from gitfleet.gitstore import branchnames, rendered, signing, status, store
from gitfleet.gitstore.repository import Repository
from gitfleet.model import cluster, diagnostic, loaded
from gitfleet.model.origin import UNKNOWN, Origin


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Inputs:
    """One render's inputs besides the source."""

    branch: str
    """The rendered branch."""
    tip: rendered.Tip | None = None
    """Its last commit, which a publication compares and swaps."""
    previous: pipeline.PreviousRender | None = None
    status: Mapping[str, cluster.ClusterStatus] = dataclasses.field(default_factory=dict)
    """Each cluster's reported status, by name."""
    snapshot: str = ""
    """The id of `status` (`status.read_cluster_status`): equal statuses, equal ids."""
    now: str | None = None
    """The source commit's time (RFC 3339)."""


def previous_of(
    repo: Repository, tip: rendered.Tip | None, signer: signing.Signer | None = None
) -> pipeline.PreviousRender | None:
    """The tip as the next render reads it (its bindings and render.yaml); none when the
    branch is at a commit that is not a render, which nothing builds on. A tip amended by hand
    is not `trusted`, nor, for a render to be signed by `signer`, one its key did not sign."""
    if tip is None or not tip.is_render:
        return None
    fmt = store.object_format(repo)
    found = pipeline.read_previous(tip.commit, tip.files, rendered.reader(repo, tip), fmt.name)
    if signer is not None and not signer.signed(repo, tip.commit):
        signed = rendered.last_render_below(
            repo, tip, SIGNED_DEPTH, lambda commit: signer.signed(repo, commit)
        )
        vouched = None
        if signed is not None:
            vouched = rendering.Vouched(signed.files, found.files, rendered.reader(repo, signed))
        return dataclasses.replace(found, trusted=False, vouched=vouched)
    if tip.amended:
        return dataclasses.replace(found, trusted=False)
    return found


SIGNED_DEPTH = 16
"""How many commits below a tip its signer's key did not sign are looked at for one it did.
When the key signed none of them (signing was just turned on, or the key changed), kept files
stay as the tip has them."""


def read(
    repo: Repository | None,
    source: loaded.LoadedSource,
    branch: str | None = None,
    signer: signing.Signer | None = None,
) -> Inputs:
    """The inputs of a render of `source` onto `branch` (default: the source's rendered branch)
    of `repo` (None: the source is a plain folder), to be signed by `signer` if any."""
    target = branch or source.config.rendered_branch
    if repo is None or source.revision is None:
        return Inputs(branch=target)
    tip = rendered.read_tip(repo, target)
    snapshot, reported = status.read_cluster_status(repo)
    return Inputs(
        branch=target,
        tip=tip,
        previous=previous_of(repo, tip, signer),
        status=reported,
        snapshot=snapshot,
        now=repo.commit_time(source.revision),
    )


def source_read(source: loaded.LoadedSource, rev: str | None) -> str | None:
    """The revision `source` was read at, as named: `rev`, else its sourceBranch (None: HEAD)."""
    return rev if rev is not None else source.config.source_branch


def branch_checked(
    repo: Repository, source: loaded.LoadedSource, rev: str | None = None
) -> loaded.LoadedSource:
    """`source` (read at `rev`, else at its sourceBranch, else at HEAD), with an error at
    gitfleet.yaml's renderedBranch when that branch is no place to render onto in `repo`
    (another branch is in the way, or it is the source or a branch checked out:
    `branchnames.conflict`): nothing is rendered then, and nothing written, as for any other
    error of the source."""
    found = branchnames.conflict(repo, source.config.rendered_branch, source_read(source, rev))
    return source if found is None else _at_rendered_branch(source, f"renderedBranch: {found}")


def source_branch_checked(repo: Repository, source: loaded.LoadedSource) -> loaded.LoadedSource:
    """`source`, with an error at gitfleet.yaml's sourceBranch when `repo` has no such branch,
    which `render` stops at (`sources.missing_source_branch`): for `validate`, so that what
    passes it renders. The branch HEAD names in a repository without commits yet is not
    missing: the first commit makes it."""
    branch = source.config.source_branch
    ref = f"refs/heads/{branch}"
    if branch is None or repo.commit_of(ref) is not None:
        return source
    code, head, _ = repo.run("symbolic-ref", "-q", "HEAD")
    if code == 0 and head.decode().strip() == ref:
        return source
    problems = [*source.diagnostics, sources.missing_source_branch(source.config)]
    return dataclasses.replace(source, diagnostics=tuple(diagnostic.sorted_diagnostics(problems)))


def history_checked(repo: Repository, source: loaded.LoadedSource) -> loaded.LoadedSource:
    """`source`, with an error at gitfleet.yaml's renderedBranch when that branch or a cluster
    ref is at a commit that is not a render, which `render` refuses to build on
    (`rendered.history_error`, with the ways out): for `validate`, so that what passes it
    renders. `render` itself raises that error, whose way out `--new-history` is."""
    foreign = rendered.foreign_refs(repo, source.config.rendered_branch)
    if not foreign:
        return source
    return _at_rendered_branch(source, f"renderedBranch: {rendered.history_error(foreign)}")


def _at_rendered_branch(source: loaded.LoadedSource, message: str) -> loaded.LoadedSource:
    """`source` with the error `message` at gitfleet.yaml's renderedBranch (at gitfleet.yaml
    when the setting is not written: the default branch)."""
    settings = source.config.origin
    where = settings.at("renderedBranch") if settings != UNKNOWN else Origin(loaded.CONFIG_FILE)
    problems = [*source.diagnostics, diagnostic.error(where, message)]
    return dataclasses.replace(source, diagnostics=tuple(diagnostic.sorted_diagnostics(problems)))


def cluster_refs_checked(
    repo: Repository, source: loaded.LoadedSource, *, statuses: bool
) -> loaded.LoadedSource:
    """`source`, with an error at each Cluster whose Work ref (with `statuses`, also its
    status ref) `repo` cannot hold because another branch is in the way (one named
    `gitfleet/works`, say: `branchnames.own_conflicts`): nothing is rendered then, and nothing
    written, as for any other error of the source."""
    clusters = source.objects.clusters
    found = branchnames.own_conflicts(repo, [c.name for c in clusters], statuses=statuses)
    if not found:
        return source
    problems = [
        *source.diagnostics,
        *(
            diagnostic.error(c.origin.at("metadata", "name"), f"Cluster {c.name}: {found[c.name]}")
            for c in clusters
            if c.name in found
        ),
    ]
    return dataclasses.replace(source, diagnostics=tuple(diagnostic.sorted_diagnostics(problems)))
