"""Git objects computed in Python: ids, trees built from paths, commit objects with trailers.

Nothing here runs git. Hashing an object costs microseconds, so a whole rendered tree (tens of
thousands of files) is hashed here and compared with what the repository already holds before
anything is written: an unchanged tree is detected without a single write, identical files
are one blob, and only objects that are new go to `store.write`.

Ids follow the repository's object format (SHA-1, or SHA-256 for repositories created with
`--object-format=sha256`).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from gitfleet.errors import GitfleetError

BLOB, TREE, COMMIT = "blob", "tree", "commit"
FILE_MODE = b"100644"
TREE_MODE = b"40000"


@dataclasses.dataclass(frozen=True, slots=True)
class Format:
    """A repository's object format: the hash behind every object id."""

    name: str

    def hasher(self) -> Any:
        return hashlib.sha256() if self.name == "sha256" else hashlib.sha1()

    @property
    def hex_length(self) -> int:
        return 64 if self.name == "sha256" else 40

    @property
    def zero(self) -> str:
        return "0" * self.hex_length

    def object_id(self, kind: str, data: bytes) -> str:
        h = self.hasher()
        h.update(b"%s %d\0%s" % (kind.encode(), len(data), data))
        return str(h.hexdigest())


SHA1 = Format("sha1")
SHA256 = Format("sha256")
FORMATS = {f.name: f for f in (SHA1, SHA256)}


@dataclasses.dataclass(frozen=True, slots=True)
class Blob:
    """A file that is already an object in the repository: written by id, never re-read."""

    id: str


Content = bytes | Blob
"""A file of a tree to build: new bytes, or an existing blob."""


@dataclasses.dataclass(frozen=True, slots=True)
class GitObject:
    kind: str
    data: bytes
    id: str


class PathError(GitfleetError):
    """A path cannot be a file of a Git tree."""


_BAD_NAMES = frozenset(("", ".", ".."))


def _check_name(path: str, name: str) -> None:
    if name in _BAD_NAMES or name.lower() == ".git" or "\0" in name or "\\" in name:
        raise PathError(f"invalid path {path!r}: segment {name!r}")


def check_path(path: str) -> None:
    """`PathError` unless `path` is a relative, `/`-separated path of plain names."""
    if path[:1] == "/" or "//" in path:
        raise PathError(f"invalid path {path!r}: empty segment")
    for name in path.split("/"):
        _check_name(path, name)


def _entry_order(name: str, is_folder: bool) -> bytes:
    """Git orders tree entries by name, with a folder's name compared as if it ended in `/`."""
    return name.encode() + (b"/" if is_folder else b"")


@dataclasses.dataclass(frozen=True, slots=True)
class Base:
    """A tree the repository already holds, by path: what `build_tree` may reuse."""

    files: Mapping[str, str]
    """Blob id of every file."""
    folders: Mapping[str, str]
    """Tree id of every folder (`""` is the root)."""


@dataclasses.dataclass(frozen=True, slots=True)
class BuiltTree:
    """A tree computed from paths: its id, every folder's tree id, and the objects made for
    it (each new blob and each recomputed tree once)."""

    id: str
    folders: Mapping[str, str]
    """Tree id of every folder, by path (`""` is the root)."""
    objects: tuple[GitObject, ...]

    def missing(self, known: Callable[[str], bool]) -> list[GitObject]:
        """The objects for which `known(id)` is false, trees after the blobs they list."""
        return [o for o in self.objects if not known(o.id)]


class _Layout:
    """The folders of a set of paths: each folder's files and sub-folders, names checked."""

    def __init__(self, files: Mapping[str, Content]) -> None:
        self.files: dict[str, dict[str, Content]] = {}
        for path, content in files.items():
            if path[:1] == "/" or "//" in path:
                raise PathError(f"invalid path {path!r}: empty segment")
            folder, _, name = path.rpartition("/")
            _check_name(path, name)
            found = self.files.get(folder)
            if found is None:
                found = self.files[folder] = {}
            found[name] = content
        self.folders: dict[str, set[str]] = {"": set()}
        for folder in list(self.files):
            child = folder
            while child:
                parent, _, name = child.rpartition("/")
                _check_name(child, name)
                siblings = self.folders.setdefault(parent, set())
                if name in siblings:
                    break
                siblings.add(name)
                self.folders.setdefault(child, set())
                child = parent
        for folder, names in self.folders.items():
            clash = names & self.files.get(folder, {}).keys()
            if clash:
                path = f"{folder}/{min(clash)}" if folder else min(clash)
                raise PathError(f"invalid path {path!r}: it is both a file and a folder")


def _dirty_folders(files: Mapping[str, Content], base: Base, fmt: Format) -> set[str]:
    """Folders holding a file that is new, changed or gone compared with `base`, and their
    ancestors."""
    changed = [p for p in base.files.keys() - files.keys()]
    for path, content in files.items():
        old = base.files.get(path)
        if old is None:
            changed.append(path)
        elif isinstance(content, Blob):
            if content.id != old:
                changed.append(path)
        elif fmt.object_id(BLOB, content) != old:
            changed.append(path)
    dirty = {""} if changed else set()
    for path in changed:
        folder = path.rpartition("/")[0]
        while folder and folder not in dirty:
            dirty.add(folder)
            folder = folder.rpartition("/")[0]
    return dirty


def build_tree(
    files: Mapping[str, Content], fmt: Format = SHA1, base: Base | None = None
) -> BuiltTree:
    """The tree holding `files` (paths `/`-separated from the root, all regular files).

    With `base`, folders whose files are all unchanged keep their tree id without being
    recomputed, so a small change to a large tree costs little more than the change.
    """
    layout = _Layout(files)
    dirty = _dirty_folders(files, base, fmt) if base is not None else None
    made: dict[str, GitObject] = {}
    folders: dict[str, str] = {}
    if base is not None:  # reused folders keep their sub-folders; recomputed ones overwrite
        folders = {p: oid for p, oid in base.folders.items() if p in layout.folders}

    def visit(path: str) -> str:
        if dirty is not None and base is not None and path not in dirty:
            kept = base.folders.get(path)
            if kept is not None:
                folders[path] = kept
                return kept
        entries: list[tuple[bytes, bytes, bytes, str]] = []
        for name, content in layout.files.get(path, {}).items():
            if isinstance(content, Blob):
                oid = content.id
            else:
                oid = fmt.object_id(BLOB, content)
                if oid not in made:
                    made[oid] = GitObject(BLOB, content, oid)
            entries.append((_entry_order(name, False), FILE_MODE, name.encode(), oid))
        for name in layout.folders.get(path, ()):
            oid = visit(f"{path}/{name}" if path else name)
            entries.append((_entry_order(name, True), TREE_MODE, name.encode(), oid))
        entries.sort()
        data = b"".join(
            b"%s %s\0%s" % (mode, name, bytes.fromhex(oid)) for _, mode, name, oid in entries
        )
        oid = fmt.object_id(TREE, data)
        made.setdefault(oid, GitObject(TREE, data, oid))
        folders[path] = oid
        return oid

    return BuiltTree(visit(""), folders, tuple(made.values()))


def tree_object(entries: Iterable[tuple[str, str]], fmt: Format = SHA1) -> GitObject:
    """A tree of sub-folders only, from (name, tree id) pairs (for wrapping a subtree)."""
    items = sorted(entries, key=lambda e: _entry_order(e[0], True))
    data = b"".join(b"%s %s\0%s" % (TREE_MODE, n.encode(), bytes.fromhex(i)) for n, i in items)
    return GitObject(TREE, data, fmt.object_id(TREE, data))


@dataclasses.dataclass(frozen=True, slots=True)
class Signature:
    """Who and when, as git records it: `Name <email> <unix seconds> <+hhmm>`."""

    name: str
    email: str
    when: int
    offset: str = "+0000"

    def __str__(self) -> str:
        return f"{self.name} <{self.email}> {self.when} {self.offset}"

    @classmethod
    def parse(cls, ident: str) -> Signature:
        """`git var GIT_COMMITTER_IDENT` output."""
        head, _, stamp = ident.strip().rpartition("> ")
        name, _, email = head.partition(" <")
        when, _, offset = stamp.partition(" ")
        return cls(name, email, int(when), offset or "+0000")


def commit_object(
    tree: str,
    parents: Iterable[str],
    author: Signature,
    message: str,
    trailers: Iterable[tuple[str, str]] = (),
    fmt: Format = SHA1,
) -> GitObject:
    """A commit: the message, then a blank line and the trailers (`Key: value` lines)."""
    lines = [f"tree {tree}", *(f"parent {p}" for p in parents)]
    lines += [f"author {author}", f"committer {author}", ""]
    body = message.rstrip("\n") + "\n"
    trailer_text = "".join(f"{k}: {v}\n" for k, v in trailers)
    if trailer_text:
        body += "\n" + trailer_text
    data = ("\n".join(lines) + "\n" + body).encode()
    return GitObject(COMMIT, data, fmt.object_id(COMMIT, data))


def trailers_of(commit_data: bytes) -> dict[str, str]:
    """The trailers of a commit object's message: the `Key: value` lines of its last
    paragraph."""
    _, _, message = commit_data.decode("utf-8", "replace").partition("\n\n")
    paragraphs = message.strip("\n").split("\n\n")
    found: dict[str, str] = {}
    for line in paragraphs[-1].splitlines() if len(paragraphs) > 1 else ():
        key, sep, value = line.partition(": ")
        if sep and key and " " not in key:
            found[key] = value
    return found


def tree_of_commit(commit_data: bytes) -> str:
    first = commit_data[: commit_data.index(b"\n")]
    return first.removeprefix(b"tree ").decode()
