"""Checks across objects: duplicates, policies that select nothing, clusters nobody defines,
PriorityClasses nobody defines.

A duplicate (same apiVersion, kind, namespace and name, every object in its effective
namespace, `model.scope`) is an error at the later definition, naming the first. A policy
whose selectors match no template, and a cluster name (in any cluster affinity, static weight,
override target or suspension) that no Cluster defines, are warnings: legal, but usually a typo.
Selectors match as Karmada's ResourceSelectorPriority does (kind, namespace, then name or label
selector: the model's `selectors.label_selector_matches`), against the templates in their
effective namespaces, as the detector matches them.

A propagation policy's `schedulePriority` names a PriorityClass that must be in the source: the
detector cannot build the binding of a namespaced template the policy claims without it, as
Karmada's cannot, and the render fails. So it is an error when the policy selects a namespaced
template, a warning otherwise (a policy that selects nothing, or only cluster-scoped templates,
whose bindings carry no priority).

A selector of `autoscaling/v1` HorizontalPodAutoscalers is a warning too: Karmada's detector
sees them all as `autoscaling/v2` (`model.preferred`), so it selects none.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from gitfleet.model import (
    diagnostic,
    loaded,
    meta,
    names,
    objects,
    policy,
    preferred,
    selectors,
    template,
)
from gitfleet.validation import _affinity, _report

Obj = meta.ApiObject | template.ResourceTemplate
Policy = (
    policy.PropagationPolicy
    | policy.ClusterPropagationPolicy
    | policy.OverridePolicy
    | policy.ClusterOverridePolicy
)
Keys = tuple[str | int, ...]


def all_objects(found: objects.ObjectSet) -> Iterator[Obj]:
    yield from found.templates
    yield from found.clusters
    yield from found.propagation_policies
    yield from found.cluster_propagation_policies
    yield from found.override_policies
    yield from found.cluster_override_policies
    yield from found.customizations
    yield from found.federated_hpas


def policies(found: objects.ObjectSet) -> Iterator[Policy]:
    yield from found.propagation_policies
    yield from found.cluster_propagation_policies
    yield from found.override_policies
    yield from found.cluster_override_policies


def _api_version(obj: Obj) -> str:
    return obj.api_version if isinstance(obj, template.ResourceTemplate) else obj.API_VERSION


def _written_version(obj: Obj) -> str:
    """The apiVersion the source writes (a template may be read in another: `model.preferred`)."""
    if isinstance(obj, template.ResourceTemplate) and obj.written_api_version:
        return obj.written_api_version
    return _api_version(obj)


def _identity(obj: Obj) -> tuple[str, str, str, str]:
    """An object's identity in an API server: its group, not its version, so that a kind
    written in two versions of one group (`autoscaling/v1` and `autoscaling/v2`) is one
    object, as the API server serves one object in every version of its group."""
    kind = obj.kind if isinstance(obj, template.ResourceTemplate) else obj.KIND
    return names.group_of(_api_version(obj)), kind, obj.namespace, obj.name


def duplicates(items: Iterable[Obj]) -> list[diagnostic.Diagnostic]:
    found = []
    first: dict[tuple[str, str, str, str], Obj] = {}
    ordered = sorted(items, key=lambda o: (o.origin.path, o.origin.line, o.origin.col))
    for obj in ordered:
        earlier = first.setdefault(_identity(obj), obj)
        if earlier is not obj:
            versions = _written_version(obj), _written_version(earlier)
            also = ""
            if versions[0] != versions[1]:
                also = f" ({versions[0]} and {versions[1]} are versions of one object)"
            message = f"duplicate {loaded.subject(obj)}{also}: first defined at "
            found.append(diagnostic.error(obj.origin, message, earlier.origin))
    return found


class _Templates:
    """Templates indexed for selector matching: by kind, by kind and namespace, and by name."""

    def __init__(self, items: Iterable[template.ResourceTemplate]) -> None:
        self.count = 0
        self.by_kind: dict[tuple[str, str], list[template.ResourceTemplate]] = {}
        self.by_namespace: dict[tuple[str, str, str], list[template.ResourceTemplate]] = {}
        self.names: set[tuple[str, str, str, str]] = set()
        self.names_anywhere: set[tuple[str, str, str]] = set()
        for item in items:
            kind, namespace = (item.api_version, item.kind), item.namespace
            self.by_kind.setdefault(kind, []).append(item)
            self.by_namespace.setdefault((*kind, namespace), []).append(item)
            self.names.add((*kind, namespace, item.name))
            self.names_anywhere.add((*kind, item.name))
            self.count += 1

    def any_selected(self, selector: policy.ResourceSelector, policy_namespace: str) -> bool:
        kind = (selector.api_version, selector.kind)
        namespace = policy_namespace or selector.namespace
        if policy_namespace and selector.namespace not in ("", policy_namespace):
            return False
        if selector.name:
            if namespace:
                return (*kind, namespace, selector.name) in self.names
            return (*kind, selector.name) in self.names_anywhere
        candidates = self.by_namespace.get((*kind, namespace), []) if namespace else None
        if candidates is None:
            candidates = self.by_kind.get(kind, [])
        if selector.label_selector is None:
            return bool(candidates)
        return any(
            selectors.label_selector_matches(selector.label_selector, item.labels)
            for item in candidates
        )


def _selects_something(obj: Policy, templates: _Templates) -> bool:
    chosen = obj.spec.resource_selectors
    namespace = obj.namespace
    if not chosen:  # an override policy without selectors applies to everything
        return templates.count > 0
    return any(templates.any_selected(s, namespace) for s in chosen)


def _cluster_names(obj: Policy) -> Iterator[tuple[Keys, str]]:
    """Every cluster name a policy mentions, with its path."""
    if isinstance(obj, (policy.PropagationPolicy, policy.ClusterPropagationPolicy)):
        affinities = _affinity.placement_affinities(obj.spec.placement)
        suspension = obj.spec.suspension
        on_clusters = suspension.dispatching_on_clusters if suspension else None
        for index, name in enumerate(on_clusters.cluster_names if on_clusters else ()):
            yield ("spec", "suspension", "dispatchingOnClusters", "clusterNames", index), name
    else:
        affinities = _affinity.override_affinities(obj.spec)
    for keys, affinity in affinities:
        for index, name in enumerate(affinity.cluster_names):
            yield (*keys, "clusterNames", index), name
        for index, name in enumerate(affinity.exclude):
            yield (*keys, "exclude", index), name


def _priority_classes(found: objects.ObjectSet) -> list[diagnostic.Diagnostic]:
    """Each propagation policy's schedulePriority naming no PriorityClass of the source."""
    chosen: list[policy.PropagationPolicy | policy.ClusterPropagationPolicy] = [
        *found.propagation_policies,
        *found.cluster_propagation_policies,
    ]
    wanting = [p for p in chosen if p.spec.schedule_priority is not None]
    if not wanting:
        return []
    classes = template.priority_classes(found.templates)
    namespaced = _Templates(t for t in found.templates if t.namespace)
    problems = []
    for obj in wanting:
        wanted = obj.spec.schedule_priority
        assert wanted is not None
        name = wanted.priority_class_name
        if name in classes:
            continue
        report = _report.Report(obj.origin, loaded.subject(obj))
        keys = ("spec", "schedulePriority", "priorityClassName")
        if _selects_something(obj, namespaced):
            report.error(
                keys,
                f"no PriorityClass named {name!r} in the source (scheduling.k8s.io/v1, with an "
                "integer value): the templates the policy claims get no binding",
            )
        else:
            report.warning(keys, f"no PriorityClass named {name!r} in the source")
        problems += report.diagnostics
    return problems


def across(found: objects.ObjectSet) -> list[diagnostic.Diagnostic]:
    """Duplicates, and per policy: selects nothing, names unknown clusters or PriorityClasses."""
    problems = duplicates(all_objects(found))
    templates = _Templates(found.templates)
    clusters = {c.name for c in found.clusters}
    for obj in policies(found):
        report = _report.Report(obj.origin, loaded.subject(obj))
        if not _selects_something(obj, templates):
            report.warning(("spec", "resourceSelectors"), "selects no resource template")
        for index, selector in enumerate(obj.spec.resource_selectors):
            if (selector.api_version, selector.kind) == preferred.HPA_V1:
                report.warning(
                    ("spec", "resourceSelectors", index, "apiVersion"),
                    "Karmada's detector sees every HorizontalPodAutoscaler as "
                    f"{preferred.HPA_PREFERRED} (its API server's preferred version), whatever "
                    f"version it is written in: select {preferred.HPA_PREFERRED}",
                )
        for keys, name in _cluster_names(obj):
            if name not in clusters:
                report.warning(keys, f"no Cluster named {name!r}")
        problems += report.diagnostics
    return problems + _priority_classes(found)
