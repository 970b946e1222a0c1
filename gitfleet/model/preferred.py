"""Templates in the version Karmada's detector sees: the one its API server prefers.

Karmada's detector watches every resource at its preferred version only (it discovers them
with the API server's ServerPreferredResources, pkg/util/lifted/discovery.go), and the API
server converts an object written in another version of its group. So a built-in kind written
in an older version reaches the detector, policy matching, the interpreter and the Work in the
preferred one: Karmada's documentation (troubleshooting, "propagate autoscaling/v1 by select
autoscaling/v2") has a policy select an `autoscaling/v1` HorizontalPodAutoscaler as
`autoscaling/v2`, and the member cluster gets the v2 object.

The one such kind whose versions differ in shape is the HorizontalPodAutoscaler. Its v1 spec
is converted as Kubernetes' autoscaling conversion does: `scaleTargetRef`, `minReplicas` and
`maxReplicas` as they are, `targetCPUUtilizationPercentage` as v2's one CPU Utilization
metric (none without it; the member's API server then defaults 80%). Not read: the alpha
annotations a v1 client keeps v2-only fields in (`autoscaling.alpha.kubernetes.io/metrics`,
`.../behavior`), which nobody writes by hand. A v1 spec holding a field v1 does not have, or
a value of the wrong type, is left as written, so that validation reports it in v1's terms.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from gitfleet.model.template import RawObject, ResourceTemplate

HPA_V1 = ("autoscaling/v1", "HorizontalPodAutoscaler")
HPA_PREFERRED = "autoscaling/v2"

_V1_SPEC = frozenset(
    {"scaleTargetRef", "minReplicas", "maxReplicas", "targetCPUUtilizationPercentage"}
)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _v2_spec(spec: dict[str, Any]) -> dict[str, Any]:
    converted = {k: v for k, v in spec.items() if k != "targetCPUUtilizationPercentage"}
    target = spec.get("targetCPUUtilizationPercentage")
    if target is not None:
        utilization = {"type": "Utilization", "averageUtilization": target}
        converted["metrics"] = [
            {"type": "Resource", "resource": {"name": "cpu", "target": utilization}}
        ]
    return converted


def _convertible(body: RawObject) -> bool:
    spec = body.get("spec")
    if spec is None:
        return True
    if not isinstance(spec, dict) or not set(spec) <= _V1_SPEC:
        return False
    target = spec.get("targetCPUUtilizationPercentage")
    return target is None or _is_int(target)


def preferred(template: ResourceTemplate) -> ResourceTemplate:
    """`template` in its group's preferred version (itself when it is in it already, or when
    it cannot be converted as written: see the module docstring)."""
    if (template.api_version, template.kind) != HPA_V1 or not _convertible(template.body):
        return template
    body: RawObject = {**template.body, "apiVersion": HPA_PREFERRED}
    spec = template.body.get("spec")
    if spec is not None:
        body["spec"] = _v2_spec(spec)
    return dataclasses.replace(template, body=body, written_api_version=template.api_version)
