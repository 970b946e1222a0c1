"""End-to-end fixtures: `fleet`, a Git repository holding a committed copy of example-repo/,
with the `GitRepo` helpers (`commit`, `git`) of the shared `git_repo` fixture. (The type is
not imported from tests/conftest.py: another folder's conftest may shadow that name.)"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "example-repo"


@pytest.fixture(name="fleet")
def fleet_fixture(git_repo: Any) -> Any:
    shutil.copytree(EXAMPLE, git_repo.path, dirs_exist_ok=True)
    git_repo.git("add", "-A")
    git_repo.git("commit", "-q", "-m", "example")
    return git_repo
