"""Cross-cluster search (karmada-search): one view of a kind's objects in every member cluster.

Karmada's search component caches members' objects and serves them as one list, each object
annotated with the cluster it came from (`resource.karmada.io/cached-from-cluster`,
pkg/search/proxy/store/util.go); `karmadactl get` prints them as kubectl does, with a CLUSTER
column after NAME and an ADOPTION column saying whether Karmada manages the object
(pkg/karmadactl/get/get.go). gitfleet's members report through Git, so the view is built from
what each agent last reported (`reported`): for every manifest it applied, its identity, the
status the interpreter reflected and the few fields it kept of the live object
(`agent.observed`), put together in the object's own shape. Objects read from a cluster's API
(`live`) go through the same selection and printing.

This package is pure, as the stages are; `read` gets the reports from a repository and `live`
asks a cluster's API server.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from gitfleet.model import meta, selectors
from gitfleet.status import reports

CLUSTER_ANNOTATION = "resource.karmada.io/cached-from-cluster"
"""Karmada's annotation naming the member an object was read from (CacheSourceAnnotationKey)."""
MANAGED_LABEL = "gitfleet.io/managed-by"
MANAGED_VALUE = "gitfleet"

Obj = dict[str, Any]
EVERYTHING = meta.LabelSelector()
"""The empty selector: every object."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Query:
    """What `gitfleet get` asks for."""

    group: str
    kind: str
    names: frozenset[str] = frozenset()
    """Empty: every name."""
    namespace: str | None = None
    """None: every namespace (and cluster-scoped objects)."""
    selector: meta.LabelSelector = EVERYTHING
    clusters: frozenset[str] = frozenset()
    """Empty: every cluster."""

    def wants_cluster(self, cluster: str) -> bool:
        return not self.clusters or cluster in self.clusters

    def matches(self, obj: Mapping[str, Any]) -> bool:
        metadata = obj.get("metadata") or {}
        if self.names and metadata.get("name") not in self.names:
            return False
        namespace = metadata.get("namespace") or ""
        if self.namespace is not None and namespace and namespace != self.namespace:
            return False
        labels = metadata.get("labels")
        return selectors.label_selector_matches(
            self.selector, labels if isinstance(labels, dict) else {}
        )


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Found:
    """One object of one cluster."""

    cluster: str
    obj: Obj
    """The object, annotated with its cluster."""
    live: bool = False
    """Read from the cluster's API now, rather than from its last report."""

    @property
    def sort_key(self) -> tuple[str, str, str]:
        metadata = self.obj.get("metadata") or {}
        return (str(metadata.get("namespace") or ""), str(metadata.get("name")), self.cluster)

    @property
    def adopted(self) -> bool:
        """Whether gitfleet manages the object (karmadactl's ADOPTION)."""
        labels = (self.obj.get("metadata") or {}).get("labels") or {}
        return not self.live or labels.get(MANAGED_LABEL) == MANAGED_VALUE


def annotated(obj: Mapping[str, Any], cluster: str) -> Obj:
    """A copy of `obj` naming the cluster it came from, as karmada-search's cache does."""
    metadata = dict(obj.get("metadata") or {})
    metadata["annotations"] = {**(metadata.get("annotations") or {}), CLUSTER_ANNOTATION: cluster}
    return {**obj, "metadata": metadata}


def _object(manifest: reports.ManifestReport) -> Obj:
    """A reported manifest in its object's shape: identity, kept fields, reflected status."""
    key = manifest.key
    kept = dict(manifest.observed or {})
    metadata = {**(kept.pop("metadata", None) or {}), "name": key.name}
    if key.namespace:
        metadata["namespace"] = key.namespace
    obj: Obj = {"apiVersion": key.api_version, "kind": key.kind, "metadata": metadata, **kept}
    if manifest.status is not None:
        obj["status"] = manifest.status
    return obj


def reported(
    found_reports: Mapping[str, reports.ClusterReport], query: Query, *, skip: Iterable[str] = ()
) -> list[Found]:
    """The objects of the kind asked for that each cluster (but those in `skip`) last reported
    applied, or there all the same (a refused write leaves what gitfleet applied before, and
    the report keeps its fields), sorted by namespace, name and cluster."""
    skipped = set(skip)
    found = [
        Found(cluster=name, obj=annotated(_object(m), name))
        for name, report in found_reports.items()
        if query.wants_cluster(name) and name not in skipped
        for m in report.manifests
        if (m.applied or m.observed) and m.key.group == query.group and m.key.kind == query.kind
    ]
    return sorted((f for f in found if query.matches(f.obj)), key=lambda f: f.sort_key)


def merged(*found: Sequence[Found]) -> list[Found]:
    return sorted((f for part in found for f in part), key=lambda f: f.sort_key)


def _without_managed_fields(obj: Obj) -> Obj:
    """`obj` as kubectl prints it without `--show-managed-fields`: no `metadata.managedFields`
    (an object read live has them; a report keeps none)."""
    metadata = obj.get("metadata")
    if not isinstance(metadata, Mapping) or "managedFields" not in metadata:
        return obj
    return {**obj, "metadata": {k: v for k, v in metadata.items() if k != "managedFields"}}


def printed(found: Sequence[Found], *, single: bool) -> Obj:
    """What `-o json`, `-o yaml` and the templates print: the object itself when one name of
    one kind was asked (`single`) and one object found, else a kubectl List of them all
    (karmadactl's printGeneric: one object in each of two clusters is a List)."""
    if single and len(found) == 1:
        return _without_managed_fields(found[0].obj)
    return _as_list(found)


def _as_list(found: Sequence[Found]) -> Obj:
    """A kubectl List of the objects (`-o json`, `-o yaml`)."""
    return {
        "apiVersion": "v1",
        "kind": "List",
        "metadata": {"resourceVersion": ""},
        "items": [_without_managed_fields(f.obj) for f in found],
    }
