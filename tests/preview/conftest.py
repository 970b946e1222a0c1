"""Fixtures for previews of the example fleet: a repository whose `main` holds example-repo/
and is rendered onto the rendered branch, and a helper that makes a change on a branch."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(name="example_fleet")
def example_fleet_fixture(git_repo: Any, cli: Any) -> Any:
    """The example fleet on `main`, rendered (`gitfleet render`)."""
    shutil.copytree(ROOT / "example-repo", git_repo.path, dirs_exist_ok=True)
    git_repo.commit({}, "the example fleet")
    done = cli("render", "--repo", str(git_repo.path))
    assert done.exit_code == 0, done.output
    return git_repo
