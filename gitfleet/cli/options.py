"""Options shared by several commands, declared once (kubectl's conventions: -o, -n)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


def repo_option(func: F) -> F:
    return click.option(
        "--repo",
        "repo",
        default=".",
        show_default=True,
        type=click.Path(file_okay=False),
        help="A Git repository (read at --rev) or a plain directory.",
    )(func)


def rev_option(func: F) -> F:
    return click.option(
        "--rev",
        "rev",
        default=None,
        help="Source revision (default: the source branch of gitfleet.yaml, else HEAD).",
    )(func)


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
    return click.option("-n", "--namespace", "namespace", default="", help="Namespace.")(func)
