"""A hostile pull request gets a located error (or a harmless comment) from `gitfleet preview`,
run as CI runs it: the command typed from inside the repository, with relative paths, in a
process of its own.

Aspects covered:
- replicas past what an API server accepts (past int64, past int32, negative) are a validate
  error at the field, not a schedule that never ends or manifests every member refuses;
- gitfleet.yaml patterns that a regular expression would match for hours (many stars, many
  `**`) against long names and deep paths, and a character class that is not one (a located
  error, not a traceback);
- a branch name holding backticks, HTML and an @mention stays inside the title's code span;
- the subprocess timeout is only a guard against a hang coming back: each case ends in a
  second or two.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from preview.preview_changes import SCALE_WEB, on_branch

GUARD = 240
"""Seconds: far above what a preview of the example fleet takes, only to end a hang."""


def preview(repo: Any, *args: str, base: str = "main", head: str = "pr") -> Any:
    """`gitfleet preview --base BASE --head HEAD --repo .` run from inside the repository."""
    command = [sys.executable, "-m", "gitfleet", "preview", "--base", base, "--head", head]
    return subprocess.run(
        [*command, "--repo", ".", *args], cwd=repo.path, capture_output=True, text=True,
        timeout=GUARD, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("replicas", "message"),
    [
        pytest.param(
            "99999999999999999999999999999",
            "must be at most 2147483647 (int32), not ",
            id="past int64",
        ),
        pytest.param(
            "9223372036854775807", "must be at most 2147483647 (int32), not ", id="int64 max"
        ),
        pytest.param("-1", "must be 0 or more, not -1", id="negative"),
    ],
)
def test_replicas_no_api_server_accepts(example_fleet: Any, replicas: str, message: str) -> None:
    on_branch(example_fleet, "pr", ("apps/shop/web.yaml", "replicas: 6", f"replicas: {replicas}"))
    done = preview(example_fleet)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "apps/shop/web.yaml:27:3: error: Deployment shop/web: spec.replicas: " in done.stdout
    assert message in done.stdout


def test_patterns_that_would_backtrack_for_hours(example_fleet: Any) -> None:
    deep = "/".join(["a"] * 200)
    settings = (example_fleet.path / "gitfleet.yaml").read_text()
    hostile = '  - "*a*a*a*a*a*a*a*a*a*a*a*a*b"\n  - "**/a/**/a/**/a/**/a/**/a/**/b"\n'
    on_branch(
        example_fleet,
        "pr",
        files={
            "gitfleet.yaml": settings.replace('  - ".github/**"\n', '  - ".github/**"\n' + hostile),
            f"apps/{'a' * 200}.yaml": "",
            f"apps/{deep}/x.yaml": "",
        },
    )
    done = preview(example_fleet)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "**no change**" in done.stdout


def test_a_character_class_that_is_not_one(example_fleet: Any) -> None:
    settings = (example_fleet.path / "gitfleet.yaml").read_text()
    broken = settings.replace('  - ".github/**"\n', '  - ".github/**"\n  - "[z-a]*"\n')
    on_branch(example_fleet, "pr", files={"gitfleet.yaml": broken})
    done = preview(example_fleet)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "gitfleet.yaml:9:5: error: exclude[1]: pattern '[z-a]*' has a character class" in (
        done.stdout
    )


def test_a_branch_name_cannot_break_out_of_the_title(example_fleet: Any) -> None:
    branch = "pr`<img/src=x/onerror=alert(1)>`@admin"
    on_branch(example_fleet, branch, SCALE_WEB)
    done = preview(example_fleet, head=branch)
    assert done.returncode == 0, done.stdout + done.stderr
    title = done.stdout.splitlines()[1]
    assert title.startswith("### gitfleet preview: `main` (")
    assert f"→ ``{branch}`` (" in title
