"""`gitfleet status` says where each cluster's capacity comes from.

Aspects covered:
- the CAPACITY column: ready/total nodes when collected, `empty (0 nodes)` for a cluster that
  reported no nodes, `last known` with the nodes kept when the agent could not list them,
  `declared` when it never could, `-` without a report;
- a ready cluster whose capacity was not collected is listed among the problems with the
  reason and the message;
- `-o json`: per cluster, `capacity` with its source, nodes (ready, total), reason and message
  (null without a report).
"""

from __future__ import annotations

import json

from cli.conftest import FORBIDDEN, TIMEOUT
from click.testing import Result
from conftest import GitRepo, Invoke

from gitfleet.agent import clusterinfo

FRESH = ("--grace", "1e12")


def _status(cli: Invoke, *extra: str) -> Result:
    assert cli("render", "--repo", "../source").exit_code == 0
    done = cli("status", "--repo", "../source", *extra, *FRESH)
    assert done.exit_code == 0, done.output
    return done


def test_the_capacity_column(capacity_fleet: GitRepo, cli: Invoke) -> None:
    lines = _status(cli).output.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("CLUSTER "))
    assert lines[header].split()[3] == "CAPACITY"
    at = lines[header].index("CAPACITY")
    width = lines[header].index("HEARTBEAT") - at
    shown = {line.split()[0]: line[at : at + width].strip() for line in lines[header + 1 :][:5]}
    assert shown == {
        "big": "3/3 nodes",
        "empty": "empty (0 nodes)",
        "new": "declared",
        "quiet": "-",
        "stale": "last known 1/2 nodes",
    }
    unavailable = clusterinfo.SUMMARY_UNAVAILABLE
    assert (
        f"stale: capacity not collected ({unavailable}): {FORBIDDEN}; last known summary kept"
    ) in lines
    assert (
        f"new: capacity not collected ({unavailable}): {TIMEOUT}; declared capacity in force"
        in (lines)
    )
    assert not any(line.startswith(("big: capacity", "empty: capacity")) for line in lines)


def test_json(capacity_fleet: GitRepo, cli: Invoke) -> None:
    view = json.loads(_status(cli, "-o", "json").output)
    found = {c["name"]: c["capacity"] for c in view["clusters"]}
    collected = {"reason": "", "message": ""}
    assert found["big"] == {"source": "Collected", "nodes": {"ready": 3, "total": 3}, **collected}
    assert found["empty"] == {"source": "Empty", "nodes": {"ready": 0, "total": 0}, **collected}
    assert found["stale"] == {
        "source": "LastKnown",
        "nodes": {"ready": 1, "total": 2},
        "reason": clusterinfo.SUMMARY_UNAVAILABLE,
        "message": FORBIDDEN,
    }
    assert found["new"] == {
        "source": "Declared",
        "nodes": None,
        "reason": clusterinfo.SUMMARY_UNAVAILABLE,
        "message": TIMEOUT,
    }
    assert found["quiet"] is None
