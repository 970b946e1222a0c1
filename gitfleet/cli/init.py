"""`gitfleet init DIR`: start a source repository as a copy of the example, committed once
(`gitstore.scaffold` does the work). A DIR that is not new or empty, or cannot be made, is a
usage error (exit 2); Git failing is exit 1."""

from __future__ import annotations

import os
from pathlib import Path

import click

from gitfleet import errors
from gitfleet.cli import options
from gitfleet.cli import output as out
from gitfleet.gitstore import scaffold as scaffolding

example_repo = scaffolding.example_repo


@click.command()
@click.argument("directory", type=click.Path(path_type=Path))
@options.output_option
def init(directory: Path, output: str) -> None:
    """Create a source repository in DIRECTORY (new or empty): a copy of the example fleet,
    committed, ready for `gitfleet validate --repo DIRECTORY`."""
    try:
        sha, branch, files = scaffolding.scaffold(directory)
    except errors.UsageError as error:
        raise click.UsageError(str(error)) from error
    except errors.GitfleetError as error:
        raise click.ClickException(str(error)) from error
    data = {"path": os.fspath(directory), "branch": branch, "commit": sha, "files": files}
    human = (
        f"created {directory}: {len(files)} files, commit {sha[:12]} on {branch}\n"
        f"next: gitfleet validate --repo {directory}\n"
    )
    out.emit(data, output, human)
