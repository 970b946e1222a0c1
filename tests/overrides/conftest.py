"""Fixtures for override tests: builders of clusters, policies and Overriders blocks from API
documents, the operations one block generates, a block applied through the public entry point,
and a test-side JSON-pointer reader."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from gitfleet import overrides
from gitfleet.model import cluster, policy
from gitfleet.model._codec import decode
from gitfleet.model.origin import Origin
from gitfleet.overrides import _overriders

Doc = dict[str, Any]


def make_cluster(name: str, labels: dict[str, str] | None = None, **spec: Any) -> cluster.Cluster:
    return cluster.Cluster.from_doc(
        {
            "apiVersion": "cluster.karmada.io/v1alpha1",
            "kind": "Cluster",
            "metadata": {"name": name, "labels": labels or {}},
            "spec": {"syncMode": "Push", **spec},
        }
    )


def make_policy(
    name: str,
    spec: Doc,
    namespace: str | None = "default",
    path: str = "policies.yaml",
) -> policy.OverridePolicy | policy.ClusterOverridePolicy:
    """An OverridePolicy in `namespace`, or a ClusterOverridePolicy when it is None."""
    kind = policy.ClusterOverridePolicy if namespace is None else policy.OverridePolicy
    metadata = {"name": name} if namespace is None else {"name": name, "namespace": namespace}
    doc = {"apiVersion": policy.API_VERSION, "kind": kind.KIND, "metadata": metadata, "spec": spec}
    return kind.from_doc(doc, Origin(path))


def decode_overriders(doc: Doc) -> policy.Overriders:
    result: policy.Overriders = decode(policy.Overriders, doc, Origin("case"))
    return result


def block_ops(manifest: Doc, overriders: Doc) -> list[Doc]:
    """The JSON-patch operations each entry of a block generates, entry after entry, each
    against the manifest the previous entries left."""
    block = decode_overriders(overriders)
    generated: list[Doc] = []
    for _, attribute, build in _overriders.STEPS:
        for entry in getattr(block, attribute):
            ops = build(manifest, entry)
            generated += [op.to_doc() for op in ops]
    generated += [op.to_doc() for op in _overriders.plaintext_ops(block)]
    return generated


def apply_block(manifest: Doc, overriders: Doc, cluster_name: str = "member1") -> Doc:
    """The manifest after one block, applied by a ClusterOverridePolicy for every cluster."""
    cop = make_policy("case", {"overrideRules": [{"overriders": overriders}]}, namespace=None)
    result = overrides.apply(manifest, make_cluster(cluster_name), [], [cop])  # type: ignore[arg-type, list-item]
    return dict(result.manifest)


def pointer_get(doc: Any, pointer: str) -> Any:
    """The value at a JSON pointer (test-side reader, independent of the code under test)."""
    for raw in pointer.split("/")[1:]:
        token = raw.replace("~1", "/").replace("~0", "~")
        doc = doc[int(token)] if isinstance(doc, list) else doc[token]
    return doc


@pytest.fixture(name="deployment")
def deployment_fixture() -> Callable[..., Doc]:
    """A Deployment builder: `deployment(name, namespace, containers=[...], labels=...)`."""

    def build(
        name: str = "web",
        namespace: str = "default",
        containers: list[Doc] | None = None,
        **metadata: Any,
    ) -> Doc:
        return {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": name, "namespace": namespace, **metadata},
            "spec": {
                "replicas": 2,
                "template": {
                    "spec": {"containers": containers or [{"name": "web", "image": "nginx:1.25"}]}
                },
            },
        }

    return build


@pytest.fixture(name="make_cluster")
def make_cluster_fixture() -> Callable[..., cluster.Cluster]:
    return make_cluster


@pytest.fixture(name="make_policy")
def make_policy_fixture() -> Callable[..., Any]:
    return make_policy


@pytest.fixture(name="block_ops")
def block_ops_fixture() -> Callable[[Doc, Doc], list[Doc]]:
    return block_ops


@pytest.fixture(name="apply_block")
def apply_block_fixture() -> Callable[..., Doc]:
    return apply_block


@pytest.fixture(name="pointer_get")
def pointer_get_fixture() -> Callable[[Any, str], Any]:
    return pointer_get
