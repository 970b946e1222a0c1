"""Progress on a terminal, as a user sees it (gitfleet.cli.progress): `gitfleet render`,
`gitfleet preview`, `gitfleet agent push --once` and `gitfleet reconcile --once` run with stderr
on a pseudo-terminal say what they do while they work and erase the line before their result;
a log record written meanwhile starts on a clean line; with stderr not a terminal (a script,
CI, a log), or with NO_PROGRESS set, stderr holds no progress at all.
"""

from __future__ import annotations

import logging
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from builders import make_cluster, make_deployment, make_policy, selector
from conftest import GitRepo
from simfixture import SimFactory, make_sim_cluster_fixture

from gitfleet.cli import progress

__all__ = ["make_sim_cluster_fixture"]

BOUND = 120


def _fleet(git_repo: GitRepo, replicas: int = 1) -> None:
    docs = {
        "clusters.yaml": [make_cluster("east"), make_cluster("west")],
        "apps.yaml": [make_deployment("web", replicas=replicas)],
        "policy.yaml": [make_policy("web", selector(name="web"))],
    }
    git_repo.commit({rel: yaml.safe_dump_all(d, sort_keys=False) for rel, d in docs.items()})


def _on_terminal(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str, str]:
    """Run gitfleet with stderr on a pseudo-terminal: exit status, stdout, what the terminal got."""
    leader, follower = pty.openpty()
    command = [sys.executable, "-m", "gitfleet", *args]
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=follower)
    os.close(follower)
    seen = b""
    while True:
        ready, _, _ = select.select([leader], [], [], BOUND)
        if not ready:
            process.kill()
            pytest.fail("the command printed nothing for too long")
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    stdout = process.stdout.read().decode() if process.stdout else ""
    return process.wait(BOUND), stdout, seen.decode()


def _drained(leader: int) -> str:
    """All that a pseudo-terminal whose other end is closed holds (one read may return only
    the first of the writes), and the terminal closed."""
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # EIO: the other end is closed and nothing is left
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    return seen.decode()


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != progress.DISABLE}
    return {**env, **extra}


def test_render_on_a_terminal_says_what_it_does_then_erases_it(
    git_repo: GitRepo, tmp_path: Path
) -> None:
    _fleet(git_repo)
    code, stdout, terminal = _on_terminal(["render", "--repo", "source"], tmp_path, _env())
    assert code == 0, terminal
    assert "placing and rendering the templates (" in terminal
    assert "committing to gitfleet/rendered (" in terminal
    last = terminal.rsplit("\r", 1)[-1]
    assert last.strip() == "", "the line is erased before the command ends"
    assert "placing" not in stdout and "rendered " in stdout


def test_preview_on_a_terminal_says_what_it_renders(git_repo: GitRepo, tmp_path: Path) -> None:
    _fleet(git_repo)
    git_repo.git("branch", "base")
    _fleet(git_repo, replicas=3)
    args = ["preview", "--base", "base", "--head", "main", "--repo", "source"]
    code, stdout, terminal = _on_terminal(args, tmp_path, _env())
    assert code == 0, terminal
    assert "rendering base (" in terminal and "rendering main (" in terminal
    assert "rendering" not in stdout


def test_no_progress_off_a_terminal_or_when_asked(git_repo: GitRepo, tmp_path: Path) -> None:
    _fleet(git_repo)
    piped = subprocess.run(
        [sys.executable, "-m", "gitfleet", "render", "--repo", "source"],
        cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=BOUND, check=False,
    )  # fmt: skip
    assert piped.returncode == 0, piped.stderr
    assert "placing" not in piped.stderr and "\r" not in piped.stderr
    _fleet(git_repo, replicas=2)
    args = ["render", "--repo", "source"]
    code, _, terminal = _on_terminal(args, tmp_path, _env(**{progress.DISABLE: "1"}))
    assert code == 0, terminal
    assert "placing" not in terminal


def test_escaping_keeps_a_hostile_branch_name_on_one_line() -> None:
    leader, follower = pty.openpty()
    with os.fdopen(follower, "w") as stream, progress.Progress(stream) as line:
        line.step("rendering pr\x1b[2J\nfake")
    seen = _drained(leader)
    assert "\\x1b[2J\\nfake" in seen
    assert "\x1b" not in seen and "\n" not in seen


def test_agent_and_reconciler_once_on_a_terminal(
    git_repo: GitRepo, tmp_path: Path, make_sim_cluster: SimFactory
) -> None:
    make_sim_cluster("east")
    make_sim_cluster("west")
    _fleet(git_repo)
    code, stdout, terminal = _on_terminal(
        ["reconcile", "--repo", "source", "--once"], tmp_path, _env()
    )
    assert code == 0, terminal
    assert "fetching the repository (" in terminal
    assert "placing and rendering the templates (" in terminal
    assert terminal.rsplit("\r", 1)[-1].strip() == ""
    assert "placing" not in stdout
    args = ["agent", "push", "--repo", "source", "--kubeconfig-dir", "kubeconfigs", "--once"]
    code, stdout, terminal = _on_terminal([*args, "--cache-dir", "cache"], tmp_path, _env())
    assert code == 0, terminal
    assert "reading refs/heads/gitfleet/rendered (" in terminal
    assert "syncing 2 clusters (" in terminal
    assert "syncing 2 clusters: 2 done (last " in terminal
    assert terminal.rsplit("\r", 1)[-1].strip() == ""
    assert "east: converged" in stdout and "syncing" not in stdout


def test_a_log_record_starts_on_a_clean_line() -> None:
    leader, follower = pty.openpty()
    root = logging.getLogger()
    with os.fdopen(follower, "w") as stream:
        handler = logging.StreamHandler(stream)
        root.addHandler(handler)
        try:
            with progress.Progress(stream) as line:
                line.step("syncing")
                logging.getLogger("test").warning("something to say")
        finally:
            root.removeHandler(handler)
        assert not handler.filters, "the filter leaves with the line"
    seen = _drained(leader)
    assert "syncing (0s)\r" in seen
    assert "\r" + " " * len("syncing (0s)") + "\rsomething to say" in seen
