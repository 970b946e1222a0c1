"""Rendered paths: built from checked names, never outside their folder.

Aspects covered:
- the layout: namespaced and cluster-scoped objects, the core group, CRD groups, bindings;
- RBAC names with colons and dotted names are accepted;
- every escape attempt is refused, in each segment (cluster, namespace, kind, group, name):
  `..`, `.`, `/`, backslash, absolute paths, NUL, empty, hidden names, very long names,
  non-ASCII look-alikes (fullwidth solidus, one dot leader, Cyrillic letters), direction
  overrides, zero-width characters, newlines, upper case where Kubernetes forbids it.
"""

from __future__ import annotations

import pytest

from gitfleet.model.template import ResourceKey
from gitfleet.render import _paths


def _work_path(cluster: str, key: ResourceKey) -> str:
    """Where the render writes `key`'s manifest for `cluster`."""
    return f"{_paths.cluster_folder(cluster)}/{_paths.object_path(key)}"


@pytest.mark.parametrize(
    ("cluster", "key", "path"),
    [
        pytest.param(
            "east", ResourceKey("apps/v1", "Deployment", "shop", "web"),
            "works/east/shop/Deployment.apps/web.yaml", id="namespaced",
        ),
        pytest.param(
            "east", ResourceKey("v1", "Namespace", "", "shop"),
            "works/east/_cluster/Namespace.core/shop.yaml", id="cluster-scoped core",
        ),
        pytest.param(
            "gcp-euw1-a", ResourceKey("example.gitfleet.io/v1", "Widget", "ml", "w.1"),
            "works/gcp-euw1-a/ml/Widget.example.gitfleet.io/w.1.yaml", id="crd group",
        ),
        pytest.param(
            "c1", ResourceKey("rbac.authorization.k8s.io/v1", "ClusterRole", "", "system:a-b"),
            "works/c1/_cluster/ClusterRole.rbac.authorization.k8s.io/system:a-b.yaml",
            id="rbac colon name",
        ),
    ],
)  # fmt: skip
def test_layout(cluster: str, key: ResourceKey, path: str) -> None:
    assert _work_path(cluster, key) == path
    assert _paths.binding_path(key) == "bindings/" + path.split("/", 2)[2]


ESCAPES = [
    "..", ".", "", "../../etc", "/etc/passwd", "a/b", "a\\b", "a\0b", ".hidden", "a/../b",
    "x" * 300, "a\uff0fb", "a\u2024\u2024", "\u0430pp", "a\u202eb", "a\u200bb", "a\nb",
    "~", "$(x)", "a b", "\t",
]  # fmt: skip


def _key(**changes: str) -> ResourceKey:
    base = {"api_version": "apps/v1", "kind": "Deployment", "namespace": "shop", "name": "web"}
    return ResourceKey(**{**base, **changes})


@pytest.mark.parametrize("bad", [pytest.param(b, id=repr(b)[:40]) for b in ESCAPES])
@pytest.mark.parametrize("segment", ["cluster", "namespace", "kind", "group", "name"])
def test_escape_attempts_are_refused(segment: str, bad: str) -> None:
    if segment == "namespace" and bad == "":
        pytest.skip("an empty namespace is the cluster scope")
    cluster = bad if segment == "cluster" else "east"
    key = {
        "cluster": _key(),
        "namespace": _key(namespace=bad),
        "kind": _key(kind=bad),
        "group": _key(api_version=f"{bad}/v1"),
        "name": _key(name=bad),
    }[segment]
    if segment == "group" and bad == "":
        key = _key(api_version="/v1")
    with pytest.raises(_paths.PathError):
        path = _work_path(cluster, key)
        if segment == "group" and bad == "":
            assert path.count("/") == 4  # "/v1" has no group: core, not an escape
            raise _paths.PathError("core")


@pytest.mark.parametrize(
    ("what", "key"),
    [
        pytest.param("namespace", _key(namespace="Shop"), id="upper-case namespace"),
        pytest.param("cluster", _key(), id="upper-case cluster"),
        pytest.param("name", _key(name="w" * 251), id="name too long for a file"),
        pytest.param("API group", _key(api_version="g" * 254 + "/v1"), id="group too long"),
        pytest.param(
            "folder name too long", _key(api_version=("g" * 60 + ".") * 4 + "io/v1"),
            id="kind and group too long for a folder",
        ),
    ],
)  # fmt: skip
def test_kubernetes_rules(what: str, key: ResourceKey) -> None:
    with pytest.raises(_paths.PathError, match=what):
        _work_path("East" if what == "cluster" else "east", key)


def test_longest_name_fits_a_file_name() -> None:
    path = _work_path("east", _key(name="w" * 250))
    assert len(path.rsplit("/", 1)[1].encode()) == _paths.MAX_SEGMENT
