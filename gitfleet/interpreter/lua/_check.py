"""Checking a customization's scripts without an object to run them on (for `validate` and
`gitfleet interpret --check`).

A script that does not compile is an error: Karmada's webhook refuses it (it compiles every
script, as `karmadactl interpret --check` does). One that compiles but does not define its
operation's global function, or whose top level fails, is a warning: Karmada takes it, and
finds out only when the operation runs, each call failing (`not found function`); so does
gitfleet. Finding the function means running the script's top level, which the sandbox bounds
like any call. A script that calls what Karmada's runtime refuses (`string.gsub`, `string.rep`,
`string.dump`: they raise an error, here as there) compiles but fails where it calls it, and
one that uses a global `kube` without `require` works here but not in Karmada: both are
warnings too.
"""

from __future__ import annotations

import re

from gitfleet.interpreter.lua import _customizations, _sandbox
from gitfleet.model import config, diagnostic

_KARMADA_REFUSES = (
    (re.compile(r"\bstring\s*\.\s*gsub\b|:\s*gsub\s*\("), "string.gsub raises an error in Karmada"),
    (re.compile(r"\bstring\s*\.\s*rep\b|:\s*rep\s*\("), "string.rep raises an error in Karmada"),
    (re.compile(r"\bstring\s*\.\s*dump\b|:\s*dump\s*\("), "string.dump raises an error in Karmada"),
)
_EACH_CALL_FAILS = "; Karmada takes the script, and each call of it fails"
_KUBE_USE = re.compile(r"\bkube\s*\.")
_KUBE_REQUIRE = re.compile(r"""\brequire\s*\(?\s*["']kube["']""")


def check(
    customization: config.ResourceInterpreterCustomization,
    sandbox: _sandbox.Sandbox | None = None,
) -> list[diagnostic.Diagnostic]:
    """Problems with each script of `customization`, located at its `luaScript` field."""
    sandbox = sandbox or _sandbox.shared()
    out = []
    for rule in _customizations.rules(customization):
        out.extend(_check_rule(rule, sandbox))
    return diagnostic.sorted_diagnostics(out)


def _check_rule(
    rule: _customizations.Rule, sandbox: _sandbox.Sandbox
) -> list[diagnostic.Diagnostic]:
    origin = rule.origin
    found = []
    try:
        sandbox.compile(rule.script)
    except _sandbox.ScriptError as e:
        return [diagnostic.error(origin, f"{rule.field}: {_located(e)}")]
    try:
        kind = sandbox.defines(rule.script, rule.function)
    except _sandbox.ScriptError as e:
        return [diagnostic.warning(origin, f"{rule.field}: {_located(e)}{_EACH_CALL_FAILS}")]
    if kind == "nil":
        message = f"the script does not define function {rule.function}"
        found.append(diagnostic.warning(origin, f"{rule.field}: {message}{_EACH_CALL_FAILS}"))
    elif kind != "function":
        message = f"{rule.function} is a {kind}, not a function"
        found.append(diagnostic.warning(origin, f"{rule.field}: {message}{_EACH_CALL_FAILS}"))
    for pattern, message in _KARMADA_REFUSES:
        if pattern.search(rule.script):
            found.append(diagnostic.warning(origin, f"{rule.field}: {message}"))
    if _KUBE_USE.search(rule.script) and not _KUBE_REQUIRE.search(rule.script):
        message = 'kube is used without local kube = require("kube"), which Karmada needs'
        found.append(diagnostic.warning(origin, f"{rule.field}: {message}"))
    return found


def _located(error: _sandbox.ScriptError) -> str:
    return (f"lua line {error.line}: " if error.line is not None else "") + error.message
