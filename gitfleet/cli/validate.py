"""`gitfleet validate`: every problem of a source, one line each, `path:line:col: severity: msg`.

Loads the source (a commit of a Git repository, or a plain folder) and validates it. Paths are
printed as seen from the working directory (prefixed with `--repo` when it is not `.`), so
editors and CI annotations can open them. `-o json` prints a list of {path, line, col,
severity, message}. Exit 0 when there is no error (warnings allowed), 1 on any error or when
there is no source to read, 2 on a usage error (such as `--rev` with a plain folder).
"""

from __future__ import annotations

import dataclasses
import os
import sys

import click

from gitfleet import errors, source, validation
from gitfleet.cli import options
from gitfleet.cli import output as out
from gitfleet.model import diagnostic


def _as_seen_from_here(item: diagnostic.Diagnostic, repo: str) -> diagnostic.Diagnostic:
    if os.path.normpath(repo) == ".":
        return item
    path = os.path.normpath(os.path.join(repo, item.origin.path))
    return dataclasses.replace(item, origin=dataclasses.replace(item.origin, path=path))


@click.command()
@options.repo_option
@options.rev_option
@options.output_option
def validate(repo: str, rev: str | None, output: str) -> None:
    """Check a source repository: YAML, schemas, and Karmada's rules."""
    try:
        loaded = source.load(repo, rev)
    except errors.UsageError as error:
        raise click.UsageError(str(error)) from error
    except errors.InputError as error:
        out.fail_input(error)
    found = [_as_seen_from_here(d, repo) for d in validation.validate(loaded)]
    human = "".join(f"{d}\n" for d in found)
    out.emit([d.to_json() for d in found], output, human)
    if any(d.severity is diagnostic.Severity.ERROR for d in found):
        sys.exit(1)
