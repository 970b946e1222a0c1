"""Where a source's files come from: a commit's tree, or a folder (a plain one, or a
repository's working tree, of which only the paths git lists are read).

Both list entries (path, kind, size; for a commit also the blob id that names the content) with
folders pruned by the caller, and read the contents of the entries asked for. Neither follows a
symbolic link: a commit's links are never resolved, and a folder's are listed as links (and
opened with O_NOFOLLOW, should one appear between listing and reading); a folder is walked
from its top, so a link standing for a folder on the way to a listed path is listed as a link,
never gone through. `.git` folders of a plain folder are never entered.
"""

from __future__ import annotations

import dataclasses
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Protocol

from gitfleet.errors import SourceError
from gitfleet.gitstore import repository, tree
from gitfleet.model.origin import Origin

Kind = tree.EntryKind
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
        files = [e for e in found if e.kind is Kind.FILE]
        sizes = {e.sha: size for e in files if (size := self.known(e.path, e.sha)) is not None}
        sizes.update(self.repo.sizes({e.sha for e in files} - sizes.keys()))
        return [Entry(e.path, e.kind, sizes.get(e.sha, 0), e.sha) for e in found]

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
        return Entry(found.path, found.kind, size, found.sha)


def _tree_entry(entry: Entry) -> tree.TreeEntry:
    assert entry.blob is not None, f"{entry.path} is not an entry of a commit"
    return tree.TreeEntry(entry.path, entry.kind, entry.blob)


class FolderFiles:
    """The files below a folder: all of them, or only the `listed` ones (a working tree's, as
    git lists them; a listed folder is a submodule or a nested repository)."""

    def __init__(self, root: Path, listed: frozenset[str] | None = None) -> None:
        self.root = root
        self.revision: str | None = None
        self.listed = listed
        self.working_tree = listed is not None
        self._above = frozenset(
            path[:at] for path in listed or () for at, c in enumerate(path) if c == "/"
        )
        """The folders holding listed paths: the only ones walked into."""

    def _wanted(self, path: str) -> bool:
        return self.listed is None or path in self.listed or path in self._above

    def _walk(self, folder: str, skip: Skip) -> Iterator[Entry]:
        directory = self.root / folder if folder else self.root
        try:
            listing = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            raise SourceError(Origin(folder or "."), f"cannot list folder: {exc.strerror}") from exc
        for item in listing:
            path = f"{folder}/{item.name}" if folder else item.name
            if not self._wanted(path):
                continue
            if item.is_symlink():
                yield Entry(path, Kind.SYMLINK)
            elif item.is_dir(follow_symlinks=False):
                if self.listed is not None and path in self.listed:
                    yield Entry(path, Kind.SUBMODULE)
                elif item.name != ".git" and not skip(path):
                    yield from self._walk(path, skip)
            elif item.is_file(follow_symlinks=False):
                yield Entry(path, Kind.FILE, item.stat(follow_symlinks=False).st_size)

    def entries(self, skip: Skip) -> list[Entry]:
        return sorted(self._walk("", skip), key=lambda e: e.path)

    def root_entry(self, name: str) -> Entry | None:
        if not self._wanted(name):
            return None
        try:
            info = os.lstat(self.root / name)
        except OSError:
            return None
        if stat.S_ISLNK(info.st_mode):
            return Entry(name, Kind.SYMLINK)
        return Entry(name, Kind.FILE, info.st_size) if stat.S_ISREG(info.st_mode) else None

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
