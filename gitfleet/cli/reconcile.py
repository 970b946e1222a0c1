"""`gitfleet reconcile`: the service that renders every new commit of the source branch.

`--repo` is a local repository (its top folder, or a bare repository) or a remote URL, which is
mirrored into a cache folder and pushed back to with a lease. It looks at the source at start,
then on every trigger: polling every `--interval` seconds, the source ref of a local repository
moving (unless `--no-watch`), and signed push events on `--webhook HOST:PORT` from GitHub,
GitLab, Gitea or Bitbucket (the secret from `$GITFLEET_WEBHOOK_SECRET` or
`--webhook-secret-file`), whose limits on each client (`--webhook-max-body`, `--webhook-timeout`,
`--webhook-max-connections`) docs/security.md lists.
It logs one line per event (`-o json`: one JSON object per line) and runs until SIGTERM or
SIGINT, which end it cleanly with exit 0.

The source branch is `--branch`, else the `sourceBranch` of gitfleet.yaml on the repository's
default branch (what HEAD names; for a URL, the remote's HEAD), read once at start, else
`main`. The rendered branch is `--rendered-branch`, else the `renderedBranch` of the commit
rendered, else `gitfleet/rendered`.

`--cluster-repos TEMPLATE` (a repository per cluster): every look fetches each cluster's status
ref from its own repository before rendering, and copies each cluster's works ref there once
it is published (and again at any later look that finds the copy behind). A cluster whose
repository fails is logged and listed in the reconciler's status ref, and holds up nothing else.

`--signing-key PATH` signs every commit the reconciler writes (SSH signatures, made by Git);
`--verify-source-signers FILE` renders only source commits signed by a key the allowed-signers
FILE lists, and reports any other (`unverified`).

`--metrics-address HOST:PORT` serves Prometheus metrics (`/metrics`) and the probes `/healthz`
and `/readyz` (`gitfleet.monitor`). `--leader-elect` renders only while holding the Lease
`--lease-namespace`/`--lease-name` (`service.lease`); a leader that cannot renew it in time
exits 1.

`--once` looks once and exits: 0 when the rendered branch renders the source branch's commit
(rendered now or before), 1 when that commit is invalid or not signed by an allowed key, the
rendered branch or a cluster ref is not at a render (nothing is built on other history), or
the remote cannot be reached. A
cluster repository that failed does not change the exit code: the render stands.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from gitfleet import errors
from gitfleet.cli import options, progress, signals
from gitfleet.cli import output as out
from gitfleet.monitor import endpoint, health, logs, metrics
from gitfleet.service import events, lease, reconciler, server, wakeup

SECRET_ENV = "GITFLEET_WEBHOOK_SECRET"
_FAILED = {
    reconciler.Outcome.INVALID,
    reconciler.Outcome.NO_SOURCE,
    reconciler.Outcome.BLOCKED,
    reconciler.Outcome.UNVERIFIED,
}
_DEFAULT_LIMITS = server.Limits()
_LIMITS = ("max_body", "timeout", "connections")
"""The parameters that set `server.Limits` fields of the same names."""
_LEASE = (
    "lease_namespace",
    "lease_name",
    "kubeconfig",
    "lease_identity",
    "lease_duration",
    "renew_deadline",
    "retry_period",
)
"""The parameters of leader election (`lease.LeaseSettings`)."""
_LEASE_DEFAULTS = lease.LeaseSettings(namespace="", name="", identity="")


def _election(elect: bool, once: bool, **given: Any) -> lease.LeaseSettings | None:
    """The election's settings (None without --leader-elect, whose options are then usage
    errors, as is --leader-elect with --once)."""
    if not elect:
        _refuse_given(_LEASE, "--leader-elect")
        return None
    if once:
        raise click.UsageError("--leader-elect and --once exclude each other")
    identity, kubeconfig = given.pop("lease_identity"), given.pop("kubeconfig")
    settings = lease.LeaseSettings(
        namespace=given.pop("lease_namespace"),
        name=given.pop("lease_name"),
        **({"identity": identity} if identity else {}),
        kubeconfig=options.kubeconfig(kubeconfig),
        lease_duration=given.pop("lease_duration"),
        renew_deadline=given.pop("renew_deadline"),
        retry_period=given.pop("retry_period"),
    )
    try:
        settings.check()
    except errors.UsageError as error:
        raise click.UsageError(str(error)) from error
    return settings


def _secret(path: str | None) -> bytes:
    if path is None:
        return os.environ.get(SECRET_ENV, "").encode()
    try:
        return Path(path).read_bytes().strip()
    except OSError as error:
        raise click.BadParameter(str(error), param_hint="--webhook-secret-file") from error


def _refuse_given(names: tuple[str, ...], needed: str) -> None:
    """A usage error if any option of `names` was given: they apply only with `needed`."""
    ctx = click.get_current_context()
    for param in ctx.command.params:
        given = ctx.get_parameter_source(param.name or "") is ParameterSource.COMMANDLINE
        if given and param.name in names:
            raise click.UsageError(f"{param.opts[0]} applies to {needed}, which is not given")


def _webhook(address: str | None, secret_file: str | None) -> tuple[tuple[str, int] | None, bytes]:
    """The webhook's address and secret; a webhook without a secret is a usage error, and so
    is a webhook limit given without a webhook."""
    if address is None:
        _refuse_given(_LIMITS, "--webhook")
        return None, b""
    try:
        parsed = server.parse_address(address)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--webhook") from error
    secret = _secret(secret_file)
    if not secret:
        raise click.UsageError(
            f"--webhook needs a secret: set ${SECRET_ENV} or pass --webhook-secret-file"
        )
    return parsed, secret


@click.command("reconcile")
@click.option(
    "--repo",
    default=".",
    show_default=True,
    help="A local repository (top folder or bare) or a remote URL.",
)
@click.option(
    "--branch",
    default=None,
    callback=options.branch_name,
    help="The source branch (default: gitfleet.yaml's sourceBranch on the default branch,"
    " else main).",
)
@click.option(
    "--rendered-branch",
    default=None,
    callback=options.branch_name,
    help="The rendered branch (default: gitfleet.yaml's renderedBranch, else gitfleet/rendered).",
)
@click.option(
    "--interval",
    type=options.FiniteFloatRange(min=0.05),
    default=30.0,
    show_default=True,
    help="Seconds between polls.",
)
@click.option("--webhook", default=None, metavar="HOST:PORT", help="Serve push webhooks here.")
@click.option(
    "--webhook-secret-file",
    type=options.ReadPath(dir_okay=False),
    default=None,
    help=f"File holding the webhook secret (default: ${SECRET_ENV}).",
)
@click.option(
    "--webhook-max-body",
    "max_body",
    type=click.IntRange(min=1024),
    metavar="BYTES",
    default=_DEFAULT_LIMITS.max_body,
    show_default=True,
    help="Largest request body read.",
)
@click.option(
    "--webhook-timeout",
    "timeout",
    type=options.FiniteFloatRange(min=0.1),
    metavar="SECONDS",
    default=_DEFAULT_LIMITS.timeout,
    show_default=True,
    help="Time a client has to send its request.",
)
@click.option(
    "--webhook-max-connections",
    "connections",
    type=click.IntRange(min=1),
    metavar="N",
    default=_DEFAULT_LIMITS.connections,
    show_default=True,
    help="Connections served at once.",
)
@click.option("--watch/--no-watch", default=True, help="Watch a local repository's source ref.")
@click.option(
    "--cache",
    type=click.Path(file_okay=False),
    default=None,
    help="Where remote repositories are mirrored (default: ~/.cache/gitfleet).",
)
@options.cluster_repos_option(
    "fetch each cluster's status ref from there before rendering, copy its works ref there after."
)
@options.signing_key_option
@options.allowed_signers_option(
    "--verify-source-signers",
    "GITFLEET_SOURCE_SIGNERS",
    "Render only source commits signed by a key listed here",
)
@click.option("--once", is_flag=True, help="Look once, then exit (1 if not rendered).")
@click.option(
    "-o",
    "--output",
    "--log-format",
    "output",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Log format: key=value text or one JSON object per line.",
)
@options.metrics_address_option
@click.option(
    "--leader-elect",
    "elect",
    is_flag=True,
    help="Render only while holding a coordination.k8s.io Lease (run several replicas).",
)
@click.option(
    "--lease-namespace",
    envvar="POD_NAMESPACE",
    default="default",
    show_default=True,
    help="Namespace of the Lease (default: $POD_NAMESPACE, else default).",
)
@click.option(
    "--lease-name", default="gitfleet-reconciler", show_default=True, help="Name of the Lease."
)
@options.kubeconfig_option("the cluster holding the Lease")
@click.option(
    "--lease-identity",
    default=None,
    help="This replica's name in the Lease (default: host name and a unique suffix).",
)
@click.option(
    "--lease-duration",
    type=options.FiniteFloatRange(min=1),
    default=_LEASE_DEFAULTS.lease_duration,
    show_default=True,
    metavar="SECONDS",
    help="How long standbys wait, after the Lease was last renewed, before taking it.",
)
@click.option(
    "--lease-renew-deadline",
    "renew_deadline",
    type=options.FiniteFloatRange(min=0.1),
    default=_LEASE_DEFAULTS.renew_deadline,
    show_default=True,
    metavar="SECONDS",
    help="How long the leader goes on without renewing before it stops rendering.",
)
@click.option(
    "--lease-retry-period",
    "retry_period",
    type=options.FiniteFloatRange(min=0.05),
    default=_LEASE_DEFAULTS.retry_period,
    show_default=True,
    metavar="SECONDS",
    help="Seconds between tries to take or renew the Lease.",
)
def reconcile(
    repo: str,
    branch: str | None,
    rendered_branch: str | None,
    interval: float,
    webhook: str | None,
    webhook_secret_file: str | None,
    max_body: int,
    timeout: float,
    connections: int,
    watch: bool,
    cache: str | None,
    cluster_repos: str | None,
    signing_key: str | None,
    verify_source_signers: str | None,
    once: bool,
    output: str,
    metrics_address: tuple[str, int] | None,
    elect: bool,
    **election: Any,
) -> None:
    """Render every new commit of the source branch onto the rendered branch.

    The source branch is --branch, else the sourceBranch of gitfleet.yaml on the repository's
    default branch (HEAD, or the remote's HEAD), else main. The rendered branch is
    --rendered-branch, else the renderedBranch of the commit rendered, else gitfleet/rendered.
    """
    address, secret = _webhook(webhook, webhook_secret_file)
    election_settings = _election(elect, once, **election)
    limits = dataclasses.replace(
        _DEFAULT_LIMITS, max_body=max_body, timeout=timeout, connections=connections
    )
    settings = reconciler.Settings(
        repo=repo,
        branch=branch,
        rendered_branch=rendered_branch,
        interval=interval,
        watch=watch,
        webhook=address,
        webhook_secret=secret,
        webhook_limits=limits,
        cache=options.made_folder(cache or None, "--cache"),
        cluster_repos=cluster_repos,
        signing_key=Path(signing_key) if signing_key else None,
        source_signers=Path(verify_source_signers) if verify_source_signers else None,
    )
    logs.configure(output, logging.WARNING)
    shown = progress.Progress() if once else None
    line_log = events.LineLog(sys.stdout, output)

    def log(event: events.Event) -> None:
        if shown is not None:
            shown.erase()
        line_log(event)

    wake = wakeup.Wakeup()
    registry = metrics.new_registry()
    counts = metrics.ReconcilerMetrics(registry)
    alive = health.Health()
    try:
        service = reconciler.Reconciler(
            settings, log, wake, counts=counts, alive=alive, step=shown.step if shown else None
        )
        elector = (
            lease.Elector(election_settings, log, counts=counts, alive=alive)
            if election_settings is not None
            else None
        )
    except errors.UsageError as error:
        raise click.UsageError(str(error)) from error
    except errors.InputError as error:
        out.fail_input(error)
    except errors.GitfleetError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(1)
    try:
        with signals.on_stop_signal(wake.stop if elector is None else elector.stop):
            if shown is not None:
                with shown:
                    code = _once(service)
                sys.exit(code)
            with endpoint.serving(metrics_address, registry, alive) as served:
                if served is not None:
                    host, port = served.address
                    log(
                        events.Event(
                            "metrics-listening", "", time.time(), {"address": f"{host}:{port}"}
                        )
                    )
                if elector is None:
                    counts.leader.set(1)
                    service.run()
                elif elector.run(service.run, wake.stop) is lease.Ending.LOST:
                    click.echo(
                        "error: leadership lost: the lease was not renewed in time", err=True
                    )
                    sys.exit(1)
    except errors.ListenError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(1)
    finally:
        service.close()


def _once(service: reconciler.Reconciler) -> int:
    """One look, as the service's loop makes it; what the loop would retry (the remote, a lost
    race, a repository whose refs cannot be read) is an error line and exit 1."""
    try:
        outcome = service.cycle("once")
    except errors.GitfleetError as error:
        click.echo(f"error: {error}", err=True)
        return 1
    return 1 if outcome in _FAILED else 0
