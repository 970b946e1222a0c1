"""What Karmada's webhook refuses in ResourceInterpreterCustomizations.

Ported from pkg/webhook/resourceinterpretercustomization/helper.go: every script must compile
(checked by the Lua runtime, `interpreter.lua.check`), and two customizations of the same kind
may not both define the same operation, except dependency interpretation, whose results are
merged. Customizations are compared in name order, as Karmada applies them; the later one is
reported, naming the earlier.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from gitfleet.interpreter import lua
from gitfleet.model import _codec, config, diagnostic, loaded
from gitfleet.validation import _report

Customization = config.ResourceInterpreterCustomization

MERGED = "dependencyInterpretation"
"""The operation several customizations may define together."""


def _scripts(customization: Customization) -> list[str]:
    """The operations (JSON field names) a customization defines a script for."""
    rules = customization.spec.customizations
    found = []
    for field in _codec.fields_of(config.CustomizationRules):
        script = getattr(rules, field.attr)
        if script is not None and script.lua_script:
            found.append(field.json)
    return found


def check(customizations: Sequence[Customization]) -> list[diagnostic.Diagnostic]:
    found: list[diagnostic.Diagnostic] = []
    owners: dict[tuple[str, str, str], Customization] = {}
    for customization in sorted(customizations, key=lambda c: (c.name, c.origin.path)):
        subject = loaded.subject(customization)
        found += [
            dataclasses.replace(d, message=f"{subject}: {d.message}")
            for d in lua.check(customization)
        ]
        target = customization.spec.target
        report = _report.Report(customization.origin, subject)
        for operation in _scripts(customization):
            if operation == MERGED:
                continue
            key = (target.api_version, target.kind, operation)
            earlier = owners.setdefault(key, customization)
            if earlier is not customization:
                message = (
                    f"{target.api_version} {target.kind} already has this operation from "
                    f"ResourceInterpreterCustomization {earlier.name} ("
                )
                report.error(("spec", "customizations", operation), message, earlier.origin, ")")
        found += report.diagnostics
    return found
