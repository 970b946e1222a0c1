"""Cluster taints from ClusterTaintPolicies (Karmada: pkg/controllers/taint,
clustertaintpolicy_controller.go), as a pure function of the clusters, the policies and the
taints earlier renders added.

Karmada's controller patches a Cluster's `spec.taints`; the taints it added stay there until a
policy's `removeOnConditions` match, whatever happens to the policy meanwhile. A Git source
cannot be patched, so the render keeps the taints policies added in render.yaml's
`clusterTaints` (`to_json`, `from_json`): the next render starts from them (`carried`), and
`apply` moves them on. For each cluster the policies are taken in order (Karmada sorts them by
creation time, which a source does not have: by name here); a policy whose `targetClusters`
match the cluster adds each of its taints that the cluster does not have yet (by key and
effect, dated `at`) when all of its `addOnConditions` match the cluster's conditions, then
removes them when all of its `removeOnConditions` match. Conditions are read once, before any
policy: a taint changes no condition.

The taints a cluster declares in the source stay as declared: a policy neither adds one it
already has nor removes it (the source would put it back at once); failover's health taints,
computed at every render, are treated as declared.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from gitfleet import errors
from gitfleet.model import _codec, cluster, meta, policy, selectors
from gitfleet.model.origin import UNKNOWN

Managed = Mapping[str, tuple[meta.Taint, ...]]
"""The taints policies added, by cluster name, in the order they were added."""

SECTION = "clusterTaints"
"""render.yaml's key for the taints policies added."""


@dataclasses.dataclass(frozen=True, slots=True)
class Tainted:
    """The clusters with the taints the policies left them, and those taints alone."""

    clusters: tuple[cluster.Cluster, ...]
    managed: Managed


def condition_matches(
    conditions: Sequence[meta.Condition], wanted: Sequence[policy.MatchCondition]
) -> bool:
    """Karmada's conditionMatches: every match condition holds (none: never). A type the
    cluster has no condition of does not hold; with several of one type, `In` holds if any
    status is listed, `NotIn` as the last one says; any other operator never holds."""
    if not wanted:
        return False
    for match in wanted:
        if match.operator not in tuple(policy.MatchConditionOperator):
            return False
        holds = False
        for condition in conditions:
            if condition.type != match.condition_type:
                continue
            listed = condition.status in match.status_values
            in_ = match.operator == policy.MatchConditionOperator.IN
            holds = (holds or listed) if in_ else not listed
        if not holds:
            return False
    return True


def _ordered(policies: Iterable[policy.ClusterTaintPolicy]) -> list[policy.ClusterTaintPolicy]:
    return sorted(policies, key=lambda p: p.name)


def _taint_of(taint: policy.PolicyTaint, at: str | None) -> meta.Taint:
    return meta.Taint(key=taint.key, value=taint.value, effect=taint.effect, time_added=at)


def _with(member: cluster.Cluster, added: Sequence[meta.Taint]) -> cluster.Cluster:
    if not added:
        return member
    spec = dataclasses.replace(member.spec, taints=(*member.spec.taints, *added))
    return dataclasses.replace(member, spec=spec)


def _keys(taints: Iterable[meta.Taint | policy.PolicyTaint]) -> set[tuple[str, str]]:
    """What tells taints apart: key and effect."""
    return {(t.key, t.effect) for t in taints}


def _kept(member: cluster.Cluster, previous: Sequence[meta.Taint]) -> list[meta.Taint]:
    """The taints of `previous` that the cluster does not declare."""
    declared = _keys(member.spec.taints)
    return [t for t in previous if (t.key, t.effect) not in declared]


def carried(clusters: Iterable[cluster.Cluster], previous: Managed) -> tuple[cluster.Cluster, ...]:
    """The clusters with the taints policies added before, as `apply` leaves them when no
    policy changes anything."""
    return tuple(_with(c, _kept(c, previous.get(c.name, ()))) for c in clusters)


def _moved(
    member: cluster.Cluster,
    policies: Sequence[policy.ClusterTaintPolicy],
    previous: Sequence[meta.Taint],
    at: str | None,
) -> list[meta.Taint]:
    """The taints the policies leave on `member` besides its declared ones."""
    managed = _kept(member, previous)
    declared = _keys(member.spec.taints)
    conditions = member.status.conditions
    for found in policies:
        spec = found.spec
        if spec.target_clusters is not None and not selectors.cluster_matches(
            member, spec.target_clusters
        ):
            continue
        if condition_matches(conditions, spec.add_on_conditions):
            present = declared | _keys(managed)
            for taint in spec.taints:
                if (taint.key, taint.effect) not in present:
                    managed.append(_taint_of(taint, at))
                    present.add((taint.key, taint.effect))
        if condition_matches(conditions, spec.remove_on_conditions):
            gone = _keys(spec.taints)
            managed = [t for t in managed if (t.key, t.effect) not in gone]
    return managed


def apply(
    clusters: Iterable[cluster.Cluster],
    policies: Iterable[policy.ClusterTaintPolicy],
    previous: Managed,
    at: str | None,
) -> Tainted:
    """The clusters once the policies have looked at them (see the module); a taint added now
    is dated `at` (RFC 3339)."""
    ordered = _ordered(policies)
    members: list[cluster.Cluster] = []
    managed: dict[str, tuple[meta.Taint, ...]] = {}
    for member in clusters:
        left = _moved(member, ordered, previous.get(member.name, ()), at)
        if left:
            managed[member.name] = tuple(left)
        members.append(_with(member, left))
    return Tainted(tuple(members), managed)


def to_json(managed: Managed) -> dict[str, list[dict[str, Any]]]:
    """render.yaml's `clusterTaints` (clusters sorted, taints in the order they were added)."""
    return {name: [meta.to_doc(t) for t in managed[name]] for name in sorted(managed)}


def from_json(section: Any) -> dict[str, tuple[meta.Taint, ...]]:
    """`to_json`'s output read back; what is not a taint is skipped."""
    if not isinstance(section, dict):
        return {}
    found: dict[str, tuple[meta.Taint, ...]] = {}
    for name, items in section.items():
        if not isinstance(name, str) or not isinstance(items, list):
            continue
        taints = []
        for item in items:
            if not isinstance(item, dict):
                continue
            try:
                taints.append(_codec.decode(meta.Taint, item, UNKNOWN))
            except errors.SchemaError:
                continue
        if taints:
            found[name] = tuple(taints)
    return found
