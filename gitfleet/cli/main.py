"""The `gitfleet` group. Commands are imported only when run, so `gitfleet validate` does not
pay for the kubernetes client that the agents need."""

from __future__ import annotations

import importlib
import importlib.util
import signal

import click

from gitfleet import __version__, collector
from gitfleet.cli import signals, suggest

COMMANDS = {
    "init": "gitfleet.cli.init:init",
    "validate": "gitfleet.cli.validate:validate",
    "render": "gitfleet.cli.render:render",
    "preview": "gitfleet.cli.preview:preview",
    "explain": "gitfleet.cli.explain:explain",
    "get": "gitfleet.cli.get:get",
    "interpret": "gitfleet.cli.interpret:interpret",
    "reconcile": "gitfleet.cli.reconcile:reconcile",
    "agent": "gitfleet.cli.agent:agent",
    "sim": "gitfleet.cli.sim:sim",
    "status": "gitfleet.cli.status:status",
    "demo": "gitfleet.cli.demo:demo",
}
SUMMARIES = {
    "agent": "Apply rendered manifests to member clusters and report their status.",
    "demo": "Run gitfleet end to end on simulated clusters: render, apply, change, fail over.",
    "explain": "Why KIND/NAME went where it went: policy, filters, scores, replicas, dependencies.",
    "get": "List each KIND's objects in every member cluster (karmada-search).",
    "init": "Create a source repository in DIRECTORY (new or empty): a copy of the example"
    " fleet, committed, ready for `gitfleet validate --repo DIRECTORY`.",
    "interpret": "Run a ResourceInterpreterCustomization on objects, as karmadactl interpret does.",
    "preview": "Placement and manifest diff between two source revisions.",
    "reconcile": "Render every new commit of the source branch onto the rendered branch.",
    "render": "Render a source commit onto the rendered branch, or into a folder with --out.",
    "sim": "Start simulated member clusters on 127.0.0.1 until interrupted.",
    "status": "Show the fleet: clusters and resources, as the agents report them.",
    "validate": "Check a source repository: YAML, schemas, and Karmada's rules.",
}
"""Each command's short help, as its own docstring begins: `gitfleet --help` lists the commands
without importing them (all of them would take a second); a test holds the two equal."""


def _available(name: str) -> bool:
    module = COMMANDS[name].partition(":")[0]
    return importlib.util.find_spec(module) is not None


class LazyGroup(suggest.SuggestingGroup):
    """A group whose commands live in their own modules and load on demand."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(name for name in COMMANDS if _available(name))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS or not _available(cmd_name):
            return None
        module, _, attr = COMMANDS[cmd_name].partition(":")
        command = getattr(importlib.import_module(module), attr)
        assert isinstance(command, click.Command)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """click's command list, from `SUMMARIES` rather than from the commands themselves."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = [
            (name, click.Command(name, help=SUMMARIES[name]).get_short_help_str(limit))
            for name in names
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> object:
        """Ctrl-C before a command installs its own stop handling (while it loads, or in a
        command that has none) ends it as a shell reports it, exit 130, not click's "Aborted!"
        and exit 1, which scripts cannot tell from a failure; so does one whose
        KeyboardInterrupt was lost on the way (`signals.interrupts_remembered`)."""
        with signals.interrupts_remembered():
            try:
                result = super().invoke(ctx)
            except KeyboardInterrupt:
                pass
            except BaseException:
                if not signals.interrupted():
                    raise
            else:
                if not signals.interrupted():
                    return result
        click.echo("\ninterrupted", err=True)
        raise click.exceptions.Exit(signals.STOPPED)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="gitfleet")
def cli() -> None:
    """gitfleet: Karmada's multi-cluster placement, as GitOps."""


def main() -> None:
    """Run the command line. Once it has ended, with its exit code settled, Ctrl-C is ignored:
    it could only turn that code into a traceback from the interpreter's shutdown."""
    collector.tune()
    try:
        cli.main(standalone_mode=True)
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
