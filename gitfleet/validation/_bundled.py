"""Templates of the kinds Karmada interprets with the customizations it bundles (Kruise, Argo,
Flux, Kubeflow, ...), when the source gives gitfleet none for them: a warning, once per kind.

Karmada loads those customizations at start-up (pkg/resourceinterpreter/default/thirdparty), so
a CloneSet's replicas are divided and its health known without any configuration. gitfleet
ships none of them (they are Karmada's scripts): without a ResourceInterpreterCustomization for
the kind in the source or in `thirdPartyCustomizations`, such a template is a resource without
replicas, sent whole to every cluster, and its health is unknown. That silently differs from
Karmada, hence the warning.
"""

from __future__ import annotations

from collections.abc import Iterable

from gitfleet.model import config, diagnostic
from gitfleet.model.template import ResourceTemplate

KARMADA_BUNDLED: frozenset[tuple[str, str]] = frozenset(
    {
        ("apps.kruise.io/v1alpha1", "AdvancedCronJob"),
        ("apps.kruise.io/v1alpha1", "BroadcastJob"),
        ("apps.kruise.io/v1alpha1", "CloneSet"),
        ("apps.kruise.io/v1alpha1", "DaemonSet"),
        ("apps.kruise.io/v1alpha1", "SidecarSet"),
        ("apps.kruise.io/v1alpha1", "UnitedDeployment"),
        ("apps.kruise.io/v1beta1", "StatefulSet"),
        ("argoproj.io/v1alpha1", "Workflow"),
        ("batch.volcano.sh/v1alpha1", "Job"),
        ("flink.apache.org/v1beta1", "FlinkDeployment"),
        ("helm.toolkit.fluxcd.io/v2beta1", "HelmRelease"),
        ("kubeflow.org/v1", "Notebook"),
        ("kubeflow.org/v1", "PyTorchJob"),
        ("kubeflow.org/v1", "TFJob"),
        ("kubeflow.org/v2beta1", "MPIJob"),
        ("kustomize.toolkit.fluxcd.io/v1", "Kustomization"),
        ("kyverno.io/v1", "ClusterPolicy"),
        ("kyverno.io/v1", "Policy"),
        ("ray.io/v1", "RayCluster"),
        ("ray.io/v1", "RayJob"),
        ("ray.io/v1", "RayService"),
        ("source.toolkit.fluxcd.io/v1", "GitRepository"),
        ("source.toolkit.fluxcd.io/v1beta2", "Bucket"),
        ("source.toolkit.fluxcd.io/v1beta2", "HelmChart"),
        ("source.toolkit.fluxcd.io/v1beta2", "HelmRepository"),
        ("source.toolkit.fluxcd.io/v1beta2", "OCIRepository"),
        ("sparkoperator.k8s.io/v1beta2", "SparkApplication"),
    }
)
"""(apiVersion, kind) of every customization Karmada bundles."""


def check(
    templates: Iterable[ResourceTemplate],
    customizations: Iterable[config.ResourceInterpreterCustomization],
) -> list[diagnostic.Diagnostic]:
    """A warning at the first template (in the source's files) of each bundled kind no
    customization targets."""
    covered = {(c.spec.target.api_version, c.spec.target.kind) for c in customizations}
    uncovered = [
        t
        for t in templates
        if (k := (t.api_version, t.kind)) in KARMADA_BUNDLED and k not in covered
    ]
    first: dict[tuple[str, str], ResourceTemplate] = {}
    counts: dict[tuple[str, str], int] = {}
    for t in sorted(uncovered, key=lambda t: (t.origin.path, t.origin.line, t.origin.col)):
        kind = (t.api_version, t.kind)
        first.setdefault(kind, t)
        counts[kind] = counts.get(kind, 0) + 1
    found = []
    for kind, t in first.items():
        others = counts[kind] - 1
        more = f" (and {others} more of this kind)" if others else ""
        found.append(
            diagnostic.warning(
                t.origin,
                f"{t.kind} {t.name}{more}: Karmada interprets {t.api_version} {t.kind} with a"
                " customization it bundles (replicas, health, status), and gitfleet bundles"
                " none: without a ResourceInterpreterCustomization for it, in the source or in"
                " thirdPartyCustomizations, each cluster it is placed on gets all its replicas"
                " and its health is unknown",
            )
        )
    return found
