"""Kubernetes' syntax of label keys and values (apimachinery's IsQualifiedName,
IsValidLabelValue, IsDNS1123Subdomain) and of a label selector's requirements
(metav1.LabelSelectorAsSelector), as one-line problems, None for a valid value.

Two stages need the same rules: `validate` reports each problem where it is written, and the
selectors (`selectors`) treat a label selector with a problem as Karmada does, where the
conversion fails and the selector matches nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gitfleet.model import meta

_NAME = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?")
_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
WITH_VALUES = ("In", "NotIn")
WITHOUT_VALUES = ("Exists", "DoesNotExist")


def dns1123_subdomain(value: str) -> str | None:
    if not value:
        return "must not be empty"
    if len(value) > 253:
        return f"{value!r} must be no more than 253 characters"
    if not _DNS1123_SUBDOMAIN.fullmatch(value):
        return (
            f"{value!r} must consist of lower case alphanumeric characters, '-' or '.', "
            "and start and end with an alphanumeric character"
        )
    return None


def qualified_name(value: str) -> str | None:
    """A label or annotation key: `[prefix/]name`, prefix a DNS subdomain, name <= 63."""
    prefix, slash, name = value.rpartition("/")
    if slash and not prefix:
        return f"{value!r}: prefix part must not be empty"
    if slash and dns1123_subdomain(prefix):
        return f"{value!r}: prefix part must be a DNS-1123 subdomain"
    if value.count("/") > 1:
        return f"{value!r}: a qualified name has at most one '/'"
    if not name:
        return f"{value!r}: name part must not be empty"
    if len(name) > 63:
        return f"{value!r}: name part must be no more than 63 characters"
    if not _NAME.fullmatch(name):
        return (
            f"{value!r}: name part must consist of alphanumeric characters, '-', '_' or '.', "
            "and start and end with an alphanumeric character"
        )
    return None


def overrider_key(key: str) -> str:
    """The label or annotation key a labelsOverrider's or annotationsOverrider's operation on
    `key` reaches: Karmada escapes only the key's `/` into the JSON-patch path, and its
    json-patch reads `~1` and `~0` back as `/` and `~`, so a key holding those sequences
    reaches another key."""
    return key.replace("/", "~1").replace("~1", "/").replace("~0", "~")


def label_value(value: str) -> str | None:
    if len(value) > 63:
        return f"{value!r} must be no more than 63 characters"
    if value and not _NAME.fullmatch(value):
        return (
            f"{value!r} must be empty or consist of alphanumeric characters, '-', '_' or '.', "
            "and start and end with an alphanumeric character"
        )
    return None


def operator(name: str, values: Sequence[str]) -> tuple[str, str] | None:
    """A matchExpression's operator with the number of its values: the field at fault
    (`operator` or `values`) and the problem."""
    if name in WITH_VALUES and not values:
        return "values", f"operator {name} needs at least one value"
    if name in WITHOUT_VALUES and values:
        return "values", f"operator {name} takes no values"
    if name not in WITH_VALUES + WITHOUT_VALUES:
        expected = ", ".join(WITH_VALUES + WITHOUT_VALUES)
        return "operator", f"unsupported operator {name!r}: expected {expected}"
    return None


def converts(selector: meta.LabelSelector) -> bool:
    """Whether `metav1.LabelSelectorAsSelector` accepts the selector (a selector knows it:
    `LabelSelector.convertible`, worked out once when it is made)."""
    return all(
        qualified_name(key) is None and label_value(value) is None
        for key, value in (selector.match_labels or {}).items()
    ) and all(
        qualified_name(e.key) is None
        and operator(e.operator, e.values) is None
        and all(label_value(v) is None for v in e.values)
        for e in selector.match_expressions
    )
