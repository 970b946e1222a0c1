"""What `gitfleet render` prints for a person: each changed file while there are few, only
each cluster's counts when there are many (a first render of a large fleet changes millions,
which `-o json` lists).

Aspects covered:
- a small render names every file added, changed and removed, under its cluster's counts;
- a render changing more than `LISTED_FILES` files prints each cluster's counts and says that
  `-o json` lists them, and `-o json` of the same kind of render does list every file;
- a later render changing a few files names them again;
- times are written in UTC, whatever zone the source commit was made in.
"""

from __future__ import annotations

import json
import os
import subprocess

import yaml
from builders import make_cluster, make_deployment, make_policy, selector
from conftest import GIT_ENV, GitRepo, Invoke

from gitfleet.cli.render import LISTED_FILES

CLUSTERS = ("east", "west")


def _fleet(git_repo: GitRepo, apps: int, replicas: int = 1) -> None:
    docs = {
        "clusters.yaml": [make_cluster(n) for n in CLUSTERS],
        "policy.yaml": [make_policy("all", selector(kind="Deployment"))],
        "apps.yaml": [make_deployment(f"app{i:03d}", replicas=replicas) for i in range(apps)],
    }
    git_repo.commit({rel: yaml.safe_dump_all(d, sort_keys=False) for rel, d in docs.items()})


def test_a_small_render_names_each_file(git_repo: GitRepo, cli: Invoke) -> None:
    _fleet(git_repo, apps=2)
    done = cli("render", "--repo", str(git_repo.path))
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    east = lines.index("east: 3 added, 0 changed, 0 removed")
    assert lines[east + 1 : east + 4] == [
        "  + _cluster/Namespace.core/shop.yaml",
        "  + shop/Deployment.apps/app000.yaml",
        "  + shop/Deployment.apps/app001.yaml",
    ]
    assert not any("-o json lists each" in line for line in lines)


def test_a_large_render_prints_counts_only(git_repo: GitRepo, cli: Invoke) -> None:
    apps = LISTED_FILES // len(CLUSTERS) + 1
    _fleet(git_repo, apps=apps)
    done = cli("render", "--repo", str(git_repo.path))
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    assert f"east: {apps + 1} added, 0 changed, 0 removed" in lines  # and Namespace shop
    assert f"west: {apps + 1} added, 0 changed, 0 removed" in lines
    assert not any(line.startswith("  + ") for line in lines)
    assert lines[-1] == f"(more than {LISTED_FILES} files changed: -o json lists each)"
    assert len(lines) < 10

    _fleet(git_repo, apps=apps, replicas=2)
    as_json = cli("render", "--repo", str(git_repo.path), "-o", "json")
    assert as_json.exit_code == 0, as_json.output
    changed = json.loads(as_json.output)["clusters"]["east"]["changed"]
    assert len(changed) == apps


def test_a_later_small_change_is_named_again(git_repo: GitRepo, cli: Invoke) -> None:
    apps = LISTED_FILES // len(CLUSTERS) + 1
    _fleet(git_repo, apps=apps)
    assert cli("render", "--repo", str(git_repo.path)).exit_code == 0
    _fleet(git_repo, apps=apps - 1)
    done = cli("render", "--repo", str(git_repo.path))
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    gone = f"  - shop/Deployment.apps/app{apps - 1:03d}.yaml"
    assert lines.count(gone) == len(CLUSTERS)
    assert "east: 0 added, 0 changed, 1 removed" in lines


def test_times_are_written_in_utc_whatever_the_committers_zone(
    git_repo: GitRepo, cli: Invoke
) -> None:
    """A source commit's time stamps the schedules, written as Kubernetes writes times."""
    _fleet(git_repo, apps=1)
    env = {**os.environ, **GIT_ENV, "GIT_COMMITTER_DATE": "2026-01-01T02:30:00+02:00"}
    amend = ["git", "commit", "-q", "--amend", "--no-edit"]
    subprocess.run(amend, cwd=git_repo.path, env=env, check=True)
    assert cli("render", "--repo", str(git_repo.path)).exit_code == 0
    text = git_repo.git("show", "gitfleet/rendered:bindings/shop/Deployment.apps/app000.yaml")
    binding = yaml.safe_load(text)
    assert binding["status"]["lastScheduledTime"] == "2026-01-01T00:30:00Z"
    (scheduled,) = binding["status"]["conditions"]
    assert scheduled["lastTransitionTime"] == "2026-01-01T00:30:00Z"
