"""Paths of the rendered tree, built only from names that cannot leave their folder.

    works/<cluster>/<namespace or _cluster>/<kind>.<group or core>/<name>.yaml
    works/<cluster>/kustomization.yaml
    bindings/<namespace or _cluster>/<kind>.<group or core>/<name>.yaml
    render.yaml

Every segment is checked before it is joined, with the rules of `model.names` (which
`validate` reports too). A name that fails is reported by the caller for that resource;
nothing is written for it.
"""

from __future__ import annotations

import functools

from gitfleet.model import names
from gitfleet.model.template import ResourceKey

WORKS = "works"
BINDINGS = "bindings"
RENDER_FILE = "render.yaml"
KUSTOMIZATION = "kustomization.yaml"
CLUSTER_SCOPE = "_cluster"
CORE_GROUP = names.CORE_GROUP
SUFFIX = names.SUFFIX
MAX_SEGMENT = names.MAX_SEGMENT


class PathError(ValueError):
    """A name that cannot be part of a rendered path; the message says which and why."""


def _checked(value: str, problem: str | None) -> str:
    if problem is not None:
        raise PathError(problem)
    return value


def cluster_segment(name: str) -> str:
    return _checked(name, names.cluster_problem(name))


def namespace_segment(namespace: str) -> str:
    return _checked(namespace, names.namespace_problem(namespace)) or CLUSTER_SCOPE


def kind_segment(api_version: str, kind: str) -> str:
    segment = f"{kind}.{names.group_of(api_version) or CORE_GROUP}"
    return _checked(segment, names.kind_problem(api_version, kind))


def name_segment(name: str) -> str:
    return _checked(name, names.name_problem(name)) + SUFFIX


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


def binding_path(key: ResourceKey) -> str:
    return f"{BINDINGS}/{object_path(key)}"
