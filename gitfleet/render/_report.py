"""The files that describe a render rather than a resource: each cluster's kustomization.yaml
and render.yaml.

`works/<cluster>/kustomization.yaml` lists the cluster's files relative to its folder,
Namespaces first (a namespaced object needs its namespace), then every other file sorted, so
`kubectl apply -k`, Argo CD and Flux can apply the folder as it is. Every cluster of the fleet
has one, an empty list included: an empty folder is a complete desired state, not a missing one.

`render.yaml` names the source commit, the renderer, the digest of the inputs every binding
reads (`inputs`, see `_inputs`), the cluster status the schedule used, the counts, what was
refused and why, the resources not scheduled and why (`_unscheduled`), and the warnings; with
failover, when the status was observed (`observedAt`) and the failover state (unhealthy
clusters, evictions waiting or given up); the taints ClusterTaintPolicies added to clusters
(`clusterTaints`, which the next render starts from). It holds nothing that changes when the
output does not, except `sourceCommit`, `inputs`, `status` and `observedAt`, which name the
inputs the output was rendered from: a later render that changes no other file makes no rendered
commit (see `pipeline.render`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from gitfleet.model import diagnostic
from gitfleet.render import _paths, _unscheduled, _work, _yaml

API_VERSION = "gitfleet.io/v1alpha1"
KIND = "Render"
SEEN = "seen"
"""render.yaml's section of the templates no fresh binding records."""
_NAMESPACE_FOLDER = f"{_paths.CLUSTER_SCOPE}/Namespace.{_paths.CORE_GROUP}/"


class Kustomizations:
    """The kustomizations of one render, each written once however many clusters list the same
    files (clusters placed alike have the same listing; writing one of ten thousand files
    costs more than finding it), held for the render's length only: a long-running
    reconciler keeps none of them."""

    def __init__(self) -> None:
        self._written: dict[tuple[str, ...], bytes] = {}

    def of(self, relative_paths: Iterable[str]) -> bytes:
        """The kustomization.yaml listing `relative_paths` (a cluster's files)."""
        paths = tuple(sorted(relative_paths))
        found = self._written.get(paths)
        if found is None:
            found = self._written[paths] = _kustomization(paths)
        return found


def _kustomization(paths: Sequence[str]) -> bytes:
    ordered = [p for p in paths if p.startswith(_NAMESPACE_FOLDER)]
    ordered += [p for p in paths if not p.startswith(_NAMESPACE_FOLDER)]
    doc = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "resources": ordered,
    }
    return _yaml.dump(doc)


def render_file(
    *,
    source_commit: str | None,
    renderer: str,
    inputs: Mapping[str, str],
    status: Mapping[str, Mapping[str, str]],
    bindings: int,
    manifests: Mapping[str, int],
    refusals: Sequence[_work.Refusal],
    unscheduled: Sequence[_unscheduled.Unscheduled],
    warnings: Sequence[diagnostic.Diagnostic],
    failover: Mapping[str, Any] | None = None,
    observed_at: str | None = None,
    cluster_taints: Mapping[str, Any] | None = None,
    seen: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """render.yaml's document; `observedAt` and `failover` only when failover ran,
    `clusterTaints` only when ClusterTaintPolicies tainted a cluster, `seen` only when the
    detector recorded a template there (see `detector.detection.Seen`)."""
    doc = {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "sourceCommit": source_commit,
        "renderer": renderer,
        "inputs": dict(inputs),
        "status": {name: dict(value) for name, value in status.items()},
        "counts": {
            "bindings": bindings,
            "clusters": len(manifests),
            "manifests": sum(manifests.values()),
            "refused": len(refusals),
            "unscheduled": len(unscheduled),
            "warnings": len(warnings),
        },
        "clusters": {name: {"manifests": n} for name, n in manifests.items()},
        "refused": [r.to_json() for r in refusals],
        "unscheduled": [u.to_json() for u in unscheduled],
        "warnings": [w.to_json() for w in warnings],
    }
    if observed_at is not None:
        doc["observedAt"] = observed_at
    if failover is not None:
        doc["failover"] = dict(failover)
    if cluster_taints:
        doc["clusterTaints"] = dict(cluster_taints)
    if seen:
        doc[SEEN] = [dict(s) for s in seen]
    return doc
