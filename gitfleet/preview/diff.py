"""Compare two rendered trees: where resources go, and which manifests each cluster gains,
changes or loses. Pure: it reads only the two trees it is given.

Placement comes from the bindings (`bindings/<ns or _cluster>/<kind>.<group>/<name>.yaml`,
whose `spec.clusters` is the schedule result); manifests from `works/<cluster>/...`. A binding
whose other fields change (its failover, its tolerations: what the reconciler does later, when
a cluster or the application fails) is listed with those fields, even when no manifest moves. Files
equal on both sides are never decoded, so a preview costs what the change costs, not what the
fleet weighs. A cluster's `kustomization.yaml` only lists its files and is left out.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

import yaml

from gitfleet.model import yamllimits

Tree = Mapping[str, bytes]
"""A rendered tree: file contents by path from the root."""

WORKS = "works/"
BINDINGS = "bindings/"
KUSTOMIZATION = "kustomization.yaml"
CLUSTER_SCOPE = "_cluster"
SHORT = 80
"""Characters of a value `differences` shows; a longer one is only said to differ."""
_ABSENT = "(absent)"
_MISSING = object()
"""A field one side does not have."""
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_./-]{1,63}")
_SHOWN_ELSEWHERE = frozenset({"clusters", "replicas", "replicaRequirements", "resource"})
"""Fields of a binding's spec a preview shows otherwise: its placement, and what the template
gives (whose manifests show it)."""


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
class BindingChange:
    """A resource on both sides whose binding differs in more than where it places the
    resource (its failover, its tolerations, its policy's placement, ...): what the reconciler
    does with it later, when clusters fail or their status changes."""

    resource: Resource
    fields: tuple[str, ...]
    """Each field of the binding's spec that differs (`differences`)."""


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
    bindings: tuple[BindingChange, ...] = ()
    """Resources on both sides whose binding changes in more than its placement."""

    @property
    def empty(self) -> bool:
        return not (self.moved or self.added or self.removed or self.clusters or self.bindings)


def key(name: Any) -> str:
    """A field's name (or an object's) as `differences` shows it: as written when it is a
    plain name, else quoted (JSON, ASCII only)."""
    text = str(name)
    return text if _PLAIN_KEY.fullmatch(text) else json.dumps(text)


def _shown(value: Any) -> str | None:
    """`value` as compact ASCII JSON, None when longer than `SHORT`."""
    if value is _MISSING:
        return _ABSENT
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return text if len(text) <= SHORT else None


def differences(before: Any, after: Any, depth: int, path: str = "") -> Iterator[str]:
    """Each field of two documents that differs, `depth` levels down at most: `a.b: 1 → 2`
    when both values are short (ASCII JSON: nothing in it ends a line or starts a terminal
    escape), else `a.b added`, `removed` or `changed`."""
    if before == after:
        return
    if depth > 0 and isinstance(before, dict) and isinstance(after, dict):
        for name in sorted(before.keys() | after.keys(), key=str):
            where = f"{path}.{key(name)}" if path else key(name)
            yield from differences(
                before.get(name, _MISSING), after.get(name, _MISSING), depth - 1, where
            )
        return
    old, new = _shown(before), _shown(after)
    if old is not None and new is not None:
        yield f"{path}: {old} → {new}"
    elif before is _MISSING:
        yield f"{path} added"
    elif after is _MISSING:
        yield f"{path} removed"
    else:
        yield f"{path} changed"


def _changed_paths(base: Tree, head: Tree, prefix: str) -> list[str]:
    paths = {p for p in base if p.startswith(prefix)} | {p for p in head if p.startswith(prefix)}
    return sorted(p for p in paths if base.get(p) != head.get(p))


def _spec(data: bytes | None) -> dict[str, Any]:
    """`spec` of a rendered binding; {} when absent or unreadable."""
    if data is None:
        return {}
    try:
        doc = yamllimits.load(data)
    except yaml.YAMLError:
        return {}
    spec = doc.get("spec") if isinstance(doc, dict) else None
    return spec if isinstance(spec, dict) else {}


def placement_of(data: bytes | None) -> dict[str, int | None]:
    """`spec.clusters` of a rendered binding, by cluster name; {} when absent or unreadable."""
    return _placement(_spec(data))


def _placement(spec: dict[str, Any]) -> dict[str, int | None]:
    targets = spec.get("clusters")
    found: dict[str, int | None] = {}
    for target in targets if isinstance(targets, list) else []:
        if isinstance(target, dict) and isinstance(target.get("name"), str):
            replicas = target.get("replicas")
            found[target["name"]] = replicas if isinstance(replicas, int) else None
    return found


def _rest(spec: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in spec.items() if k not in _SHOWN_ELSEWHERE}


def _placements(
    base: Tree, head: Tree
) -> tuple[list[Placement], list[Placement], list[Placement], list[BindingChange]]:
    moved, added, removed, rebound = [], [], [], []
    for path in _changed_paths(base, head, BINDINGS):
        resource = Resource.from_path(path)
        before, after = _spec(base.get(path)), _spec(head.get(path))
        change = Placement(resource, _placement(before), _placement(after))
        if path not in base:
            added.append(change)
        elif path not in head:
            removed.append(change)
        else:
            if change.before != change.after:
                moved.append(change)
            fields = tuple(differences(_rest(before), _rest(after), 2, "spec"))
            if fields:
                rebound.append(BindingChange(resource, fields))
    by = lambda p: p.resource  # noqa: E731
    return sorted(moved, key=by), sorted(added, key=by), sorted(removed, key=by), rebound


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
    moved, added, removed, rebound = _placements(base, head)
    return TreeDiff(
        moved=tuple(moved),
        added=tuple(added),
        removed=tuple(removed),
        clusters=tuple(_clusters(base, head)),
        bindings=tuple(sorted(rebound, key=lambda b: b.resource)),
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
    if result.bindings:
        verb = "changes" if len(result.bindings) == 1 else "change"
        parts.append(f"{_plural(len(result.bindings), 'binding')} {verb}")
    return ", ".join(parts) if parts else "no change"
