"""Fixtures for validation tests: write a plain source folder, load it, validate it, and get
the diagnostics as the one-line texts users read."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from gitfleet import source, validation

Check = Callable[[dict[str, str]], list[str]]


@pytest.fixture(name="check")
def check_fixture(tmp_path: Path) -> Check:
    """`check({path: yaml})`: every diagnostic of that source, as `path:line:col: ...` lines."""
    count = iter(range(1000))

    def run(files: dict[str, str]) -> list[str]:
        root = tmp_path / f"source{next(count)}"
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        return [str(d) for d in validation.validate(source.load(root))]

    return run
