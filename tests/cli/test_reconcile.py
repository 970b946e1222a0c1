"""`gitfleet reconcile` on the command line.

Aspects covered:
- `--once` renders a local repository's source branch and exits 0, logging one line per event
  with the source commit; `-o json` logs one JSON object per line;
- `--once` on a remote URL mirrors it into `--cache` and pushes the render back;
- `--once` exits 1 on an invalid commit (the error's file and line are logged; a tree that
  cannot be read as a source too, the last render kept), on an unreachable remote (the
  reason on stderr) and on a missing source branch, which is said and recorded as the last
  error, shown by `gitfleet status` (a repository whose branch is `master`, say);
- a cluster ref deleted after its render (plainly, or as the way out of a ref not at a render,
  which `--once` reports blocked with exit 1) is written again by the next `--once` of the
  same source commit, parentless and holding the render's folder, the rendered branch left
  where it is; locally and on a remote URL;
- without `--branch`, the source branch is gitfleet.yaml's `sourceBranch`; `--branch` wins;
- `--cluster-repos` copies each cluster's works ref to its own repository; a cluster whose
  repository is missing is logged and does not fail the look; a template without `{cluster}`
  is a usage error (for `gitfleet status` too);
- a folder that is not a repository is an input error (exit 1); `--webhook` without a secret,
  or with a bad address, is a usage error (exit 2); the secret can come from a file.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_git(*args: str, cwd: Path) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
    return done.stdout.strip()


@pytest.fixture(name="fleet_repo")
def fleet_repo_fixture(tmp_path: Path, git_repo: Any) -> Any:
    """The example fleet committed on `main` of a repository with a working tree."""
    shutil.copytree(ROOT / "example-repo", git_repo.path, dirs_exist_ok=True)
    git_repo.commit({})
    return git_repo


def test_once_renders_and_logs_each_event(cli: Any, fleet_repo: Any) -> None:
    head = fleet_repo.git("rev-parse", "HEAD")
    result = cli("reconcile", "--repo", str(fleet_repo.path), "--once")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert [line.split(" ")[1] for line in lines] == ["seen", "rendering", "rendered"]
    assert all(f"source={head}" in line for line in lines)
    trailer = fleet_repo.git(
        "log", "-1", "--format=%(trailers:key=Source-Commit,valueonly)", "gitfleet/rendered"
    )
    assert trailer.strip() == head


def test_once_json_logs(cli: Any, fleet_repo: Any) -> None:
    result = cli("reconcile", "--repo", str(fleet_repo.path), "--once", "-o", "json")
    assert result.exit_code == 0, result.output
    logged = [json.loads(line) for line in result.stdout.splitlines()]
    assert [e["event"] for e in logged] == ["seen", "rendering", "rendered"]
    assert logged[-1]["commit"] == fleet_repo.git("rev-parse", "gitfleet/rendered")


def test_once_on_a_remote_url(cli: Any, fleet_repo: Any, bare_remote: Path, tmp_path: Path) -> None:
    fleet_repo.git("push", "-q", "origin", "main")
    cache = tmp_path / "cache"
    result = cli("reconcile", "--repo", bare_remote.as_uri(), "--cache", str(cache), "--once")
    assert result.exit_code == 0, result.output
    assert "pushed" not in result.stdout
    assert [line.split(" ")[1] for line in result.stdout.splitlines()] == [
        "seen", "rendering", "committed", "rendered",
    ]  # fmt: skip
    assert run_git("rev-parse", "gitfleet/rendered", cwd=bare_remote)
    assert len(list(cache.iterdir())) == 1


def test_once_invalid_commit_exits_1(cli: Any, fleet_repo: Any) -> None:
    fleet_repo.commit({"apps/broken.yaml": "kind: [\n"})
    result = cli("reconcile", "--repo", str(fleet_repo.path), "--once")
    assert result.exit_code == 1
    line = result.stdout.splitlines()[-1]
    assert " invalid " in line and "path=apps/broken.yaml line=2 col=1 " in line


def test_once_on_a_tree_that_cannot_be_read_records_it(cli: Any, fleet_repo: Any) -> None:
    """A commit whose tree cannot be read as a source (here an entry named `..`) is one more
    invalid commit, recorded and logged, with the last render kept: reading the source
    branch's name from gitfleet.yaml on the default branch does not load that tree."""
    assert cli("reconcile", "--repo", str(fleet_repo.path), "--once").exit_code == 0
    before = fleet_repo.git("rev-parse", "gitfleet/rendered")
    blob = fleet_repo.git("rev-parse", "main:gitfleet.yaml")
    listing = f"100644 blob {blob}\t..\n100644 blob {blob}\tgitfleet.yaml\n"
    tree = subprocess.run(
        ["git", "mktree"], cwd=fleet_repo.path, input=listing, text=True, capture_output=True,
        check=True,
    ).stdout.strip()  # fmt: skip
    crafted = fleet_repo.git("commit-tree", tree, "-p", "main", "-m", "crafted")
    fleet_repo.git("update-ref", "refs/heads/main", crafted)
    result = cli("reconcile", "--repo", str(fleet_repo.path), "--once")
    assert result.exit_code == 1
    line = result.stdout.splitlines()[-1]
    assert f" invalid source={crafted} " in line and "tree entry '..'" in line
    assert fleet_repo.git("rev-parse", "gitfleet/rendered") == before


def test_once_without_the_source_branch_exits_1(cli: Any, fleet_repo: Any) -> None:
    result = cli("reconcile", "--repo", str(fleet_repo.path), "--branch", "nope", "--once")
    assert result.exit_code == 1
    line = result.stdout.splitlines()[-1]
    assert " no-source " in line and "the source branch 'nope' does not exist" in line
    shown = cli("status", "--repo", str(fleet_repo.path))
    assert "last error: the source branch 'nope' does not exist" in shown.stdout, shown.output


@pytest.mark.parametrize("remote", [False, True], ids=["local", "remote URL"])
@pytest.mark.parametrize("blocked", [False, True], ids=["deleted", "blocked, then deleted"])
def test_once_writes_a_deleted_cluster_ref_again(
    cli: Any, fleet_repo: Any, bare_remote: Path, tmp_path: Path, remote: bool, blocked: bool
) -> None:
    """The source did not change, so the rendered branch already renders it; the ref is still
    written again, or the cluster's pull agent would have nothing to apply until the next
    source commit."""
    fleet_repo.git("push", "-q", "origin", "main")
    holder = bare_remote if remote else fleet_repo.path
    where = ["--repo", bare_remote.as_uri(), "--cache", str(tmp_path / "cache")]
    once = [*(where if remote else ["--repo", str(fleet_repo.path)]), "--once"]
    assert cli("reconcile", *once).exit_code == 0
    ref = "refs/heads/gitfleet/works/aws-euw1"
    tip = run_git("rev-parse", "gitfleet/rendered", cwd=holder)
    if blocked:
        run_git("update-ref", ref, "main", cwd=holder)
        result = cli("reconcile", *once)
        assert result.exit_code == 1 and " blocked " in result.stdout
    run_git("update-ref", "-d", ref, cwd=holder)
    result = cli("reconcile", *once)
    assert result.exit_code == 0, result.output
    assert " unchanged " in result.stdout.splitlines()[-1]
    assert run_git("rev-parse", "gitfleet/rendered", cwd=holder) == tip
    assert run_git("log", "-1", "--format=%P", ref, cwd=holder) == ""
    folder = "works/aws-euw1"
    assert run_git("rev-parse", f"{ref}:{folder}", cwd=holder) == run_git(
        "rev-parse", f"{tip}:{folder}", cwd=holder
    )
    trailers = run_git("log", "-1", "--format=%(trailers:only)", ref, cwd=holder)
    assert "Gitfleet-Cluster: aws-euw1" in trailers and "Gitfleet-Sync-Mode: Push" in trailers
    assert cli("reconcile", *once).stdout.split(" ")[1] == "up-to-date"


@pytest.mark.parametrize(
    ("args", "branch"),
    [
        pytest.param([], "production", id="gitfleet.yaml"),
        pytest.param(["--branch", "main"], "main", id="--branch wins"),
    ],
)
def test_once_renders_the_configured_source_branch(
    cli: Any, fleet_repo: Any, args: list[str], branch: str
) -> None:
    fleet_repo.git("branch", "production")
    config = (fleet_repo.path / "gitfleet.yaml").read_text()
    fleet_repo.commit(
        {"gitfleet.yaml": config.replace("sourceBranch: main", "sourceBranch: production")}
    )
    wanted = fleet_repo.git("rev-parse", branch)
    result = cli("reconcile", "--repo", str(fleet_repo.path), "--once", *args)
    assert result.exit_code == 0, result.output
    assert f" seen source={wanted} branch={branch} " in result.stdout
    trailer = fleet_repo.git(
        "log", "-1", "--format=%(trailers:key=Source-Commit,valueonly)", "gitfleet/rendered"
    )
    assert trailer.strip() == wanted


def test_once_copies_to_each_cluster_repository(cli: Any, fleet_repo: Any, tmp_path: Path) -> None:
    names = sorted(path.stem for path in (ROOT / "example-repo" / "clusters").glob("*.yaml"))
    *present, missing = names
    for name in present:
        run_git("init", "-q", "--bare", str(tmp_path / f"{name}.git"), cwd=tmp_path)
    template = f"{tmp_path.as_uri()}/{{cluster}}.git"
    result = cli(
        "reconcile", "--repo", str(fleet_repo.path), "--once", "--cluster-repos", template,
        "-o", "json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    for name in present:
        ref = f"refs/heads/gitfleet/works/{name}"
        copied = run_git("rev-parse", ref, cwd=tmp_path / f"{name}.git")
        assert copied == fleet_repo.git("rev-parse", ref)
    logged = [json.loads(line) for line in result.stdout.splitlines()]
    failed = [(e["cluster"], e["step"]) for e in logged if e["event"] == "cluster-repo-error"]
    assert failed == [(missing, "fetch-status"), (missing, "push-works")]


@pytest.mark.parametrize("command", ["reconcile", "status"])
def test_cluster_repos_without_the_placeholder(cli: Any, fleet_repo: Any, command: str) -> None:
    result = cli(command, "--repo", str(fleet_repo.path), "--cluster-repos", "file:///fleet.git")
    assert result.exit_code == 2
    assert "{cluster}" in result.stderr


def test_not_a_repository(cli: Any, tmp_path: Path) -> None:
    result = cli("reconcile", "--repo", str(tmp_path), "--once")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"{tmp_path}: not a Git repository")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(["--webhook", "127.0.0.1:0"], "--webhook needs a secret", id="no secret"),
        pytest.param(["--webhook", "localhost:http"], "HOST:PORT", id="bad address"),
    ],
)
def test_webhook_usage_errors(
    cli: Any, fleet_repo: Any, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str
) -> None:
    monkeypatch.delenv("GITFLEET_WEBHOOK_SECRET", raising=False)
    result = cli("reconcile", "--repo", str(fleet_repo.path), *args)
    assert result.exit_code == 2
    assert message in result.stderr


def test_webhook_secret_from_a_file(cli: Any, fleet_repo: Any, tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("s3cret\n")
    result = cli(
        "reconcile", "--repo", str(fleet_repo.path), "--webhook", "127.0.0.1:0",
        "--webhook-secret-file", str(secret), "--once",
    )  # fmt: skip
    assert result.exit_code == 0, result.output


def test_once_on_an_unreachable_remote_exits_1(cli: Any, tmp_path: Path) -> None:
    missing = (tmp_path / "nowhere.git").as_uri()
    result = cli("reconcile", "--repo", missing, "--cache", str(tmp_path / "cache"), "--once")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {missing}: cannot fetch:")
