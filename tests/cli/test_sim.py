"""`gitfleet sim`: simulated clusters from the command line.

Covers: --clusters N starts member1..N, prints one line per cluster and writes working
kubeconfigs (kubectl, where installed, reads nodes with one); SIGTERM and SIGINT stop it with
exit 0; stopping removes the kubeconfigs and the folder it made (not a user's files; `--keep-
kubeconfigs` keeps them); --from-repo starts one cluster per Cluster of a source folder, named
after it, whose nodes add up to the declared capacity, carry its region and zone and report
its declared Kubernetes version; -o json; usage errors (neither or both of --clusters and
--from-repo, ports past 65535) exit 2; a source without Clusters, and a port already in use,
are one-line errors, exit 1.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]

CLUSTERS = """\
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata:
  name: big
spec:
  syncMode: Push
  region: eu-west-1
  zones: [eu-west-1a, eu-west-1b]
status:
  kubernetesVersion: v1.31.4
  nodeSummary: {totalNum: 3, readyNum: 3}
  resourceSummary:
    allocatable: {cpu: "10", memory: 30Gi, pods: "100"}
---
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata:
  name: small
spec:
  syncMode: Pull
"""


class Running:
    """A `gitfleet sim` process and the lines it printed."""

    def __init__(self, args: list[str], lines: int) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gitfleet", "sim", *args],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        self.lines = [self.process.stdout.readline() for _ in range(lines)]

    def read_json(self) -> Any:
        """The JSON document printed (indented, so it ends with a line holding "}")."""
        assert self.process.stdout is not None
        lines = list(self.lines)
        while lines[-1] not in ("}\n", ""):
            lines.append(self.process.stdout.readline())
        return json.loads("".join(lines))

    def stop(self, signum: int = signal.SIGTERM) -> int:
        self.process.send_signal(signum)
        return self.process.wait(timeout=30)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture(name="start_sim")
def start_sim_fixture() -> Iterator[Any]:
    started: list[Running] = []

    def start(*args: str, lines: int = 1) -> Running:
        running = Running(list(args), lines)
        started.append(running)
        return running

    yield start
    for running in started:
        running.kill()


def _get(kubeconfig: Path, path: str) -> Any:
    """GET `path` from the cluster a kubeconfig names, with its token, trusting its CA only."""
    config = yaml.safe_load(kubeconfig.read_text())
    cluster = config["clusters"][0]["cluster"]
    token = config["users"][0]["user"]["token"]
    ca = base64.b64decode(cluster["certificate-authority-data"]).decode()
    request = urllib.request.Request(
        cluster["server"] + path, headers={"Authorization": f"Bearer {token}"}
    )
    context = ssl.create_default_context(cadata=ca)
    with urllib.request.urlopen(request, timeout=10, context=context) as response:
        return json.load(response)


@pytest.mark.parametrize(
    "signum", [pytest.param(signal.SIGTERM, id="SIGTERM"), pytest.param(signal.SIGINT, id="SIGINT")]
)
def test_clusters_serve_until_signalled(start_sim: Any, tmp_path: Path, signum: int) -> None:
    running = start_sim("--clusters", "2", "--kubeconfig-dir", str(tmp_path), lines=2)
    rows = [line.split() for line in running.lines]
    assert [row[0] for row in rows] == ["member1", "member2"]
    assert [row[2] for row in rows] == [
        str(tmp_path / "member1.yaml"),
        str(tmp_path / "member2.yaml"),
    ]
    nodes = _get(tmp_path / "member2.yaml", "/api/v1/nodes")
    assert nodes["items"][0]["metadata"]["name"] == "member2-node-1"
    assert running.stop(signum) == 0


def test_stopping_removes_the_kubeconfigs(start_sim: Any, tmp_path: Path) -> None:
    """And the folder it made; a folder that was there stays, with the user's files, and
    `--keep-kubeconfigs` keeps them."""
    made, mine, kept = tmp_path / "made", tmp_path / "mine", tmp_path / "kept"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    runs = [
        start_sim("--clusters", "2", "--kubeconfig-dir", str(made), lines=2),
        start_sim("--clusters", "1", "--kubeconfig-dir", str(mine), lines=1),
        start_sim("--clusters", "1", "--kubeconfig-dir", str(kept), "--keep-kubeconfigs"),
    ]
    assert (made / "member2.yaml").exists() and (mine / "member1.yaml").exists()
    assert [running.stop() for running in runs] == [0, 0, 0]
    assert not made.exists()
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]
    assert (kept / "member1.yaml").exists()


def test_clusters_from_a_source_folder(start_sim: Any, tmp_path: Path) -> None:
    source = tmp_path / "source"
    (source / "clusters").mkdir(parents=True)
    (source / "clusters" / "fleet.yaml").write_text(CLUSTERS)
    configs = tmp_path / "configs"
    running = start_sim(
        "--from-repo", str(source), "--kubeconfig-dir", str(configs), "-o", "json", lines=1
    )
    printed = running.read_json()
    nodes = _get(configs / "big.yaml", "/api/v1/nodes")["items"]
    allocatable = [n["status"]["allocatable"] for n in nodes]
    assert [c["name"] for c in printed["clusters"]] == ["big", "small"]
    assert [a["cpu"] for a in allocatable] == ["3334m", "3333m", "3333m"]
    assert [a["pods"] for a in allocatable] == ["34", "33", "33"]
    assert nodes[0]["metadata"]["labels"]["topology.kubernetes.io/region"] == "eu-west-1"
    assert nodes[0]["metadata"]["labels"]["topology.kubernetes.io/zone"] == "eu-west-1a"
    assert _get(configs / "big.yaml", "/version")["gitVersion"] == "v1.31.4"
    assert len(_get(configs / "small.yaml", "/api/v1/nodes")["items"]) == 1
    assert running.stop() == 0


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
def test_kubectl_uses_the_written_kubeconfig(start_sim: Any, tmp_path: Path) -> None:
    start_sim("--clusters", "1", "--kubeconfig-dir", str(tmp_path / "kube"), lines=1)
    home = tmp_path / "home"
    home.mkdir()
    done = subprocess.run(
        ["kubectl", "--kubeconfig", "kube/member1.yaml", "get", "nodes"],
        cwd=tmp_path,
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[:5] == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]
    assert done.stdout.splitlines()[1].split()[:2] == ["member1-node-1", "Ready"]


@pytest.mark.parametrize(
    "args",
    [
        pytest.param([], id="neither"),
        pytest.param(["--clusters", "1", "--from-repo", "."], id="both"),
    ],
)
def test_cluster_source_must_be_given_once(cli: Any, tmp_path: Path, args: list[str]) -> None:
    result = cli("sim", *args, "--kubeconfig-dir", str(tmp_path))
    assert result.exit_code == 2
    assert "--clusters or --from-repo" in result.output


def test_source_without_clusters_is_invalid_input(cli: Any, tmp_path: Path) -> None:
    (tmp_path / "app.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    result = cli("sim", "--from-repo", str(tmp_path), "--kubeconfig-dir", str(tmp_path / "k"))
    assert result.exit_code == 1
    assert "defines no Cluster" in result.output


def test_busy_port_is_a_clear_error(cli: Any, tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = cli("sim", "--clusters", "1", "--port", str(port), "--kubeconfig-dir", "k")
    assert result.exit_code == 1
    assert f"simulated cluster member1 cannot listen on 127.0.0.1:{port}" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "k").exists()


def test_ports_past_the_last_are_a_usage_error(cli: Any, tmp_path: Path) -> None:
    result = cli("sim", "--clusters", "2", "--port", "65535", "--kubeconfig-dir", str(tmp_path))
    assert result.exit_code == 2
    assert "go past port 65535" in result.output
