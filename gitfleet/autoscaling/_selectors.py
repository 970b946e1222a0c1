"""FederatedHPAs that control the same pods: Karmada's FederatedHPA controller (its
`validateAndParseSelector`, lifted from Kubernetes' HPA controller) lets none of them scale.

Karmada keeps every FederatedHPA's selector (its target's scale selector, a workload's
`spec.selector` as label selector text, read back with `labels.Parse`) and, evaluating one,
asks which FederatedHPAs select the pods its own selector finds; more than one, and it sets
ScalingActive False, reason AmbiguousSelector, and does not scale. Two FederatedHPAs naming
one template are such a pair, and so are two whose workloads' selectors overlap.

The pods are read from the source: a workload template's pods carry its pod template's labels
(`spec.template.metadata.labels`), in its namespace. A target without a selector or pod
labels (a custom resource) has its own pods, which only the FederatedHPAs naming it select.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from gitfleet.model import autoscaling, labelquery, meta, selectors, template


@dataclasses.dataclass(frozen=True, slots=True)
class Ambiguity:
    """Why a FederatedHPA does not scale: the selector it evaluates with, and every
    FederatedHPA (`namespace/name`, sorted) that selects the pods it finds."""

    selector: str
    controllers: tuple[str, ...]

    @property
    def message(self) -> str:
        return (
            f"pods by selector {self.selector} are controlled by multiple HPAs:"
            f" [{' '.join(self.controllers)}]"
        )


def _selector_text(t: template.ResourceTemplate) -> str | None:
    spec = t.body.get("spec")
    found = spec.get("selector") if isinstance(spec, dict) else None
    return labelquery.text(found) if isinstance(found, dict) else None


def _parsed(text: str | None) -> meta.LabelSelector | None:
    try:
        return labelquery.parse(text) if text is not None else None
    except ValueError:  # Karmada: InvalidSelector, which `validate` reports
        return None


def _pod_labels(t: template.ResourceTemplate) -> Mapping[str, str] | None:
    spec: Any = t.body.get("spec")
    pod = spec.get("template") if isinstance(spec, dict) else None
    meta_: Any = pod.get("metadata") if isinstance(pod, dict) else None
    labels = meta_.get("labels") if isinstance(meta_, dict) else None
    if not isinstance(labels, dict) or not labels:
        return None
    return {str(k): str(v) for k, v in labels.items()}


def ambiguities(
    targets: Sequence[tuple[autoscaling.FederatedHPA, template.ResourceTemplate]],
    templates: Sequence[template.ResourceTemplate],
) -> dict[tuple[str, str], Ambiguity]:
    """Each FederatedHPA (by namespace and name) whose pods more than one selects, given
    every FederatedHPA with its target template."""
    labels = {id(t): found for t in templates if (found := _pod_labels(t)) is not None}
    texts = {(hpa.namespace, hpa.name): _selector_text(target) for hpa, target in targets}
    chosen = {
        (hpa.namespace, hpa.name): (target, _parsed(texts[hpa.namespace, hpa.name]))
        for hpa, target in targets
    }

    def selects(hpa: tuple[str, str], pods: template.ResourceTemplate) -> bool:
        """Whether `hpa` selects the pods of the workload `pods` (its own target's always)."""
        target, selector = chosen[hpa]
        found = labels.get(id(pods))
        return pods is target or (
            found is not None and selectors.label_selector_matches(selector, found)
        )

    result: dict[tuple[str, str], Ambiguity] = {}
    for key in chosen:
        namespace = key[0]
        mine = [t for t in templates if t.namespace == namespace and selects(key, t)]
        controllers = sorted(
            f"{other[0]}/{other[1]}"
            for other in chosen
            if other[0] == namespace and any(selects(other, t) for t in mine)
        )
        if len(controllers) > 1:
            result[key] = Ambiguity(texts[key] or "", tuple(controllers))
    return result
