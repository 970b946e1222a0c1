"""`get -o`: kubectl's output formats beyond the tables, read from the option as kubectl reads
them (`-o jsonpath='{...}'`, `-o custom-columns=NAME:.metadata.name`, and their `-file` forms),
and the printers of the ones that take a template.

What is printed is one object when one name of one kind was asked and one object found, else a
List of them all, as `karmadactl get` (and `kubectl get`) decide it.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import click

from gitfleet.cli import jsonpath
from gitfleet.search import columns

PLAIN = ("text", "wide", "json", "yaml", "name")
TEMPLATED = (
    "jsonpath",
    "jsonpath-as-json",
    "jsonpath-file",
    "custom-columns",
    "custom-columns-file",
)
_RELAXED = re.compile(r"^\{\.?([^{}]+)\}$|^\.?([^{}]+)$")


@dataclasses.dataclass(frozen=True, slots=True)
class Format:
    """An output format: its name, and the template or column spec it was given (or the
    name of the file holding it)."""

    name: str
    argument: str = ""


class OutputFormat(click.ParamType[Format]):
    """`-o FORMAT` or `-o FORMAT=TEMPLATE`, as kubectl spells them (`-o=json` too)."""

    name = "format"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> Format:
        if isinstance(value, Format):
            return value
        text = str(value).removeprefix("=")
        name, equals, argument = text.partition("=")
        if name in PLAIN and not equals:
            return Format(name)
        if name in TEMPLATED:
            return Format(name, argument)
        allowed = ", ".join((*PLAIN, *(f"{n}=..." for n in TEMPLATED)))
        message = f"unable to match a printer suitable for the output format {text!r}"
        self.fail(f"{message}, allowed formats are: {allowed}", param, ctx)

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "[text|wide|json|yaml|name|jsonpath=...|custom-columns=...]"


class FormatError(ValueError):
    """A template or column spec that cannot be used, in kubectl's words."""


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
        raise FormatError(f"error reading template {path}: {reason}") from None


def _template(text: str) -> jsonpath.Template:
    try:
        return jsonpath.parse(text)
    except jsonpath.TemplateError as error:
        raise FormatError(f"error parsing jsonpath {text}, {error}") from None


def print_jsonpath(fmt: Format, data: Any, *, allow_missing: bool) -> str:
    """`-o jsonpath=` (`-as-json`, `-file`) on `data`."""
    text = _read(fmt.argument) if fmt.name == "jsonpath-file" else fmt.argument
    if not text:
        raise FormatError("template format specified but no template given")
    template = _template(text)
    try:
        return jsonpath.render(
            template, data, allow_missing=allow_missing, as_json=fmt.name == "jsonpath-as-json"
        )
    except jsonpath.TemplateError as error:
        raise FormatError(
            f"error executing jsonpath {_go_quoted(text)}: Error executing template: {error}."
            f" Printing more information for debugging the template:\n\ttemplate was:\n\t\t{text}"
        ) from None


def _go_quoted(text: str) -> str:
    escaped = (
        text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    )
    return f'"{escaped}"'


def _columns(fmt: Format) -> list[tuple[str, str]]:
    """The (header, path) pairs of a custom-columns spec or file."""
    if fmt.name == "custom-columns-file":
        lines = [line for line in _read(fmt.argument).splitlines() if line.strip()]
        if len(lines) != 2:
            raise FormatError("invalid template, expected a line of headers and a line of paths")
        headers, paths = lines[0].split(), lines[1].split()
        if len(headers) != len(paths):
            raise FormatError(
                f"number of headers ({len(headers)}) and field specifications ({len(paths)})"
                " don't match"
            )
        return list(zip(headers, paths, strict=True))
    if not fmt.argument:
        raise FormatError("custom-columns format specified but no custom columns given")
    pairs = []
    for part in fmt.argument.split(","):
        header, colon, path = part.partition(":")
        if not colon:
            raise FormatError(
                f"unexpected custom-columns spec: {part}, expected <header>:<json-path-expr>"
            )
        pairs.append((header, path))
    return pairs


def _relaxed(path: str) -> str:
    """kubectl's reading of a column's path: `name1.name2`, `.name1.name2`, `{name1.name2}` or
    `{.name1.name2}`, each the template `{.name1.name2}`."""
    if not path:
        return path
    found = _RELAXED.match(path)
    if found is None:
        raise FormatError(
            "unexpected path string, expected a 'name1.name2' or '.name1.name2' or"
            " '{name1.name2}' or '{.name1.name2}'"
        )
    return "{." + (found[1] or found[2]) + "}"


def print_custom_columns(fmt: Format, data: Any, *, headers: bool) -> str:
    """`-o custom-columns=` (`-file`): a row per object of `data` (a List's items), one cell
    per column: every value its path finds, comma-separated, `<none>` for none."""
    specs = [(header, _template(_relaxed(path))) for header, path in _columns(fmt)]
    objects = data["items"] if data.get("kind") == "List" else [data]
    rows = [[jsonpath.cell(template, obj) for _, template in specs] for obj in objects]
    table = ([[header for header, _ in specs]] if headers else []) + rows
    return columns.layout(table)
