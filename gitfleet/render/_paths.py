"""Paths of the rendered tree, built only from names that cannot leave their folder.

    works/<cluster>/<namespace or _cluster>/<kind>.<group or core>/<name>.yaml
    works/<cluster>/kustomization.yaml
    bindings/<namespace or _cluster>/<kind>.<group or core>/<name>.yaml
    render.yaml

Every segment is checked before it is joined, with the rules Kubernetes applies to the same
names: a cluster and a namespace are DNS-1123 labels, a group a DNS-1123 subdomain, a kind a
DNS-1035 label once lowercased (what the API server requires of a CRD's kind), and a name
ASCII letters, digits, `-`, `.`, `_` and `:` (DNS-1123 subdomains, plus the colons RBAC names
such as `system:aggregate-to-admin` use), never starting with `.`. So no segment can be empty,
`.`, `..`, hidden, hold a `/`, a backslash, NUL, a non-ASCII look-alike or a direction
override, and each fits in a file name (255 bytes). A name that fails is reported by the
caller for that resource; nothing is written for it.
"""

from __future__ import annotations

import functools
import re

from gitfleet.model.template import ResourceKey

WORKS = "works"
BINDINGS = "bindings"
RENDER_FILE = "render.yaml"
KUSTOMIZATION = "kustomization.yaml"
CLUSTER_SCOPE = "_cluster"
CORE_GROUP = "core"
SUFFIX = ".yaml"
MAX_SEGMENT = 255
"""Longest file name most file systems accept, in bytes."""

_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_KIND = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
_NAME = re.compile(r"[A-Za-z0-9][-A-Za-z0-9._:]*")


class PathError(ValueError):
    """A name that cannot be part of a rendered path; the message says which and why."""


def _check(what: str, value: str, pattern: re.Pattern[str], limit: int, rule: str) -> str:
    if len(value) > limit or not value.isascii() or pattern.fullmatch(value) is None:
        shown = value if len(value) <= 80 else value[:77] + "..."
        raise PathError(f"{what} {shown!r} is not {rule} (at most {limit} characters)")
    return value


def cluster_segment(name: str) -> str:
    return _check("cluster name", name, _LABEL, 63, "a DNS-1123 label")


def namespace_segment(namespace: str) -> str:
    if not namespace:
        return CLUSTER_SCOPE
    return _check("namespace", namespace, _LABEL, 63, "a DNS-1123 label")


def kind_segment(api_version: str, kind: str) -> str:
    group = api_version.rpartition("/")[0] if "/" in api_version else ""
    _check("kind", kind.lower(), _KIND, 63, "a DNS-1035 label when lowercased")
    if group:
        _check("API group", group, _SUBDOMAIN, 253, "a DNS-1123 subdomain")
    segment = f"{kind}.{group or CORE_GROUP}"
    if len(segment) > MAX_SEGMENT:
        raise PathError(f"kind and group {segment[:80]!r}... make a folder name too long")
    return segment


def name_segment(name: str) -> str:
    rule = "made of ASCII letters, digits, '-', '.', '_' and ':', starting with a letter or digit"
    _check("name", name, _NAME, MAX_SEGMENT - len(SUFFIX), rule)
    return name + SUFFIX


@functools.lru_cache(maxsize=65536)
def object_path(key: ResourceKey) -> str:
    """`<namespace or _cluster>/<kind>.<group or core>/<name>.yaml`; `PathError` if any part
    is not a valid name."""
    return "/".join(
        (namespace_segment(key.namespace), kind_segment(key.api_version, key.kind),
         name_segment(key.name))
    )  # fmt: skip


@functools.lru_cache(maxsize=4096)
def cluster_folder(cluster: str) -> str:
    """`works/<cluster>`; kept once checked, as every render asks for it once per manifest."""
    return f"{WORKS}/{cluster_segment(cluster)}"


def work_path(cluster: str, key: ResourceKey) -> str:
    return f"{cluster_folder(cluster)}/{object_path(key)}"


def binding_path(key: ResourceKey) -> str:
    return f"{BINDINGS}/{object_path(key)}"
