"""The example repository is placed as its README says, by Karmada's arithmetic done by hand.

Aspects covered (once `gitfleet render` exists):
- every rendered manifest is one the README expects, on the expected clusters, and nothing
  is missing;
- each workload's manifest carries the replicas its cluster was given (after overrides:
  platform/gateway runs 4 on aws-use1-a);
- shop/web on aws-euw1 has the regional registry, the EU argument and both added labels.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from click.testing import Result

Invoke = Callable[..., Result]
Key = tuple[str, str, str]
"""(namespace or `_cluster`, `<kind>.<group or core>`, name), as in the rendered layout."""

A, B, EUW1, GCP, GPU = "aws-use1-a", "aws-use1-b", "aws-euw1", "gcp-euw1-a", "gcp-euw1-gpu"
GENERAL = (A, B, EUW1, GCP)
AWS = (A, B, EUW1)


def copies(*clusters: str) -> dict[str, int | None]:
    """Objects without replicas: one copy per cluster."""
    return dict.fromkeys(clusters)


EXPECTED: dict[Key, dict[str, int | None]] = {
    ("_cluster", "Namespace.core", "shop"): copies(*GENERAL, GPU),
    ("_cluster", "Namespace.core", "platform"): copies(*GENERAL, GPU),
    ("_cluster", "Namespace.core", "ml"): copies(*GENERAL, GPU),
    ("shop", "Deployment.apps", "web"): {A: 2, B: 2, EUW1: 1, GCP: 1},
    ("shop", "ConfigMap.core", "web-config"): copies(*GENERAL),
    ("shop", "Service.core", "web"): copies(*GENERAL),
    ("shop", "Deployment.apps", "api"): {A: 5, B: 3, EUW1: 2},
    ("shop", "Service.core", "api"): copies(*AWS),
    ("shop", "Deployment.apps", "worker"): {A: 20, B: 10},
    ("shop", "Deployment.apps", "search"): {A: 3, EUW1: 3, GCP: 3},
    ("shop", "Deployment.apps", "recommender"): {A: 4, B: 2, EUW1: 2},
    ("platform", "Deployment.apps", "gateway"): {A: 4, B: 2, EUW1: 2, GCP: 2},
    ("ml", "Deployment.apps", "inference"): {GPU: 2},
    (
        "_cluster",
        "CustomResourceDefinition.apiextensions.k8s.io",
        "widgets.example.gitfleet.io",
    ): copies(*GENERAL),
    ("shop", "Widget.example.gitfleet.io", "banner"): dict.fromkeys(GENERAL, 1),
    ("shop", "Widget.example.gitfleet.io", "hero"): {A: 1, EUW1: 1},
}


def rendered(out: Path) -> dict[Key, dict[str, int | None]]:
    """What `render --out` wrote under works/: cluster and replicas per object."""
    found: dict[Key, dict[str, int | None]] = {}
    for path in sorted((out / "works").glob("*/*/*/*.yaml")):
        cluster, namespace, kind_group = path.parts[-4:-1]
        manifest = yaml.safe_load(path.read_text(encoding="utf-8"))
        replicas = (manifest.get("spec") or {}).get("replicas")
        key = (namespace, kind_group, path.stem)
        found.setdefault(key, {})[cluster] = replicas
    return found


@pytest.mark.skipif(
    importlib.util.find_spec("gitfleet.cli.render") is None, reason="render not built yet"
)
def test_example_is_placed_as_documented(cli: Invoke, example: Path, tmp_path: Path) -> None:
    out = tmp_path / "rendered"
    result = cli("render", "--repo", str(example), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert rendered(out) == EXPECTED
    web = yaml.safe_load(
        (out / "works" / EUW1 / "shop" / "Deployment.apps" / "web.yaml").read_text()
    )
    (container,) = web["spec"]["template"]["spec"]["containers"]
    assert (
        container["image"] == "123456789012.dkr.ecr.eu-west-1.amazonaws.com/example-shop/web:1.4.2"
    )
    assert container["args"] == ["--listen=:8080", "--cookie-consent=required"]
    assert web["metadata"]["labels"]["cost.example.com/cloud"] == "aws"
    assert web["metadata"]["labels"]["compliance.example.com/gdpr"] == "true"
