"""CustomResourceDefinitions of one group whose names clash: a warning at the later one.

The API server stores such a CRD but never establishes it: its naming controller gives it
`NamesAccepted: False` (a plural, singular or short name already in use in the group, or a kind
or list kind another CRD of the group has), so its custom resources are refused on every
member cluster it is sent to (apiextensions-apiserver pkg/controller/status naming_controller).
Karmada propagates it all the same, and so does gitfleet; which of the two the server accepts
depends on which came first, and a repository has no order of creation, so the first in file
order is taken as the one accepted.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from gitfleet.model import crddefaults, diagnostic
from gitfleet.model.template import ResourceTemplate

_Claim = tuple[str, str]
"""(which names it is among: "resource" or "kind", the name)."""


def _claims(names: dict[str, Any]) -> Iterator[_Claim]:
    kind, plural = names.get("kind"), names.get("plural")
    if isinstance(plural, str) and plural:
        yield "resource", plural
    singular = names.get("singular") or (kind.lower() if isinstance(kind, str) else None)
    if isinstance(singular, str) and singular:
        yield "resource", singular
    shorts = names.get("shortNames")
    for short in shorts if isinstance(shorts, list) else ():
        if isinstance(short, str) and short:
            yield "resource", short
    if isinstance(kind, str) and kind:
        yield "kind", kind
        listed = names.get("listKind") or f"{kind}List"
        if isinstance(listed, str):
            yield "kind", listed


def check(templates: Iterable[ResourceTemplate]) -> list[diagnostic.Diagnostic]:
    taken: dict[tuple[str, str, str], ResourceTemplate] = {}
    found = []
    written = lambda t: (t.origin.path, t.origin.line, t.origin.col)  # noqa: E731
    for crd in sorted(crddefaults.crds(templates), key=written):
        spec = crd.body.get("spec")
        group = spec.get("group") if isinstance(spec, dict) else None
        names = spec.get("names") if isinstance(spec, dict) else None
        if not isinstance(group, str) or not isinstance(names, dict):
            continue
        mine = {(group, *claim) for claim in _claims(names)}
        clash = next((c for c in sorted(mine) if c in taken), None)
        if clash is None:
            taken.update(dict.fromkeys(mine, crd))
            continue
        first = taken[clash]
        _, which, name = clash
        found.append(
            diagnostic.warning(
                crd.origin,
                f"CustomResourceDefinition {crd.name}: the {which} name {name!r} is already "
                f"in use in group {group} by CustomResourceDefinition {first.name} (",
                first.origin,
                "): the API server never establishes this one, and its custom resources are"
                " refused",
            )
        )
    return found
