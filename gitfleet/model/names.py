"""Which names can be a segment of a rendered path: one rule, which `validate` reports and the
render stage enforces, so that a name render would refuse never passes validate.

    works/<cluster>/<namespace or _cluster>/<kind>.<group or core>/<name>.yaml

The rules are those Kubernetes applies to the same names: a cluster and a namespace are
DNS-1123 labels, a group a DNS-1123 subdomain, a kind a DNS-1035 label once lowercased (what the
API server requires of a CRD's kind), and a name ASCII letters, digits, `-`, `.`, `_` and `:`
(DNS-1123 subdomains, plus the colons RBAC names such as `system:aggregate-to-admin` use),
never starting with `.`. So no segment can be empty, `.`, `..`, hidden, hold a `/`, a
backslash, NUL, a non-ASCII look-alike or a direction override, and each fits in a file name
(255 bytes). Each function returns what is wrong, or None.
"""

from __future__ import annotations

import re

MAX_SEGMENT = 255
"""Longest file name most file systems accept, in bytes."""
SUFFIX = ".yaml"
CORE_GROUP = "core"

_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_KIND = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
_NAME = re.compile(r"[A-Za-z0-9][-A-Za-z0-9._:]*")
_NAME_RULE = "made of ASCII letters, digits, '-', '.', '_' and ':', starting with a letter or digit"


def _problem(what: str, value: str, pattern: re.Pattern[str], limit: int, rule: str) -> str | None:
    if len(value) > limit or not value.isascii() or pattern.fullmatch(value) is None:
        shown = value if len(value) <= 80 else value[:77] + "..."
        return f"{what} {shown!r} is not {rule} (at most {limit} characters)"
    return None


def cluster_problem(name: str) -> str | None:
    return _problem("cluster name", name, _LABEL, 63, "a DNS-1123 label")


def namespace_problem(namespace: str) -> str | None:
    """What is wrong with a namespace ("" is cluster-scoped, and fine)."""
    if not namespace:
        return None
    return _problem("namespace", namespace, _LABEL, 63, "a DNS-1123 label")


def group_of(api_version: str) -> str:
    return api_version.rpartition("/")[0] if "/" in api_version else ""


def kind_problem(api_version: str, kind: str) -> str | None:
    """What is wrong with a kind and the group of an apiVersion, as one folder name."""
    group = group_of(api_version)
    problem = _problem("kind", kind.lower(), _KIND, 63, "a DNS-1035 label when lowercased")
    if problem is None and group:
        problem = _problem("API group", group, _SUBDOMAIN, 253, "a DNS-1123 subdomain")
    segment = f"{kind}.{group or CORE_GROUP}"
    if problem is None and len(segment) > MAX_SEGMENT:
        problem = f"kind and group {segment[:80]!r}... make a folder name too long"
    return problem


def name_problem(name: str) -> str | None:
    return _problem("name", name, _NAME, MAX_SEGMENT - len(SUFFIX), _NAME_RULE)
