"""`gitfleet render`: render one source commit onto the rendered branch (or into a folder).

Loads the source (`--rev`, default: the source branch of gitfleet.yaml, else HEAD), reads the
rendered branch's tip as the previous render (its bindings hold the previous schedule results)
and the clusters' reported status from their status refs (it supersedes the declared status,
field by field; render.yaml records each cluster's digest), renders, and publishes one commit
plus the per-cluster refs by compare-and-swap; a render that changes nothing makes no commit.
`--out DIR` writes the tree to a folder instead; from a plain folder source it renders from
scratch. `--full` renders every binding again instead of reusing those whose inputs did not
change, and gives the same tree.

Any error in the source refuses the whole commit: nothing is written, the branch stays at the
last good render, and every error is printed as `path:line:col: message` (exit 1). Another
writer moving the branch meanwhile is an error too (exit 1): render again. A resource the
scheduler could not place (no cluster fits, not enough capacity) is printed as a warning at its
template's file and line with the scheduler's reason, listed under `unscheduled` (render.yaml
and `-o json`), and keeps the clusters it had; the render is still made, and exits 3. So
does a render that refuses a manifest for a cluster (a plain-text Secret, an override that
does not apply): the cluster keeps the manifest it had, and the refusal is printed with the
file and line to fix. Both hold for a render that changes nothing, the same commit rendered
again included: what the render on the branch refused and left unscheduled is read back from
its render.yaml.

A render builds only on renders: when the rendered branch or a cluster ref is at a commit that
is not one (reset to a source commit, say), nothing is rendered and the error says how to
recover (exit 1). `--new-history` is that recovery: each such ref gets a parentless render (the
branch's rendered from scratch, as its old tip is no render to build on); refs that are renders
go on as ever.

`--signing-key PATH` (or `$GITFLEET_SIGNING_KEY`) signs the rendered commit and every cluster
ref's commit with that SSH private key (Git's SSH signatures), for agents that verify them.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from gitfleet import __version__, collector, inputs, pipeline, source
from gitfleet.cli import options, progress, signals
from gitfleet.cli import output as out
from gitfleet.errors import GitfleetError, InputError, RefConflictError, UsageError
from gitfleet.gitstore import branchnames, folder, objects, rendered, repository, signing

LISTED_FILES = 200
"""The most changed files the human output names one by one: a first render of a large fleet
changes millions, which only `-o json` should list; past this many, each cluster's counts."""
INCOMPLETE_EXIT = 3
"""The exit status of a render made (committed, or written to a folder) in which something does
not land: a resource that could not be scheduled, a manifest refused for a cluster. Not 1,
which says nothing was rendered."""


@dataclasses.dataclass(frozen=True, slots=True)
class Outcome:
    """What a render did: the result, and where it went."""

    result: pipeline.RenderResult
    branch: str | None
    commit: str | None
    created: bool
    out: str | None
    new_history: tuple[str, ...] = ()
    """The refs that were not at a render, replaced by a parentless render."""


def _materialise(
    repo: repository.Repository | None, files: Mapping[str, objects.Content]
) -> dict[str, bytes]:
    """File contents for a folder: kept files are read from the previous render."""
    wanted = {p: c.id for p, c in files.items() if isinstance(c, objects.Blob)}
    blobs = repo.read(set(wanted.values()), objects.BLOB) if repo and wanted else {}
    found = {p: bytes(c) for p, c in files.items() if not isinstance(c, objects.Blob)}
    found.update({p: blobs[oid] for p, oid in wanted.items() if oid in blobs})
    return found


def run(
    repo_path: str,
    rev: str | None,
    branch: str | None,
    out_dir: str | None,
    full: bool,
    new_history: bool = False,
    signing_key: str | None = None,
    step: progress.Step = progress.quiet,
) -> Outcome:
    """Load, render and publish (or write to `out_dir`, from no previous render when the
    branch is not at one); `ForeignHistoryError` when a ref to publish on is not at a render,
    unless `new_history`. With `signing_key`, every commit made is signed with it. With a
    `rollout` section in the source, the cluster refs stay where they are: the reconciler's
    rollout moves them. `step` hears what it does now (`progress`)."""
    step("loading the source")
    loaded = source.load(repo_path, rev, require_repository=out_dir is None)
    repo = repository.open_repository(repo_path) if loaded.revision is not None else None
    try:
        if repo is not None and out_dir is None:
            loaded = _branch_checked(repo, loaded, branch, rev)
        signer = signing.Signer(Path(signing_key)) if signing_key else None
        step("reading the previous render and the clusters' status")
        found = inputs.read(repo, loaded, branch, signer)
        foreign: list[str] = []
        if repo is not None and out_dir is None and loaded.ok:
            foreign = rendered.foreign_refs(repo, found.branch)
            if foreign and not new_history:
                raise rendered.history_error(foreign)
        with collector.paused():
            step("placing and rendering the templates")
            result = pipeline.render(loaded, found.previous, found.status, full=full, now=found.now)
            if not result.ok:
                return Outcome(result, found.branch, None, False, out_dir)
            signals.checkpoint()
            if out_dir is not None:
                step(f"writing {out_dir}")
                folder.write(out_dir, _materialise(repo, result.files))
                return Outcome(result, None, None, result.changed, out_dir)
            assert repo is not None and loaded.revision is not None
            step(f"committing to {found.branch}")
            published = rendered.publish(
                repo,
                found.branch,
                changes=result.changes,
                expected=found.tip.commit if found.tip else None,
                source_commit=loaded.revision,
                version=__version__,
                tip=found.tip,
                new_history=new_history,
                signer=signer,
                hold_clusters=loaded.config.rollout is not None,
                sync_modes=result.sync_modes,
            )
            commit, created = published.commit, published.created
            return Outcome(result, found.branch, commit, created, None, tuple(foreign))
    finally:
        if repo is not None:
            repo.close()


def _branch_checked(
    repo: repository.Repository, loaded: source.LoadedSource, branch: str | None, rev: str | None
) -> source.LoadedSource:
    """`loaded`, with an error at gitfleet.yaml's renderedBranch when the repository cannot
    hold that branch, and at each Cluster whose Work ref it cannot hold; a `--branch` it
    cannot hold is a bad option value (exit 2)."""
    loaded = inputs.cluster_refs_checked(repo, loaded, statuses=False)
    if branch is None:
        return inputs.branch_checked(repo, loaded, rev)
    found = branchnames.conflict(repo, branch, inputs.source_read(loaded, rev))
    if found is not None:
        raise click.BadParameter(found, param_hint="'--branch'")
    return loaded


def to_json(outcome: Outcome) -> dict[str, Any]:
    result = outcome.result
    return {
        "ok": result.ok,
        "sourceCommit": result.source_commit,
        "branch": outcome.branch,
        "commit": outcome.commit,
        "created": outcome.created,
        "out": outcome.out,
        "newHistory": list(outcome.new_history),
        "renderedBindings": result.rendered_bindings,
        "clusters": {name: c.to_json() for name, c in result.clusters.items()},
        "refused": [r.to_json() for r in result.refusals],
        "unscheduled": [u.to_json() for u in result.unscheduled],
        "diagnostics": [d.to_json() for d in result.diagnostics],
    }


def human(outcome: Outcome) -> str:
    result = outcome.result
    lines = [str(d) for d in result.diagnostics] + [str(u) for u in result.unscheduled]
    if not result.ok:
        lines.append("nothing rendered: fix the errors above")
        return "\n".join(lines) + "\n"
    where = outcome.out or outcome.branch
    if outcome.out is not None:
        what = f"{result.source_commit} " if result.source_commit else ""
        lines.append(f"rendered {what}into {outcome.out}")
    elif outcome.created:
        lines.append(f"rendered {result.source_commit} onto {where}: {outcome.commit}")
    else:
        lines.append(f"no change: {where} stays at {outcome.commit}")
    lines += [f"new history on {ref}: it was not at a render" for ref in outcome.new_history]
    changes = result.clusters
    counts = {name: c.counts for name, c in changes.items()}
    listed = sum(sum(n) for n in counts.values()) <= LISTED_FILES
    for name, c in changes.items():
        added, changed, removed = counts[name]
        if not (added or changed or removed):
            continue
        lines.append(f"{name}: {added} added, {changed} changed, {removed} removed")
        if listed:
            lines += [f"  + {p}" for p in c.added] + [f"  ~ {p}" for p in c.changed]
            lines += [f"  - {p}" for p in c.removed]
    if not listed:
        lines.append(f"(more than {LISTED_FILES} files changed: -o json lists each)")
    if result.refusals:
        lines.append(f"refused ({len(result.refusals)}):")
        lines += [f"  {r}" for r in result.refusals]
    return "\n".join(lines) + "\n"


def _seen_from_here(outcome: Outcome, repo: str) -> Outcome:
    """The outcome as printed for a reader: every file named as seen from the current folder,
    as validate names it. `-o json` keeps the source's own paths, as render.yaml records them."""
    result = outcome.result
    shown = dataclasses.replace(
        result,
        diagnostics=tuple(out.problem_from_here(d, repo) for d in result.diagnostics),
        refusals=tuple(out.seen_from_here(r, repo) for r in result.refusals),
        unscheduled=tuple(out.seen_from_here(u, repo) for u in result.unscheduled),
    )
    return dataclasses.replace(outcome, result=shown)


@click.command("render")
@options.repo_option_saying(
    "A Git repository (its commit --rev) or, with --out, a plain folder (its files)."
)
@options.rev_option
@click.option(
    "--branch",
    default=None,
    callback=options.branch_name,
    help="Rendered branch (default: gitfleet.yaml's, else gitfleet/rendered).",
)
@click.option(
    "--out",
    "out_dir",
    default=None,
    type=click.Path(file_okay=False),
    help="Write the tree to this folder instead of committing.",
)
@click.option("--full", is_flag=True, help="Render every binding again (gives the same tree).")
@click.option(
    "--new-history",
    is_flag=True,
    help="Replace a rendered branch or cluster ref that is not at a render with a new,"
    " parentless render (instead of refusing).",
)
@options.signing_key_option
@options.output_option
def render_command(
    repo: str,
    rev: str | None,
    branch: str | None,
    out_dir: str | None,
    full: bool,
    new_history: bool,
    signing_key: str | None,
    output: str,
) -> None:
    """Render a source commit onto the rendered branch, or into a folder with --out.

    The commit is --rev, else the source branch of gitfleet.yaml, else HEAD: uncommitted
    changes do not count (gitfleet validate checks them).
    """
    if branch is not None and out_dir is not None:
        raise click.UsageError("--branch and --out exclude each other")
    if new_history and out_dir is not None:
        raise click.UsageError("--new-history and --out exclude each other")
    try:
        with progress.Progress() as shown:
            outcome = run(repo, rev, branch, out_dir, full, new_history, signing_key, shown.step)
    except UsageError as error:
        raise click.UsageError(str(error)) from error
    except InputError as error:
        out.fail_input(error)
    except (RefConflictError, GitfleetError) as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(1)
    out.emit(to_json(outcome), output, human(_seen_from_here(outcome, repo)))
    if not outcome.result.ok:
        sys.exit(1)
    if outcome.result.unscheduled or outcome.result.refusals:
        sys.exit(INCOMPLETE_EXIT)


render = render_command
