"""Per-cluster overrides: (Cluster)OverridePolicies applied to one manifest for one cluster
(Karmada: pkg/util/overridemanager).

`apply(manifest, target, override_policies, cluster_override_policies)` returns the manifest
as that cluster receives it, with the record Karmada writes of what was applied. All matching
ClusterOverridePolicies are applied first, then the OverridePolicies of the manifest's
namespace (cluster-scoped manifests, Namespaces included, get only the former); `_selection`
says which rules and in which order, `_overriders` what one block of overriders does. As in
Karmada (ApplyOverridePolicies), each kind of policy is matched once, against the manifest as
it enters that kind's turn: ClusterOverridePolicies against the manifest as given, and
OverridePolicies against the manifest the ClusterOverridePolicies left, so a cluster policy
that changes or removes a label decides which OverridePolicies select it.

The template is never modified: work happens on a copy, and a rule that cannot be applied
raises `OverrideError` located at the failing overrider in the policy's file, naming the
policy and the cluster, with nothing half-applied; the caller then renders nothing for that
resource on that cluster, as Karmada skips its Work. Replica revision and the labels and
annotations Karmada adds to every Work are the render stage's business.

For many manifests, build `Overrides(override_policies, cluster_override_policies)` once and
call its `apply`; the module-level `apply` reuses the last one built for the same policies.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, cast

from gitfleet.errors import OverrideError
from gitfleet.model import cluster, policy
from gitfleet.model.origin import UNKNOWN, Origin, PathKey
from gitfleet.model.template import RawObject, ResourceTemplate
from gitfleet.overrides import _defaults, _overriders, _patch, _record, _selection

AppliedOverride = _record.AppliedOverride
APPLIED_OVERRIDES = _record.APPLIED_OVERRIDES
APPLIED_CLUSTER_OVERRIDES = _record.APPLIED_CLUSTER_OVERRIDES


@dataclasses.dataclass(frozen=True, slots=True)
class Overridden:
    """A manifest after overrides, and the rules applied to it in the order they were."""

    manifest: RawObject
    applied_cluster_overrides: tuple[AppliedOverride, ...] = ()
    applied_overrides: tuple[AppliedOverride, ...] = ()

    @property
    def annotations(self) -> dict[str, str]:
        """The annotations Karmada puts on the Work to record the applied overrides."""
        return _record.work_annotations(self.applied_cluster_overrides, self.applied_overrides)


def _field_name(keys: tuple[PathKey, ...]) -> str:
    return ".".join(str(key) for key in keys)


def _describe(p: _selection.AnyOverridePolicy) -> str:
    if isinstance(p, policy.ClusterOverridePolicy):
        return f"cluster override policy {p.name}"
    return f"override policy {p.namespace}/{p.name}"


def _error(
    match: _selection.Match,
    failure: _patch.Failure,
    template: ResourceTemplate,
    target: cluster.Cluster,
) -> OverrideError:
    keys = (*match.rule.keys, *failure.keys)
    return OverrideError(
        match.policy.origin.at(*keys),
        f"{_describe(match.policy)}: {_field_name(keys)}: {failure.message}"
        f" ({template.key} on cluster {target.name})",
    )


@dataclasses.dataclass(frozen=True, slots=True)
class Author:
    """An override rule that wrote a field: where it is, and its policy, named."""

    origin: Origin
    policy: str


_ABSENT = object()


def _value_at(doc: Any, keys: Sequence[PathKey]) -> Any:
    for key in keys:
        held = isinstance(doc, dict) and isinstance(key, str) and key in doc
        listed = isinstance(doc, list) and isinstance(key, int) and 0 <= key < len(doc)
        if not (held or listed):
            return _ABSENT
        doc = doc[key]
    return doc


@dataclasses.dataclass(slots=True)
class _Watch:
    """A field followed through the overrides, and the last rule that changed it."""

    keys: Sequence[PathKey]
    author: Author | None = None


def _apply_matches(
    doc: dict[str, Any],
    matches: Sequence[_selection.Match],
    template: ResourceTemplate,
    target: cluster.Cluster,
    watch: _Watch | None,
) -> dict[str, Any]:
    if matches:
        _defaults.stored_secret(doc)
    for match in matches:
        before = _value_at(doc, watch.keys) if watch is not None else None
        try:
            doc = _overriders.apply(doc, match.rule.overriders)
        except _patch.Failure as failure:
            raise _error(match, failure, template, target) from failure
        if watch is not None and _value_at(doc, watch.keys) != before:
            origin = match.policy.origin.at(*match.rule.keys)
            watch.author = Author(origin, _describe(match.policy))
    return doc


class Overrides:
    """The override policies of one source, prepared once and applied to many manifests."""

    def __init__(
        self,
        override_policies: Sequence[policy.OverridePolicy],
        cluster_override_policies: Sequence[policy.ClusterOverridePolicy],
    ) -> None:
        self._catalog = _selection.Catalog(override_policies, cluster_override_policies)

    def apply(self, manifest: RawObject, target: cluster.Cluster) -> Overridden:
        """`manifest` as `target` receives it; raises `OverrideError` (see the module)."""
        doc, cluster_matches, namespaced_matches = self._run(manifest, target, None)
        return Overridden(
            manifest=cast(RawObject, doc),
            applied_cluster_overrides=tuple(
                AppliedOverride(m.policy.name, m.rule.overriders) for m in cluster_matches
            ),
            applied_overrides=tuple(
                AppliedOverride(m.policy.name, m.rule.overriders) for m in namespaced_matches
            ),
        )

    def author(
        self, manifest: RawObject, target: cluster.Cluster, keys: Sequence[PathKey]
    ) -> Author | None:
        """The rule that last changed the field at `keys` of `manifest` for `target` (None:
        none did, the value is the manifest's own): where a field the member's API server would
        refuse came from, so that the refusal points at the override that wrote it."""
        watch = _Watch(keys)
        self._run(manifest, target, watch)
        return watch.author

    def _run(
        self, manifest: RawObject, target: cluster.Cluster, watch: _Watch | None
    ) -> tuple[dict[str, Any], tuple[_selection.Match, ...], tuple[_selection.Match, ...]]:
        template = ResourceTemplate(manifest, UNKNOWN)
        doc: dict[str, Any] = _patch.plain(manifest)
        cluster_matches = self._catalog.cluster_matches(template, target)
        doc = _apply_matches(doc, cluster_matches, template, target, watch)
        overridden = ResourceTemplate(cast(RawObject, doc), UNKNOWN)
        namespaced_matches = self._catalog.namespaced_matches(overridden, target)
        doc = _apply_matches(doc, namespaced_matches, template, target, watch)
        return doc, cluster_matches, namespaced_matches


_last: list[tuple[tuple[int, ...], tuple[object, ...], Overrides]] = []


def apply(
    manifest: RawObject,
    target: cluster.Cluster,
    override_policies: Sequence[policy.OverridePolicy],
    cluster_override_policies: Sequence[policy.ClusterOverridePolicy],
) -> Overridden:
    """`manifest` as `target` receives it after the matching (Cluster)OverridePolicies."""
    held = (*override_policies, None, *cluster_override_policies)
    key = tuple(map(id, held))
    if not _last or _last[0][0] != key:
        # the policies themselves are kept with the key, so their ids cannot be reused
        _last[:] = [(key, held, Overrides(override_policies, cluster_override_policies))]
    return _last[0][2].apply(manifest, target)
