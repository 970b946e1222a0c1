"""Read a rendered commit the way an agent needs it: its trailers, which clusters it has a
folder for, and one cluster's files, straight from the object database.

Works on commits of the rendered branch and of the per-cluster refs alike: both hold
`works/<cluster>/` at the same path. Only the asked cluster's folder is read; entries that are
not plain files (symbolic links, submodules) are listed as problems, never followed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from gitfleet.gitstore import objects, refs, rendered, tree
from gitfleet.gitstore.repository import Repository

WORKS = rendered.WORKS
EMPTY_TREES = frozenset(objects.tree_object([], fmt).id for fmt in objects.FORMATS.values())
"""The id of the tree with nothing in it, in each object format."""


@dataclasses.dataclass(frozen=True, slots=True)
class RenderedCommit:
    """A rendered commit: its id, trailers and the clusters it has a Work folder for."""

    commit: str
    trailers: Mapping[str, str]
    clusters: tuple[str, ...]

    @property
    def source_commit(self) -> str:
        return self.trailers.get(rendered.SOURCE_TRAILER, "")


@dataclasses.dataclass(frozen=True, slots=True)
class ClusterFolder:
    """The files of `works/<cluster>/` by path from the root, and what could not be read."""

    files: Mapping[str, bytes]
    problems: tuple[str, ...]


def read_commit(repo: Repository, rev: str) -> RenderedCommit:
    """The rendered commit `rev` names (a ref or an id); `SourceError` if it names none."""
    commit = repo.commit_of(rev)
    if commit is None:
        raise repo.fail(f"unknown revision {rev!r}")
    data = repo.read([commit], objects.COMMIT).get(commit, b"")
    code, out, err = repo.run("ls-tree", "-z", "-d", "--name-only", commit, "--", WORKS + "/")
    if code != 0:
        raise repo.fail(f"cannot read {commit}: {err.decode(errors='replace').strip()}")
    names = [p.decode("utf-8", "replace") for p in out.split(b"\0") if p]
    clusters = tuple(sorted(p.removeprefix(WORKS + "/") for p in names))
    return RenderedCommit(commit=commit, trailers=objects.trailers_of(data), clusters=clusters)


def emptied(repo: Repository) -> dict[str, str]:
    """Each cluster whose ref is at a commit with no files, with that commit: what a render
    gives a cluster that left the fleet (`rendered.publish`), so that its agent prunes from a
    complete, empty desired state. One ref listing."""
    return {
        ref[len(rendered.CLUSTER_REFS) :]: state.commit
        for ref, state in refs.list_refs(repo, rendered.CLUSTER_REFS).items()
        if state.tree in EMPTY_TREES
    }


def cluster_folder(repo: Repository, commit: str, cluster: str) -> ClusterFolder:
    """Every file of `works/<cluster>/` in `commit` (none when the folder does not exist)."""
    base = f"{WORKS}/{cluster}"

    def skip(folder: str) -> bool:
        return not (folder in (WORKS, base) or folder.startswith(base + "/"))

    entries = [e for e in tree.walk(repo, commit, skip) if e.path.startswith(base + "/")]
    files = [e for e in entries if e.kind is tree.EntryKind.FILE]
    problems = tuple(
        f"{e.path}: {e.kind} is not read" for e in entries if e.kind is not tree.EntryKind.FILE
    )
    return ClusterFolder(files=tree.read_blobs(repo, files), problems=problems)


def root_file(repo: Repository, commit: str, name: str) -> bytes | None:
    """A file at the top of the commit's tree (e.g. `render.yaml`), None if absent."""
    entry = tree.find(repo, commit, name)
    if entry is None or entry.kind is not tree.EntryKind.FILE:
        return None
    return tree.read_blobs(repo, [entry])[entry.path]
