"""A rendered tree written to a folder instead of a branch (`gitfleet render --out DIR`).

The folder must be absent, empty, or hold a previous render and nothing else (`render.yaml` of
kind Render, and only `works/`, `bindings/` and `render.yaml` at its top): anything else is
refused, so a mistyped `--out` never deletes a user's files. The previous render is removed and
the new one written; the folder itself must not be a symbolic link, and since every folder
below it is created afresh, no write can follow a link out of it.

`make` creates any folder a command line names (`--out`, `--cache`, `init DIR`, ...): one that
cannot be made is a bad value of that option, a `UsageError` naming it and the system's reason.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path

import yaml

from gitfleet.errors import UsageError
from gitfleet.gitstore import objects
from gitfleet.model import yamllimits

RENDER_FILE = "render.yaml"
OWNED = frozenset({"works", "bindings", RENDER_FILE})
"""The top of a render's output: all a folder may hold for `write` to replace it."""


def is_render_report(data: bytes) -> bool:
    """Whether `data` is the render.yaml of a render (a document of kind Render)."""
    try:
        doc = yamllimits.load(data)
    except yaml.YAMLError:
        return False
    return isinstance(doc, dict) and doc.get("kind") == "Render"


def _is_previous_render(folder: Path) -> bool:
    names = {entry.name for entry in os.scandir(folder)}
    if not names <= OWNED or RENDER_FILE not in names:
        return False
    marker = folder / RENDER_FILE
    if marker.is_symlink() or not marker.is_file():
        return False
    return is_render_report(marker.read_bytes())


def make(path: Path, option: str = "") -> None:
    """Make the folder `path` names on the command line (`option`, when an option names it),
    with its parents; `UsageError` naming it and the system's reason when it cannot be made
    (a file in its way, no permission, a read-only file system), the command line's exit 2
    as for click's own `--out FILE`."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        named = f"{option} {path}" if option else os.fspath(path)
        raise UsageError(f"{named}: cannot create: {error.strerror or error}") from None


def _prepare(folder: Path) -> None:
    if folder.is_symlink():
        raise UsageError(f"--out {folder}: is a symbolic link")
    if not folder.exists():
        make(folder, "--out")
        return
    if not folder.is_dir():
        raise UsageError(f"--out {folder}: not a folder")
    if not any(os.scandir(folder)):
        return
    if not _is_previous_render(folder):
        raise UsageError(
            f"--out {folder}: not empty and not a previous render output; choose another folder"
        )
    for name in OWNED:
        target = folder / name
        if target.is_symlink() or target.is_file():
            target.unlink()
        elif target.is_dir():
            shutil.rmtree(target)


def write(folder: str | os.PathLike[str], files: Mapping[str, bytes]) -> None:
    """Replace the folder's previous render (if any) with `files` (paths `/`-separated)."""
    for path in files:
        objects.check_path(path)
    root = Path(folder)
    _prepare(root)
    made: set[Path] = {root}
    for path in sorted(files):
        target = root.joinpath(*path.split("/"))
        parent = target.parent
        missing = []
        while parent not in made:
            missing.append(parent)
            parent = parent.parent
        for directory in reversed(missing):
            directory.mkdir()
            made.add(directory)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as out:
            out.write(files[path])
