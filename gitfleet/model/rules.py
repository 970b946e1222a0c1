"""Constraints on a field's value beyond its type: allowed values, bounds, name syntax.

A model field declares its `Rule` once (`field(..., rule=...)`), and that one declaration is
enforced twice: the decoder refuses a value that breaks it, and the JSON Schema derived from
the model carries it (`enum`, `minimum`, `minItems`, `maxLength`, `pattern`), so an editor
using schemas/ flags the very values `gitfleet validate` refuses, with the same message
(`Rule.from_schema` rebuilds the rule from a schema error). Rules that need more than the
value itself (a value that depends on another field, uniqueness in a list) stay in
`gitfleet.validation`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Rule:
    """What a value must satisfy; every part set must hold."""

    one_of: tuple[str, ...] = ()
    """The only values allowed (a subset of the field's enumeration, or any strings)."""
    minimum: int | None = None
    min_items: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    """A regular expression the whole value must match (anchored with ^ and $)."""
    means: str = ""
    """What `pattern` and `max_length` stand for, in messages (`a DNS-1123 label`)."""

    def schema(self) -> dict[str, Any]:
        """The JSON Schema keywords of the rule."""
        out: dict[str, Any] = {}
        if self.one_of:
            out["enum"] = [str(v) for v in self.one_of]
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.min_items is not None:
            out["minItems"] = self.min_items
        if self.max_length is not None:
            out["maxLength"] = self.max_length
        if self.pattern is not None:
            out["pattern"] = self.pattern
        if self.means:
            out["x-gitfleet-means"] = self.means
        return out

    @classmethod
    def from_schema(cls, schema: Mapping[str, Any]) -> Rule:
        """The rule a schema (or subschema) carries."""
        return cls(
            one_of=tuple(schema.get("enum", ())),
            minimum=schema.get("minimum"),
            min_items=schema.get("minItems"),
            max_length=schema.get("maxLength"),
            pattern=schema.get("pattern"),
            means=schema.get("x-gitfleet-means", ""),
        )

    def problem(self, value: Any) -> str | None:
        """Why `value` breaks the rule, or None (values of another type are the type's
        business)."""
        if self.one_of and value not in self.one_of:
            allowed = ", ".join(repr(str(v)) for v in self.one_of)
            return f"unsupported value {value!r}: expected one of {allowed}"
        if self.minimum is not None and _number(value) and value < self.minimum:
            return f"must be at least {self.minimum}, got {value}"
        if (
            self.min_items is not None
            and isinstance(value, list | tuple)
            and len(value) < self.min_items
        ):
            return f"must have at least {self.min_items} item(s)"
        if isinstance(value, str) and (
            (self.max_length is not None and len(value) > self.max_length)
            or (self.pattern is not None and re.search(self.pattern, value) is None)
        ):
            return f"{value!r} is not {self.means}"
        return None


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def dns1123_label(max_length: int = 63) -> Rule:
    """Kubernetes' DNS-1123 label (IsDNS1123Label), at most `max_length` characters."""
    return Rule(
        pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
        max_length=max_length,
        means=(
            f"a DNS-1123 label: at most {max_length} lower case alphanumeric characters or "
            "'-', starting and ending with an alphanumeric character"
        ),
    )


def dns1123_subdomain() -> Rule:
    """Kubernetes' DNS-1123 subdomain (IsDNS1123Subdomain): the name of most objects."""
    return Rule(
        pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$",
        max_length=253,
        means=(
            "a DNS-1123 subdomain: at most 253 lower case alphanumeric characters, '-' or '.',"
            " starting and ending with an alphanumeric character"
        ),
    )
