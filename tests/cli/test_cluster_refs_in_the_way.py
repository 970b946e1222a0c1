"""A branch in the way of the refs gitfleet writes for each cluster, as a user meets it.

Git keeps a branch as a file named after it, so a branch named `gitfleet/works` (or
`gitfleet`, or one below a cluster's ref such as `gitfleet/works/m1/old`) keeps every Work ref
below it from being made, and `gitfleet/status` every status ref. Each command is typed from
the folder above the repository (`--repo source`), or names a bare remote.

Aspects covered:
- `render`, and `validate` with the same lines: exit 1, an error at each Cluster's name whose
  Work ref cannot be made, naming the branch in the way (only that cluster for a branch below
  its ref); no rendered or cluster ref
  moves, so a new cluster blocked so leaves the last render in place; git's own words
  ("cannot lock ref") never show;
- `render` writes no status ref: `gitfleet/status` does not stop it;
- `reconcile --once` on a bare remote holding `gitfleet/works` or `gitfleet/status`: exit 1,
  the error logged with the Cluster's file and line, the remote's rendered and cluster refs
  untouched; the reconciler's own status, which `gitfleet/status` keeps out too, is said to
  be blocked in gitfleet's words; a commit rendered before the branch got in the way is no
  longer taken as up to date.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from builders import make_cluster, make_deployment, make_policy
from conftest import GitRepo, Invoke, git

WORKLOAD = yaml.safe_dump_all([make_deployment(namespace=""), make_policy("web", namespace="")])


def _cluster_file(name: str) -> str:
    return yaml.safe_dump(make_cluster(name))


def _name_at(name: str) -> str:
    """`line:col` of the Cluster's metadata.name in its file."""
    lines = _cluster_file(name).splitlines()
    line = lines.index(f"  name: {name}") + 1
    return f"{line}:3"


def _in_the_way(cluster: str, what: str, other: str) -> str:
    folder = "works" if what == "Work" else "status"
    return (
        f"Cluster {cluster}: its {what} ref 'gitfleet/{folder}/{cluster}' cannot be made while"
        f" branch '{other}' exists (a branch cannot also be a folder of branches): rename or"
        f" delete '{other}'"
    )


def _refs(repo: Path) -> list[str]:
    """Every ref but the status refs (the reconciler records its look in its own)."""
    listed = git(repo, "for-each-ref", "--format=%(refname) %(objectname)").splitlines()
    return [r for r in listed if not r.startswith("refs/heads/gitfleet/status/")]


@pytest.fixture(name="fleet")
def fleet_fixture(git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    """Clusters m1 and m2 and a workload on both, committed; the current folder the one above
    the repository."""
    files = {f"clusters/{n}.yaml": _cluster_file(n) for n in ("m1", "m2")}
    git_repo.commit({**files, "apps/web.yaml": WORKLOAD})
    monkeypatch.chdir(git_repo.path.parent)
    return git_repo


@pytest.mark.parametrize(
    ("other", "blocked"),
    [
        pytest.param("gitfleet/works", ("m1", "m2"), id="gitfleet/works"),
        pytest.param("gitfleet", ("m1", "m2"), id="gitfleet"),
        pytest.param("gitfleet/works/m1/old", ("m1",), id="below one cluster's ref"),
    ],
)
@pytest.mark.parametrize("command", ["render", "validate"])
def test_an_error_at_each_cluster_whose_ref_a_branch_is_in_the_way_of(
    fleet: GitRepo, cli: Invoke, command: str, other: str, blocked: tuple[str, ...]
) -> None:
    fleet.git("branch", other)
    refs = _refs(fleet.path)
    done = cli(command, "--repo", "source")
    assert done.exit_code == 1, done.output
    assert "Traceback" not in done.output and "cannot lock ref" not in done.output
    said = [line for line in done.output.splitlines() if "its Work ref" in line]
    assert said == [
        f"source/clusters/{name}.yaml:{_name_at(name)}: error: {_in_the_way(name, 'Work', other)}"
        for name in blocked
    ]
    assert _refs(fleet.path) == refs


def test_a_new_cluster_whose_ref_is_blocked_keeps_the_last_render(
    fleet: GitRepo, cli: Invoke
) -> None:
    assert cli("render", "--repo", "source").exit_code == 0
    fleet.git("branch", "gitfleet/works/m3/old")
    fleet.commit({"clusters/m3.yaml": _cluster_file("m3")})
    refs = _refs(fleet.path)
    done = cli("render", "--repo", "source")
    assert done.exit_code == 1, done.output
    message = _in_the_way("m3", "Work", "gitfleet/works/m3/old")
    assert f"source/clusters/m3.yaml:{_name_at('m3')}: error: {message}" in done.output
    assert _refs(fleet.path) == refs


def test_render_writes_no_status_ref_so_gitfleet_status_does_not_stop_it(
    fleet: GitRepo, cli: Invoke
) -> None:
    fleet.git("branch", "gitfleet/status")
    done = cli("render", "--repo", "source")
    assert done.exit_code == 0, done.output
    assert fleet.git("rev-parse", "--verify", "-q", "gitfleet/works/m1")


@pytest.mark.parametrize(
    ("other", "what"),
    [
        pytest.param("gitfleet/works", "Work", id="gitfleet/works"),
        pytest.param("gitfleet/status", "status", id="gitfleet/status"),
    ],
)
def test_reconcile_on_a_remote_holding_the_branch_refuses_at_each_cluster(
    fleet: GitRepo, cli: Invoke, bare_remote: Path, tmp_path: Path, other: str, what: str
) -> None:
    fleet.git("push", "-q", "origin", "main", f"main:refs/heads/{other}")
    refs = _refs(bare_remote)
    cache = str(tmp_path / "cache")
    done = cli("reconcile", "--repo", bare_remote.as_uri(), "--cache", cache, "--once")
    assert done.exit_code == 1, done.output
    assert "Traceback" not in done.output and "cannot lock ref" not in done.output
    assert " invalid " in done.output
    assert f"path=clusters/m1.yaml line={_name_at('m1').replace(':', ' col=')}" in done.output
    assert f'error="{_in_the_way("m1", what, other)}"' in done.output
    assert _refs(bare_remote) == refs
    if what == "status":
        reconciler = "refs/heads/gitfleet/status/_reconciler"
        expected = f"cannot make {reconciler} while refs/heads/{other} exists"
        assert expected in done.output


def test_a_render_made_before_the_branch_got_in_the_way_is_not_up_to_date(
    fleet: GitRepo, cli: Invoke, bare_remote: Path, tmp_path: Path
) -> None:
    fleet.git("push", "-q", "origin", "main")
    cache = str(tmp_path / "cache")
    command = ("reconcile", "--repo", bare_remote.as_uri(), "--cache", cache, "--once")
    assert cli(*command).exit_code == 0
    fleet.git("push", "-q", "origin", "main:refs/heads/gitfleet/status/m1/old")
    refs = _refs(bare_remote)
    done = cli(*command)
    assert done.exit_code == 1, done.output
    assert "up-to-date" not in done.output
    assert _in_the_way("m1", "status", "gitfleet/status/m1/old") in done.output
    assert _refs(bare_remote) == refs
