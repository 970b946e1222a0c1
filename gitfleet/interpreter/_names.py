"""Kubernetes name rules the interpreter checks: qualified names, label values, DNS subdomains.

Karmada relies on them through apimachinery (pkg/util/validation/validation.go IsQualifiedName,
IsValidLabelValue, IsDNS1123Subdomain).
"""

from __future__ import annotations

import re

_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_MAX_NAME = 63
_MAX_SUBDOMAIN = 253


def is_dns1123_subdomain(value: str) -> bool:
    return len(value) <= _MAX_SUBDOMAIN and _DNS1123_SUBDOMAIN.fullmatch(value) is not None


def is_qualified_name(value: str) -> bool:
    """`name` or `prefix/name`: a label key, an annotation key, an extended resource name."""
    prefix, slash, name = value.rpartition("/")
    if slash and (not prefix or "/" in prefix or not is_dns1123_subdomain(prefix)):
        return False
    return len(name) <= _MAX_NAME and _NAME.fullmatch(name) is not None


def is_label_value(value: str) -> bool:
    """Empty, or up to 63 alphanumerics, `-`, `_` and `.` that start and end alphanumeric."""
    return value == "" or (len(value) <= _MAX_NAME and _NAME.fullmatch(value) is not None)
