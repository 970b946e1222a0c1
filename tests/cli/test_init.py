"""`gitfleet init DIR` scaffolds a source repository.

Aspects covered:
- the new repository holds exactly the example's files in one commit on the source branch,
  with a clean working tree; an existing empty directory is accepted;
- `-o json` reports path, branch, commit and files;
- a non-empty directory or a file is refused as a usage error (exit 2, as for every folder
  the command line names that cannot be used) and left untouched; so is a missing argument;
- Git's configured identity is used when there is one, a fallback identity otherwise;
- without git on PATH, init fails with exit 1 and leaves nothing behind;
- the example is found both in a checkout and as packaged data (same files);
- the scaffolded repository validates, once `gitfleet validate` exists.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from gitfleet.cli import init

Invoke = Callable[..., Result]

CHECKOUT_EXAMPLE = Path(__file__).resolve().parents[2] / "example-repo"
IDENTITY = {
    "GIT_AUTHOR_NAME": "test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
}


def files_under(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def git_out(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True)
    return done.stdout.strip()


@pytest.fixture(name="git_identity")
def git_identity_fixture(monkeypatch: pytest.MonkeyPatch) -> None:
    """A configured identity, as on a developer's machine."""
    for key, value in IDENTITY.items():
        monkeypatch.setenv(key, value)


@pytest.mark.usefixtures("git_identity")
@pytest.mark.parametrize(
    "make_target",
    [
        pytest.param(lambda tmp: tmp / "fleet", id="new directory"),
        pytest.param(lambda tmp: (tmp / "fleet").mkdir() or tmp / "fleet", id="empty directory"),
        pytest.param(lambda tmp: tmp / "a" / "b" / "fleet", id="missing parents"),
    ],
)
def test_init_commits_a_copy_of_the_example(cli: Invoke, tmp_path: Path, make_target) -> None:
    target = make_target(tmp_path)
    result = cli("init", str(target))
    assert result.exit_code == 0, result.output
    assert git_out(target, "ls-files").splitlines() == files_under(CHECKOUT_EXAMPLE)
    assert git_out(target, "rev-list", "--count", "HEAD") == "1"
    assert git_out(target, "symbolic-ref", "--short", "HEAD") == "main"
    assert git_out(target, "status", "--porcelain") == ""
    assert (target / "gitfleet.yaml").read_bytes() == (
        CHECKOUT_EXAMPLE / "gitfleet.yaml"
    ).read_bytes()
    assert "next: gitfleet validate --repo" in result.stdout


@pytest.mark.usefixtures("git_identity")
def test_init_json_names_the_commit(cli: Invoke, tmp_path: Path) -> None:
    target = tmp_path / "fleet"
    result = cli("init", str(target), "-o", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert sorted(data) == ["branch", "commit", "files", "path"]
    assert data["commit"] == git_out(target, "rev-parse", "HEAD")
    assert data["branch"] == "main"
    assert "clusters/aws-use1-a.yaml" in data["files"]


@pytest.mark.parametrize(
    ("prepare", "message"),
    [
        pytest.param(
            lambda p: (p.mkdir(), (p / "keep.txt").write_text("x")), "not empty", id="non-empty"
        ),
        pytest.param(lambda p: p.write_text("x"), "not a directory", id="a file"),
    ],
)
def test_init_refuses_occupied_paths(cli: Invoke, tmp_path: Path, prepare, message: str) -> None:
    target = tmp_path / "fleet"
    prepare(target)
    before = files_under(tmp_path)
    result = cli("init", str(target))
    assert result.exit_code == 2
    assert message in result.stderr
    assert files_under(tmp_path) == before
    assert not (target / ".git").exists()


def test_init_without_directory_is_a_usage_error(cli: Invoke) -> None:
    result = cli("init")
    assert result.exit_code == 2
    assert "DIRECTORY" in result.stderr


def test_init_uses_configured_identity(cli: Invoke, tmp_path: Path, git_identity: None) -> None:
    target = tmp_path / "fleet"
    assert cli("init", str(target)).exit_code == 0
    assert git_out(target, "log", "-1", "--format=%an <%ae>") == "test <test@example.com>"


def test_init_falls_back_to_an_identity(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key in [*IDENTITY, "EMAIL"]:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    # Refuse guessing a name from the host, as Git does on machines without a domain name.
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "user.useConfigOnly")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "true")
    target = tmp_path / "fleet"
    result = cli("init", str(target))
    assert result.exit_code == 0, result.output
    assert git_out(target, "log", "-1", "--format=%an <%ae>|%cn <%ce>") == (
        "gitfleet <gitfleet@localhost>|gitfleet <gitfleet@localhost>"
    )


def test_init_without_git_leaves_nothing(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty_bin = tmp_path / "bin"
    empty_bin.mkdir()
    monkeypatch.setenv("PATH", str(empty_bin))
    target = tmp_path / "fleet"
    result = cli("init", str(target))
    assert result.exit_code == 1
    assert "git is needed" in result.stderr
    assert not target.exists()


def test_example_is_found_with_the_checkout_files() -> None:
    assert files_under(init.example_repo()) == files_under(CHECKOUT_EXAMPLE)


@pytest.mark.usefixtures("git_identity")
@pytest.mark.skipif(
    importlib.util.find_spec("gitfleet.cli.validate") is None, reason="validate not built yet"
)
def test_scaffolded_repository_validates(cli: Invoke, tmp_path: Path) -> None:
    target = tmp_path / "fleet"
    assert cli("init", str(target)).exit_code == 0
    result = cli("validate", "--repo", str(target))
    assert result.exit_code == 0, result.output
