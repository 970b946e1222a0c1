"""Fixtures for override tests: builders of clusters, policies and Overriders blocks from API
documents, the operations one block generates, a block applied through the public entry point,
and a test-side JSON-pointer reader. This folder goes at the end of the import path, so that its
helper modules (`override_oracle_scenarios`) import by name in pytest's importlib mode."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import builders
import pytest

from gitfleet import overrides
from gitfleet.model import cluster, policy
from gitfleet.model._codec import decode
from gitfleet.model.origin import Origin
from gitfleet.overrides import _overriders

Doc = dict[str, Any]

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.append(HERE)  # last: `conftest` must still name tests/conftest.py


def make_cluster(name: str, labels: dict[str, str] | None = None, **spec: Any) -> cluster.Cluster:
    return cluster.Cluster.from_doc(builders.make_cluster(name, labels=labels, **spec))


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


def workload(kind: str = "Deployment", *containers: Doc | str, **metadata: Any) -> Doc:
    """A workload of `kind` whose pod spec has `containers` (an image alone stands for a
    container named after its position: c0, c1, ...)."""
    listed = [
        {"name": f"c{i}", "image": c} if isinstance(c, str) else c
        for i, c in enumerate(containers or ("nginx:1.25",))
    ]
    api_version = {"Pod": "v1", "Job": "batch/v1", "CronJob": "batch/v1"}.get(kind, "apps/v1")
    pod_spec = {"containers": listed}
    spec: Doc
    if kind == "Pod":
        spec = pod_spec
    elif kind == "CronJob":
        spec = {"jobTemplate": {"spec": {"template": {"spec": pod_spec}}}}
    else:
        spec = {"template": {"spec": pod_spec}}
    return {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": "web", "namespace": "default", **metadata},
        "spec": spec,
    }


@pytest.fixture(name="workload")
def workload_fixture() -> Callable[..., Doc]:
    return workload


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
