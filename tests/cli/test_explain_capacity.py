"""`gitfleet explain` says where a capacity that held replicas back comes from (explained as
the first render of the source places it).

Aspects covered:
- a cluster that reported no nodes fits nothing and is said to be empty;
- a summary the agent could not collect now is the last known one (with its nodes), one it
  never collected leaves the declared capacity, each with the reason and message; a cluster
  whose agent has not reported is on its declared capacity too;
- a cluster whose collected capacity holds every replica is not mentioned;
- `-o json`: `capacity` lists each cluster that fits fewer replicas than wanted, with the
  source of its capacity.
"""

from __future__ import annotations

import json

from cli.conftest import FORBIDDEN, TIMEOUT
from conftest import GitRepo, Invoke

from gitfleet.agent import clusterinfo

WHY = clusterinfo.SUMMARY_UNAVAILABLE


def test_the_capacity_lines(capacity_fleet: GitRepo, cli: Invoke) -> None:
    done = cli("explain", "deploy/web", "-n", "shop", "--repo", "../source")
    assert done.exit_code == 0, done.output
    found = [line for line in done.output.splitlines() if line.startswith("capacity: ")]
    assert found == [
        "capacity: empty fits 0 of 8 replicas: it reported no nodes (an empty cluster)",
        "capacity: new fits 2 of 8 replicas by the capacity declared in the source: never"
        f" collected ({WHY}): {TIMEOUT}",
        "capacity: quiet fits 2 of 8 replicas by the capacity declared in the source: its agent"
        " reported none",
        "capacity: stale fits 1 of 8 replicas by its last known summary, 1/2 nodes: not"
        f" collected now ({WHY}): {FORBIDDEN}",
    ]


def test_json(capacity_fleet: GitRepo, cli: Invoke) -> None:
    done = cli("explain", "deploy/web", "-n", "shop", "--repo", "../source", "-o", "json")
    assert done.exit_code == 0, done.output
    limits = {c["cluster"]: c for c in json.loads(done.output)["capacity"]}
    assert sorted(limits) == ["empty", "new", "quiet", "stale"]
    assert {n: (c["available"], c["source"]) for n, c in limits.items()} == {
        "empty": (0, "Empty"),
        "new": (2, "Declared"),
        "quiet": (2, "Declared"),
        "stale": (1, "LastKnown"),
    }
    assert limits["stale"]["nodes"] == {"ready": 1, "total": 2}
    assert (limits["new"]["reason"], limits["new"]["message"]) == (WHY, TIMEOUT)
    assert all(c["replicas"] == 8 for c in limits.values())
