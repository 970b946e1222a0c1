"""The namespace every object of a source lives in (`model.scope`), as kubectl and the API
server would store it.

Aspects covered: namespaced templates without a namespace land in the default namespace, or in
the one the source names; built-in cluster-scoped kinds lose a namespace, with a warning; CRDs
in the source decide a custom kind's scope, and the kinds Karmada's control plane serves have
theirs (ServiceExport, ServiceImport); an unknown kind is assumed namespaced,
with a warning naming the namespace; PropagationPolicies and OverridePolicies get the same default;
cluster-scoped Karmada kinds lose a namespace, with a warning; objects that need nothing are
returned as they are.
"""

from __future__ import annotations

from typing import Any

import pytest
from builders import make_cluster, make_cluster_policy, make_crd, make_object, make_policy

from gitfleet.model import cluster, diagnostic, policy, scope
from gitfleet.model.origin import Origin
from gitfleet.model.template import ResourceTemplate


def template(doc: dict[str, Any], line: int = 1) -> ResourceTemplate:
    body: Any = doc
    return ResourceTemplate(body, Origin("source.yaml", line, 1))


def warnings(found: list[diagnostic.Diagnostic]) -> list[str]:
    return [d.message for d in found if d.severity is diagnostic.Severity.WARNING]


@pytest.mark.parametrize(
    ("docs", "default", "namespace", "warned"),
    [
        pytest.param(
            [make_object("v1", "ConfigMap", "x")],
            "default",
            "default",
            "",
            id="kubectl: a namespaced kind without namespace lands in default",
        ),
        pytest.param(
            [make_object("v1", "ConfigMap", "x")],
            "apps",
            "apps",
            "",
            id="defaultNamespace: the source's own default",
        ),
        pytest.param(
            [make_object("v1", "ConfigMap", "x", "shop")],
            "apps",
            "shop",
            "",
            id="a namespace written is kept",
        ),
        pytest.param(
            [make_object("rbac.authorization.k8s.io/v1", "ClusterRole", "x", "shop")],
            "default",
            "",
            "ClusterRole x: metadata.namespace is ignored, ClusterRole is cluster-scoped",
            id="apiserver: a cluster-scoped kind's namespace is cleared",
        ),
        pytest.param(
            [
                make_crd("example.io", "Gadget", "Cluster"),
                make_object("example.io/v1", "Gadget", "x"),
            ],
            "default",
            "",
            "",
            id="CRD spec.scope Cluster in the source",
        ),
        pytest.param(
            [make_object("multicluster.x-k8s.io/v1alpha1", "ServiceExport", "web")],
            "default",
            "default",
            "",
            id="ServiceExport: Karmada installs its CRD, namespaced",
        ),
        pytest.param(
            [make_object("multicluster.x-k8s.io/v1alpha1", "ServiceImport", "web")],
            "default",
            "default",
            "",
            id="ServiceImport: Karmada installs its CRD, namespaced",
        ),
        pytest.param(
            [make_object("example.io/v1", "Gadget", "x")],
            "apps",
            "apps",
            "Gadget x: no CustomResourceDefinition in the source says whether Gadget is "
            "namespaced; assuming namespace 'apps' (set metadata.namespace, or add the CRD)",
            id="unknown kind without CRD: assumed namespaced, with a warning",
        ),
        pytest.param(
            [make_object("example.io/v1", "Gadget", "x", "shop")],
            "default",
            "shop",
            "",
            id="unknown kind with a namespace: namespaced",
        ),
    ],
)
def test_template_namespace(
    docs: list[dict[str, Any]], default: str, namespace: str, warned: str
) -> None:
    placed, found = scope.effective([template(d, i) for i, d in enumerate(docs)], default)
    last = placed[-1]
    assert isinstance(last, ResourceTemplate)
    assert last.namespace == namespace
    assert last.key.namespace == namespace
    assert ("namespace" in last.metadata) is bool(namespace)
    assert warnings(found) == ([warned] if warned else [])


@pytest.mark.parametrize(
    ("doc", "kind"),
    [
        pytest.param(make_policy("web", namespace=""), policy.PropagationPolicy, id="pp"),
        pytest.param(
            {**make_policy("web", namespace=""), "kind": "OverridePolicy", "spec": {}},
            policy.OverridePolicy,
            id="op",
        ),
    ],
)
def test_namespaced_policies_get_the_same_default(doc: dict[str, Any], kind: Any) -> None:
    doc["metadata"].pop("namespace")
    made = kind.from_doc(doc, Origin("p.yaml", 1, 1))
    placed, found = scope.effective([made], "apps")
    assert placed[0].namespace == "apps"
    assert placed[0].origin == made.origin
    assert found == []


@pytest.mark.parametrize(
    "doc",
    [
        pytest.param({**make_cluster("m1"), "metadata": {"name": "m1", "namespace": "x"}}),
        pytest.param({**make_cluster_policy("all"), "metadata": {"name": "all", "namespace": "x"}}),
    ],
    ids=["Cluster", "ClusterPropagationPolicy"],
)
def test_cluster_scoped_karmada_kinds_lose_a_namespace(doc: dict[str, Any]) -> None:
    kind = {"Cluster": cluster.Cluster, "ClusterPropagationPolicy": policy.ClusterPropagationPolicy}
    made = kind[doc["kind"]].from_doc(doc, Origin("c.yaml", 1, 1))
    placed, found = scope.effective([made])
    assert placed[0].namespace == ""
    assert warnings(found) == [
        f"{doc['kind']} {made.name}: metadata.namespace is ignored, {doc['kind']} is cluster-scoped"
    ]


def test_objects_needing_nothing_are_returned_as_they_are() -> None:
    kept = [
        template(make_object("v1", "ConfigMap", "x", "shop")),
        template(
            make_object("v1", "Namespace", "shop", labels={"kubernetes.io/metadata.name": "shop"})
        ),
        policy.PropagationPolicy.from_doc(make_policy("web")),
        cluster.Cluster.from_doc(make_cluster("m1")),
    ]
    placed, found = scope.effective(kept)
    assert all(a is b for a, b in zip(placed, kept, strict=True))
    assert found == []


def test_a_namespace_is_labelled_with_its_name_as_the_api_server_does() -> None:
    written = template(make_object("v1", "Namespace", "shop", labels={"team": "a"}))
    (placed,), found = scope.effective([written])
    assert isinstance(placed, ResourceTemplate)
    assert placed.labels == {"team": "a", "kubernetes.io/metadata.name": "shop"}
    assert written.labels == {"team": "a"}
    assert found == []
