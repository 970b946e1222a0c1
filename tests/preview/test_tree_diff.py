"""Comparing two rendered trees.

Aspects covered:
- a resource whose binding changes clusters or replicas is listed as moved, with clusters
  added and removed and replicas before → after; a binding edited elsewhere is not a move;
- bindings only in the head are added, only in the base removed, with their clusters;
- manifests per cluster: added, changed and removed files with unified diffs; a cluster's
  kustomization.yaml and equal files are left out;
- resources are named from their paths (cluster scope, core group);
- the summary line: counts and plurals as in "3 resources move, 2 clusters gain 5 manifests,
  1 loses 1", and "no change".
"""

from __future__ import annotations

import pytest

from gitfleet.preview import diff


def binding(clusters: dict[str, int | None], extra: str = "") -> bytes:
    lines = ["apiVersion: work.karmada.io/v1alpha2", "kind: ResourceBinding", "spec:",
             "  clusters:"]  # fmt: skip
    for name, replicas in clusters.items():
        lines.append(f"  - name: {name}")
        if replicas is not None:
            lines.append(f"    replicas: {replicas}")
    return ("\n".join(lines) + "\n" + extra).encode()


WEB = "bindings/shop/Deployment.apps/web.yaml"
NS = "bindings/_cluster/Namespace.core/shop.yaml"


def test_moved_resource_lists_clusters_and_replicas() -> None:
    base = {WEB: binding({"m1": 2, "m2": 2})}
    head = {WEB: binding({"m2": 3, "m3": 1})}
    (moved,) = diff.compare(base, head).moved
    assert str(moved.resource) == "Deployment shop/web"
    assert moved.added == ("m3",)
    assert moved.removed == ("m1",)
    assert moved.replica_changes == (("m1", 2, None), ("m2", 2, 3), ("m3", None, 1))


def test_binding_edited_without_placement_change_is_not_a_move() -> None:
    base = {WEB: binding({"m1": 2})}
    head = {WEB: binding({"m1": 2}, "status: {}\n")}
    assert diff.compare(base, head).moved == ()


def test_added_and_removed_resources() -> None:
    base = {NS: binding({"m1": None})}
    head = {WEB: binding({"m1": 1})}
    found = diff.compare(base, head)
    assert [(str(p.resource), dict(p.after)) for p in found.added] == [
        ("Deployment shop/web", {"m1": 1})
    ]
    assert [(str(p.resource), dict(p.before)) for p in found.removed] == [
        ("Namespace shop", {"m1": None})
    ]
    assert found.removed[0].resource.group == ""


def test_manifests_per_cluster() -> None:
    base = {
        "works/m1/shop/Deployment.apps/web.yaml": b"replicas: 2\n",
        "works/m1/shop/ConfigMap.core/cfg.yaml": b"a: 1\n",
        "works/m1/kustomization.yaml": b"resources: [a]\n",
        "works/m2/shop/Service.core/web.yaml": b"port: 80\n",
    }
    head = {
        "works/m1/shop/Deployment.apps/web.yaml": b"replicas: 3\n",
        "works/m1/kustomization.yaml": b"resources: [b]\n",
        "works/m2/shop/Service.core/web.yaml": b"port: 80\n",
        "works/m3/shop/Deployment.apps/web.yaml": b"replicas: 1\n",
    }
    found = diff.compare(base, head)
    assert [(c.cluster, [(f.path.split("/")[-1], f.change) for f in c.files])
            for c in found.clusters] == [
        ("m1", [("cfg.yaml", "removed"), ("web.yaml", "changed")]),
        ("m3", [("web.yaml", "added")]),
    ]  # fmt: skip
    changed = found.clusters[0].files[1]
    assert changed.diff.splitlines() == [
        "--- a/works/m1/shop/Deployment.apps/web.yaml",
        "+++ b/works/m1/shop/Deployment.apps/web.yaml",
        "@@ -1 +1 @@",
        "-replicas: 2",
        "+replicas: 3",
    ]
    assert found.clusters[1].files[0].diff.startswith("--- /dev/null\n+++ b/works/m3/")


def test_file_without_final_newline_keeps_lines_apart() -> None:
    text = diff.unified("works/m1/x.yaml", b"a: 1", b"a: 2")
    assert text.endswith("-a: 1\n+a: 2\n")


def test_equal_trees_give_no_change() -> None:
    tree = {WEB: binding({"m1": 1}), "works/m1/shop/Deployment.apps/web.yaml": b"x\n"}
    found = diff.compare(tree, dict(tree))
    assert found.empty
    assert diff.summary(found) == "no change"


def _clusters(
    added: dict[str, int], removed: dict[str, int], changed: dict[str, int]
) -> tuple[diff.ClusterChanges, ...]:
    names = sorted({*added, *removed, *changed})
    return tuple(
        diff.ClusterChanges(
            name,
            tuple(
                diff.FileChange(f"works/{name}/{kind}{i}", kind, "")
                for kind, counts in (("added", added), ("removed", removed), ("changed", changed))
                for i in range(counts.get(name, 0))
            ),
        )
        for name in names
    )


def _moves(n: int) -> tuple[diff.Placement, ...]:
    return tuple(
        diff.Placement(diff.Resource("Deployment", "ns", f"r{i}"), {}, {}) for i in range(n)
    )


@pytest.mark.parametrize(
    ("moved", "added", "removed", "changed", "line"),
    [
        pytest.param(3, {"a": 2, "b": 3}, {"c": 1}, {}, "3 resources move, 2 clusters gain 5 "
                     "manifests, 1 loses 1", id="the example"),
        pytest.param(1, {"a": 1}, {}, {}, "1 resource moves, 1 cluster gains 1 manifest",
                     id="singular"),
        pytest.param(0, {}, {"a": 1, "b": 2}, {}, "2 clusters lose 3 manifests", id="only losses"),
        pytest.param(0, {}, {}, {"a": 1}, "1 manifest changes on 1 cluster", id="one change"),
        pytest.param(0, {}, {}, {"a": 2, "b": 1}, "3 manifests change on 2 clusters",
                     id="changes"),
    ],
)  # fmt: skip
def test_summary_line(
    moved: int, added: dict[str, int], removed: dict[str, int], changed: dict[str, int], line: str
) -> None:
    result = diff.TreeDiff(_moves(moved), (), (), _clusters(added, removed, changed))
    assert diff.summary(result) == line


def test_summary_counts_added_and_removed_resources() -> None:
    result = diff.TreeDiff((), _moves(2), _moves(1), ())
    assert diff.summary(result) == "2 resources added, 1 resource removed"


@pytest.mark.parametrize(
    ("path", "text"),
    [
        pytest.param("bindings/shop/Deployment.apps/web.yaml", "Deployment shop/web", id="ns"),
        pytest.param("bindings/_cluster/ClusterRole.rbac.authorization.k8s.io/view.yaml",
                     "ClusterRole view", id="cluster scope"),
        pytest.param("works/m1/shop/ConfigMap.core/a.b.yaml", "ConfigMap shop/a.b", id="dots"),
    ],
)  # fmt: skip
def test_resource_from_path(path: str, text: str) -> None:
    assert str(diff.Resource.from_path(path)) == text


@pytest.mark.parametrize(
    ("data", "placement"),
    [
        pytest.param(None, {}, id="absent"),
        pytest.param(b"spec: [", {}, id="broken yaml"),
        pytest.param(b"spec:\n  clusters: 3\n", {}, id="clusters not a list"),
        pytest.param(b"spec:\n  clusters:\n  - name: a\n    replicas: x\n  - 7\n", {"a": None},
                     id="odd entries"),
    ],
)  # fmt: skip
def test_placement_of_odd_bindings(data: bytes | None, placement: dict[str, int | None]) -> None:
    assert diff.placement_of(data) == placement
