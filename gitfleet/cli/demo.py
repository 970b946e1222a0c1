"""`gitfleet demo`: everything on one machine — a source repository from the example fleet,
simulated member clusters (Push and Pull), the reconciler, the push agent and a pull agent —
then a change scaled, an override added, a cluster failing and coming back, with a live status
table (redrawn in place on a terminal, written at each step otherwise).

Ends with a summary and exit 0 when every step happened, 1 when one did not (with the reason
and the last log lines), 130 when Ctrl-C (or SIGTERM) stopped it first. Every thread and server
is stopped (a thread that does not stop within seconds is named and left) and the temporary
folder removed, unless `--keep`: then everything keeps running for exploring, where things are
is printed, and Ctrl-C (or SIGTERM) stops it with exit 0, leaving the folder. `-o json` (or
yaml) prints the summary as data (the story then goes to standard error). A `--dir` that cannot
be made, or is not empty, is a usage error (exit 2) before anything starts.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from gitfleet.cli import options, signals
from gitfleet.cli import output as out


@click.command("demo")
@click.option("--keep", is_flag=True, help="Leave everything running to explore; Ctrl-C stops.")
@click.option("--fast", is_flag=True, help="Shorter intervals, no pauses (for tests).")
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Work in this new or empty folder, and leave it (default: a temporary folder).",
)
@click.option(
    "--timeout",
    type=options.FiniteFloatRange(min=1),
    default=45.0,
    show_default=True,
    help="Seconds to wait for any one step.",
)
@options.output_option
def demo(keep: bool, fast: bool, directory: Path | None, timeout: float, output: str) -> None:
    """Run gitfleet end to end on simulated clusters: render, apply, change, fail over."""
    if directory is not None:
        options.made_folder(directory, "--dir")
        if any(directory.iterdir()):
            raise click.UsageError(f"--dir {directory}: not empty; choose a new or empty folder")
    with signals.stop_on_signal() as stop:
        # Imported inside the block: the import takes seconds, and a Ctrl-C meanwhile must
        # stop the demo like any other rather than abort the command.
        from gitfleet import demo as demos

        story = sys.stdout if output == "text" else sys.stderr
        display = demos.Display(story, live=story.isatty())
        settings = demos.Options(directory=directory, keep=keep, fast=fast, timeout=timeout)
        running = demos.Demo(settings, display, stop)
        summary = running.run()
        try:
            if keep and summary.ok:
                for line in running.where():
                    display.say(line)
                display.say("everything keeps running; press Ctrl-C to stop")
                stop.wait()
        finally:
            summary = running.close(summary)
        human = "\n".join(["", "Summary", *(f"  {line}" for line in summary.lines())])
        out.emit(summary.to_json(), output, human)
    sys.exit(0 if summary.ok else signals.STOPPED if summary.stopped else 1)
