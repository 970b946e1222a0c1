"""`gitfleet agent push --metrics-address … --log-format json` as a process.

Aspects covered:
- the agent logs, as one JSON object a line (time, level, logger, message), where its
  metrics are; `/readyz` passes once every cluster's first sync is done, `/healthz` while
  its loops run; `/metrics` counts the cluster's converged sync and the objects created;
- SIGTERM ends it with exit 0, every line on stderr still JSON;
- the agents take the same `--metrics-address` and `--log-format` (in their help).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import workfiles
from builders import make_configmap, make_object
from cli.logged import BOUND, first
from monitor.scrape import get, scrape, value
from service.service_helpers import wait_for
from simfixture import SimFactory, make_sim_cluster_fixture

__all__ = ["make_sim_cluster_fixture"]

CLUSTER = """\
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: m1}
spec: {syncMode: Push}
"""


def test_a_running_push_agent_serves_its_metrics(
    git_repo: Any, make_sim_cluster: SimFactory, tmp_path: Path
) -> None:
    source = git_repo.commit({"clusters.yaml": CLUSTER}, "clusters")
    make_sim_cluster("m1")
    docs = [make_object("v1", "Namespace", "shop"), make_configmap()]
    workfiles.publish(git_repo.path, {"m1": docs}, source_commit=source)
    process = subprocess.Popen(
        [sys.executable, "-m", "gitfleet", "agent", "push", "--repo", str(git_repo.path),
         "--kubeconfig-dir", str(tmp_path / "kubeconfigs"), "--interval", "60",
         "--metrics-address", "127.0.0.1:0", "--log-format", "json"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stderr is not None
    lines: list[str] = []
    try:
        found = first(
            process,
            process.stderr,
            lambda line: line["message"].startswith("metrics on "),
            lines,
            "the metrics address",
        )
        url = "http://" + found["message"].removeprefix("metrics on ")
        wait_for(lambda: get(url + "/readyz") == (200, "ok\n"), "ready after the first sync")
        assert get(url + "/healthz") == (200, "ok\n")
        samples = scrape(url)
        assert value(samples, "gitfleet_cluster_syncs_total", cluster="m1", result="converged") == 1
        created = value(samples, "gitfleet_cluster_applies_total", cluster="m1", action="created")
        assert created == 2
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=BOUND)
    assert process.returncode == 0
    logged = [json.loads(line) for line in [*lines, *err.splitlines()]]
    assert all(list(line)[:4] == ["time", "level", "logger", "message"] for line in logged)


@pytest.mark.parametrize("agent", ["push", "pull"])
def test_agents_take_metrics_and_log_options(cli: Any, agent: str) -> None:
    result = cli("agent", agent, "--help")
    assert "--metrics-address HOST:PORT" in result.output
    assert "--log-format [text|json]" in result.output
