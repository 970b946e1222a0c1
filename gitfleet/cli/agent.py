"""`gitfleet agent`: the agents that apply rendered manifests to member clusters.

`gitfleet agent push --repo R --kubeconfig-dir D` applies the rendered branch of R (a local
repository or a remote URL) to every Push cluster, each reached with its kubeconfig from D, and
writes each cluster's status ref. It runs until SIGINT or SIGTERM (exit 0), or with `--once`
syncs the current rendered commit and exits 0 when every cluster converged, 1 otherwise.
Each command of the group lives in this module and shares its options.
"""

from __future__ import annotations

import logging
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from gitfleet import errors
from gitfleet.cli import options
from gitfleet.cli import output as out


@click.group()
def agent() -> None:
    """Apply rendered manifests to member clusters and report their status."""


def _on_signals(handler: Callable[[], None]) -> dict[int, Any]:
    """Call `handler` on SIGINT and SIGTERM; returns the handlers to restore."""
    return {
        sig: signal.signal(sig, lambda _signum, _frame: handler())
        for sig in (signal.SIGINT, signal.SIGTERM)
    }


def _summary(result: Any) -> dict[str, Any]:
    from gitfleet.agent import apply

    return {
        "cluster": result.cluster,
        "renderedCommit": result.rendered_commit,
        "converged": result.converged,
        "applied": sum(1 for o in result.objects if o.applied),
        "failed": sum(1 for o in result.objects if o.action is apply.Action.FAILED),
        "pruned": sum(1 for p in result.pruned if p.action is apply.Action.PRUNED),
        "drifted": len(result.drifted),
        "error": result.error,
    }


def _human(rows: list[dict[str, Any]]) -> str:
    lines = []
    for row in rows:
        state = "converged" if row["converged"] else "NOT converged"
        line = (
            f"{row['cluster']}: {state}, {row['applied']} applied, {row['failed']} failed,"
            f" {row['pruned']} pruned, {row['drifted']} drifted"
        )
        lines.append(line + (f": {row['error']}" if row["error"] else ""))
    return "\n".join(lines)


@agent.command()
@click.option(
    "--repo",
    "repo",
    required=True,
    help="The repository holding the rendered branch: a local path or a remote URL.",
)
@click.option(
    "--kubeconfig-dir",
    "kubeconfig_dir",
    required=True,
    type=click.Path(file_okay=False, exists=True),
    help="Folder of kubeconfigs: <cluster>.yaml, or <namespace>/<name>.yaml of a secretRef.",
)
@click.option("--branch", default=None, help="Rendered branch (default: from gitfleet.yaml).")
@click.option(
    "--interval",
    type=click.FloatRange(min=0.1),
    default=30.0,
    show_default=True,
    help="Seconds between syncs (and between polls of the repository).",
)
@click.option(
    "--heartbeat",
    type=click.FloatRange(min=1),
    default=60.0,
    show_default=True,
    help="Seconds between status reports when nothing changes.",
)
@click.option(
    "--max-prune-share",
    type=click.FloatRange(0, 1),
    default=0.5,
    show_default=True,
    help="Refuse a sync that would delete more than this share of the managed objects.",
)
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Where a remote repository is copied (default: ~/.cache/gitfleet).",
)
@click.option("--once", is_flag=True, help="Sync the current rendered commit once and exit.")
@options.output_option
def push(
    repo: str,
    kubeconfig_dir: str,
    branch: str | None,
    interval: float,
    heartbeat: float,
    max_prune_share: float,
    cache_dir: str | None,
    once: bool,
    output: str,
) -> None:
    """Apply the rendered branch to every Push cluster, from outside them."""
    from gitfleet.agent import apply, push

    if not logging.getLogger().handlers:
        logging.basicConfig(
            level=logging.WARNING if once else logging.INFO,
            format="%(asctime)s %(levelname)s %(name)s: %(message)s",
            stream=sys.stderr,
        )
    settings = push.Settings(
        repo=repo,
        kubeconfig_dir=Path(kubeconfig_dir),
        branch=branch,
        interval=interval,
        heartbeat=heartbeat,
        cache_dir=Path(cache_dir) if cache_dir else None,
        options=apply.Options(max_prune_share=max_prune_share),
    )
    try:
        pusher = push.PushAgent(settings)
    except errors.InputError as error:
        out.fail_input(error)
    except errors.GitfleetError as error:
        raise click.ClickException(str(error)) from error
    previous = _on_signals(pusher.stop)
    try:
        if not once:
            pusher.run()
            return
        results = pusher.once()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if pusher.stopping.is_set():
        return
    if results is None:
        click.echo(f"nothing to apply: {pusher.branch} does not exist", err=True)
        sys.exit(1)
    rows = [_summary(results[name]) for name in sorted(results)]
    out.emit({"clusters": rows}, output, _human(rows))
    if not all(row["converged"] for row in rows):
        sys.exit(1)
