"""The JSON types an API server's typed structs accept, checked field by field.

kubectl sends a manifest as JSON and the API server decodes it into Go structs: a boolean or a
number where a string is declared (`enabled: true` in annotations, `on: yes` in labels, an
env `value: 1`) is refused there, and so is a string where a number is declared. YAML makes
such values easily (`yes`, `0123` and `1e3` are not strings), so each problem says what the
value was read as and how to keep it as written.

Each check appends `(field path, message)` problems to a list and never stops at the first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gitfleet.model import gofloat
from gitfleet.model.origin import PathKey

Keys = tuple[PathKey, ...]
Problems = list[tuple[Keys, str]]
Rule = Callable[[str], "str | None"]
"""What is wrong with a key or a value, or None."""


def _read_as(value: Any) -> str:
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {value:g}" if isinstance(value, float) else f"the number {value}"
    if value is None:
        return "null"
    return "a map" if isinstance(value, dict) else "a list"


def _quoted(text: str) -> str:
    """A string value as a message shows it: quoted, cut at 80 characters (a value of a
    megabyte would otherwise make a problem of a megabyte)."""
    return repr(text if len(text) <= 80 else text[:77] + "...")


def string(keys: Keys, value: Any, found: Problems) -> bool:
    """Whether `value` is a string (else a problem, suggesting quotes for scalars)."""
    if isinstance(value, str):
        return True
    hint = ": quote it as written" if not isinstance(value, (dict, list)) else ""
    found.append((keys, f"must be a string, not {_read_as(value)}{hint}"))
    return False


def integer(keys: Keys, value: Any, found: Problems) -> None:
    """An integer field (a whole number written as 2.0 decodes as one too)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        what = _quoted(value) if isinstance(value, str) else _read_as(value)
        found.append((keys, f"must be an integer, not {what}"))
    elif isinstance(value, float) and not value.is_integer():
        found.append((keys, f"must be an integer, not {value:g}"))


MAX_INT32 = 2**31 - 1


def count(keys: Keys, value: Any, found: Problems) -> None:
    """A non-negative int32 field (a workload's replicas, a Job's parallelism): the API server
    cannot decode a larger number into the field and refuses a negative one. A float (an
    overrider's number beyond an int64, stored as one) is shown as Go writes it."""
    before = len(found)
    integer(keys, value, found)
    if len(found) > before:
        return
    shown = gofloat.format_float(value) if isinstance(value, float) else str(value)
    if value < 0:
        found.append((keys, f"must be 0 or more, not {shown}"))
    elif value > MAX_INT32:
        found.append((keys, f"must be at most {MAX_INT32} (int32), not {shown}"))


def boolean(keys: Keys, value: Any, found: Problems) -> None:
    if not isinstance(value, bool):
        what = _quoted(value) if isinstance(value, str) else _read_as(value)
        found.append((keys, f"must be a boolean, not {what}"))


def number(keys: Keys, value: Any, found: Problems) -> None:
    """A number field (an integer is a number too)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        what = _quoted(value) if isinstance(value, str) else _read_as(value)
        found.append((keys, f"must be a number, not {what}"))


def int_or_string(keys: Keys, value: Any, found: Problems) -> None:
    """An IntOrString field (a port number or name, a percentage)."""
    if not isinstance(value, str):
        integer(keys, value, found)


def mapping(keys: Keys, value: Any, found: Problems) -> Mapping[str, Any]:
    """A map field's entries ({} when absent or null; a problem when it is not a map)."""
    if value is None:
        return {}
    if isinstance(value, dict):
        return value
    found.append((keys, f"must be a map, not {_read_as(value)}"))
    return {}


def items(keys: Keys, value: Any, found: Problems) -> list[Any]:
    """A list field's items ([] when absent or null; a problem when it is not a list)."""
    if value is None:
        return []
    if isinstance(value, list):
        return value
    what = _quoted(value) if isinstance(value, str) else _read_as(value)
    found.append((keys, f"must be a list, not {what}"))
    return []


def string_map(
    keys: Keys,
    value: Any,
    found: Problems,
    key_rule: Rule | None = None,
    value_rule: Rule | None = None,
) -> dict[str, str]:
    """A map of strings (labels, annotations, ConfigMap data), its keys and string values held
    to their rules; the entries whose values are strings."""
    texts: dict[str, str] = {}
    for key, item in mapping(keys, value, found).items():
        problem = key_rule(key) if key_rule is not None else None
        if item is None:  # JSON null decodes as the empty string
            item = ""
        if string((*keys, key), item, found):
            texts[key] = item
            problem = problem or (value_rule(item) if value_rule is not None else None)
        if problem is not None:
            found.append(((*keys, key), problem))
    return texts


def strings(keys: Keys, value: Any, found: Problems) -> None:
    """A list of strings (a container's command or args)."""
    for index, item in enumerate(items(keys, value, found)):
        string((*keys, index), item, found)
