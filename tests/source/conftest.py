"""Fixtures for loader tests: plain source folders written from a dict of files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from gitfleet import source
from gitfleet.model.loaded import LoadedSource

WriteFolder = Callable[[dict[str, str | bytes]], Path]
LoadFolder = Callable[[dict[str, str | bytes]], LoadedSource]


def write_files(root: Path, files: dict[str, str | bytes]) -> Path:
    """Write text or bytes files below `root` (folders created); returns `root`."""
    for rel, content in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    return root


@pytest.fixture(name="folder")
def folder_fixture(tmp_path: Path) -> WriteFolder:
    """A plain (non-Git) source folder holding the given files."""

    def write(files: dict[str, str | bytes]) -> Path:
        return write_files(tmp_path / "plain", files)

    return write


@pytest.fixture(name="load_folder")
def load_folder_fixture(folder: WriteFolder) -> LoadFolder:
    """Write a plain source folder and load it."""

    def load(files: dict[str, str | bytes]) -> LoadedSource:
        return source.load(folder(files))

    return load
