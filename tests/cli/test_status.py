"""`gitfleet status` on a rendered repository whose agents reported through status refs.

Aspects covered:
- `-o json`: per cluster (mode, ready, reported, the commit applied, synced), per resource
  (expected clusters, replicas desired and ready, health, FullyApplied, the Karmada items and
  the aggregated status);
- the human form: a cluster table, a resource table, then what is wrong cluster by cluster;
- a render that changes a cluster's folder makes its report not synced; a render that leaves it
  alone does not;
- heartbeats older than `--grace` make clusters Unknown;
- a policy suspending dispatching to one cluster: the resource names it, in both forms;
- a reported commit holding a line break of any kind is shown as written, not known to be synced;
- a repository holding only the rendered branch and the status refs: the view is built with
  the built-in rules and says so; nothing rendered yet lists the clusters that reported;
- not a repository: exit 1;
- the reconciler's status ref: after `reconcile --once`, the human form shows the source commit
  it last saw and rendered above the cluster table, and `-o json` its whole status under
  `reconciler`; after a commit that does not validate, the last error with its file and line;
  timings, in the order the steps run, and each failing cluster repository, as written;
  without the ref, `reconciler` is null and the human form has no reconciler block; a ref
  holding something else is a note.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from builders import make_push_and_pull
from conftest import GitRepo, Invoke, git
from status.status_kit import Applied, report_files

from gitfleet.gitstore import repository, status
from gitfleet.status import reconciler_state

FRESH = ("--grace", "1e12")


def _source(replicas: int = 4) -> str:
    return yaml.safe_dump_all(make_push_and_pull("m1", "m2", replicas))


@pytest.fixture(name="fleet")
def fleet_fixture(git_repo: GitRepo, cli: Invoke) -> GitRepo:
    """A rendered source (web, Duplicated to m1 and m2) where only m1's agent reported."""
    git_repo.commit({"fleet.yaml": _source()})
    assert cli("render", "--repo", str(git_repo.path)).exit_code == 0
    _report(git_repo, "m1", git_repo.git("rev-parse", "gitfleet/works/m1"))
    return git_repo


@contextlib.contextmanager
def _opened(repo_path: GitRepo) -> Iterator[repository.Repository]:
    repo = repository.open_repository(repo_path.path)
    assert repo is not None
    try:
        yield repo
    finally:
        repo.close()


def _report(repo_path: GitRepo, name: str, rendered_commit: str) -> None:
    web = Applied("Deployment", "web", status={"replicas": 4, "readyReplicas": 3})
    files = report_files(name, [web], rendered_commit=rendered_commit)
    with _opened(repo_path) as repo:
        status.write_status(repo, name, files, expected=None, rendered_commit=rendered_commit)


def _json(cli: Invoke, path: str, *extra: str) -> dict[str, Any]:
    done = cli("status", "--repo", path, "-o", "json", *extra)
    assert done.exit_code == 0, done.output
    found: dict[str, Any] = json.loads(done.output)
    return found


def test_json(fleet: GitRepo, cli: Invoke) -> None:
    view = _json(cli, str(fleet.path), *FRESH)
    assert view["reconciler"] is None
    assert view["renderedCommit"] == fleet.git("rev-parse", "gitfleet/rendered")
    assert view["sourceCommit"] == fleet.git("rev-parse", "HEAD")
    m1, m2 = view["clusters"]
    assert (m1["name"], m1["mode"], m1["ready"], m1["reported"], m1["synced"]) == (
        "m1", "Push", "True", True, True,
    )  # fmt: skip
    assert m1["renderedCommit"] == fleet.git("rev-parse", "gitfleet/rendered")
    assert m1["reportedCommit"] == fleet.git("rev-parse", "gitfleet/works/m1")
    assert (m2["name"], m2["mode"], m2["ready"], m2["reason"], m2["reported"]) == (
        "m2", "Pull", "Unknown", "NoReport", False,
    )  # fmt: skip
    (web,) = view["resources"]
    assert (web["kind"], web["namespace"], web["name"]) == ("Deployment", "shop", "web")
    assert web["clusters"] == ["m1", "m2"]
    assert web["replicas"] == {"desired": 8, "ready": 3}
    assert (web["health"], web["fullyApplied"]) == ("Unknown", False)
    assert [(i["clusterName"], i.get("applied", False)) for i in web["aggregatedStatus"]] == [
        ("m1", True),
        ("m2", False),
    ]
    assert web["status"]["readyReplicas"] == 3


@pytest.mark.parametrize("written", ["a\u2028b", "HEAD\nHEAD", "x\ry"])
def test_a_reported_commit_no_git_name_reads(fleet: GitRepo, cli: Invoke, written: str) -> None:
    """What an agent reports is read as text: a line break of any kind in it names nothing."""
    web = Applied("Deployment", "web", status={"replicas": 4, "readyReplicas": 3})
    with _opened(fleet) as repo:
        files = report_files("m2", [web], rendered_commit=written)
        status.write_status(repo, "m2", files, expected=None, rendered_commit="r1")
    m2 = _json(cli, str(fleet.path), *FRESH)["clusters"][1]
    assert (m2["name"], m2["reportedCommit"], m2["synced"]) == ("m2", written, None)
    assert cli("status", "--repo", str(fleet.path), *FRESH).exit_code == 0


def test_human(fleet: GitRepo, cli: Invoke) -> None:
    done = cli("status", "--repo", str(fleet.path), *FRESH)
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    assert lines[0].startswith("gitfleet/rendered at ")
    assert not any(line.startswith("reconciler") for line in lines)
    assert lines[2].split() == [
        "CLUSTER", "MODE", "READY", "CAPACITY", "HEARTBEAT", "APPLIED", "SYNCED", "DRIFTED",
        "ERRORS",
    ]  # fmt: skip
    m1 = lines[3].split()
    assert m1[:4] == ["m1", "Push", "True", "declared"] and m1[6:] == ["yes", "0", "0"]
    assert lines[4].split() == ["m2", "Pull", "Unknown", "-", "-", "-", "-", "-", "-"]
    assert lines[6].split() == ["RESOURCE", "CLUSTERS", "SCHEDULED", "READY", "HEALTH", "APPLIED"]
    assert lines[7].split() == ["Deployment/shop/web", "2", "yes", "3/8", "Unknown", "1/2"]
    assert "m2: Unknown: its agent has not reported yet" in lines


def test_a_suspended_cluster_is_named(fleet: GitRepo, cli: Invoke) -> None:
    docs = make_push_and_pull("m1", "m2", replicas=6)
    docs[-1]["spec"]["suspension"] = {"dispatchingOnClusters": {"clusterNames": ["m2"]}}
    fleet.commit({"fleet.yaml": yaml.safe_dump_all(docs)})
    assert cli("render", "--repo", str(fleet.path)).exit_code == 0
    (web,) = _json(cli, str(fleet.path), *FRESH)["resources"]
    assert web["dispatchingSuspended"] == ["m2"]
    lines = _human(cli, fleet)
    assert (
        "Deployment/shop/web: dispatching suspended to m2: they keep the manifests they were "
        "last sent"
    ) in lines


def test_synced_follows_the_clusters_folder(fleet: GitRepo, cli: Invoke) -> None:
    fleet.commit({"notes.txt": "nothing rendered changes\n"})
    assert cli("render", "--repo", str(fleet.path)).exit_code == 0
    assert _json(cli, str(fleet.path), *FRESH)["clusters"][0]["synced"] is True
    fleet.commit({"fleet.yaml": _source(replicas=5)})
    assert cli("render", "--repo", str(fleet.path)).exit_code == 0
    assert _json(cli, str(fleet.path), *FRESH)["clusters"][0]["synced"] is False


def test_stale_heartbeats(fleet: GitRepo, cli: Invoke) -> None:
    m1 = _json(cli, str(fleet.path), "--grace", "0")["clusters"][0]
    assert (m1["ready"], m1["reason"]) == ("Unknown", "ClusterStatusUnknown")
    assert "no heartbeat from its agent since" in m1["message"]


def test_a_repository_of_renders_and_reports_only(
    fleet: GitRepo, cli: Invoke, tmp_path: Any
) -> None:
    bare = tmp_path / "renders.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(bare, "fetch", "-q", str(fleet.path), "+refs/heads/gitfleet/*:refs/heads/gitfleet/*")
    view = _json(cli, str(bare), *FRESH)
    assert any("is not in the repository" in n for n in view["notes"])
    (web,) = view["resources"]
    assert web["status"]["readyReplicas"] == 3
    assert [c["mode"] for c in view["clusters"]] == ["", ""]


def test_nothing_rendered_yet(git_repo: GitRepo, cli: Invoke) -> None:
    git_repo.commit({"fleet.yaml": _source()})
    _report(git_repo, "m1", "0" * 40)
    view = _json(cli, str(git_repo.path), *FRESH)
    assert view["renderedCommit"] is None and view["resources"] == []
    assert any("nothing rendered yet" in n for n in view["notes"])
    assert [(c["name"], c["synced"]) for c in view["clusters"]] == [("m1", None), ("m2", None)]


def test_not_a_repository(cli: Invoke, tmp_path: Any) -> None:
    done = cli("status", "--repo", str(tmp_path))
    assert done.exit_code == 1
    assert "not a Git repository" in done.output


def _human(cli: Invoke, repo: GitRepo) -> list[str]:
    done = cli("status", "--repo", str(repo.path), *FRESH)
    assert done.exit_code == 0, done.output
    lines: list[str] = done.output.splitlines()
    return lines


def _reconciler_block(lines: list[str]) -> list[str]:
    """The reconciler's lines, which must sit between the heading and the cluster table."""
    end = lines.index("", 2)
    assert lines[end + 1].startswith("CLUSTER ")
    return lines[2:end]


def test_reconciler_last_seen_and_rendered(fleet: GitRepo, cli: Invoke) -> None:
    assert cli("reconcile", "--repo", str(fleet.path), "--once").exit_code == 0
    head, tip = fleet.git("rev-parse", "HEAD"), fleet.git("rev-parse", "gitfleet/rendered")
    found = _json(cli, str(fleet.path), *FRESH)["reconciler"]
    assert (found["kind"], found["sourceBranch"], found["renderedBranch"]) == (
        "ReconcilerStatus", "main", "gitfleet/rendered",
    )  # fmt: skip
    assert found["lastSeenSourceCommit"] == found["lastRenderedSourceCommit"] == head
    assert found["lastRenderedCommit"] == tip
    assert (found["lastError"], found["clusterRepoErrors"]) == (None, [])
    lines = _human(cli, fleet)
    first, *more = _reconciler_block(lines)
    assert first.startswith(
        f"reconciler: last seen {head[:12]}, rendered {head[:12]} → {tip[:12]}, updated "
    )
    assert [line.split(":")[0] for line in more] == ["  timings"]
    table = lines.index(next(line for line in lines if line.startswith("CLUSTER ")))
    assert lines[table + 2].split() == ["m2", "Pull", "Unknown", "-", "-", "-", "-", "-", "-"]


def test_reconciler_last_error(fleet: GitRepo, cli: Invoke) -> None:
    assert cli("reconcile", "--repo", str(fleet.path), "--once").exit_code == 0
    good = fleet.git("rev-parse", "HEAD")
    bad = fleet.commit({"apps/broken.yaml": "kind: [\n"})
    assert cli("reconcile", "--repo", str(fleet.path), "--once").exit_code == 1
    found = _json(cli, str(fleet.path), *FRESH)["reconciler"]
    assert (found["lastSeenSourceCommit"], found["lastRenderedSourceCommit"]) == (bad, good)
    error = found["lastError"]
    assert (error["path"], error["line"], error["col"]) == ("apps/broken.yaml", 2, 1)
    assert error["sourceCommit"] == bad and error["message"]
    first, problem, *_ = _reconciler_block(_human(cli, fleet))
    assert first.startswith(f"reconciler: last seen {bad[:12]}, rendered {good[:12]} → ")
    assert problem.startswith("  last error: apps/broken.yaml:2:1: ")
    assert problem.endswith(f", source {bad[:12]})")


def test_reconciler_timings_and_cluster_repositories(fleet: GitRepo, cli: Invoke) -> None:
    failing = reconciler_state.ClusterRepoError(
        cluster="m2",
        step="push-works",
        source_commit="c" * 40,
        message="cannot reach file:///m2.git",
        since="2026-01-01T00:00:00Z",
    )
    written = reconciler_state.ReconcilerState(
        source_branch="main",
        rendered_branch="gitfleet/rendered",
        updated="2026-01-01T00:00:01Z",
        last_seen="c" * 40,
        timings={"push": 1.0, "commit": 0.375, "render": 0.25, "load": 0.125, "fetch": 0.5},
        cluster_repos=(failing,),
    )
    with _opened(fleet) as repo:
        reconciler_state.write(repo, written, expected=None)
    assert _reconciler_block(_human(cli, fleet)) == [
        "reconciler: last seen cccccccccccc, nothing rendered, updated 2026-01-01T00:00:01Z",
        "  timings: fetch 0.500s, load 0.125s, render 0.250s, commit 0.375s, push 1.000s",
        "  cluster repository m2: push-works failing since 2026-01-01T00:00:00Z:"
        " cannot reach file:///m2.git (source cccccccccccc)",
    ]
    found = _json(cli, str(fleet.path), *FRESH)["reconciler"]
    assert found["clusterRepoErrors"] == [
        {
            "cluster": "m2",
            "step": "push-works",
            "sourceCommit": "c" * 40,
            "message": "cannot reach file:///m2.git",
            "since": "2026-01-01T00:00:00Z",
        }
    ]


def test_a_reconciler_ref_holding_something_else(fleet: GitRepo, cli: Invoke) -> None:
    with _opened(fleet) as repo:
        files = {reconciler_state.FILE: b"kind: Cluster\n"}
        status.write_status(repo, reconciler_state.NAME, files, expected=None, rendered_commit="")
    view = _json(cli, str(fleet.path), *FRESH)
    assert view["reconciler"] is None
    assert (
        "refs/heads/gitfleet/status/_reconciler holds no reconciler.yaml of kind ReconcilerStatus"
        in view["notes"]
    )
