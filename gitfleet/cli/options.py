"""Options shared by several commands, declared once (kubectl's conventions: -o, -n)."""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from gitfleet import errors
from gitfleet.gitstore import branchnames, clusterrepos, folder, remote, repository

F = TypeVar("F", bound=Callable[..., Any])


class FiniteFloatRange(click.FloatRange):
    """click's FloatRange without `nan` and `inf`, which pass its bounds (`nan` compares false
    to both): an interval of `inf` ended a running agent in an OverflowError, and a
    `--max-prune-share` of `nan` turned the prune guard off."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


class PathError(click.ClickException):
    """A path the command line names for the command to read that is not there, or not the
    kind asked for: invalid input, exit 1, as `--repo` and `--rev` fail and as kubectl fails
    on `-f nowhere.yaml`; said as `OPTION PATH: problem`, not as click's usage error (exit 2),
    which is for a command line that cannot mean anything."""

    def show(self, file: Any = None) -> None:
        click.echo(self.format_message(), err=True)


class ReadPath(click.Path):
    """`click.Path(exists=True)` whose failures are `PathError`s."""

    def __init__(self, *, file_okay: bool = True, dir_okay: bool = True, **kwargs: Any) -> None:
        super().__init__(exists=True, file_okay=file_okay, dir_okay=dir_okay, **kwargs)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter as error:
            option = param.opts[0] if param is not None and param.opts else "path"
            raise PathError(f"{option} {os.fsdecode(value)}: {self._problem(value)}") from error

    def _problem(self, value: Any) -> str:
        wanted = "file" if not self.dir_okay else "folder" if not self.file_okay else ""
        if not os.path.exists(value):
            return f"no such {wanted or 'file or folder'}"
        if wanted and os.path.isdir(value) != (wanted == "folder"):
            return f"not a {wanted}"
        return "cannot be read: permission denied"


def branch_name(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A `--branch` checked as gitfleet.yaml's branches are (`gitstore.branchnames`): a
    render onto `gitfleet/works/<cluster>` would overwrite that cluster's ref with every
    cluster's manifests."""
    found = branchnames.problem(value) if value is not None else None
    if found is not None:
        raise click.BadParameter(found)
    return value


def made_folder(value: str | Path | None, option: str) -> Path | None:
    """The folder `option` names (None when it names none), made now with its parents, so
    that one that cannot be made is a usage error before the command starts (`folder.make`)."""
    if value is None:
        return None
    path = Path(value)
    try:
        folder.make(path, option)
    except errors.UsageError as error:
        raise click.UsageError(str(error)) from error
    return path


def _repo_path(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """A repository's `.git` given for `--repo` names the repository, as it does for git."""
    return repository.work_tree_of(value) or value


def repo_option_saying(text: str) -> Callable[[F], F]:
    """`--repo P` (default `.`); `text` says what the command reads there."""
    return click.option(
        "--repo",
        "repo",
        default=".",
        show_default=True,
        type=click.Path(),
        callback=_repo_path,
        help=text,
    )


repo_option = repo_option_saying(
    "A Git repository (its commit --rev) or a plain folder (its files)."
)


def rev_option_saying(text: str) -> Callable[[F], F]:
    """`--rev R`; `text` says what is read without it."""
    return click.option("--rev", "rev", default=None, help=text)


rev_option = rev_option_saying(
    "The source commit to read (default: the source branch of gitfleet.yaml, else HEAD;"
    " uncommitted changes do not count)."
)


def output_option(func: F) -> F:
    return click.option(
        "-o",
        "--output",
        "output",
        type=click.Choice(["text", "json", "yaml"]),
        default="text",
        show_default=True,
        help="Output format.",
    )(func)


def namespace_option(func: F) -> F:
    return click.option(
        "-n",
        "--namespace",
        "namespace",
        default="",
        help="Namespace of KIND/NAME (default: defaultNamespace in gitfleet.yaml, else default).",
    )(func)


def _cluster_template(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A template without the placeholder would send every cluster to one repository, which is
    what a repository per cluster exists to avoid."""
    if value is None:
        return None
    if clusterrepos.PLACEHOLDER not in value:
        raise click.BadParameter(f"expected a URL with {clusterrepos.PLACEHOLDER} in it")
    try:
        remote.locate(clusterrepos.cluster_url(value, "cluster"))
    except errors.UsageError as error:
        raise click.BadParameter(str(error)) from error
    return value


def cluster_repos_option(does: str) -> Callable[[F], F]:
    """`--cluster-repos TEMPLATE`; `does` says what the command does with those repositories."""

    def decorate(func: F) -> F:
        return click.option(
            "--cluster-repos",
            "cluster_repos",
            default=None,
            metavar="TEMPLATE",
            callback=_cluster_template,
            help="URL of each cluster's own repository, {cluster} standing for its name: " + does,
        )(func)

    return decorate


SIGNING_KEY_ENV = "GITFLEET_SIGNING_KEY"


def signing_key_option(func: F) -> F:
    """`--signing-key PATH` (or `$GITFLEET_SIGNING_KEY`): a command-line setting, never a
    `gitfleet.yaml` one, so that the key stays out of the repository it signs for."""
    return click.option(
        "--signing-key",
        "signing_key",
        envvar=SIGNING_KEY_ENV,
        type=ReadPath(dir_okay=False),
        default=None,
        help="SSH private key file: sign every commit written with it (Git's SSH signatures;"
        f" default: ${SIGNING_KEY_ENV}).",
    )(func)


KUBECONFIG_ENV = "KUBECONFIG"


def kubeconfig_option(of: str) -> Callable[[F], F]:
    """`--kubeconfig FILE`, kubectl's option; without it, `kubeconfig` takes $KUBECONFIG."""
    return click.option(
        "--kubeconfig",
        type=ReadPath(dir_okay=False),
        default=None,
        help=f"Kubeconfig of {of} (default: ${KUBECONFIG_ENV}, as kubectl reads it, else the"
        " pod's service account).",
    )


def kubeconfig(given: str | None) -> Path | None:
    """The kubeconfig to use: `--kubeconfig`, else $KUBECONFIG (several files separated by
    ':', merged as kubectl merges them), else None for the pod's service account."""
    chosen = given or os.environ.get(KUBECONFIG_ENV, "")
    return Path(chosen) if chosen else None


def allowed_signers_option(option: str, env: str, text: str) -> Callable[[F], F]:
    """An allowed-signers file (ssh-keygen's format, Git's `gpg.ssh.allowedSignersFile`)."""
    return click.option(
        option,
        envvar=env,
        type=ReadPath(dir_okay=False),
        default=None,
        help=f"{text} (an ssh-keygen allowed signers file; default: ${env}).",
    )


def _listen_address(
    ctx: click.Context, param: click.Parameter, value: str | None
) -> tuple[str, int] | None:
    from gitfleet.monitor import endpoint

    if value is None:
        return None
    try:
        return endpoint.parse_address(value, "metrics address")
    except ValueError as error:
        raise click.BadParameter(str(error)) from error


metrics_address_option = click.option(
    "--metrics-address",
    "metrics_address",
    default=None,
    metavar="HOST:PORT",
    callback=_listen_address,
    help="Serve Prometheus metrics (/metrics) and probes (/healthz, /readyz) here (:PORT: on"
    " every address; PORT: on 127.0.0.1).",
)


def log_format_option(func: F) -> F:
    return click.option(
        "--log-format",
        "log_format",
        type=click.Choice(["text", "json"]),
        default="text",
        show_default=True,
        help="Log lines as text, or as one JSON object each.",
    )(func)
