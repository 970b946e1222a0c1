"""The syntax rules Kubernetes applies to names, labels and pointers, as one-line problems.

Ported from k8s.io/apimachinery/pkg/util/validation (IsDNS1035Label, IsConfigMapKey; IsDNS1123Label
is a field rule, `model.rules`; label keys and values and DNS-1123 subdomains are
`model.labelsyntax`, which the selectors share), apimachinery's ValidateAnnotations (keys of
any case, the size limit), and RFC 6901 for JSON pointers (Karmada checks them with
go-openapi/jsonpointer, which wants "" or a leading "/"; gitfleet also refuses `~` escapes
other than `~0` and `~1`, which JSON Patch rejects when the override is applied). Each function
returns None for a valid value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from gitfleet.model import labelsyntax, rules

_POINTER_ESCAPE = re.compile(r"~(?![01])")
_CONFIG_MAP_KEY = re.compile(r"[-._a-zA-Z0-9]+")
ANNOTATIONS_MAX_BYTES = 256 * 1024
_DNS1123_LABEL = rules.dns1123_label()


def dns1123_label(value: str) -> str | None:
    return _DNS1123_LABEL.problem(value)


def dns1035_label(value: str) -> str | None:
    """A DNS-1035 label: a DNS-1123 label that starts with a letter (Service names)."""
    problem = dns1123_label(value)
    if problem is None and not value[0].isalpha():
        return f"{value!r} must start with a lower case letter"
    return problem


def annotation_key(value: str) -> str | None:
    """An annotation key: a qualified name once lower-cased, as apimachinery's
    ValidateAnnotations checks it (`Example.com/Owner` passes there, not as a label key). Go
    lowers each character on its own, so `İ` becomes `i`, where Python's lower() adds a dot."""
    if labelsyntax.qualified_name(value.replace("\u0130", "i").lower()) is None:
        return None
    return labelsyntax.qualified_name(value)


def config_map_key(value: str) -> str | None:
    """A key of ConfigMap and Secret data: a file name in the volume it is mounted as."""
    if len(value) > 253:
        return f"{value!r} must be no more than 253 characters"
    if not _CONFIG_MAP_KEY.fullmatch(value):
        return f"{value!r} must consist of alphanumeric characters, '-', '_' or '.'"
    if value in (".", ".."):
        return f"{value!r} may not be used"
    return None


def annotations_size(annotations: Mapping[str, str]) -> str | None:
    size = sum(len(k.encode()) + len(v.encode()) for k, v in annotations.items())
    if size > ANNOTATIONS_MAX_BYTES:
        return f"annotations are {size} bytes, more than {ANNOTATIONS_MAX_BYTES}"
    return None


def json_pointer(value: str) -> str | None:
    if value and not value.startswith("/"):
        return f"{value!r} is not a JSON pointer: it must be empty or start with '/'"
    if _POINTER_ESCAPE.search(value):
        return f"{value!r} is not a JSON pointer: '~' must be followed by 0 or 1"
    return None
