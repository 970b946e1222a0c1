"""TaintToleration filter: the placement's clusterTolerations must tolerate every NoSchedule
and NoExecute taint of the cluster (Karmada: pkg/scheduler/framework/plugins/tainttoleration/
taint_toleration.go; Kubernetes: component-helpers FindMatchingUntoleratedTaint and
core/v1 Toleration.ToleratesTaint, comparison operators disabled as Karmada does).

A cluster already in the result always passes: Karmada leaves evicting it to the taint
manager. PreferNoSchedule taints never block.
"""

from __future__ import annotations

from gitfleet.model import meta
from gitfleet.scheduler import framework

NAME = "TaintToleration"


def tolerates(toleration: meta.Toleration, taint: meta.Taint) -> bool:
    """Kubernetes Toleration.ToleratesTaint: an empty effect or key matches any; Exists ignores
    the value; Equal (or empty) needs the same value; Lt/Gt are not enabled."""
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.key and toleration.key != taint.key:
        return False
    if toleration.operator in ("", "Equal"):
        return toleration.value == taint.value
    return toleration.operator == "Exists"


def taint_text(taint: meta.Taint) -> str:
    """corev1 Taint.ToString: `key=value:effect`, or `key:effect` without a value."""
    if not taint.value:
        return f"{taint.key}:{taint.effect}"
    return f"{taint.key}={taint.value}:{taint.effect}"


class TaintToleration:
    """Passes clusters whose blocking taints are all tolerated."""

    NAME = NAME

    def filter(
        self, spec: framework.Spec, status: framework.Status, info: framework.ClusterInfo
    ) -> framework.Result:
        if not info.blocking_taints or info.name in framework.target_names(spec):
            return framework.SUCCESS
        tolerations = spec.placement.cluster_tolerations if spec.placement else ()
        for taint in info.blocking_taints:
            if not any(tolerates(t, taint) for t in tolerations):
                return framework.unschedulable(
                    f"cluster(s) had untolerated taint {{{taint_text(taint)}}}"
                )
        return framework.SUCCESS


def new() -> TaintToleration:
    return TaintToleration()
