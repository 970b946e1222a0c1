"""One cluster's Work directory, read from a rendered commit: the desired set of a sync.

Files are `works/<cluster>/<namespace or _cluster>/<kind>.<group or core>/<name>.yaml`, one
manifest each (`kustomization.yaml` at the top is for other tools and is skipped). Each file
must hold exactly one object whose kind, group, namespace and name agree with its path (so no
object can be listed twice), with no key twice in a mapping (gitfleet never writes one, and a
reader keeping the last value would apply what a reviewer of the diff may not have seen); a
file that does not is a problem, and a Work directory with any problem is incomplete. An incomplete
directory is never applied and never pruned from: the agent keeps what is running and reports
the problems (DESIGN.md safety invariant 2).

Pruning beyond the guard (`prune`) is allowed by the trailer `Gitfleet-Allow-Prune` on the
rendered commit or on its source commit: `all`, or a comma-separated list of cluster names.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Iterable, Mapping
from typing import Any

import yaml

from gitfleet import render
from gitfleet.agent import identity
from gitfleet.gitstore import rendered
from gitfleet.model import yamllimits

KUSTOMIZATION = "kustomization.yaml"
CLUSTER_SCOPED = "_cluster"
CORE_GROUP = "core"
ALLOW_PRUNE_TRAILER = rendered.ALLOW_PRUNE_TRAILER


@dataclasses.dataclass(frozen=True, slots=True)
class Manifest:
    """One desired object and the file it came from (path from the repository root)."""

    path: str
    ref: identity.ObjectRef
    body: dict[str, Any]


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class WorkSet:
    """What one cluster should run, as of one rendered commit."""

    cluster: str
    rendered_commit: str
    source_commit: str = ""
    manifests: tuple[Manifest, ...] = ()
    problems: tuple[str, ...] = ()
    """Why the directory did not load completely (then nothing is applied or pruned)."""
    allow_prune: bool = False
    """The rendered or source commit lifts the prune guard for this cluster."""

    @property
    def complete(self) -> bool:
        return not self.problems


def allows_prune(trailers: Iterable[Mapping[str, str]], cluster: str) -> bool:
    """Whether any of these trailer sets carries `Gitfleet-Allow-Prune` for `cluster`."""
    for found in trailers:
        value = found.get(ALLOW_PRUNE_TRAILER, "")
        names = {part.strip() for part in value.split(",")}
        if "all" in names or cluster in names:
            return True
    return False


def _check(path: str, parts: list[str], doc: Any) -> tuple[identity.ObjectRef | None, str]:
    """The object's ref, or why the file is not a valid manifest for its path."""
    if not isinstance(doc, dict):
        return None, f"{path}: expected one Kubernetes object"
    metadata = doc.get("metadata")
    api_version, kind = doc.get("apiVersion"), doc.get("kind")
    if not (isinstance(api_version, str) and api_version and isinstance(kind, str) and kind):
        return None, f"{path}: apiVersion and kind are required"
    if not isinstance(metadata, dict) or not isinstance(metadata.get("name"), str):
        return None, f"{path}: metadata.name is required"
    folder, kind_group, file_name = parts
    group = api_version.rpartition("/")[0] or CORE_GROUP
    namespace = metadata.get("namespace") or ""
    expected_namespace = "" if folder == CLUSTER_SCOPED else folder
    if kind_group != f"{kind}.{group}":
        return None, f"{path}: {kind} of group {group} does not belong in {kind_group}/"
    if namespace and namespace != expected_namespace:
        return None, f"{path}: metadata.namespace {namespace!r} does not match its folder"
    if file_name != metadata["name"] + ".yaml":
        return None, f"{path}: metadata.name {metadata['name']!r} does not match the file name"
    if expected_namespace and not namespace:
        metadata["namespace"] = expected_namespace
    return identity.ObjectRef(api_version, kind, expected_namespace, metadata["name"]), ""


class _UniqueKeys(yaml.CSafeLoader):
    """YAML's loader refusing a key a mapping already has (merged keys aside)."""

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == yamllimits.MERGE_TAG:
                continue
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, Hashable):
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"duplicate key {key!r}", key_node.start_mark
                    )
                seen.add(key)
        mapping: dict[Any, Any] = super().construct_mapping(node, deep)
        return mapping


def _parse_file(path: str, parts: list[str], data: bytes) -> tuple[Manifest | None, str]:
    """The file's manifest, or why it is not one. A file as the render writes it is read by
    the render's own reader, which takes nothing else (a key twice included); any other is
    read by YAML's loader."""
    own = render.read_own_yaml(data) if data else None
    try:
        found = [own] if own is not None else yamllimits.load_all(data, _UniqueKeys)
        docs = [d for d in found if d is not None]
    except yaml.YAMLError as exc:
        return None, f"{path}: not valid YAML: {exc}".replace("\n", " ")
    if len(docs) != 1:
        return None, f"{path}: expected one object, found {len(docs)}"
    ref, problem = _check(path, parts, docs[0])
    return (Manifest(path, ref, docs[0]), "") if ref is not None else (None, problem)


def parse(
    cluster: str,
    files: Mapping[str, bytes],
    *,
    rendered_commit: str,
    source_commit: str = "",
    allow_prune: bool = False,
    problems: Iterable[str] = (),
) -> WorkSet:
    """The Work set of `cluster` from the files of its folder (paths from the root)."""
    base = f"works/{cluster}/"
    found = list(problems)
    manifests: list[Manifest] = []
    for path in sorted(files):
        relative = path.removeprefix(base)
        if relative == path:
            found.append(f"{path}: outside {base}")
            continue
        if relative == KUSTOMIZATION:
            continue
        parts = relative.split("/")
        if len(parts) != 3 or not parts[2].endswith(".yaml"):
            found.append(f"{path}: not a manifest path (<namespace>/<kind>.<group>/<name>.yaml)")
            continue
        manifest, problem = _parse_file(path, parts, files[path])
        if manifest is None:
            found.append(problem)
            continue
        manifests.append(manifest)
    return WorkSet(
        cluster=cluster,
        rendered_commit=rendered_commit,
        source_commit=source_commit,
        manifests=tuple(manifests),
        problems=tuple(found),
        allow_prune=allow_prune,
    )
