"""Printing data: every command's `-o json` goes through here, so keys are stable and sorted
and the output is byte-identical for the same data."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from typing import Any, NoReturn, Protocol, TypeVar

import click

from gitfleet.errors import InputError
from gitfleet.model import diagnostic
from gitfleet.model.origin import Origin


class _Located(Protocol):
    @property
    def origin(self) -> Origin: ...


Located = TypeVar("Located", bound=_Located)


def dump_json(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


_GO_ESCAPED = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)


def go_json(data: Any, indent: int | None = None) -> str:
    """JSON as Go's encoder writes it: keys sorted, compact or indented by `indent` spaces,
    and the characters it escapes (`<`, `>`, `&`, the line and paragraph separators) escaped
    as it does. They can stand only inside strings, where the escape means the same."""
    separators = (",", ":") if indent is None else (",", ": ")
    text = json.dumps(
        data, indent=indent, separators=separators, sort_keys=True, ensure_ascii=False
    )
    return text.translate(_GO_ESCAPED)


def dump_kubectl_json(data: Any) -> str:
    """JSON as kubectl prints it (`-o json` of `get`, which mirrors kubectl's), four spaces of
    indent, so that the bytes match what kubectl prints of the same object."""
    return go_json(data, indent=4) + "\n"


def dump_kubectl_yaml(data: Any) -> str:
    """YAML as kubectl prints it (`-o yaml` of `get`): keys sorted, and strings quoted as Go's
    encoder quotes them where PyYAML would use single quotes: one of several lines as a literal
    block, one that would read as another type unquoted (`"1"`, `"true"`, a timestamp) in
    double quotes; single quotes stay for one that only cannot stand plain (`'a: b'`)."""
    import yaml  # only here: most commands never print YAML

    class Dumper(yaml.SafeDumper):
        def choose_scalar_style(self) -> str:
            style: str = super().choose_scalar_style()
            event, analysis = self.event, self.analysis
            if style != "'" or not isinstance(event, yaml.ScalarEvent) or analysis is None:
                return style
            if "\n" in event.value and analysis.allow_block:
                return "|"
            return style if event.implicit[0] else '"'

    return yaml.dump(data, Dumper=Dumper, sort_keys=True, allow_unicode=True)


def emit(data: Any, output: str, human: str) -> None:
    """Print `data` as JSON/YAML, or the human text."""
    if output == "json":
        click.echo(dump_json(data), nl=False)
    elif output == "yaml":
        import yaml  # only here: most commands never print YAML

        click.echo(yaml.safe_dump(data, sort_keys=True, allow_unicode=True), nl=False)
    else:
        click.echo(human, nl=not human.endswith("\n") and bool(human))


def fail_input(error: InputError) -> NoReturn:
    """An input error: one located line on stderr, exit 1."""
    click.echo(str(error), err=True)
    sys.exit(1)


def path_from_here(path: str, repo: str) -> str:
    """A source file's `path` as seen from the current folder: prefixed with `--repo` when
    that is not `.`, so that editors and CI annotations open it where the command was typed."""
    if not path or os.path.normpath(repo) == ".":
        return path
    return os.path.normpath(os.path.join(repo, path))


def origin_from_here(origin: Origin, repo: str) -> Origin:
    """`origin` with its file as seen from the current folder (`path_from_here`)."""
    path = path_from_here(origin.path, repo)
    return origin if path == origin.path else dataclasses.replace(origin, path=path)


def problem_from_here(problem: diagnostic.Diagnostic, repo: str) -> diagnostic.Diagnostic:
    """`problem` with its file, and every file its message names ("first defined at ..."),
    as seen from the current folder."""
    return problem.moved(lambda origin: origin_from_here(origin, repo))


def seen_from_here(item: Located, repo: str) -> Located:
    """`item` (a problem, a refusal, ...) with its file as seen from the current folder."""
    origin = origin_from_here(item.origin, repo)
    if origin is item.origin:
        return item
    return dataclasses.replace(item, origin=origin)  # type: ignore[type-var]
