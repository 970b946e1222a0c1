"""The command lines the README and docs/ show are ones this checkout's CLI takes.

Aspects covered:
- every `gitfleet ...` line of README.md, docs/*.md and example-repo/README.md (code blocks,
  backslash continuations joined, and inline code, `push|pull` read as both) names a command
  that exists, and only options that command has (`--help` aside);
- the lines checked include every row of docs/design.md's Command line table, so a synopsis
  never promises an option that is gone or misspelled.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from gitfleet.cli.main import cli

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    ROOT / "example-repo" / "README.md",
]
NOT_COMMANDS = {"rendr", "<gitfleet@localhost>"}
"""Words after `gitfleet` the docs show on purpose: a mistyped command, Git's author name."""
INLINE = re.compile(r"`(gitfleet [^`]*)`")
BLOCK = re.compile(r"^ {4,}(?:\.venv/bin/)?(gitfleet .*)$", re.M)
OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w-])")


def _commands(group: click.Group, ctx: click.Context) -> Iterator[tuple[str, click.Command]]:
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        yield f"{ctx.command_path} {name}", command
        if isinstance(command, click.Group):
            yield from _commands(command, click.Context(command, info_name=name, parent=ctx))


COMMANDS = dict(_commands(cli, click.Context(cli, info_name="gitfleet")))


def _lines(text: str) -> Iterator[str]:
    yield from INLINE.findall(text)
    yield from BLOCK.findall(re.sub(r"\\\n\s*", " ", text))


def _uses(line: str) -> Iterator[tuple[str, list[str]]]:
    """(command path, the words after it) for each command a line names."""
    words = line.split("#", 1)[0].split()[1:]
    if not words or words[0].startswith("-") or words[0] in NOT_COMMANDS:
        return
    for name in words[0].split("|"):
        path, rest = f"gitfleet {name}", words[1:]
        if isinstance(COMMANDS.get(path), click.Group) and rest and not rest[0].startswith("-"):
            for sub in rest[0].split("|"):
                yield f"{path} {sub}", rest[1:]
        else:
            yield path, rest


CASES = [
    pytest.param(line, id=f"{path.relative_to(ROOT)}: {line[:60]}")
    for path in DOCUMENTS
    for line in sorted(set(_lines(path.read_text(encoding="utf-8"))))
]


def test_the_documents_show_command_lines() -> None:
    assert len(CASES) > 50


@pytest.mark.parametrize("line", CASES)
def test_a_documented_command_line_is_one_the_cli_takes(line: str) -> None:
    for path, rest in _uses(line):
        assert path in COMMANDS, f"no command {path!r}"
        command = COMMANDS[path]
        own = {o for p in command.params for o in (*p.opts, *p.secondary_opts)}
        unknown = set(OPTION.findall(" ".join(rest))) - own - {"--help", "-h"}
        assert not unknown, f"{path} has no option {sorted(unknown)}"
