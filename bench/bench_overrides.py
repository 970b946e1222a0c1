"""Overrides on 10,000 Deployments x 3 rules (a ClusterOverridePolicy adding labels, one
OverridePolicy per namespace changing the image registry, a cluster-targeted plaintext
replica change), through `gitfleet.overrides.apply` as the render stage calls it.

Prints manifests per second and the ratio to a baseline measured in the same run: a plain
`copy.deepcopy` of the same manifests (the least any override must do). Budget: 2 s.

    python -m bench.bench_overrides      (from the repository root)
"""

from __future__ import annotations

import copy
import time
from typing import Any

from gitfleet import overrides
from gitfleet.model import cluster, policy

MANIFESTS = 10_000
NAMESPACES = 10
BUDGET_SECONDS = 2.0


def _deployment(i: int) -> Any:
    name = f"app-{i}"
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": name,
            "namespace": f"ns-{i % NAMESPACES}",
            "labels": {"app": name, "tier": "web"},
        },
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {
                    "containers": [
                        {
                            "name": "main",
                            "image": f"registry.example.com/team/{name}:1.{i % 7}",
                            "ports": [{"containerPort": 8080}],
                            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
                        }
                    ]
                },
            },
        },
    }


def _policy(kind: type[Any], name: str, namespace: str | None, spec: dict[str, Any]) -> Any:
    metadata = {"name": name, **({"namespace": namespace} if namespace else {})}
    return kind.from_doc(
        {"apiVersion": policy.API_VERSION, "kind": kind.KIND, "metadata": metadata, "spec": spec}
    )


def main() -> None:
    manifests = [_deployment(i) for i in range(MANIFESTS)]
    member = cluster.Cluster.from_doc(
        {
            "apiVersion": "cluster.karmada.io/v1alpha1",
            "kind": "Cluster",
            "metadata": {"name": "member1", "labels": {"env": "prod"}},
            "spec": {"syncMode": "Push", "region": "eu"},
        }
    )
    labels = {"labelsOverrider": [{"operator": "add", "value": {"gitfleet.io/env": "prod"}}]}
    replicas = {"plaintext": [{"operator": "replace", "path": "/spec/replicas", "value": 5}]}
    image = {
        "imageOverrider": [{"component": "Registry", "operator": "replace", "value": "mirror.eu"}]
    }
    deployments = [{"apiVersion": "apps/v1", "kind": "Deployment"}]
    cops = [
        _policy(
            policy.ClusterOverridePolicy,
            "labels",
            None,
            {"overrideRules": [{"overriders": labels}]},
        ),
        _policy(
            policy.ClusterOverridePolicy,
            "replicas",
            None,
            {
                "overrideRules": [
                    {
                        "targetCluster": {"labelSelector": {"matchLabels": {"env": "prod"}}},
                        "overriders": replicas,
                    }
                ]
            },
        ),
    ]
    ops = [
        _policy(
            policy.OverridePolicy,
            "mirror",
            f"ns-{n}",
            {"resourceSelectors": deployments, "overrideRules": [{"overriders": image}]},
        )
        for n in range(NAMESPACES)
    ]

    start = time.perf_counter()
    for manifest in manifests:
        copy.deepcopy(manifest)
    baseline = time.perf_counter() - start

    start = time.perf_counter()
    results = [overrides.apply(m, member, ops, cops) for m in manifests]
    elapsed = time.perf_counter() - start

    sample = results[-1]
    assert sample.manifest["spec"]["replicas"] == 5
    assert sample.manifest["metadata"]["labels"]["gitfleet.io/env"] == "prod"
    image_ref = sample.manifest["spec"]["template"]["spec"]["containers"][0]["image"]
    assert image_ref.startswith("mirror.eu/team/"), image_ref
    assert len(sample.applied_cluster_overrides) + len(sample.applied_overrides) == 3

    print(f"manifests:          {MANIFESTS} x 3 rules")
    print(f"overrides:          {elapsed:.3f} s  ({MANIFESTS / elapsed:,.0f} manifests/s)")
    print(f"baseline deepcopy:  {baseline:.3f} s  ({MANIFESTS / baseline:,.0f} manifests/s)")
    print(f"ratio to baseline:  {elapsed / baseline:.2f}x")
    verdict = "ok" if elapsed <= BUDGET_SECONDS else "OVER"
    print(f"budget:             {BUDGET_SECONDS:.1f} s -> {verdict}")


if __name__ == "__main__":
    main()
