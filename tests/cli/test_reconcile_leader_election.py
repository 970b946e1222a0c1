"""`gitfleet reconcile --leader-elect` as processes, two replicas on one repository.

Aspects covered:
- the first replica leads and renders; the second stands by, naming the holder;
- when the leader dies without releasing (SIGKILL), the second takes over once the lease
  expired and handles the next commit; SIGTERM then releases the lease and exits 0;
- lease options without --leader-elect, --leader-elect with --once, and timings under which
  two leaders could overlap are usage errors (exit 2).
"""

from __future__ import annotations

import signal
import subprocess
import sys
from typing import Any

import pytest
from cli.logged import BOUND, read_until
from simfixture import SimFactory, make_sim_cluster_fixture

__all__ = ["make_sim_cluster_fixture"]


def _replica(repo: Any, kubeconfig: str, identity: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "gitfleet", "reconcile", "--repo", ".", "--no-watch",
         "--interval", "0.2", "-o", "json", "--leader-elect", "--kubeconfig", kubeconfig,
         "--lease-identity", identity, "--lease-duration", "2", "--lease-renew-deadline", "1",
         "--lease-retry-period", "0.1"],
        cwd=repo.path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def test_the_standby_takes_over_from_a_dead_leader(
    git_repo: Any, make_sim_cluster: SimFactory
) -> None:
    git_repo.commit({"README.md": "fleet\n"})
    kubeconfig = str(make_sim_cluster("control-plane").kubeconfig)
    one = _replica(git_repo, kubeconfig, "one")
    two = None
    lines: list[str] = []
    try:
        read_until(one, "leading", lines)
        read_until(one, "rendered", lines)
        two = _replica(git_repo, kubeconfig, "two")
        assert read_until(two, "standby", lines)["holder"] == "one"
        one.kill()
        one.wait(BOUND)
        read_until(two, "leading", lines)
        change = git_repo.commit({"README.md": "fleet, again\n"})
        assert read_until(two, "unchanged", lines)["source"] == change  # no manifests
        two.send_signal(signal.SIGTERM)
        out, err = two.communicate(timeout=BOUND)
        assert (err, two.returncode) == ("", 0)
        assert '"event":"released"' in out
    finally:
        for process in (one, two):
            if process is not None and process.poll() is None:
                process.kill()
                process.communicate()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(["--lease-name", "x"], "--lease-name applies to --leader-elect", id="alone"),
        pytest.param(
            ["--leader-elect", "--once"], "--leader-elect and --once exclude each other", id="once"
        ),
        pytest.param(
            ["--leader-elect", "--lease-duration", "5", "--lease-renew-deadline", "5"],
            "lease duration > renew deadline > retry period",
            id="timings",
        ),
    ],
)
def test_election_usage_errors(cli: Any, git_repo: Any, args: list[str], message: str) -> None:
    result = cli("reconcile", "--repo", str(git_repo.path), *args)
    assert result.exit_code == 2
    assert message in result.stderr
