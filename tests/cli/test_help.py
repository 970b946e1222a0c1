"""Every command's --help, as a user reads it.

Aspects covered:
- every option a help text names (`--rev`, `--out`, ...) is one the command has (but for
  another command's quoted line, as in init's "ready for `gitfleet validate --repo DIR`");
- the commands that read a source say which commit, branch or files they read;
- `gitfleet --help` lists each command with the start of its own help, without importing any
  command (a fresh interpreter shows which modules it loaded).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator

import click
import pytest

from gitfleet.cli.main import COMMANDS as MODULES
from gitfleet.cli.main import SUMMARIES, cli

OPTION = re.compile(r"(?<![\w-])--[a-z][a-z-]*")
OTHER_COMMAND = re.compile(r"`gitfleet [^`]*`")
"""A command line quoted in a help text, whose options are another command's."""


def _commands(group: click.Group, ctx: click.Context) -> Iterator[tuple[str, click.Command]]:
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        path = f"{ctx.command_path} {name}"
        yield path, command
        if isinstance(command, click.Group):
            yield from _commands(command, click.Context(command, info_name=name, parent=ctx))


ROOT = click.Context(cli, info_name="gitfleet")
COMMANDS = dict(_commands(cli, ROOT))


def _help(path: str) -> str:
    command = COMMANDS[path]
    return command.get_help(click.Context(command, info_name=path))


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_help_names_only_options_the_command_has(path: str) -> None:
    command = COMMANDS[path]
    own = {o for p in command.params for o in (*p.opts, *p.secondary_opts)} | {"--help"}
    assert set(OPTION.findall(OTHER_COMMAND.sub("", _help(path)))) <= own


@pytest.mark.parametrize(
    ("path", "says"),
    [
        pytest.param("gitfleet validate", "working tree", id="validate"),
        pytest.param("gitfleet render", "uncommitted changes do not count", id="render"),
        pytest.param("gitfleet explain", "source branch of gitfleet.yaml", id="explain"),
        pytest.param("gitfleet preview", "holding --base and --head", id="preview"),
        pytest.param("gitfleet status", "its rendered branch", id="status"),
        pytest.param("gitfleet reconcile", "The source branch is --branch", id="reconcile"),
        pytest.param("gitfleet agent push", "holding the rendered branch", id="agent push"),
        pytest.param("gitfleet sim", "as render reads it", id="sim"),
        pytest.param("gitfleet get", "source branch of gitfleet.yaml, else HEAD", id="get"),
    ],
)
def test_help_says_what_is_read(path: str, says: str) -> None:
    assert says in " ".join(_help(path).split())


@pytest.mark.parametrize("name", sorted(MODULES))
def test_the_listing_summarises_each_command_as_its_help_does(name: str) -> None:
    assert SUMMARIES[name] == COMMANDS[f"gitfleet {name}"].get_short_help_str(limit=10**6)


def test_the_listing_loads_no_command() -> None:
    script = (
        "import json, sys\n"
        "from gitfleet.cli.main import cli\n"
        "try:\n"
        "    cli.main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    listing, _, loaded = done.stdout.rstrip("\n").rpartition("\n")
    assert all(f"  {name} " in listing for name in MODULES)
    commands = {spec.partition(":")[0] for spec in MODULES.values()}
    assert commands.isdisjoint(json.loads(loaded))
