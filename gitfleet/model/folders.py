"""Files of a tree grouped by folder, read as one mapping by path.

A rendered tree has a folder per cluster holding the same names as every other cluster's (a
Duplicated template's file is `<namespace>/<kind>/<name>.yaml` in each), so a million files are
a million full paths but only a few thousand folders and names. Held by folder, each name is
one string shared by every folder holding it and a path is made only when one is asked for:
the render's output, the changes a publication writes and the listing of a tip all hold their
files this way, and the stages that walk them (hashing, comparing with the previous tree,
building the Git trees) go folder by folder without making a path at all.
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterator, Mapping, ValuesView
from typing import Generic, TypeVar

V = TypeVar("V")

_NONE: Mapping[str, object] = {}


class Folders(Mapping[str, V], Generic[V]):
    """Values by path, held as each folder's values by name (`by_folder`). Whoever builds one
    fills `by_folder`; readers take it as a mapping by path, or folder by folder."""

    __slots__ = ("by_folder",)

    def __init__(self, by_folder: Mapping[str, Mapping[str, V]] | None = None) -> None:
        self.by_folder: Mapping[str, Mapping[str, V]] = by_folder if by_folder is not None else {}

    def folder(self, path: str) -> Mapping[str, V]:
        """The values of the folder at `path`, by name (empty when there is none)."""
        found = self.by_folder.get(path)
        return found if found is not None else _NONE  # type: ignore[return-value]

    def __getitem__(self, path: str) -> V:
        folder, _, name = path.rpartition("/")
        found = self.by_folder.get(folder)
        if found is None:
            raise KeyError(path)
        return found[name]

    def __contains__(self, path: object) -> bool:
        if not isinstance(path, str):
            return False
        folder, _, name = path.rpartition("/")
        found = self.by_folder.get(folder)
        return found is not None and name in found

    def __iter__(self) -> Iterator[str]:
        for folder, values in self.by_folder.items():
            prefix = f"{folder}/" if folder else ""
            for name in values:
                yield prefix + name

    def __len__(self) -> int:
        return sum(len(values) for values in self.by_folder.values())

    def items(self) -> ItemsView[str, V]:
        return _Items(self)

    def values(self) -> ValuesView[V]:
        return _Values(self)


class _Items(ItemsView[str, V]):
    """(path, value) pairs, each folder's read in one pass."""

    _mapping: Folders[V]

    def __iter__(self) -> Iterator[tuple[str, V]]:
        for folder, values in self._mapping.by_folder.items():
            prefix = f"{folder}/" if folder else ""
            for name, value in values.items():
                yield prefix + name, value


class _Values(ValuesView[V]):
    _mapping: Folders[V]

    def __iter__(self) -> Iterator[V]:
        for values in self._mapping.by_folder.values():
            yield from values.values()


def grouped(files: Mapping[str, V]) -> Folders[V]:
    """`files` held by folder: itself when it already is."""
    if isinstance(files, Folders):
        return files
    by_folder: dict[str, dict[str, V]] = {}
    names: dict[str, str] = {}
    for path, value in files.items():
        folder, _, name = path.rpartition("/")
        found = by_folder.get(folder)
        if found is None:
            found = by_folder[folder] = {}
        found[names.setdefault(name, name)] = value
    return Folders(by_folder)
