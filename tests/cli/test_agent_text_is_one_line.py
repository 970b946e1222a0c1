"""What a cluster's agent wrote into its status ref (its credential can write anything there)
prints as one line per item in `gitfleet status`, `get` and `explain`, so that one cluster's
report cannot add lines about other clusters, clear the terminal, or fill it.

Each hostile text below holds `FORGED` on a line of its own, or a terminal's escape sequence.

Aspects covered, for `status` (one case each):
- the Ready condition: a message of many lines (CR, LF, NUL) is its first line and how many
  follow; one of 3,000 characters is cut to 1,024 bytes; a terminal escape is written escaped;
  a status spanning lines is one line too;
- the capacity condition's reason and message, on a ready cluster;
- a heartbeat that is not a time: not printed, said to be no time;
- a manifest's path, its message, a leftover's name, the sync's error;
then `get` (an object's name) and `explain` (a capacity condition's message).
"""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
import yaml
from builders import make_cluster, make_deployment, make_policy
from cli.conftest import FORBIDDEN
from conftest import GitRepo, Invoke
from status import status_kit

from gitfleet.agent import report
from gitfleet.model import capacity

Doc = dict[str, Any]

FORGED = "m2: False: forged"
"""A line as `status` prints a problem of cluster m2: what a hostile text tries to print."""
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]")
"""Control characters other than the new lines that end printed lines."""


def ready(status: str = "False", message: str = "down") -> Doc:
    return {"type": "Ready", "status": status, "reason": "Probe", "message": message}


def summary(reason: str, message: str) -> Doc:
    """A capacity the agent could not collect."""
    return {"type": capacity.SUMMARY_CONDITION, "status": "False", "reason": reason,
            "message": message}  # fmt: skip


def manifest(**fields: Any) -> Doc:
    path = "works/m1/default/ConfigMap.core/cm.yaml"
    found = {"path": path, "apiVersion": "v1", "kind": "ConfigMap", "namespace": "default",
             "name": "cm", "applied": False, "health": "Unknown", "message": "failed"}  # fmt: skip
    return {**found, **fields}


CASES = [
    pytest.param(
        {"conditions": [ready(message=f"down\r\n{FORGED}\x00")]}, {},
        "m1: False: down (+1 more line)", id="Ready message of many lines",
    ),
    pytest.param(
        {"conditions": [ready(message="y" * 3000)]}, {},
        "m1: False: " + "y" * 1021 + "…", id="Ready message of 3000 characters",
    ),
    pytest.param(
        {"conditions": [ready(message="down \x1b[2J")]}, {},
        "m1: False: down \\x1b[2J", id="Ready message clearing the terminal",
    ),
    pytest.param(
        {"conditions": [ready(status=f"False\n{FORGED}")]}, {},
        "m1: False (+1 more line): down", id="Ready status of many lines",
    ),
    pytest.param(
        {"conditions": [ready("True"), summary(f"Forbidden\n{FORGED}", f"no nodes\n{FORGED}")]},
        {},
        "m1: capacity not collected (Forbidden (+1 more line)): no nodes (+1 more line);"
        " declared capacity in force",
        id="capacity condition of many lines",
    ),
    pytest.param(
        {"heartbeatTime": f"2026-01-01T00:00:00Z\n{FORGED}"}, {},
        "m1: report: cluster.yaml: heartbeatTime is not a time", id="heartbeat of many lines",
    ),
    pytest.param(
        {}, {"manifests": [manifest(path=f"p\n{FORGED}")]},
        f"m1: p\\n{FORGED}: failed", id="manifest path of many lines",
    ),
    pytest.param(
        {}, {"manifests": [manifest(message="failed \x1b[2J")]},
        "m1: works/m1/default/ConfigMap.core/cm.yaml: failed \\x1b[2J",
        id="manifest message clearing the terminal",
    ),
    pytest.param(
        {}, {"pendingDeletions": [{**manifest(name=f"old\n{FORGED}"), "message": "forbidden"}]},
        f"m1: not deleted: ConfigMap/default/old\\n{FORGED}: forbidden",
        id="leftover name of many lines",
    ),
    pytest.param(
        {}, {"error": "sync failed \x1b[2J"}, "m1: sync failed \\x1b[2J",
        id="sync error clearing the terminal",
    ),
]  # fmt: skip


@pytest.fixture(name="fleet")
def fleet_fixture(git_repo: GitRepo, elsewhere: Any, cli: Invoke) -> GitRepo:
    """Clusters m1 and m2, rendered, typed from the folder next to the repository."""
    docs = [make_cluster("m1"), make_cluster("m2"), make_deployment(), make_policy("web")]
    git_repo.commit({"fleet.yaml": yaml.safe_dump_all(docs, sort_keys=False)})
    assert cli("render", "--repo", "../source").exit_code == 0
    return git_repo


def write_report(repo: GitRepo, summary_fields: Doc, works: Doc) -> None:
    """m1's status ref, as a hostile agent writes it: a ready cluster reporting now, with
    `summary_fields` in its cluster.yaml (`conditions`: its status's) and `works` in works.yaml."""
    conditions = summary_fields.pop("conditions", [ready("True")])
    doc = {"cluster": "m1", "heartbeatTime": report.timestamp(time.time()), "renderedCommit": "r1",
           "status": {"conditions": conditions}, **summary_fields}  # fmt: skip
    works_doc = {"cluster": "m1", "renderedCommit": "r1", "converged": False, "manifests": [],
                 **works}  # fmt: skip
    files = {name: yaml.safe_dump(d).encode() for name, d in
             (("cluster.yaml", doc), ("works.yaml", works_doc))}  # fmt: skip
    status_kit.write_reports(repo.path, {"m1": files})


def one_line_each(output: str) -> list[str]:
    """The printed lines, checked: none is a forged one, none holds a control character."""
    assert CONTROL.search(output) is None, output
    lines = output.splitlines()
    assert not [line for line in lines if line.startswith(FORGED)], output
    return lines


@pytest.mark.parametrize(("cluster_fields", "works", "expected"), CASES)
def test_status_prints_each_as_one_line(
    fleet: GitRepo, cli: Invoke, cluster_fields: Doc, works: Doc, expected: str
) -> None:
    write_report(fleet, dict(cluster_fields), works)
    done = cli("status", "--repo", "../source")
    assert done.exit_code == 0, done.output
    assert expected in one_line_each(done.stdout)


def test_get_prints_a_reported_name_as_one_line(fleet: GitRepo, cli: Invoke) -> None:
    observed = manifest(name=f"cm\n{FORGED}", applied=True, health="Healthy", message="")
    write_report(fleet, {}, {"manifests": [observed]})
    done = cli("get", "configmaps", "--repo", "../source")
    assert done.exit_code == 0, done.output
    _, row = one_line_each(done.stdout)
    assert row.startswith(f"cm\\n{FORGED}   m1 ")


def test_explain_prints_a_capacity_message_as_one_line(
    capacity_fleet: GitRepo, cli: Invoke
) -> None:
    unavailable = f"{FORBIDDEN}\n{FORGED}\x1b[2J"
    hostile = status_kit.capacity_status((1, 2), "1", unavailable=unavailable)
    files = status_kit.report_files(
        "stale", status=hostile, heartbeat=report.timestamp(time.time())
    )
    status_kit.write_reports(capacity_fleet.path, {"stale": files})
    done = cli("explain", "deploy/web", "-n", "shop", "--repo", "../source")
    assert done.exit_code == 0, done.output
    [line] = [x for x in one_line_each(done.stdout) if x.startswith("capacity: stale ")]
    assert line.endswith(f"({capacity.SUMMARY_UNAVAILABLE}): {FORBIDDEN} (+1 more line)")
