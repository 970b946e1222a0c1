"""JSON Schemas of the Karmada kinds, derived from the model, for validation and for editors.

The model declares every kind once; `build()` turns each declaration into a JSON Schema (draft
2020-12) with our own descriptions, the kind's apiVersion and kind as constants, and every
nested type under `$defs`. Validation uses these schemas in memory; the same schemas are
committed under schemas/ for editors (yaml-language-server's `# yaml-language-server:
$schema=...` modeline) and other tools. A test keeps the committed files equal to `build()`.

Regenerate the committed files after changing the model (the only place this package writes
files, and only when run as a program, through `__main__.py`):

    python -m gitfleet.validation.schemas [DIRECTORY]      # default: schemas/ of the checkout

It is a package rather than a module so that the command runs `__main__.py`: the validation
package imports this one, and running an imported module with `-m` executes it a second time
(Python warns so on stderr).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from gitfleet.model import _codec, kinds, meta, work

DRAFT = "https://json-schema.org/draft/2020-12/schema"

KINDS: tuple[type[meta.ApiObject], ...] = (
    *kinds.SOURCE_KINDS,
    work.ResourceBinding,
    work.ClusterResourceBinding,
)
"""The kinds with a schema: those a source may hold, and the bindings gitfleet renders."""


def file_name(kind: type[meta.ApiObject]) -> str:
    """`<group>_<version>_<kind>.json`, lower case, e.g. policy.karmada.io_v1alpha1_...json."""
    group, _, version = kind.API_VERSION.partition("/")
    return f"{group}_{version}_{kind.KIND.lower()}.json"


def schema(kind: type[meta.ApiObject]) -> dict[str, Any]:
    """The schema of one kind: its own object at the root, nested types under `$defs`."""
    definitions: dict[str, Any] = {}
    _codec.json_schema(kind, definitions)
    root = definitions.pop(kind.__name__)
    properties = {
        "apiVersion": {"const": kind.API_VERSION, "description": "API group and version."},
        "kind": {"const": kind.KIND, "description": "The kind of object."},
        **root["properties"],
    }
    scope = "namespaced" if kind.NAMESPACED else "cluster-scoped"
    return {
        "$schema": DRAFT,
        "$id": file_name(kind),
        "title": f"{kind.KIND} ({kind.API_VERSION}, {scope})",
        "description": root.get("description", ""),
        "type": "object",
        "properties": properties,
        "required": ["apiVersion", "kind", *root.get("required", [])],
        "additionalProperties": False,
        "$defs": dict(sorted(definitions.items())),
    }


def build() -> dict[str, dict[str, Any]]:
    """Every schema, by file name."""
    return {file_name(kind): schema(kind) for kind in KINDS}


def text(document: dict[str, Any]) -> str:
    """A schema as committed: stable key order, two-space indent, final newline."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


USAGE = "usage: python -m gitfleet.validation.schemas [DIRECTORY]"


def main(argv: list[str]) -> int:
    """Write every schema into `argv[0]` (default: schemas/ of the checkout), printing each path;
    an option (`--help`, or any other) prints the usage instead, never a folder named after it."""
    if (argv[:1] and argv[0].startswith("-")) or len(argv) > 1:
        wanted = argv[0] in ("-h", "--help")
        print(USAGE, file=sys.stdout if wanted else sys.stderr)
        return 0 if wanted else 2
    target = Path(argv[0]) if argv else Path(__file__).resolve().parents[3] / "schemas"
    target.mkdir(parents=True, exist_ok=True)
    for name, document in build().items():
        (target / name).write_text(text(document), encoding="utf-8")
        print(target / name)
    return 0
