"""Fixtures for reading commits: trees built object by object, including ones git itself would
never write (entries named `..`, `.git`, or holding a `/`)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

Entries = list[tuple[str, str, bytes | str]]
"""(mode, name, content): content is file bytes, or the hex id of an existing object."""
CraftCommit = Callable[[Entries], str]


def _object(repo: Path, kind: str, data: bytes) -> str:
    done = subprocess.run(
        ["git", "hash-object", "-w", "--literally", "-t", kind, "--stdin"],
        cwd=repo, input=data, capture_output=True, check=True,
    )  # fmt: skip
    return done.stdout.decode().strip()


def craft_tree(repo: Path, entries: Entries) -> str:
    """A tree object with exactly these entries, in this order, names unchecked."""
    raw = b""
    for mode, name, content in entries:
        sha = content if isinstance(content, str) else _object(repo, "blob", content)
        raw += mode.encode() + b" " + name.encode() + b"\0" + bytes.fromhex(sha)
    return _object(repo, "tree", raw)


@pytest.fixture(name="craft_commit")
def craft_commit_fixture(git_repo: Any) -> CraftCommit:
    """Commit a crafted tree (`craft_commit(entries)`) as the new tip of main; returns its id."""

    def craft(entries: Entries) -> str:
        commit: str = git_repo.git("commit-tree", craft_tree(git_repo.path, entries), "-m", "x")
        git_repo.git("update-ref", "refs/heads/main", commit)
        return commit

    return craft


@pytest.fixture(name="subtree")
def subtree_fixture(git_repo: Any) -> Callable[[Entries], str]:
    """Write a crafted tree object (for nesting inside another); returns its id."""

    def write(entries: Entries) -> str:
        return craft_tree(git_repo.path, entries)

    return write
