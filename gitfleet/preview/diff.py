"""Compare two rendered trees: where resources go, and which manifests each cluster gains,
changes or loses. Pure: it reads only the two trees it is given.

Placement comes from the bindings (`bindings/<ns or _cluster>/<kind>.<group>/<name>.yaml`,
whose `spec.clusters` is the schedule result); manifests from `works/<cluster>/...`. Files
equal on both sides are never decoded, so a preview costs what the change costs, not what the
fleet weighs. A cluster's `kustomization.yaml` only lists its files and is left out.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Mapping

import yaml

from gitfleet.model import yamllimits

Tree = Mapping[str, bytes]
"""A rendered tree: file contents by path from the root."""

WORKS = "works/"
BINDINGS = "bindings/"
KUSTOMIZATION = "kustomization.yaml"
CLUSTER_SCOPE = "_cluster"


@dataclasses.dataclass(frozen=True, slots=True, order=True)
class Resource:
    """A resource as the rendered paths name it; sorts by kind, namespace, name."""

    kind: str
    namespace: str
    name: str
    group: str = ""

    def __str__(self) -> str:
        return (
            f"{self.kind} {self.namespace}/{self.name}"
            if self.namespace
            else (f"{self.kind} {self.name}")
        )

    @classmethod
    def from_path(cls, path: str) -> Resource:
        """From `<ns or _cluster>/<kind>.<group>/<name>.yaml` (the tail of a rendered path)."""
        namespace, kind_group, file = path.split("/")[-3:]
        kind, _, group = kind_group.partition(".")
        return cls(
            kind=kind,
            namespace="" if namespace == CLUSTER_SCOPE else namespace,
            name=file.removesuffix(".yaml"),
            group="" if group == "core" else group,
        )


Clusters = Mapping[str, int | None]
"""Cluster name to the replicas scheduled there (None: the resource has no replicas)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Placement:
    """A resource's clusters before and after (an empty side: absent from that render)."""

    resource: Resource
    before: Clusters
    after: Clusters

    @property
    def added(self) -> tuple[str, ...]:
        return tuple(sorted(set(self.after) - set(self.before)))

    @property
    def removed(self) -> tuple[str, ...]:
        return tuple(sorted(set(self.before) - set(self.after)))

    @property
    def replica_changes(self) -> tuple[tuple[str, int | None, int | None], ...]:
        """(cluster, before, after) where the count differs, by cluster name."""
        names = sorted(set(self.before) | set(self.after))
        return tuple(
            (n, self.before.get(n), self.after.get(n))
            for n in names
            if self.before.get(n) != self.after.get(n)
        )


@dataclasses.dataclass(frozen=True, slots=True)
class FileChange:
    """One manifest of one cluster that differs; `diff` is a unified diff of its text."""

    path: str
    change: str
    """`added`, `changed` or `removed`."""
    diff: str


@dataclasses.dataclass(frozen=True, slots=True)
class ClusterChanges:
    cluster: str
    files: tuple[FileChange, ...]

    def count(self, change: str) -> int:
        return sum(1 for f in self.files if f.change == change)


@dataclasses.dataclass(frozen=True, slots=True)
class TreeDiff:
    """Everything that differs between two renders, sorted."""

    moved: tuple[Placement, ...]
    """Resources on both sides whose clusters or replicas changed."""
    added: tuple[Placement, ...]
    removed: tuple[Placement, ...]
    clusters: tuple[ClusterChanges, ...]

    @property
    def empty(self) -> bool:
        return not (self.moved or self.added or self.removed or self.clusters)


def _changed_paths(base: Tree, head: Tree, prefix: str) -> list[str]:
    paths = {p for p in base if p.startswith(prefix)} | {p for p in head if p.startswith(prefix)}
    return sorted(p for p in paths if base.get(p) != head.get(p))


def placement_of(data: bytes | None) -> dict[str, int | None]:
    """`spec.clusters` of a rendered binding, by cluster name; {} when absent or unreadable."""
    if data is None:
        return {}
    try:
        doc = yamllimits.load(data)
    except yaml.YAMLError:
        return {}
    spec = doc.get("spec") if isinstance(doc, dict) else None
    targets = spec.get("clusters") if isinstance(spec, dict) else None
    found: dict[str, int | None] = {}
    for target in targets if isinstance(targets, list) else []:
        if isinstance(target, dict) and isinstance(target.get("name"), str):
            replicas = target.get("replicas")
            found[target["name"]] = replicas if isinstance(replicas, int) else None
    return found


def _placements(base: Tree, head: Tree) -> tuple[list[Placement], list[Placement], list[Placement]]:
    moved, added, removed = [], [], []
    for path in _changed_paths(base, head, BINDINGS):
        change = Placement(
            Resource.from_path(path), placement_of(base.get(path)), placement_of(head.get(path))
        )
        if path not in base:
            added.append(change)
        elif path not in head:
            removed.append(change)
        elif change.before != change.after:
            moved.append(change)
    key = lambda p: p.resource  # noqa: E731
    return sorted(moved, key=key), sorted(added, key=key), sorted(removed, key=key)


def _text(data: bytes | None) -> list[str]:
    return [] if data is None else data.decode("utf-8", "replace").splitlines(keepends=True)


def unified(path: str, before: bytes | None, after: bytes | None) -> str:
    """A unified diff of one file, `/dev/null` for a missing side; ends with a newline."""
    lines = difflib.unified_diff(
        _text(before),
        _text(after),
        fromfile=f"a/{path}" if before is not None else "/dev/null",
        tofile=f"b/{path}" if after is not None else "/dev/null",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _cluster_of(path: str) -> str:
    return path[len(WORKS) :].split("/", 1)[0]


def _clusters(base: Tree, head: Tree) -> list[ClusterChanges]:
    by_cluster: dict[str, list[FileChange]] = {}
    for path in _changed_paths(base, head, WORKS):
        if path.endswith("/" + KUSTOMIZATION) and path.count("/") == 2:
            continue
        before, after = base.get(path), head.get(path)
        change = "added" if before is None else "removed" if after is None else "changed"
        by_cluster.setdefault(_cluster_of(path), []).append(
            FileChange(path, change, unified(path, before, after))
        )
    return [ClusterChanges(name, tuple(files)) for name, files in sorted(by_cluster.items())]


def compare(base: Tree, head: Tree) -> TreeDiff:
    """What changes from the `base` render to the `head` render."""
    moved, added, removed = _placements(base, head)
    return TreeDiff(
        moved=tuple(moved),
        added=tuple(added),
        removed=tuple(removed),
        clusters=tuple(_clusters(base, head)),
    )


def _plural(count: int, word: str, many: str | None = None) -> str:
    return f"{count} {word if count == 1 else (many or word + 's')}"


def summary(result: TreeDiff) -> str:
    """One line: `3 resources move, 2 clusters gain 5 manifests, 1 loses 1, ...`."""
    parts = []
    if result.moved:
        parts.append(f"{_plural(len(result.moved), 'resource')} "
                     f"{'moves' if len(result.moved) == 1 else 'move'}")  # fmt: skip
    if result.added:
        parts.append(f"{_plural(len(result.added), 'resource')} added")
    if result.removed:
        parts.append(f"{_plural(len(result.removed), 'resource')} removed")
    gaining = [c.count("added") for c in result.clusters if c.count("added")]
    losing = [c.count("removed") for c in result.clusters if c.count("removed")]
    changing = [c.count("changed") for c in result.clusters if c.count("changed")]
    if gaining:
        verb = "gains" if len(gaining) == 1 else "gain"
        parts.append(
            f"{_plural(len(gaining), 'cluster')} {verb} {_plural(sum(gaining), 'manifest')}"
        )
    if losing:
        who = _plural(len(losing), "cluster") if not gaining else str(len(losing))
        verb = "loses" if len(losing) == 1 else "lose"
        parts.append(f"{who} {verb} {sum(losing) if gaining else _plural(sum(losing), 'manifest')}")
    if changing:
        verb = "changes" if sum(changing) == 1 else "change"
        parts.append(
            f"{_plural(sum(changing), 'manifest')} {verb} on {_plural(len(changing), 'cluster')}"
        )
    return ", ".join(parts) if parts else "no change"
