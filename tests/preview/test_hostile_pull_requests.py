"""A hostile pull request gets a located error (or a harmless comment) from `gitfleet preview`,
run as CI runs it: the command typed from inside the repository, with relative paths, in a
process of its own.

Aspects covered:
- replicas past what an API server accepts (past int64, past int32, negative) are a validate
  error at the field, not a schedule that never ends or manifests every member refuses;
- a static weight past int64, which Karmada's decoder refuses, is a validate error at the
  field, not a placement computed from it;
- gitfleet.yaml patterns that a regular expression would match for hours (many stars, many
  `**`) against long names and deep paths, and a character class that is not one (a located
  error, not a traceback);
- a tree bomb (a commit of a few trees naming each other ten times over: 10**10 paths) is an
  invalid revision once its walk passes a million entries, not a walk that never ends;
- a blob bomb (one large blob named at many paths: a commit of kilobytes, gigabytes to parse) is
  an invalid revision once the files to read weigh more than maxSourceSize together;
- the head's gitfleet.yaml cannot raise the size limits its own files are held to (the
  base's `maxFileSize` is the most; lowering it holds), nor point the preview at another
  rendered branch than the base's;
- a branch name holding backticks, HTML and an @mention stays inside the title's code span;
- the subprocess timeout is only a guard against a hang coming back: each case ends in
  seconds.
"""

from __future__ import annotations

import json
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


def test_a_weight_past_int64(example_fleet: Any) -> None:
    """go-yaml reads 10^23 as a float, which Karmada's decoder refuses for an int64 weight."""
    weight = ("policies/propagation/web.yaml", "weight: 2", "weight: 99999999999999999999999")
    on_branch(example_fleet, "pr", weight)
    done = preview(example_fleet, "--format", "json")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    [error] = json.loads(done.stdout)["errors"]
    assert (error["path"], error["line"], error["col"]) == ("policies/propagation/web.yaml", 36, 13)
    assert error["message"].endswith(
        "weightPreference.staticWeightList.0.weight: 1e+23 does not fit in a 64-bit integer"
    )


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
    assert "**no manifest change, 1 change beyond the manifests**" in done.stdout
    assert '\ngitfleet.yaml: changed: exclude: [".github/**"] → [".github/**","*a*a' in done.stdout


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


def test_a_pull_request_cannot_raise_its_own_file_size_limit(example_fleet: Any) -> None:
    big = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big, namespace: shop}\ndata:\n"
    big += "".join(f"  k{i}: v\n" for i in range(200_000))
    on_branch(
        example_fleet,
        "pr",
        ("gitfleet.yaml", "maxFileSize: 1Mi", "maxFileSize: 1Gi"),
        files={"apps/big.yaml": big},
    )
    done = preview(example_fleet)
    assert done.returncode == 1, done.stdout + done.stderr
    assert (
        f"apps/big.yaml: error: file is {len(big)} bytes, over the limit of 1048576 "
        "(maxFileSize of the revision compared against, which a change cannot raise)"
    ) in done.stdout


def test_a_pull_request_can_lower_its_file_size_limit(example_fleet: Any) -> None:
    on_branch(example_fleet, "pr", ("gitfleet.yaml", "maxFileSize: 1Mi", "maxFileSize: 1000"))
    done = preview(example_fleet)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "over the limit of 1000 (maxFileSize)" in done.stdout


def test_the_rendered_branch_read_is_the_bases(example_fleet: Any) -> None:
    """A pull request naming another branch as renderedBranch (here one holding a render of
    nothing) would have its change compared with that branch's render instead."""
    example_fleet.git("checkout", "-q", "-b", "empty", "main")
    example_fleet.commit({"gitfleet.yaml": "sourceBranch: empty\nrenderedBranch: decoy\n"})
    for path in example_fleet.git("ls-files").splitlines():
        if path != "gitfleet.yaml":
            (example_fleet.path / path).unlink()
    example_fleet.commit({}, "nothing to render")
    subprocess.run(
        [sys.executable, "-m", "gitfleet", "render", "--repo", "."], cwd=example_fleet.path,
        check=True, capture_output=True, timeout=GUARD,
    )  # fmt: skip
    example_fleet.git("checkout", "-q", "main")
    on_branch(
        example_fleet,
        "pr",
        ("gitfleet.yaml", "renderedBranch: gitfleet/rendered", "renderedBranch: decoy"),
    )
    done = preview(example_fleet, "--format", "json")
    assert done.returncode == 0, done.stdout + done.stderr
    shown = json.loads(done.stdout)
    assert shown["base"]["obtained"] == "rendered-branch"
    assert shown["moved"] == shown["added"] == shown["removed"] == []
    assert shown["clusters"] == {}
    [settings] = shown["beyondManifests"]
    assert settings["fields"] == ['renderedBranch: "gitfleet/rendered" → "decoy"']


def git_input(repo: Any, *args: str, text: str) -> str:
    """`git ARGS` in `repo` with `text` on its standard input (mktree, hash-object)."""
    return subprocess.run(
        ["git", *args], cwd=repo.path, input=text, text=True, capture_output=True, check=True
    ).stdout.strip()


def bomb(repo: Any, blob: str, files: int, levels: int = 0) -> str:
    """A commit of main's tree plus `bomb/`: `levels` folders, each naming the one below ten
    times, and `files` names for `blob` at the bottom (files * 10**levels paths, a few hundred
    bytes of trees)."""
    tree = git_input(
        repo, "mktree", text="".join(f"100644 blob {blob}\tf{i}.yaml\n" for i in range(files))
    )
    for _ in range(levels):
        tree = git_input(
            repo, "mktree", text="".join(f"040000 tree {tree}\td{i}\n" for i in range(10))
        )
    listing = repo.git("ls-tree", "main") + f"\n040000 tree {tree}\tbomb\n"
    return repo.git("commit-tree", git_input(repo, "mktree", text=listing), "-p", "main", "-m", "b")


def test_a_tree_bomb_is_an_invalid_revision(example_fleet: Any) -> None:
    blob = example_fleet.git("rev-parse", "main:gitfleet.yaml")
    example_fleet.git("branch", "pr", bomb(example_fleet, blob, files=10, levels=9))
    done = preview(example_fleet)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "its tree holds more than 1000000 entries" in done.stdout


def test_a_blob_bomb_is_an_invalid_revision(example_fleet: Any) -> None:
    """A 1,000,000-byte blob (under the example's maxFileSize of 1Mi) at 70 paths: 70 MB, over
    the default maxSourceSize of 64 MiB. Kept small enough that the check before the limit
    existed ends too (as an error about something else)."""
    blob = git_input(example_fleet, "hash-object", "-w", "--stdin", text="#" + "x" * 999_999)
    example_fleet.git("branch", "pr", bomb(example_fleet, blob, files=70))
    done = preview(example_fleet)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "weigh" in done.stdout and "over the limit of 67108864 (maxSourceSize)" in done.stdout
