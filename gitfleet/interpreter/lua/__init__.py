"""Lua ResourceInterpreterCustomizations, run as Karmada runs them (pkg/resourceinterpreter/
customized/declarative): one sandbox for every script, Karmada's value conversions, the `kube`
library, the customization layer of the interpreter chain, script checks, and Karmada-format
third-party customization folders.

Public API:
- `LuaLayer(customizations, *, sandbox=None, now=0.0)`: the chain layer (`_layer.Layer`).
- `check(customization) -> list[Diagnostic]`: compile every script, find its function.
- `load_thirdparty(folder) -> list[ResourceInterpreterCustomization]`.
- `interpret(customizations, operation, ...) -> dict`: one operation, keyed as Karmada's
  interpreter test data (what `gitfleet interpret` prints); `operation_named(name)`;
  `status_item(value, origin) -> StatusItem`: a status item as Karmada reads one, as Go's
  JSON writes it back (its `health` any string).
- `Sandbox(limits)`, `Limits`: the runtime, for callers that want their own limits.
- `read_customizations(path)`, `read_yaml(path)`, `parse_yaml(path, text)`: the YAML the
  above take, read with positions (for files outside a source repository).
"""

from __future__ import annotations

from gitfleet.interpreter.lua._check import check
from gitfleet.interpreter.lua._customizations import FUNCTIONS, LuaLayer
from gitfleet.interpreter.lua._interpret import StatusItem, interpret, operation_named, status_item
from gitfleet.interpreter.lua._sandbox import Limits, Sandbox
from gitfleet.interpreter.lua._thirdparty import load_thirdparty, read_customizations
from gitfleet.interpreter.lua._yamlfile import documents as parse_yaml
from gitfleet.interpreter.lua._yamlfile import read as read_yaml

__all__ = [
    "FUNCTIONS",
    "Limits",
    "LuaLayer",
    "Sandbox",
    "StatusItem",
    "check",
    "interpret",
    "load_thirdparty",
    "operation_named",
    "parse_yaml",
    "read_customizations",
    "read_yaml",
    "status_item",
]
