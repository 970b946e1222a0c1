"""Reading one cluster's Work directory into a Work set.

Aspects covered:
- every manifest is read with its path and reference; kustomization.yaml is skipped;
- a namespaced manifest without a namespace takes its folder's;
- files that are not one object matching their path are problems, and make the set
  incomplete: YAML errors, several documents, kind/group, namespace or name mismatches,
  paths of the wrong shape;
- the Gitfleet-Allow-Prune trailer: `all`, a list naming the cluster, or another cluster.
"""

from __future__ import annotations

import pytest
import workfiles
from builders import make_configmap, make_deployment, make_object

from gitfleet.agent import workdir

BASE = "works/m1/"


def _parse(files: dict[str, bytes]) -> workdir.WorkSet:
    return workdir.parse("m1", files, rendered_commit="r", source_commit="s")


def test_manifests_are_read_with_their_paths() -> None:
    docs = [make_object("v1", "Namespace", "shop"), make_deployment(), make_configmap()]
    found = _parse(workfiles.work_files({"m1": docs}))
    assert found.complete
    assert [(m.path, str(m.ref)) for m in found.manifests] == [
        ("works/m1/_cluster/Namespace.core/shop.yaml", "Namespace/shop"),
        ("works/m1/shop/ConfigMap.core/settings.yaml", "ConfigMap/shop/settings"),
        ("works/m1/shop/Deployment.apps/web.yaml", "Deployment/shop/web"),
    ]
    assert found.manifests[2].body["spec"]["replicas"] == 3


def test_a_namespaced_manifest_takes_its_folders_namespace() -> None:
    found = _parse(
        {
            BASE + "shop/ConfigMap.core/c.yaml": b"apiVersion: v1\nkind: ConfigMap\n"
            b"metadata: {name: c}\n"
        }
    )
    assert found.complete
    assert found.manifests[0].ref.namespace == "shop"
    assert found.manifests[0].body["metadata"]["namespace"] == "shop"


@pytest.mark.parametrize(
    ("path", "text", "problem"),
    [
        pytest.param("shop/ConfigMap.core/c.yaml", "a: [", "not valid YAML", id="yaml error"),
        pytest.param(
            "shop/ConfigMap.core/c.yaml",
            "{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n---\n{a: 1}\n",
            "expected one object, found 2",
            id="two documents",
        ),
        pytest.param(
            "shop/Secret.core/c.yaml",
            "{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}",
            "does not belong in Secret.core/",
            id="kind mismatch",
        ),
        pytest.param(
            "shop/ConfigMap.apps/c.yaml",
            "{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}",
            "does not belong in ConfigMap.apps/",
            id="group mismatch",
        ),
        pytest.param(
            "shop/ConfigMap.core/c.yaml",
            "{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: other}}",
            "does not match its folder",
            id="namespace mismatch",
        ),
        pytest.param(
            "_cluster/ConfigMap.core/c.yaml",
            "{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: shop}}",
            "does not match its folder",
            id="namespaced object in _cluster",
        ),
        pytest.param(
            "shop/ConfigMap.core/d.yaml",
            "{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}",
            "does not match the file name",
            id="name mismatch",
        ),
        pytest.param(
            "shop/c.yaml",
            "{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}",
            "not a manifest path",
            id="path too short",
        ),
        pytest.param(
            "shop/ConfigMap.core/c.yaml", "[1, 2]", "expected one Kubernetes object", id="a list"
        ),
        pytest.param(
            "shop/ConfigMap.core/c.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\ndata: {a: evil}\n",
            "not valid YAML: duplicate key 'data'",
            id="a key twice",
        ),
        pytest.param(
            "shop/ConfigMap.core/c.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  a: b\n  a: evil\n",
            "line 6, column 3",
            id="a nested key twice, located",
        ),
        pytest.param(
            "shop/ConfigMap.core/c.yaml",
            "{kind: ConfigMap, metadata: {name: c}}",
            "apiVersion and kind are required",
            id="no apiVersion",
        ),
    ],
)
def test_bad_files_make_the_set_incomplete(path: str, text: str, problem: str) -> None:
    found = _parse({BASE + path: text.encode()})
    assert not found.complete
    assert found.manifests == ()
    assert len(found.problems) == 1
    assert found.problems[0].startswith(BASE + path)
    assert problem in found.problems[0]


def test_the_kustomization_is_not_a_manifest() -> None:
    found = _parse({BASE + "kustomization.yaml": b"resources: []\n"})
    assert found.complete
    assert found.manifests == ()


@pytest.mark.parametrize(
    ("trailers", "allowed"),
    [
        pytest.param([{}], False, id="no trailer"),
        pytest.param([{"Gitfleet-Allow-Prune": "all"}], True, id="all"),
        pytest.param([{"Gitfleet-Allow-Prune": "m2, m1"}], True, id="named"),
        pytest.param([{"Gitfleet-Allow-Prune": "m2"}], False, id="another cluster"),
        pytest.param([{}, {"Gitfleet-Allow-Prune": "all"}], True, id="on the source commit"),
    ],
)
def test_allow_prune_trailer(trailers: list[dict[str, str]], allowed: bool) -> None:
    assert workdir.allows_prune(trailers, "m1") is allowed
