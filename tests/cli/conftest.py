"""Fixtures of the command tests: commands run as a user types them, from another directory."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import yaml
from builders import DYNAMIC_WEIGHT, make_cluster, make_deployment, make_policy, selector
from conftest import GitRepo
from status import status_kit

from gitfleet.agent import report


@pytest.fixture(name="elsewhere")
def elsewhere_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Another current directory, next to the test's repository (`../source`)."""
    here = tmp_path / "elsewhere"
    here.mkdir()
    monkeypatch.chdir(here)
    return here


FORBIDDEN = 'nodes is forbidden: User "agent" cannot list resource "nodes"'
TIMEOUT = "the server was unable to return a response in the time allotted"


@pytest.fixture(name="capacity_fleet")
def capacity_fleet_fixture(git_repo: GitRepo, elsewhere: Path) -> GitRepo:
    """A source (not rendered yet), Deployment shop/web (8 replicas of 1 CPU) divided by available
    replicas over clusters that each declare 2 CPUs, whose agents reported their capacity:
    `big` collected 3/3 nodes with 8 CPUs, `empty` collected no nodes, `stale` could not list
    nodes (FORBIDDEN) and kept 1/2 nodes with 1 CPU, `new` never could (TIMEOUT), `quiet` has
    not reported."""
    names = ("big", "empty", "new", "quiet", "stale")
    docs = {
        "apps/web.yaml": [make_deployment("web", replicas=8, cpu="1")],
        "policies/web.yaml": [make_policy("web", selector(name="web"), placement=DYNAMIC_WEIGHT)],
        "clusters.yaml": [make_cluster(n, cpu="2") for n in names],
    }
    git_repo.commit({rel: yaml.safe_dump_all(d, sort_keys=False) for rel, d in docs.items()})
    reported = {
        "big": status_kit.capacity_status((3, 3), "8"),
        "empty": status_kit.capacity_status((0, 0)),
        "stale": status_kit.capacity_status((1, 2), "1", unavailable=FORBIDDEN),
        "new": status_kit.capacity_status(None, unavailable=TIMEOUT),
    }
    beat = report.timestamp(time.time())
    status_kit.write_reports(
        git_repo.path,
        {n: status_kit.report_files(n, status=s, heartbeat=beat) for n, s in reported.items()},
    )
    return git_repo
