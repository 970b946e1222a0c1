"""`gitfleet agent`: the agents that apply rendered manifests to member clusters.

`gitfleet agent push --repo R --kubeconfig-dir D` applies the rendered branch of R (a local
repository or a remote URL) to every Push cluster, each reached with its kubeconfig from D, and
writes each cluster's status ref. It runs until SIGINT or SIGTERM (exit 0), or with `--once`
syncs the current rendered commit and exits 0 when every cluster converged, 1 otherwise, 130
when SIGINT or SIGTERM stopped it first.

`gitfleet agent pull --repo URL --cluster NAME` runs inside the member cluster NAME: it fetches
only that cluster's Work ref (or `--ref`, sparsely), applies it to the cluster (`--kubeconfig`,
default the pod's service account) and pushes only the cluster's status ref; `--once` as for
push. `--print-manifests` prints the Kubernetes manifests that run it, filled in.

An agent that cannot use its access to a cluster (no kubeconfig, an unreadable one, credentials
refused) reports nothing for it, not even a heartbeat, and says why; `--once` then exits 1.

Both serve Prometheus metrics and the probes `/healthz` and `/readyz` on `--metrics-address`
while they run, and log one JSON object a line with `--log-format json`.

Each command of the group lives in this module and shares its options.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from gitfleet import errors
from gitfleet.cli import options, progress, signals, suggest
from gitfleet.cli import output as out

F = TypeVar("F", bound=Callable[..., Any])
ALLOWED_SIGNERS_ENV = "GITFLEET_ALLOWED_SIGNERS"


@click.group(cls=suggest.SuggestingGroup)
def agent() -> None:
    """Apply rendered manifests to member clusters and report their status."""


class _Observed:
    """The metrics and health of an agent, and where they are served."""

    def __init__(self, address: tuple[str, int] | None) -> None:
        from gitfleet.monitor import health, metrics

        self.address = address
        self.registry = metrics.new_registry()
        self.counts = metrics.AgentMetrics(self.registry)
        self.alive = health.Health()


def _drive(runner: Any, once: bool, observed: _Observed) -> Any:
    """Run an agent until SIGINT or SIGTERM, or `once`; what `once()` returned (None when
    it ran until stopped, serving its metrics meanwhile)."""
    from gitfleet.monitor import endpoint

    with signals.on_stop_signal(runner.stop):
        if once:
            with progress.Progress() as shown:
                return runner.once(shown.step)
        with endpoint.serving(observed.address, observed.registry, observed.alive) as served:
            if served is not None:
                logging.getLogger(__name__).info("metrics on %s:%d", *served.address)
            runner.run()
        return None


def _once(runner: Any, observed: _Observed) -> Any:
    """`--once`: what `runner.once()` returned. A stop signal (Ctrl-C, SIGTERM) leaves the sync
    unfinished whatever came back, so it ends the command with exit 130, never 0; an error the
    sync raised ends it with exit 1 and its message, not a traceback."""
    try:
        found = _drive(runner, True, observed)
    except errors.GitfleetError as error:
        if not signals.heard(runner.stopping):
            click.echo(f"error: {error}", err=True)
            sys.exit(1)
    else:
        if not runner.stopping.is_set():
            return found
    click.echo("stopped before the sync ended", err=True)
    sys.exit(signals.STOPPED)


def _summary(result: Any) -> dict[str, Any]:
    from gitfleet.agent import apply

    return {
        "cluster": result.cluster,
        "renderedCommit": result.rendered_commit,
        "converged": result.converged,
        "applied": sum(1 for o in result.objects if o.applied),
        "failed": sum(1 for o in result.objects if o.action is apply.Action.FAILED),
        "pruned": sum(1 for p in result.pruned if p.action is apply.Action.PRUNED),
        "released": sum(1 for p in result.pruned if p.action is apply.Action.RELEASED),
        "drifted": len(result.drifted),
        "error": result.error,
        "refused": result.refused,
    }


def _human(rows: list[dict[str, Any]]) -> str:
    lines = []
    for row in rows:
        state = "converged" if row["converged"] else "NOT converged"
        line = (
            f"{row['cluster']}: {state}, {row['applied']} applied, {row['failed']} failed,"
            f" {row['pruned']} pruned, {row['drifted']} drifted"
        )
        if row["released"]:
            line += f", {row['released']} released (kept in the cluster)"
        lines.append(line + (f": {row['error']}" if row["error"] else ""))
    return "\n".join(lines)


def _number(name: str, kind: click.FloatRange, default: float, text: str) -> Callable[[F], F]:
    return click.option(name, type=kind, default=default, show_default=True, help=text)


def _sync_options(func: F) -> F:
    """The options every agent takes: pace, prune guard, cache, --once, -o, metrics, logs."""
    decorators = [
        _number(
            "--interval",
            options.FiniteFloatRange(min=0.1),
            30.0,
            "Seconds between syncs (and between polls of the repository).",
        ),
        _number(
            "--heartbeat",
            options.FiniteFloatRange(min=1),
            10.0,
            "Seconds between status reports when nothing changes (keep it well under the "
            "failover heartbeat grace period, 40 s by default).",
        ),
        _number(
            "--max-prune-share",
            options.FiniteFloatRange(0, 1),
            0.5,
            "Refuse a sync that would delete more than this share of the managed objects.",
        ),
        click.option(
            "--cache-dir",
            type=click.Path(file_okay=False),
            default=None,
            help="Where a remote repository is copied (default: ~/.cache/gitfleet).",
        ),
        click.option(
            "--once", is_flag=True, help="Sync the current rendered commit once and exit."
        ),
        options.allowed_signers_option(
            "--allowed-signers",
            ALLOWED_SIGNERS_ENV,
            "Apply only rendered commits signed by a key listed here, meant for the cluster"
            " and not older than the commit last applied",
        ),
        options.output_option,
        options.metrics_address_option,
        options.log_format_option,
    ]
    for decorate in reversed(decorators):
        func = decorate(func)
    return func


def _logging(once: bool, log_format: str, allowed_signers: str | None) -> None:
    from gitfleet.monitor import logs

    logs.configure(log_format, logging.WARNING if once else logging.INFO)
    if allowed_signers is None:
        logging.getLogger(__name__).warning(
            "signatures are not checked (no --allowed-signers): whoever can write the rendered"
            " refs controls the clusters"
        )


@agent.command()
@click.option(
    "--repo",
    "repo",
    default=".",
    show_default=True,
    help="The repository holding the rendered branch: a local path or a remote URL.",
)
@click.option(
    "--kubeconfig-dir",
    "kubeconfig_dir",
    required=True,
    type=options.ReadPath(file_okay=False),
    help="Folder of kubeconfigs: <cluster>.yaml, or <namespace>/<name>.yaml of a secretRef.",
)
@click.option(
    "--branch",
    default=None,
    callback=options.branch_name,
    help="Rendered branch (default: from gitfleet.yaml).",
)
@_sync_options
def push(
    repo: str,
    kubeconfig_dir: str,
    branch: str | None,
    interval: float,
    heartbeat: float,
    max_prune_share: float,
    cache_dir: str | None,
    once: bool,
    allowed_signers: str | None,
    output: str,
    metrics_address: tuple[str, int] | None,
    log_format: str,
) -> None:
    """Apply the rendered branch to every Push cluster, from outside them."""
    from gitfleet.agent import apply, push

    _logging(once, log_format, allowed_signers)
    observed = _Observed(metrics_address)
    settings = push.Settings(
        repo=repo,
        kubeconfig_dir=Path(kubeconfig_dir),
        branch=branch,
        interval=interval,
        heartbeat=heartbeat,
        cache_dir=options.made_folder(cache_dir or None, "--cache-dir"),
        options=apply.Options(max_prune_share=max_prune_share),
        allowed_signers=Path(allowed_signers) if allowed_signers else None,
    )
    try:
        pusher = push.PushAgent(settings, counts=observed.counts, alive=observed.alive)
    except errors.UsageError as error:
        raise click.UsageError(str(error)) from error
    except errors.InputError as error:
        out.fail_input(error)
    except errors.GitfleetError as error:
        raise click.ClickException(str(error)) from error
    if not once:
        _drive(pusher, once, observed)
        return
    results = _once(pusher, observed)
    if results is None:
        click.echo(f"nothing to apply: {pusher.branch} does not exist", err=True)
        sys.exit(1)
    rows = [_summary(results[name]) for name in sorted(results)]
    out.emit({"clusters": rows}, output, _human(rows))
    if not all(row["converged"] for row in rows):
        sys.exit(1)


_PASSED_ON = ("interval", "heartbeat", "max_prune_share", "log_format")
"""Options given to `pull --print-manifests` that the printed Deployment passes on."""


def _print_as_list(stream: str) -> None:
    """A YAML stream of manifests as `kubectl get -o json` prints several objects: one List
    (which `kubectl apply -f` takes as well); the comments of the stream are left out."""
    import yaml  # only here: the agent itself never reads YAML this way

    items = [doc for doc in yaml.safe_load_all(stream) if doc is not None]
    out.emit({"apiVersion": "v1", "kind": "List", "metadata": {}, "items": items}, "json", "")


def _text_of(path: str | None) -> str | None:
    return Path(path).read_text(encoding="utf-8", errors="replace") if path else None


def _passed_on(ctx: click.Context) -> tuple[str, ...]:
    given = []
    for name in _PASSED_ON:
        if ctx.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE:
            given.append(f"--{name.replace('_', '-')}={ctx.params[name]}")
    return tuple(given)


@agent.command()
@click.option(
    "--repo",
    default=None,
    help="The repository's URL; {cluster} in it stands for the cluster's name.",
)
@click.option("--cluster", default=None, help="The name of the cluster this agent runs in.")
@options.kubeconfig_option("the cluster")
@click.option(
    "--ref",
    default=None,
    help="The ref to apply (default: refs/heads/gitfleet/works/<cluster>); another ref, such"
    " as the rendered branch, is fetched sparsely.",
)
@click.option(
    "--credentials",
    type=options.ReadPath(file_okay=False),
    default=None,
    help="Folder holding the Git credential: password (and username), or ssh-privatekey and"
    " known_hosts.",
)
@_sync_options
@click.option(
    "--print-manifests",
    is_flag=True,
    help="Print the Kubernetes manifests that run this agent in a cluster, and exit.",
)
@click.option("--image", default=None, help="The agent's image in the printed manifests.")
@click.pass_context
def pull(
    ctx: click.Context,
    repo: str | None,
    cluster: str | None,
    kubeconfig: str | None,
    ref: str | None,
    credentials: str | None,
    interval: float,
    heartbeat: float,
    max_prune_share: float,
    cache_dir: str | None,
    once: bool,
    allowed_signers: str | None,
    output: str,
    metrics_address: tuple[str, int] | None,
    log_format: str,
    print_manifests: bool,
    image: str | None,
) -> None:
    """Apply this cluster's manifests from Git, from inside the cluster."""
    from gitfleet.agent import apply, kube, manifests, pull, worker

    if print_manifests:
        if once:
            raise click.UsageError("--print-manifests and --once exclude each other")
        text = manifests.render(
            cluster=cluster,
            repo=repo,
            ref=ref,
            image=image or manifests.DEFAULT_IMAGE,
            extra_args=_passed_on(ctx),
            allowed_signers=_text_of(allowed_signers),
            metrics_port=metrics_address[1] if metrics_address else None,
        )
        if output == "json":
            _print_as_list(text)
        else:
            click.echo(text, nl=False)
        return
    if repo is None or cluster is None:
        raise click.UsageError("--repo and --cluster are required (unless --print-manifests)")
    _logging(once, log_format, allowed_signers)
    observed = _Observed(metrics_address)
    settings = pull.Settings(
        repo=repo,
        cluster=cluster,
        kubeconfig=options.kubeconfig(kubeconfig),
        ref=ref,
        pace=worker.Pace(interval=interval, heartbeat=heartbeat),
        cache_dir=options.made_folder(cache_dir or None, "--cache-dir"),
        credentials=Path(credentials) if credentials else None,
        retry=kube.Retry(),
        options=apply.Options(max_prune_share=max_prune_share),
        allowed_signers=Path(allowed_signers) if allowed_signers else None,
    )
    try:
        puller = pull.PullAgent(settings, counts=observed.counts, alive=observed.alive)
    except errors.UsageError as error:
        raise click.UsageError(str(error)) from error
    except errors.InputError as error:
        out.fail_input(error)
    try:
        if not once:
            _drive(puller, once, observed)
            return
        result = _once(puller, observed)
    finally:
        puller.close()
    if result is None:
        click.echo(f"nothing to apply: {puller.error}", err=True)
        sys.exit(1)
    rows = [_summary(result)]
    out.emit({"clusters": rows}, output, _human(rows))
    if not rows[0]["converged"]:
        sys.exit(1)
