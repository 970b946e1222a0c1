"""A repository per cluster (`gitstore.clusterrepos`): copying the cluster refs there, and
bringing the status refs back.

Aspects covered:
- a cluster's ref is copied to its own repository, named by the URL template; copying again
  does nothing;
- never backwards: a newer render another writer copied stays; a commit the main repository
  does not know stays; a ref the main repository rewrote is replaced;
- a cluster whose repository cannot be reached, or that has no ref, fails alone;
- status refs come back from each cluster's repository; one that has not reported yet is not a
  failure, one that cannot be reached is.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import workfiles
from builders import make_configmap
from conftest import git

from gitfleet.gitstore import clusterrepos, repository, status
from gitfleet.gitstore.repository import Repository

Copy = clusterrepos.Copy
REF = "refs/heads/gitfleet/works/m1"


@pytest.fixture(name="main")
def main_fixture(tmp_path: Path) -> Iterator[Repository]:
    path = tmp_path / "main.git"
    git(tmp_path, "init", "-q", "--bare", str(path))
    for name in ("m1", "m2"):
        git(tmp_path, "init", "-q", "--bare", str(tmp_path / f"fleet-{name}.git"))
    workfiles.publish(path, {"m1": [make_configmap("a")], "m2": []}, source_commit="s1")
    repo = repository.open_repository(path)
    assert repo is not None
    yield repo
    repo.close()


def _template(tmp_path: Path) -> str:
    return f"file://{tmp_path}/fleet-{{cluster}}.git"


def _there(tmp_path: Path, name: str = "m1", ref: str = REF) -> str:
    return git(tmp_path / f"fleet-{name}.git", "rev-parse", "--verify", "--quiet", ref)


def _copies(main: Repository, tmp_path: Path, *names: str) -> list[tuple[str, Copy]]:
    return [(o.cluster, o.copy) for o in clusterrepos.push_works(main, _template(tmp_path), names)]


def test_a_cluster_ref_is_copied_to_its_repository(main: Repository, tmp_path: Path) -> None:
    assert _copies(main, tmp_path, "m1", "m2") == [("m1", Copy.PUSHED), ("m2", Copy.PUSHED)]
    assert _there(tmp_path) == main.commit_of(REF)
    refs = git(tmp_path / "fleet-m1.git", "for-each-ref", "--format=%(refname)")
    assert refs == REF
    assert _copies(main, tmp_path, "m1") == [("m1", Copy.UP_TO_DATE)]


def test_never_backwards(main: Repository, tmp_path: Path) -> None:
    first = main.commit_of(REF)
    assert first is not None
    workfiles.publish(main.git_dir, {"m1": [make_configmap("b")], "m2": []}, source_commit="s2")
    newer = main.commit_of(REF)
    assert _copies(main, tmp_path, "m1") == [("m1", Copy.PUSHED)]
    git(main.git_dir, "update-ref", REF, first)  # a reconciler that has not seen `newer`
    assert _copies(main, tmp_path, "m1") == [("m1", Copy.AHEAD)]
    assert _there(tmp_path) == newer


def test_unknown_and_rewritten(main: Repository, tmp_path: Path) -> None:
    assert _copies(main, tmp_path, "m1") == [("m1", Copy.PUSHED)]
    other = tmp_path / "other.git"
    git(tmp_path, "init", "-q", "--bare", str(other))
    workfiles.publish(other, {"m1": [make_configmap("z")]}, source_commit="s9")
    git(tmp_path / "fleet-m1.git", "fetch", "-q", str(other), f"+{REF}:{REF}")
    assert _copies(main, tmp_path, "m1") == [("m1", Copy.UNKNOWN)]
    git(main.git_dir, "fetch", "-q", str(other), "refs/heads/*:refs/other/*")
    assert _copies(main, tmp_path, "m1") == [("m1", Copy.PUSHED)]
    assert _there(tmp_path) == main.commit_of(REF)


def test_failures_stay_with_their_cluster(main: Repository, tmp_path: Path) -> None:
    (tmp_path / "fleet-m2.git").rename(tmp_path / "gone.git")
    outcomes = clusterrepos.push_works(main, _template(tmp_path), ["m1", "m2", "m3"])
    assert [(o.cluster, o.copy) for o in outcomes] == [
        ("m1", Copy.PUSHED),
        ("m2", Copy.FAILED),
        ("m3", Copy.FAILED),
    ]
    assert "cannot reach" in outcomes[1].message
    assert "does not exist" in outcomes[2].message


def test_status_refs_come_back(main: Repository, tmp_path: Path) -> None:
    own = repository.open_repository(tmp_path / "fleet-m1.git")
    assert own is not None
    reported = status.write_status(
        own, "m1", {"cluster.yaml": b"a: 1\n"}, expected=None, rendered_commit="r1"
    )
    own.close()
    (tmp_path / "fleet-m3.git").mkdir()
    problems = clusterrepos.fetch_status(main, _template(tmp_path), ["m1", "m2", "m3"])
    assert list(problems) == ["m3"]
    stored = status.read_status(main, "m1")
    assert stored is not None and stored.commit == reported
    assert status.read_status(main, "m2") is None
