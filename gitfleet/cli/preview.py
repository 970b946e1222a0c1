"""`gitfleet preview`: what merging a change would do to the fleet, for pull requests.

Renders `--base` and `--head` (revisions of the repository `--repo`) and prints the placement
and manifest diff: Markdown for a pull-request comment (at most GitHub's 65,536 characters or
`--limit`, whatever the head holds: what does not fit is cut and counted) or, with `--format
json` (`-o json`), every detail with stable keys. The base is read from the rendered branch
when it renders the base commit already. Exit 0 when the head
renders everything it asks for; 1 when it has errors or its render refuses manifests (a Secret
in plain text, a name that cannot be a path, an override or a Lua script that fails, a
manifest over 1.5 MiB, ...): they lead the output, with file and line; 2 on a usage error.
"""

from __future__ import annotations

import sys

import click

from gitfleet import errors
from gitfleet import preview as previewing
from gitfleet.cli import options, progress
from gitfleet.cli import output as out
from gitfleet.preview import markdown, report


@click.command("preview")
@click.option("--base", required=True, help="The revision merged into (e.g. origin/main).")
@click.option("--head", required=True, help="The revision with the change (e.g. HEAD).")
@options.repo_option_saying("The Git repository holding --base and --head.")
@click.option(
    "--rendered-branch",
    default=None,
    callback=options.branch_name,
    help="Rendered branch to reuse for the base (default: the base's renderedBranch).",
)
@click.option(
    "--format",
    "-o",
    "fmt",
    type=click.Choice(["markdown", "json"]),
    default="markdown",
    show_default=True,
    help="Markdown for a pull-request comment, or JSON.",
)
@click.option(
    "--limit",
    type=click.IntRange(min=markdown.MIN_LIMIT),
    default=markdown.LIMIT,
    show_default=True,
    help="Most characters of Markdown (what does not fit is cut and counted).",
)
def preview(
    base: str, head: str, repo: str, rendered_branch: str | None, fmt: str, limit: int
) -> None:
    """Placement and manifest diff between two source revisions."""
    try:
        with progress.Progress() as shown:
            found = previewing.preview(
                repo, base, head, rendered_branch=rendered_branch, step=shown.step
            )
    except errors.UsageError as error:
        raise click.UsageError(str(error)) from error
    except errors.InputError as error:
        out.fail_input(error)
    if fmt == "json":
        click.echo(out.dump_json(report.as_json(found)), nl=False)
    else:
        click.echo(markdown.render(found, limit), nl=False)
    if not found.ok:
        sys.exit(1)
