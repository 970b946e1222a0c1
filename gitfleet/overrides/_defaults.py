"""Defaults on demand: the API server's default for the part of a path an override needs.

Karmada's override manager patches the object its API server stored, which holds Kubernetes'
defaults (a container's `imagePullPolicy`, a Deployment's `strategy`, ...); gitfleet patches
the template as written. Writing every default into every manifest would change manifests no
override touches, so a default is filled in only when an operation fails without it: for the
first key of the operation's path (its parent's, for `add`) that the manifest lacks, the whole
value the server would store there (`kubedefaults`, the table the simulated cluster stores
with), provided that value holds the rest of the path. The operation is then tried again.

A Secret's `stringData` is different: the server stores none, having folded it into `data`,
so every overrider of a Secret sees it folded (`stored_secret`), not only one that fails.

The defaults are computed from the manifest as the earlier overriders left it, not from the
template Karmada stored; they differ only where an earlier overrider changed a field a default
depends on (an image's tag, for a pull policy) and a later one needs that default.
"""

from __future__ import annotations

from typing import Any

from gitfleet import kubedefaults
from gitfleet.overrides import _patch


def fill(doc: Any, op: str, path: str) -> bool:
    """Fill in, in `doc`, the default `op` at `path` needs; False (and `doc` untouched) when
    the server would default nothing there, or `doc` has the whole path already."""
    if not isinstance(doc, dict) or not path.startswith("/"):
        return False
    api_version, kind = doc.get("apiVersion"), doc.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return False
    defaulter = kubedefaults.for_kind(api_version, kind)
    if defaulter is None:
        return False
    stored = _patch.plain(doc)
    defaulter(stored)
    tokens = [_patch.unescape(raw) for raw in path[1:].split("/")]
    needed = tokens[:-1] if op == "add" else tokens
    node, default = doc, stored
    for depth, token in enumerate(needed):
        if isinstance(node, dict) and isinstance(default, dict):
            if token not in node:
                if token not in default or not _holds(default[token], needed[depth + 1 :]):
                    return False
                node[token] = default[token]
                return True
            node, default = node[token], default.get(token)
        elif isinstance(node, list) and isinstance(default, list):
            index = _patch.go_atoi(token)
            if index is None or not 0 <= index < min(len(node), len(default)):
                return False
            node, default = node[index], default[index]
        else:
            return False
    return False


def _holds(value: Any, tokens: list[str]) -> bool:
    """Whether `value` has the path `tokens` inside it."""
    for token in tokens:
        if isinstance(value, dict) and token in value:
            value = value[token]
        elif isinstance(value, list):
            index = _patch.go_atoi(token)
            if index is None or not 0 <= index < len(value):
                return False
            value = value[index]
        else:
            return False
    return True


def stored_secret(doc: dict[str, Any]) -> None:
    """Fold a `v1` Secret's `stringData` into its `data`, in place, as the object Karmada's
    API server stored has it: a `replace /data/x` then finds `x`, and a member's server gets
    no `stringData` that would win over the overridden `data`."""
    if (doc.get("apiVersion"), doc.get("kind")) == ("v1", "Secret"):
        kubedefaults.fold_string_data(doc)
