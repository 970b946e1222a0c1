"""Git objects computed in Python: ids, trees built from paths, commit objects with trailers.

Nothing here runs git. Hashing an object costs microseconds, so a whole rendered tree (tens of
thousands of files) is hashed here and compared with what the repository already holds before
anything is written: an unchanged tree is detected without a single write, identical files
are one blob, and only objects that are new go to `store.write`. A tree is built either from
all its files (`build_tree`) or from a tree already held and a few changes (`apply_changes`),
which costs what the change touches: a render that changes 50 files of 50,000 recomputes
about 150 folders, not every path.

Ids follow the repository's object format (SHA-1, or SHA-256 for repositories created with
`--object-format=sha256`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, ClassVar, Protocol, SupportsBytes

from gitfleet.errors import GitfleetError
from gitfleet.model.folders import Folders

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
    def raw_length(self) -> int:
        """An id's length in bytes, as a tree object holds it."""
        return self.hex_length // 2

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


@dataclasses.dataclass(frozen=True, slots=True)
class Hashed:
    """New content whose blob id the caller already computed (to compare it with the tree it
    builds on): not hashed again."""

    id: str
    content: bytes | SupportsBytes

    def __bytes__(self) -> bytes:
        return bytes(self.content)


class Spliced(Protocol):
    """Content made of a text that many files share with one span replaced (a manifest built
    once for a group of clusters, with its cluster's label line put in): `store` writes it as
    a small delta against the first file spliced from the same text, not whole again."""

    def splice(self) -> tuple[bytes, int, int, bytes]:
        """(shared text, start, end, what replaces `shared[start:end]`)."""
        ...


class BlobIds:
    """Blob ids of the files of one render. A file spliced from a shared text is hashed from
    a saved state of what precedes its span (the blob header and the text up to the span),
    so that the part the files share is hashed once, not once a cluster."""

    def __init__(self, fmt: Format) -> None:
        self._fmt = fmt
        self._prefixes: dict[tuple[bytes, int, int, int], tuple[Any, memoryview]] = {}
        """The hash state of each shared text's prefix, and what follows its span."""

    def of(self, content: bytes | SupportsBytes) -> str:
        splice = getattr(content, "splice", None)
        if splice is None:
            return self._fmt.object_id(BLOB, bytes(content))
        shared, start, cut, middle = splice()
        size = len(shared) - (cut - start) + len(middle)
        key = (shared, start, cut, size)
        found = self._prefixes.get(key)
        if found is None:
            prefix = self._fmt.hasher()
            prefix.update(b"blob %d\0" % size)
            prefix.update(shared[:start])
            found = self._prefixes[key] = (prefix, memoryview(shared)[cut:])
        h = found[0].copy()
        h.update(middle)
        h.update(found[1])
        return str(h.hexdigest())


Content = bytes | SupportsBytes | Blob | Hashed
"""A file of a tree to build: new bytes, a value that makes them when asked (`bytes(value)`),
new content with its id, or an existing blob. A render gives many clusters files that differ
in a line or two: made on demand, they need not all be held at once."""


@dataclasses.dataclass(frozen=True, slots=True)
class GitObject:
    """An object to store; a blob's `content` may be made only when it is written."""

    kind: str
    content: bytes | SupportsBytes
    id: str

    @property
    def data(self) -> bytes:
        return bytes(self.content)


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


_TREE_ENTRIES = {
    width: re.compile(rb"(\d+) ([^\0]*)\0(.{%d})" % width, re.DOTALL) for width in (20, 32)
}
"""A tree object's entries (mode, name, id), one match each, in order."""


class Entries(Mapping[str, str]):
    """The files of a folder as its tree object lists them: blob id by name, read from the
    tree's bytes when asked. A large tree's listing is kept between renders this way: the
    tree object written (some 50 bytes a file) rather than a dictionary of names to ids (some
    130). Reading a folder costs a pass over its entries, so the last folder read is
    remembered (`_last`, one pair replaced whole): a reader that looks up many names of one
    folder in a row reads it once."""

    __slots__ = ("_count", "_data", "_width")
    _last: ClassVar[tuple[Entries | None, dict[str, str]]] = (None, {})

    def __init__(self, data: bytes, width: int, count: int | None = None) -> None:
        self._data = data
        self._width = width
        """An id's length in bytes."""
        self._count = count
        """How many files (not sub-folders) the tree lists (None: not counted yet)."""

    def _read(self) -> dict[str, str]:
        last = Entries._last
        if last[0] is self:
            return last[1]
        found = {
            name.decode(): oid.hex()
            for mode, name, oid in _TREE_ENTRIES[self._width].findall(self._data)
            if mode != TREE_MODE
        }
        Entries._last = (self, found)
        return found

    def __getitem__(self, name: str) -> str:
        return self._read()[name]

    def __contains__(self, name: object) -> bool:
        return name in self._read()

    def __iter__(self) -> Iterator[str]:
        return iter(self._read())

    def __len__(self) -> int:
        if self._count is None:
            found = _TREE_ENTRIES[self._width].findall(self._data)
            self._count = sum(1 for mode, _, _ in found if mode != TREE_MODE)
        return self._count

    def copy(self) -> dict[str, str]:
        """The entries as a dictionary of their own."""
        return dict(self._read())


@dataclasses.dataclass(frozen=True, slots=True)
class Folder:
    """One folder of a tree: the entries a change starts from when it recomputes the folder."""

    files: Mapping[str, str]
    """Blob id of each file, by name (`Entries`: read from the folder's tree object)."""
    folders: frozenset[str]
    """The names of its sub-folders."""


_EMPTY = Folder({}, frozenset())


class Base:
    """A tree the repository already holds, folder by folder: what `build_tree` and
    `apply_changes` may reuse. Never changed once made, so that one can serve every reader
    of its commit.

    `apply_changes` recomputes a changed folder from the folder's entries, and the base it
    returns takes its predecessor's entries over, replacing only the folders the change
    recomputed: a series of changes costs what each change touches.
    """

    __slots__ = ("_entries", "files", "folders")

    def __init__(self, folders: Mapping[str, str], entries: Mapping[str, Folder]) -> None:
        self.folders = folders
        """Tree id of every folder (`""` is the root)."""
        self._entries = entries
        self.files = Folders({path: entry.files for path, entry in entries.items()})
        """Blob id of every file, by path, read from the folders' entries: a listing of a
        large tree holds each name once per folder, shared by every folder holding it."""

    def folder(self, path: str) -> Folder:
        """The entries of the folder at `path` (none when there is no such folder)."""
        return self._entries.get(path, _EMPTY)


EMPTY_BASE = Base({}, {})
"""No tree at all: changes onto it make the whole tree."""


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
    """The folders a set of paths touches: each folder's files (None: removed) and
    sub-folders, names checked."""

    def __init__(self, files: Mapping[str, Content | None]) -> None:
        self.files: dict[str, Mapping[str, Content | None]] = {}
        checked: dict[str, str] = {}
        """Each name checked, once: a render writes the same names into many folders (every
        cluster's), which then share one string of each, here and in the listing built."""
        if isinstance(files, Folders):
            self._by_folder(files, checked)
        else:
            self._by_path(files, checked)
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

    def _by_folder(self, files: Folders[Content | None], checked: dict[str, str]) -> None:
        """Files already held by folder: each folder's names are checked and taken as they
        are, not copied."""
        for folder, names in files.by_folder.items():
            if not names:
                continue
            if folder[:1] == "/" or "//" in folder:
                raise PathError(f"invalid path {folder + '/' + next(iter(names))!r}: empty segment")
            for name in names:
                if name not in checked:
                    _check_name(f"{folder}/{name}" if folder else name, name)
                    checked[name] = name
            self.files[folder] = names

    def _by_path(self, files: Mapping[str, Content | None], checked: dict[str, str]) -> None:
        grouped: dict[str, dict[str, Content | None]] = {}
        for path, content in files.items():
            if path[:1] == "/" or "//" in path:
                raise PathError(f"invalid path {path!r}: empty segment")
            folder, _, name = path.rpartition("/")
            known = checked.get(name)
            if known is None:
                _check_name(path, name)
                known = checked[name] = name
            found = grouped.get(folder)
            if found is None:
                found = grouped[folder] = {}
            found[known] = content
        self.files.update(grouped)


def _tree_data(files: Mapping[str, str], folders: Mapping[str, str]) -> bytes:
    """A tree object's content: its files' and sub-folders' entries in git's order, by name,
    with a folder's name compared as if it ended in `/`."""
    rows = []
    for name, oid in files.items():
        encoded = name.encode()
        rows.append((encoded, b"%s %s\0%s" % (FILE_MODE, encoded, bytes.fromhex(oid))))
    for name, oid in folders.items():
        encoded = name.encode()
        rows.append((encoded + b"/", b"%s %s\0%s" % (TREE_MODE, encoded, bytes.fromhex(oid))))
    rows.sort()
    return b"".join(row for _, row in rows)


@dataclasses.dataclass(frozen=True, slots=True)
class _Built:
    root: str
    folders: dict[str, str]
    """Tree id of every folder visited: recomputed, or kept as a whole."""
    recomputed: dict[str, Folder]
    """The entries of every recomputed folder; `_EMPTY` itself for one that was dropped."""
    made: dict[str, GitObject]
    replaced: set[str]
    """The ids of the files the layout replaced or removed."""


def _build(
    layout: _Layout,
    fmt: Format,
    keep: Callable[[str], str | None],
    start: Callable[[str], Folder],
    stored: bool = False,
) -> _Built:
    """Visit the tree from its root: a folder that `keep` gives an id for is not looked into;
    any other is recomputed from `start`'s entries for it, with the layout's files put in or
    taken out and its sub-folders visited. A recomputed folder left empty is dropped (Git has
    no empty trees), except the root. With `stored`, the new files' blobs are stored already:
    only trees are made."""
    made: dict[str, GitObject] = {}
    folders: dict[str, str] = {}
    recomputed: dict[str, Folder] = {}
    replaced: set[str] = set()
    ids = BlobIds(fmt)

    def visit(path: str) -> str | None:
        kept = keep(path)
        if kept is not None:
            folders[path] = kept
            return kept
        before = start(path)
        files = before.files.copy() if isinstance(before.files, Entries) else dict(before.files)
        changed = layout.files.get(path, {})
        replaced.update(files[name] for name in changed if name in files)
        for name, content in changed.items():
            if content is None:
                files.pop(name, None)
            elif isinstance(content, Blob):
                files[name] = content.id
            elif isinstance(content, Hashed):
                files[name] = oid = content.id
                if not stored and oid not in made:
                    made[oid] = GitObject(BLOB, content.content, oid)
            else:
                files[name] = oid = ids.of(content)
                if not stored and oid not in made:
                    made[oid] = GitObject(BLOB, content, oid)
        subs: dict[str, str] = {}
        for name in sorted(before.folders | layout.folders.get(path, set())):
            sub = visit(f"{path}/{name}" if path else name)
            if sub is not None:
                subs[name] = sub
        clash = files.keys() & subs.keys()
        if clash:
            where = f"{path}/{min(clash)}" if path else min(clash)
            raise PathError(f"invalid path {where!r}: it is both a file and a folder")
        if path and not files and not subs:
            recomputed[path] = _EMPTY
            return None
        data = _tree_data(files, subs)
        oid = fmt.object_id(TREE, data)
        made.setdefault(oid, GitObject(TREE, data, oid))
        folders[path] = oid
        recomputed[path] = Folder(Entries(data, fmt.raw_length, len(files)), frozenset(subs))
        return oid

    root = visit("")
    assert root is not None, "the root is never dropped"
    return _Built(root, folders, recomputed, made, replaced)


def _dirty_folders(files: Mapping[str, Content], base: Base, fmt: Format) -> set[str]:
    """Folders holding a file that is new, changed or gone compared with `base`, and their
    ancestors."""
    changed = [p for p in base.files.keys() - files.keys()]
    for path, content in files.items():
        old = base.files.get(path)
        if old is None:
            changed.append(path)
        elif isinstance(content, (Blob, Hashed)):
            if content.id != old:
                changed.append(path)
        elif fmt.object_id(BLOB, bytes(content)) != old:
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
    if base is None:
        built = _build(layout, fmt, lambda path: None, lambda path: _EMPTY)
        return BuiltTree(built.root, built.folders, tuple(built.made.values()))
    dirty = _dirty_folders(files, base, fmt)
    built = _build(
        layout,
        fmt,
        lambda path: None if path in dirty else base.folders.get(path),
        lambda path: _EMPTY,
    )
    # folders kept as a whole keep their sub-folders too
    folders = {p: oid for p, oid in base.folders.items() if p in layout.folders}
    folders.update(built.folders)
    return BuiltTree(built.root, folders, tuple(built.made.values()))


@dataclasses.dataclass(frozen=True, slots=True)
class Changed:
    """A tree built from a base and a set of changes."""

    tree: BuiltTree
    base: Base
    """The new tree, to build the next change on."""
    held: frozenset[str]
    """Ids of what the old tree held where the change was applied (each recomputed folder's
    tree, each changed file's blob): objects of `tree` among them are already stored. The
    rest of the old tree is not looked at, since that would cost a pass over every path;
    an object equal to one held elsewhere is at worst written again, which git ignores for
    a loose object and a repack drops from a pack."""


def apply_changes(
    base: Base, changes: Mapping[str, Content | None], fmt: Format = SHA1, *, stored: bool = False
) -> Changed:
    """The tree `base` becomes with `changes` (path to new content, None: no such file any
    more), identical to `build_tree` of the resulting files. Only folders holding a changed
    path, and their ancestors, are recomputed, from the base's entries for them; a folder
    left without files disappears. Paths are checked as `build_tree` checks them. With
    `stored`, the caller has stored the new blobs (`store.receive`): the tree's objects are
    its trees only.
    """
    layout = _Layout(changes)
    built = _build(
        layout,
        fmt,
        lambda path: None if path in layout.folders else base.folders.get(path),
        base.folder,
        stored,
    )
    folders = dict(base.folders)
    entries = dict(base._entries)
    held = built.replaced
    for path, now in built.recomputed.items():
        if path in base.folders:
            held.add(base.folders[path])
        if now is _EMPTY:
            entries.pop(path, None)
            folders.pop(path, None)
        else:
            entries[path] = now
    folders.update(built.folders)
    tree = BuiltTree(built.root, folders, tuple(built.made.values()))
    return Changed(tree, Base(folders, entries), frozenset(held))


def tree_object(entries: Iterable[tuple[str, str]], fmt: Format = SHA1) -> GitObject:
    """A tree of sub-folders only, from (name, tree id) pairs (for wrapping a subtree)."""
    data = _tree_data({}, dict(entries))
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
