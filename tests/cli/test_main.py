"""The `gitfleet` process and its command group.

Aspects covered:
- the cycle collector's settings it runs with;
- a mistyped command or subcommand is a usage error (exit 2) naming the closest one; a name
  like none stays a plain "No such command"; `version` and `help [COMMAND]` typed as commands
  name the option meant;
- a number option given `nan` or `inf` (which pass click's range checks) is a usage error,
  before anything runs: an interval of `inf` ended a running agent in an OverflowError, a
  `--max-prune-share` of `nan` turned the prune guard off;
- shell completion through the installed `gitfleet` script: the bash, zsh and fish scripts are
  generated, and bash completes commands, subcommands and options.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from conftest import Invoke

from gitfleet import collector

SCRIPT = Path(sysconfig.get_path("scripts")) / "gitfleet"
"""The entry point pip installed, as a user's shell runs it."""


def test_the_command_runs_with_fewer_young_collections() -> None:
    # Run in a child: the setting is process-wide, and this test process keeps its own.
    probe = (
        "import gc, sys; from gitfleet.cli import main; "
        "sys.argv = ['gitfleet', '--version']; "
        "import atexit; atexit.register(lambda: print(gc.get_threshold()[0])); main.main()"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == str(collector.YOUNG_COLLECTION_THRESHOLD)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(("rendr",), "No such command 'rendr'. Did you mean 'render'?", id="command"),
        pytest.param(("stats",), "No such command 'stats'. Did you mean 'status'?", id="status"),
        pytest.param(("agent", "pul"), "No such command 'pul'. Did you mean 'pull'?", id="agent"),
        pytest.param(("xyzzy",), "No such command 'xyzzy'.\n", id="like none"),
    ],
)
def test_mistyped_commands(cli: Invoke, args: tuple[str, ...], message: str) -> None:
    done = cli(*args)
    assert done.exit_code == 2
    assert message in done.stderr


NOWHERE = "/nonexistent/fleet"
"""A repository that is not there: should the number pass, the command ends at once."""


@pytest.mark.parametrize(
    ("args", "option"),
    [
        pytest.param(("agent", "pull", "--max-prune-share", "nan", "--once", "--repo", NOWHERE,
                      "--cluster", "m1"), "--max-prune-share", id="prune share nan"),
        pytest.param(("agent", "pull", "--interval", "inf", "--once", "--repo", NOWHERE,
                      "--cluster", "m1"), "--interval", id="agent interval"),
        pytest.param(("agent", "push", "--heartbeat", "inf", "--once", "--repo", NOWHERE),
                     "--heartbeat", id="heartbeat"),
        pytest.param(("reconcile", "--interval", "Infinity", "--once", "--repo", NOWHERE),
                     "--interval", id="reconcile"),
        pytest.param(("status", "--grace", "NaN", "--repo", NOWHERE), "--grace", id="status"),
        pytest.param(("sim", "--ready-delay", "inf", "--clusters", "0", "--kubeconfig-dir", "."),
                     "--ready-delay", id="sim"),
    ],
)  # fmt: skip
def test_numbers_that_are_not_finite(cli: Invoke, args: tuple[str, ...], option: str) -> None:
    done = cli(*args)
    assert done.exit_code == 2, done.output
    assert f"Invalid value for '{option}': " in done.stderr
    assert "is not a finite number" in done.stderr


@pytest.mark.parametrize(
    ("args", "meant"),
    [
        pytest.param(("version",), "gitfleet --version", id="version"),
        pytest.param(("help",), "gitfleet --help", id="help"),
        pytest.param(("help", "render"), "gitfleet render --help", id="help on a command"),
        pytest.param(("agent", "help", "pull"), "gitfleet agent pull --help", id="in a group"),
    ],
)
def test_help_and_version_typed_as_commands(args: tuple[str, ...], meant: str) -> None:
    """kubectl, argocd and flux have `version` and `help` commands: the option that does it is
    named, as the user's shell runs the command."""
    typed = next(word for word in args if word in ("help", "version"))
    done = subprocess.run([SCRIPT, *args], capture_output=True, text=True)
    assert done.returncode == 2
    assert f"No such command {typed!r}. Did you mean {meant!r}?" in done.stderr


def _complete(**env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT)], env={**os.environ, **env}, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize(
    ("shell", "marker"),
    [
        pytest.param("bash", "complete -o nosort -F _gitfleet_completion gitfleet", id="bash"),
        pytest.param("zsh", "#compdef gitfleet", id="zsh"),
        pytest.param("fish", "complete --no-files --command gitfleet", id="fish"),
    ],
)
def test_completion_scripts(shell: str, marker: str) -> None:
    done = _complete(_GITFLEET_COMPLETE=f"{shell}_source")
    assert done.returncode == 0, done.stderr
    assert marker in done.stdout


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        pytest.param("gitfleet ren", ["plain,render"], id="command"),
        pytest.param("gitfleet agent p", ["plain,pull", "plain,push"], id="subcommand"),
        pytest.param("gitfleet validate --r", ["plain,--repo", "plain,--rev"], id="option"),
    ],
)
def test_bash_completes(words: str, expected: list[str]) -> None:
    cword = str(len(words.split()) - 1)
    done = _complete(_GITFLEET_COMPLETE="bash_complete", COMP_WORDS=words, COMP_CWORD=cword)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == expected
