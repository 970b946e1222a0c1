"""Where a source's files come from: a commit's tree, or a folder (a plain one, or a
repository's working tree, of which only the paths git lists are read).

Both list entries (path, kind, size; for a commit also the blob id that names the content) with
folders pruned by the caller, and read the contents of the entries asked for. Neither follows a
symbolic link: a commit's links are never resolved, and a folder's are listed as links (and
opened with O_NOFOLLOW, should one appear between listing and reading); a folder is walked
from its top, so a link standing for a folder on the way to a listed path is listed as a link,
never gone through. `.git` folders of a plain folder are never entered.

A folder can also hold what no commit can: a named pipe, a socket, a device. Those are listed
by their kind and never opened (reading a named pipe waits for a writer that may never come),
so that the caller can say why they are not read; in a working tree, also those git does not
list (it never lists them) unless it ignores them.
"""

from __future__ import annotations

import dataclasses
import enum
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Protocol

from gitfleet.errors import SourceError
from gitfleet.gitstore import repository, tree
from gitfleet.model.origin import Origin


class Kind(enum.StrEnum):
    """What an entry is: a commit's tree holds the first three (`tree.EntryKind`), a folder
    can hold the others too."""

    FILE = tree.EntryKind.FILE.value
    SYMLINK = tree.EntryKind.SYMLINK.value
    SUBMODULE = tree.EntryKind.SUBMODULE.value
    PIPE = "pipe"
    SOCKET = "socket"
    DEVICE = "device"
    """A device, or any other file that is none of the above."""


SPECIAL = frozenset({Kind.PIPE, Kind.SOCKET, Kind.DEVICE})
"""The kinds no commit can hold: Git neither lists nor adds them."""
MAX_ENTRIES = 1_000_000
"""The most entries (files and folders) a commit's tree may list, pruned folders not counted:
a source is text in Git, and a tree naming one folder many times over would otherwise make a
commit of a few hundred bytes hold more paths than any machine can list."""


@dataclasses.dataclass(frozen=True, slots=True)
class Entry:
    """A file, symbolic link or submodule of the source; `size` in bytes when known."""

    path: str
    kind: Kind
    size: int = 0
    blob: str | None = None
    """The object id that names the content, when it is known before reading (a commit's
    entries); None for a plain folder's, whose content can change under the same name."""


Skip = Callable[[str], bool]
"""Whether a folder (path from the root) is left out, with everything below it."""


Ignored = Callable[[Sequence[str]], frozenset[str]]
"""Which of these paths (from the root) git ignores in a working tree."""


KnownSize = Callable[[str, str], int | None]
"""The size of the blob (path, blob id) when it is already known, sparing git the question."""


class Files(Protocol):
    revision: str | None
    working_tree: bool

    def root_entry(self, name: str) -> Entry | None:
        """The entry named `name` at the root, without listing everything."""
        ...

    def entries(self, skip: Skip) -> list[Entry]: ...

    def read(self, entries: list[Entry]) -> dict[str, bytes | str]:
        """Contents by path, or a message saying why a file could not be read."""
        ...


class CommitFiles:
    """The files of one commit, read from the object database."""

    def __init__(self, repo: repository.Repository, commit: str, known: KnownSize) -> None:
        self.repo = repo
        self.revision: str | None = commit
        self.working_tree = False
        self.known = known

    def entries(self, skip: Skip) -> list[Entry]:
        found = tree.walk(self.repo, self.commit, skip, MAX_ENTRIES)
        files = [e for e in found if e.kind is tree.EntryKind.FILE]
        sizes = {e.sha: size for e in files if (size := self.known(e.path, e.sha)) is not None}
        sizes.update(self.repo.sizes({e.sha for e in files} - sizes.keys()))
        return [Entry(e.path, Kind(e.kind), sizes.get(e.sha, 0), e.sha) for e in found]

    @property
    def commit(self) -> str:
        assert self.revision is not None
        return self.revision

    def read(self, entries: list[Entry]) -> dict[str, bytes | str]:
        return dict(tree.read_blobs(self.repo, [_tree_entry(e) for e in entries]))

    def root_entry(self, name: str) -> Entry | None:
        found = tree.find(self.repo, self.commit, name)
        if found is None:
            return None
        size = self.repo.sizes([found.sha]).get(found.sha, 0)
        return Entry(found.path, Kind(found.kind), size, found.sha)


def _tree_entry(entry: Entry) -> tree.TreeEntry:
    assert entry.blob is not None, f"{entry.path} is not an entry of a commit"
    return tree.TreeEntry(entry.path, tree.EntryKind(entry.kind), entry.blob)


class FolderFiles:
    """The files below a folder: all of them, or only the `listed` ones (a working tree's, as
    git lists them; a listed folder is a submodule or a nested repository) and the special
    files beside them that git does not list and, as `ignored` says, does not ignore."""

    def __init__(
        self, root: Path, listed: frozenset[str] | None = None, ignored: Ignored | None = None
    ) -> None:
        self.root = root
        self.revision: str | None = None
        self.listed = listed
        self.ignored = ignored
        self.working_tree = listed is not None
        self._above = frozenset(
            path[:at] for path in listed or () for at, c in enumerate(path) if c == "/"
        )
        """The folders holding listed paths: the only ones walked into."""

    def _wanted(self, path: str) -> bool:
        return self.listed is None or path in self.listed or path in self._above

    def _walk(self, skip: Skip) -> Iterator[Entry]:
        """Every entry below the root, in no particular order. Folders wait on a stack rather
        than on the call stack: a pull request can nest them deeper than Python recurses."""
        folders = [""]
        while folders:
            folder = folders.pop()
            directory = self.root / folder if folder else self.root
            try:
                listing = list(os.scandir(directory))
            except OSError as exc:
                where = Origin(folder or ".")
                raise SourceError(where, f"cannot list folder: {exc.strerror}") from exc
            for item in listing:
                path = f"{folder}/{item.name}" if folder else item.name
                if item.is_dir(follow_symlinks=False):
                    if self.listed is not None and path in self.listed:
                        yield Entry(path, Kind.SUBMODULE)
                    elif self._wanted(path) and item.name != ".git" and not skip(path):
                        folders.append(path)
                    continue
                special = not (item.is_symlink() or item.is_file(follow_symlinks=False))
                wanted = special or self._wanted(path)
                entry = _entry(directory / item.name, path) if wanted else None
                if entry is not None:
                    yield entry

    def entries(self, skip: Skip) -> list[Entry]:
        return self._not_ignored(sorted(self._walk(skip), key=lambda e: e.path))

    def _not_ignored(self, found: list[Entry]) -> list[Entry]:
        """`found` without the special files of a working tree that git ignores."""
        if self.listed is None or self.ignored is None:
            return found
        unlisted = [e.path for e in found if e.kind in SPECIAL and e.path not in self.listed]
        ignored = self.ignored(unlisted) if unlisted else frozenset()
        return [e for e in found if e.path not in ignored]

    def root_entry(self, name: str) -> Entry | None:
        entry = _entry(self.root / name, name)
        if entry is None or (entry.kind not in SPECIAL and not self._wanted(name)):
            return None
        return next(iter(self._not_ignored([entry])), None)

    def read(self, entries: list[Entry]) -> dict[str, bytes | str]:
        return {e.path: self._read(e) for e in entries}

    def _read(self, entry: Entry) -> bytes | str:
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        try:
            fd = os.open(self.root / entry.path, flags)
        except OSError as exc:
            return f"cannot read file: {exc.strerror}"
        with os.fdopen(fd, "rb") as stream:
            info = os.fstat(stream.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size != entry.size:
                return "file changed while it was read"
            return stream.read(entry.size + 1)


def _entry(file: Path, path: str) -> Entry | None:
    """The entry at `path` of `file`, from its `lstat`: never opened nor followed (None: it is
    gone, or a folder)."""
    try:
        info = os.lstat(file)
    except OSError:
        return None
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        return None
    if stat.S_ISREG(mode):
        return Entry(path, Kind.FILE, info.st_size)
    if stat.S_ISLNK(mode):
        return Entry(path, Kind.SYMLINK)
    if stat.S_ISFIFO(mode):
        return Entry(path, Kind.PIPE)
    return Entry(path, Kind.SOCKET if stat.S_ISSOCK(mode) else Kind.DEVICE)
