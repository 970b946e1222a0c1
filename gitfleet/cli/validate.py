"""`gitfleet validate`: every problem of a source, one line each, `path:line:col: severity: msg`.

Loads the source and validates it, then, when nothing is wrong with it, renders it in memory
(from scratch, with the clusters as declared), for the errors only that finds (a Lua script
failing on a template it interprets) and the manifests it would refuse: what passes renders.
In a repository, so do a sourceBranch it does not have, and a renderedBranch and the Clusters'
Work refs it cannot hold (another branch is in the way), as `render` finds them (`inputs`). It
reads what the user is working on, so a repository's working tree (the files a commit of
everything would hold, uncommitted changes included) unless `--rev` names a commit; a bare
repository at its source branch; any other folder as plain files. Which of these it read is
said on stderr. Paths are printed as seen from the working directory (prefixed with `--repo`
when it is not `.`), so editors and CI annotations can open them. `-o json` prints a list of
{path, line, col, severity, message}.
Exit 0 when there is no error (warnings allowed), 1 on any error or when there is no source to
read, 2 on a usage error (such as `--rev` with a plain folder).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import click

from gitfleet import errors, inputs, source, validation
from gitfleet.cli import options
from gitfleet.cli import output as out
from gitfleet.gitstore import repository
from gitfleet.model import diagnostic

_NOTHING_READ = (
    "warning: no Kubernetes or Karmada object was found there: is it the source repository?"
    " (files read: gitfleet.yaml's include patterns, by default **/*.yaml and **/*.yml)"
)
"""Said when the source holds no document at all, as kubectl says 'no objects passed to
apply': an empty source is valid, and far more often the wrong folder."""


def _what_was_read(loaded: source.LoadedSource, repo: str, rev: str | None) -> str:
    if loaded.working_tree:
        return f"the working tree of {repo} (uncommitted changes included)"
    if loaded.revision is None:
        hint = repository.inside_repository(repo)
        return f"the folder {repo}" + (f" as plain files; {hint}" if hint else "")
    branch = loaded.config.source_branch
    named = f"--rev {rev}" if rev else f"source branch {branch}" if branch else "HEAD"
    return f"commit {loaded.revision[:12]} of {repo} ({named})"


def _render_errors(
    loaded: source.LoadedSource, known: Sequence[diagnostic.Diagnostic]
) -> list[diagnostic.Diagnostic]:
    """The errors a render would stop at that only rendering the templates finds (a Lua
    script of a ResourceInterpreterCustomization failing on a template it interprets, two
    templates whose bindings would share a name), and the manifests it would refuse (a
    Secret in plain text, an override that does not apply, a field a member's API server
    would refuse): each an error, as `preview` fails on them. Rendered from scratch with the
    clusters as the source declares them, so that what passes here renders."""
    from gitfleet import pipeline

    result = pipeline.render(loaded)
    seen = set(known)
    found = []
    for problem in result.diagnostics:
        if problem.severity is diagnostic.Severity.ERROR and problem not in seen:
            seen.add(problem)
            found.append(problem)
    for refusal in result.refusals:
        where = f" on cluster {refusal.cluster}" if refusal.cluster else ""
        problem = diagnostic.error(refusal.origin, f"{refusal.resource}{where}: {refusal.message}")
        if problem not in seen:
            seen.add(problem)
            found.append(problem)
    return found


def _branches_checked(loaded: source.LoadedSource, repo: str) -> source.LoadedSource:
    """`loaded`, with the errors `render` finds in its repository before rendering: a
    sourceBranch that does not exist; a renderedBranch, or a Cluster's Work ref, that another
    branch is in the way of; a rendered branch or Work ref at a commit that is not a render. A
    plain folder has no branches."""
    opened = repository.open_repository(Path(repo))
    if opened is None:
        return loaded
    try:
        clusters_checked = inputs.cluster_refs_checked(opened, loaded, statuses=False)
        source_checked = inputs.source_branch_checked(opened, clusters_checked)
        checked = inputs.branch_checked(opened, source_checked)
        return inputs.history_checked(opened, checked) if checked.ok else checked
    finally:
        opened.close()


@click.command()
@options.repo_option_saying(
    "A repository's top (its working tree, or the commit --rev), a bare repository (at the"
    " source branch of gitfleet.yaml, else HEAD) or a plain folder."
)
@options.rev_option_saying("Check this commit instead of the working tree.")
@options.output_option
def validate(repo: str, rev: str | None, output: str) -> None:
    """Check a source repository: YAML, schemas, and Karmada's rules.

    In a repository's working tree it checks the files as they are, uncommitted changes
    included and files Git ignores left out: what a commit of everything would hold. --rev
    checks a commit instead. It says on stderr what it read.
    """
    try:
        loaded = source.load(repo, rev, working_tree=True)
    except errors.UsageError as error:
        raise click.UsageError(str(error)) from error
    except errors.InputError as error:
        out.fail_input(error)
    problems = validation.validate(_branches_checked(loaded, repo))
    if not any(d.severity is diagnostic.Severity.ERROR for d in problems):
        problems = diagnostic.sorted_diagnostics([*problems, *_render_errors(loaded, problems)])
    found = [out.problem_from_here(d, repo) for d in problems]
    human = "".join(f"{d}\n" for d in found)
    out.emit([d.to_json() for d in found], output, human)
    click.echo(f"checked {_what_was_read(loaded, repo, rev)}", err=True)
    if not loaded.documents:
        click.echo(_NOTHING_READ, err=True)
    if any(d.severity is diagnostic.Severity.ERROR for d in found):
        sys.exit(1)
