"""Fixtures of the command tests: commands run as a user types them, from another directory."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(name="elsewhere")
def elsewhere_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Another current directory, next to the test's repository (`../source`)."""
    here = tmp_path / "elsewhere"
    here.mkdir()
    monkeypatch.chdir(here)
    return here
