"""`gitfleet interpret`: run a ResourceInterpreterCustomization on objects, as `karmadactl
interpret` does (Karmada: pkg/karmadactl/interpret).

`-f` names a file of customizations, or a folder in Karmada's third-party layout. `--check`
compiles every script and checks it defines its function; `--operation` runs one operation
(Karmada's names, any case) on `--desired-file` and/or `--observed-file`, with `--status-file`
and `--desired-replica`. The status file holds aggregated status items as karmadactl reads
them, one per YAML (or JSON) document, or as one list; an empty file, or one holding only
`null`, stands for nil status items (a list `[]` for an empty one). The result is one object keyed
as the `output` of Karmada's interpreter test data (`replica`, `requires`, `retained`, ...),
printed as YAML, or JSON with `-o json`. Exit 1 when a script fails (the error names the
`luaScript` field's file:line:col and the Lua line) or a file is not UTF-8 YAML (named at its
first bad character, as `validate` names a source file), 2 on a usage error.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import click

from gitfleet import errors
from gitfleet.cli import options
from gitfleet.cli import output as out
from gitfleet.interpreter import lua
from gitfleet.model import config, diagnostic
from gitfleet.model.origin import Origin
from gitfleet.model.template import RawObject

TEST_CASE_OBJECTS = ("desiredObj", "observedObj")
"""The objects a test case of Karmada's interpreter test data holds (`testdata/*-test.yaml`)."""


_OBJECT_FILE = options.ReadPath(dir_okay=False, allow_dash=True)


@click.command()
@click.option(
    "-f",
    "--file",
    "path",
    required=True,
    type=options.ReadPath(),
    help="Customizations: a YAML file, or a folder in Karmada's third-party layout.",
)
@click.option("--check", is_flag=True, help="Compile every script and check its function.")
@click.option("--operation", default=None, help="Operation to run, e.g. InterpretReplica.")
@click.option("--desired-file", type=_OBJECT_FILE, default=None, help="The template (`-`: stdin).")
@click.option(
    "--observed-file",
    type=_OBJECT_FILE,
    default=None,
    help="The object a member cluster runs (`-`: stdin).",
)
@click.option(
    "--status-file",
    type=_OBJECT_FILE,
    default=None,
    help="Aggregated status items (one per document, or a list), for AggregateStatus (`-`: stdin).",
)
@click.option(
    "--desired-replica",
    type=click.IntRange(-(2**63), 2**63 - 1),
    default=0,
    help="Replicas for ReviseReplica (an int64, as karmadactl takes it).",
)
@options.output_option
def interpret(
    path: str,
    check: bool,
    operation: str | None,
    desired_file: str | None,
    observed_file: str | None,
    status_file: str | None,
    desired_replica: int,
    output: str,
) -> None:
    """Run a ResourceInterpreterCustomization on objects, as karmadactl interpret does."""
    if check == (operation is not None):
        raise click.UsageError("give either --check or --operation")
    if [desired_file, observed_file, status_file].count("-") > 1:
        raise click.UsageError("only one of the files can be read from stdin (-)")
    try:
        customizations = _customizations(Path(path))
        if check:
            _check(customizations, output)
            return
        assert operation is not None
        result = lua.interpret(
            customizations,
            lua.operation_named(operation),
            desired=_object(desired_file),
            observed=_object(observed_file),
            status_items=_status_items(status_file),
            replicas=desired_replica,
            now=time.time(),
        )
    except errors.UsageError as error:
        raise click.UsageError(str(error)) from error
    except errors.InputError as error:
        out.fail_input(error)
    out.emit(result, "json" if output == "json" else "yaml", "")


def _customizations(path: Path) -> list[config.ResourceInterpreterCustomization]:
    found = lua.load_thirdparty(path) if path.is_dir() else lua.read_customizations(path)
    if not found:
        raise errors.UsageError(f"{path} holds no ResourceInterpreterCustomization")
    return found


def _check(customizations: list[config.ResourceInterpreterCustomization], output: str) -> None:
    found = diagnostic.sorted_diagnostics(
        [d for customization in customizations for d in lua.check(customization)]
    )
    human = "".join(f"{d}\n" for d in found)
    if not found:
        human = f"{len(customizations)} customization(s): every script compiles\n"
    out.emit([d.to_json() for d in found], output, human)
    if any(d.severity is diagnostic.Severity.ERROR for d in found):
        sys.exit(1)


def _documents(path: str) -> list[tuple[Any, Origin]]:
    return lua.read_yaml(Path(path))


def _object(path: str | None) -> RawObject | None:
    if path is None:
        return None
    found = _documents(path)
    if len(found) != 1 or not isinstance(found[0][0], dict):
        raise errors.UsageError(f"{path} must hold exactly one object")
    value: RawObject = found[0][0]  # type: ignore[assignment]  # any object is a raw object
    _require_type(value, found[0][1])
    return value


def _require_type(obj: RawObject, origin: Origin) -> None:
    """An object without apiVersion or kind is refused, as karmadactl's reader refuses it: a
    customization could only be looked up for an empty type. Karmada's interpreter test cases
    are the likeliest such files, so they are named."""
    missing = [field for field in ("apiVersion", "kind") if field not in obj]
    if not missing:
        return
    case = [key for key in TEST_CASE_OBJECTS if key in obj]
    hint = f" (a Karmada interpreter test case? give its {case[0]} in a file of its own)"
    raise errors.SchemaError(
        origin, f"not a Kubernetes object: no {' or '.join(missing)}{hint if case else ''}"
    )


def _status_items(path: str | None) -> list[lua.StatusItem] | None:
    if path is None:
        return None
    found = _documents(path)
    if not found:
        return None
    if len(found) == 1 and isinstance(found[0][0], list):
        items, origin = found[0]
        return [lua.status_item(item, origin.at(i)) for i, item in enumerate(items)]
    return [lua.status_item(item, origin) for item, origin in found]
