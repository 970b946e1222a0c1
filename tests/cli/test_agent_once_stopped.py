"""`gitfleet agent push|pull --once` stopped by a signal while it syncs: the sync did not end,
so the command says so and exits 130, never 0 (a script would take that for converged) and
never with a traceback.

Aspects covered, for the push agent (a Push cluster) and the pull agent (a Pull cluster), each
against a simulated cluster:
- SIGINT to the agent alone while it writes the cluster's status (the git it runs then ends
  normally): exit 130;
- SIGINT to the agent's whole process group, as Ctrl-C on a terminal sends it, so that the git
  it runs dies of it first: exit 130, no traceback.

The signal is sent by a `git` placed first on PATH that runs the real one: at the first
`unpack-objects`, which stores the status the agent writes once it applied the manifests.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from builders import make_cluster, make_cluster_policy, make_deployment, selector
from conftest import GitRepo, Invoke
from simfixture import SimFactory, make_sim_cluster_fixture

__all__ = ["make_sim_cluster_fixture"]

BOUND = 120.0
"""Seconds that only a hung agent exceeds."""

GIT_INTERRUPTED_WRITING_STATUS = """\
#!/bin/sh
if [ "$1" = unpack-objects ] && mkdir "{mark}" 2>/dev/null; then kill -INT {target}; fi
exec "{git}" "$@"
"""
TARGETS = [
    pytest.param("$PPID", id="the agent"),
    pytest.param("0", id="its process group"),
]


@pytest.fixture(name="kubeconfigs")
def kubeconfigs_fixture(
    git_repo: GitRepo, cli: Invoke, make_sim_cluster: SimFactory, tmp_path: Path
) -> Path:
    """`pushed` (Push) and `pulled` (Pull) running web, rendered; their kubeconfigs' folder."""
    for name in ("pushed", "pulled"):
        make_sim_cluster(name)
    docs = [
        make_cluster("pushed"),
        make_cluster("pulled", syncMode="Pull"),
        make_deployment("web", "default", replicas=1),
        make_cluster_policy(
            "web",
            selector(name="web"),
            placement={"clusterAffinity": {"clusterNames": ["pushed", "pulled"]}},
        ),
    ]
    git_repo.commit({"fleet.yaml": yaml.safe_dump_all(docs)})
    assert cli("render", "--repo", str(git_repo.path)).exit_code == 0
    return tmp_path / "kubeconfigs"


def _interrupting_git(folder: Path, target: str) -> dict[str, str]:
    """The environment of a command whose git is interrupted once, by SIGINT to `target`."""
    real_git = shutil.which("git")
    assert real_git is not None
    wrapper = folder / "bin" / "git"
    wrapper.parent.mkdir()
    mark = folder / "interrupted"
    wrapper.write_text(
        GIT_INTERRUPTED_WRITING_STATUS.format(mark=mark, target=target, git=real_git)
    )
    wrapper.chmod(0o755)
    return {**os.environ, "PATH": f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}"}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("agent", ["push", "pull"])
def test_once_stopped_is_never_success(
    git_repo: GitRepo, kubeconfigs: Path, tmp_path: Path, agent: str, target: str
) -> None:
    where = {
        "push": ["--kubeconfig-dir", str(kubeconfigs)],
        "pull": ["--cluster", "pulled", "--kubeconfig", str(kubeconfigs / "pulled.yaml")],
    }[agent]
    command = [
        sys.executable, "-m", "gitfleet", "agent", agent, "--repo", str(git_repo.path), *where,
        "--cache-dir", str(tmp_path / "cache"), "--once",
    ]  # fmt: skip
    done = subprocess.run(
        command,
        env=_interrupting_git(tmp_path, target),
        capture_output=True,
        text=True,
        timeout=BOUND,
        start_new_session=True,  # a process group of its own, as a terminal gives a command
        check=False,
    )
    assert (tmp_path / "interrupted").is_dir(), done.stderr
    assert done.returncode == 130, done.stdout + done.stderr
    assert "stopped before the sync ended" in done.stderr
    assert "Traceback" not in done.stderr
