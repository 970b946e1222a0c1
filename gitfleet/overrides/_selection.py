"""Which override rules apply to a manifest on a cluster, and in which order
(Karmada: pkg/util/overridemanager/overridemanager.go getOverridersFromOverridePolicies).

A policy applies when it has no resource selectors or one of them matches. Policies are
stable-sorted ascending by implicit priority (no selectors counts as match-all, below a label
selector match, below a name match), then by name; there is no explicit priority. Each policy
contributes, in declaration order, the rules whose `targetCluster` is absent or matches the
cluster; the deprecated `spec.targetCluster` + `spec.overriders` form is one rule. Applied in
this order, a later (more specific, or larger-named) policy wins.

OverridePolicies are looked up by the manifest's namespace only, so the webhook's defaulting of
an empty selector namespace to the policy's namespace never changes a match and is not needed.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Sequence

from gitfleet.model import cluster, policy, selectors
from gitfleet.model.origin import PathKey
from gitfleet.model.template import ResourceTemplate

AnyOverridePolicy = policy.OverridePolicy | policy.ClusterOverridePolicy


@dataclasses.dataclass(frozen=True, slots=True)
class Rule:
    """One rule of a policy, with where its overriders are written in the policy."""

    target_cluster: policy.ClusterAffinity | None
    overriders: policy.Overriders
    keys: tuple[PathKey, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class Entry:
    """A policy prepared for matching."""

    policy: AnyOverridePolicy
    rules: tuple[Rule, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class Match:
    """A rule that applies, and the policy it belongs to."""

    policy: AnyOverridePolicy
    rule: Rule


def _entry(p: AnyOverridePolicy) -> Entry:
    spec = p.spec
    if spec.override_rules:
        rules = tuple(
            Rule(r.target_cluster, r.overriders, ("spec", "overrideRules", i, "overriders"))
            for i, r in enumerate(spec.override_rules)
        )
    else:
        rules = (Rule(spec.target_cluster, spec.overriders, ("spec", "overriders")),)
    return Entry(p, rules)


def _ordered(entries: Sequence[Entry], template: ResourceTemplate) -> list[Entry]:
    ranked = []
    for entry in entries:
        chosen = entry.policy.spec.resource_selectors
        priority = (
            selectors.selectors_priority(template, chosen)
            if chosen
            else selectors.ImplicitPriority.MATCH_ALL
        )
        if priority is not selectors.ImplicitPriority.MISMATCH:
            ranked.append((priority, entry.policy.name, entry))
    ranked.sort(key=lambda item: (item[0], item[1]))
    return [entry for _, _, entry in ranked]


def _matches(
    entries: Sequence[Entry], template: ResourceTemplate, target: cluster.Cluster
) -> tuple[Match, ...]:
    return tuple(
        Match(entry.policy, rule)
        for entry in _ordered(entries, template)
        for rule in entry.rules
        if rule.target_cluster is None or selectors.cluster_matches(target, rule.target_cluster)
    )


class Catalog:
    """The override policies of one source, indexed once for many manifests."""

    def __init__(
        self,
        override_policies: Sequence[policy.OverridePolicy],
        cluster_override_policies: Sequence[policy.ClusterOverridePolicy],
    ) -> None:
        self._cluster = tuple(_entry(p) for p in cluster_override_policies)
        by_namespace: dict[str, list[Entry]] = defaultdict(list)
        for p in override_policies:
            by_namespace[p.namespace].append(_entry(p))
        self._namespaced = {ns: tuple(entries) for ns, entries in by_namespace.items()}

    def cluster_matches(
        self, template: ResourceTemplate, target: cluster.Cluster
    ) -> tuple[Match, ...]:
        """ClusterOverridePolicy rules for the manifest, in application order."""
        return _matches(self._cluster, template, target)

    def namespaced_matches(
        self, template: ResourceTemplate, target: cluster.Cluster
    ) -> tuple[Match, ...]:
        """OverridePolicy rules of the manifest's namespace (none for cluster-scoped ones)."""
        if not template.namespace:
            return ()
        return _matches(self._namespaced.get(template.namespace, ()), template, target)
