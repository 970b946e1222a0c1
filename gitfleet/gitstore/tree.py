"""Walk one commit's tree and read its files from the object database.

Tree entries are parsed here, not by git, so that a crafted tree cannot smuggle a path: an
entry named `.`, `..` or `.git` (in any case), containing `/`, or empty makes the revision
invalid (a `SourceError`), whatever folder it is in; so does a name listed twice. Symbolic
links and submodules are listed with their kind and never followed. Folders the caller skips
are not read at all, and a walk can be held to a number of entries.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable

from gitfleet.gitstore.repository import Repository


class EntryKind(enum.StrEnum):
    FILE = "file"
    SYMLINK = "symlink"
    SUBMODULE = "submodule"


@dataclasses.dataclass(frozen=True, slots=True)
class TreeEntry:
    """A file-like entry of a commit: path from the root (`/`-separated), kind, object id."""

    path: str
    kind: EntryKind
    sha: str


_TREE_MODE = b"40000"
_KINDS = {b"120000": EntryKind.SYMLINK, b"160000": EntryKind.SUBMODULE}


def _tree_of(repo: Repository, commit: str) -> str:
    data = repo.read([commit], "commit").get(commit)
    if data is None or not data.startswith(b"tree "):
        raise repo.fail(f"invalid revision {commit}: not a commit")
    return data[5 : data.index(b"\n")].decode()


def _bad_name(name: str) -> bool:
    return name in ("", ".", "..") or name.lower() == ".git" or "/" in name


def _entries(
    repo: Repository, commit: str, folder: str, data: bytes
) -> list[tuple[bytes, str, str]]:
    """(mode, name, sha) of one tree object."""
    width = len(commit) // 2  # SHA-1 or SHA-256, as the commit id says
    entries = []
    names = set()
    at = 0
    try:
        while at < len(data):
            space = data.index(b" ", at)
            nul = data.index(b"\0", space)
            name = data[space + 1 : nul].decode("utf-8", "replace")
            sha = data[nul + 1 : nul + 1 + width]
            if len(sha) != width:
                raise ValueError("truncated tree")
            if _bad_name(name) or name in names:
                where = f"'{folder}/'" if folder else "the root folder"
                raise repo.fail(f"invalid revision {commit}: tree entry {name!r} in {where}")
            names.add(name)
            entries.append((data[at:space], name, sha.hex()))
            at = nul + 1 + width
    except ValueError as exc:
        raise repo.fail(f"invalid revision {commit}: malformed tree in '{folder}/'") from exc
    return entries


def walk(
    repo: Repository, commit: str, skip: Callable[[str], bool], limit: int | None = None
) -> list[TreeEntry]:
    """Every non-folder entry of `commit`, sorted by path; `skip(folder)` prunes folders.
    More than `limit` entries (files, links, submodules and folders; those below a pruned
    folder not counted) make the revision invalid: a tree can name one folder many times
    over, so a commit of a few hundred bytes can hold 10**10 paths (ten folders, each holding
    the one below ten times), and a walk lists every path."""
    found: list[TreeEntry] = []
    level = {"": _tree_of(repo, commit)}
    listed = 0
    while level:
        trees = repo.read(set(level.values()), "tree")
        below: dict[str, str] = {}
        for folder, sha in level.items():
            if sha not in trees:
                raise repo.fail(f"invalid revision {commit}: missing tree '{folder}/'")
            entries = _entries(repo, commit, folder, trees[sha])
            listed += len(entries)
            if limit is not None and listed > limit:
                raise repo.fail(
                    f"invalid revision {commit}: its tree holds more than {limit} entries "
                    "(exclude the folders gitfleet need not read in gitfleet.yaml)"
                )
            for mode, name, child in entries:
                path = f"{folder}/{name}" if folder else name
                if mode == _TREE_MODE:
                    if not skip(path):
                        below[path] = child
                else:
                    found.append(TreeEntry(path, _KINDS.get(mode, EntryKind.FILE), child))
        level = below
    return sorted(found, key=lambda e: e.path)


def read_blobs(repo: Repository, entries: list[TreeEntry]) -> dict[str, bytes]:
    """Contents of file entries, by path."""
    blobs = repo.read({e.sha for e in entries}, "blob")
    missing = [e.path for e in entries if e.sha not in blobs]
    if missing:
        raise repo.fail(f"cannot read '{missing[0]}': object missing")
    return {e.path: blobs[e.sha] for e in entries}


def find(repo: Repository, commit: str, path: str) -> TreeEntry | None:
    """The entry at a root-level `path` of `commit` (e.g. gitfleet.yaml), without walking."""
    root = _tree_of(repo, commit)
    data = repo.read([root], "tree").get(root, b"")
    for mode, name, sha in _entries(repo, commit, "", data):
        if name == path and mode != _TREE_MODE:
            return TreeEntry(name, _KINDS.get(mode, EntryKind.FILE), sha)
    return None
