"""The pull agent's fetches (`agent._fetch`) against a bare remote over file://, bytes counted
from the packs git received.

Aspects covered:
- the cluster's own ref: the first fetch costs less than its manifests, the next render's one
  changed manifest costs a fraction of that, and nothing is fetched when the ref did not move;
- the shared rendered branch, sparsely: only the cluster's own blobs arrive, the bytes stay
  within 1.5 times its manifests while the other clusters' folders are ten times larger, and
  a render that changed only other clusters brings no blob at all;
- a commit without the cluster's folder, absent refs, and a remote that cannot be reached;
- the status ref: fetched when it moved, dropped when it went, and a push after another writer
  moved it replaces it (the lease is taken again).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from agent.pull_kit import Remote, app, blobs, folder_blobs, folder_size, remote_fixture
from builders import make_configmap

from gitfleet import errors
from gitfleet.agent import _fetch
from gitfleet.gitstore import objects, rendered, repository, status, store

__all__ = ["remote_fixture"]


def _copy(
    remote: Remote, tmp_path: Path, cluster: str = "m1", *, sparse: bool
) -> _fetch.ClusterRemote:
    ref = rendered.branch_ref("gitfleet/rendered") if sparse else rendered.cluster_ref(cluster)
    return _fetch.ClusterRemote(remote.url, cluster, ref, tmp_path / "cache", sparse=sparse)


def _fleet(remote: Remote, others: int = 10, source: str = "s1", configs: int = 20) -> str:
    """m1 with its app; every other cluster with ten times as many ConfigMaps."""
    clusters = {"m1": app(configs=2), **{f"o{i}": app(configs=configs) for i in range(others)}}
    return remote.publish(clusters, source_commit=source)


def test_own_ref_costs_about_its_manifests_then_only_the_change(
    remote: Remote, tmp_path: Path
) -> None:
    remote.publish({"m1": app(configs=6), "m2": app(configs=6)})
    copy = _copy(remote, tmp_path, sparse=False)
    first = copy.fetch_works(copy.tips().works or "")
    assert first.complete and first.folder
    assert first.commit == remote.cluster_ref("m1")
    assert 0 < first.received < 1.5 * folder_size(remote, "m1")
    changed = app(configs=6)
    changed[-1] = make_configmap("c5", data={"key": "a new value"})
    remote.publish({"m1": changed, "m2": app(configs=6)}, source_commit="s2")
    second = copy.fetch_works(copy.tips().works or "")
    assert second.complete and second.commit == remote.cluster_ref("m1")
    assert 0 < second.received < first.received / 2
    again = copy.fetch_works(copy.tips().works or "")
    assert again.received == 0


def test_the_shared_branch_brings_only_the_clusters_own_blobs(
    remote: Remote, tmp_path: Path
) -> None:
    tip = _fleet(remote)
    copy = _copy(remote, tmp_path, sparse=True)
    fetched = copy.fetch_works(copy.tips().works or "")
    assert fetched.complete and fetched.commit == tip
    own = set(folder_blobs(remote, "m1").values())
    assert blobs(copy.path) == own
    assert fetched.received < 1.5 * folder_size(remote, "m1")
    assert folder_size(remote, "o0") > 5 * folder_size(remote, "m1")


def test_the_bytes_do_not_grow_with_the_fleet(remote: Remote, tmp_path: Path) -> None:
    """Forty more clusters cost the agent their names and ids in the `works` tree, no more."""
    _fleet(remote, others=5)
    small = _copy(remote, tmp_path / "small", sparse=True)
    few = small.fetch_works(small.tips().works or "").received
    _fleet(remote, others=45, source="s2")
    large = _copy(remote, tmp_path / "large", sparse=True)
    many = large.fetch_works(large.tips().works or "").received
    assert many - few < 40 * 40


def test_a_render_of_other_clusters_brings_no_blob(remote: Remote, tmp_path: Path) -> None:
    _fleet(remote)
    copy = _copy(remote, tmp_path, sparse=True)
    copy.fetch_works(copy.tips().works or "")
    held = blobs(copy.path)
    clusters = {"m1": app(configs=2), **{f"o{i}": app(configs=21) for i in range(10)}}
    tip = remote.publish(clusters, source_commit="s2")
    fetched = copy.fetch_works(copy.tips().works or "")
    assert fetched.commit == tip and fetched.complete
    assert blobs(copy.path) == held
    assert fetched.received < 1000


def test_a_commit_without_the_folder(remote: Remote, tmp_path: Path) -> None:
    remote.publish({"m2": app()})
    copy = _copy(remote, tmp_path, sparse=True)
    fetched = copy.fetch_works(copy.tips().works or "")
    assert fetched.complete
    assert not fetched.folder


@pytest.mark.parametrize(
    "sparse", [pytest.param(False, id="own ref"), pytest.param(True, id="shared")]
)
def test_absent_refs(remote: Remote, tmp_path: Path, sparse: bool) -> None:
    remote.publish({"m2": app()})
    tips = _copy(remote, tmp_path, "m9", sparse=sparse).tips()
    assert tips.status is None
    assert (tips.works is None) is not sparse


def test_a_remote_that_cannot_be_reached(remote: Remote, tmp_path: Path) -> None:
    remote.publish({"m1": app()})
    copy = _copy(remote, tmp_path, sparse=False)
    remote.path.rename(tmp_path / "away.git")
    with pytest.raises(errors.SourceError, match="cannot reach the repository"):
        copy.tips()


def _status_commit(copy: _fetch.ClusterRemote, text: bytes) -> str:
    repo = copy.open()
    try:
        commit, made = status.build(repo, "m1", {"cluster.yaml": text}, rendered_commit="r")
        store.write(repo, made, store.object_format(repo))
        return commit.id
    finally:
        repo.close()


def test_status_ref_follows_the_remote(remote: Remote, tmp_path: Path) -> None:
    remote.publish({"m1": app()})
    writer = _copy(remote, tmp_path / "writer", sparse=False)
    written = _status_commit(writer, b"a: 1\n")
    writer.push_status(status.status_ref("m1"), written, None)
    reader = _copy(remote, tmp_path / "reader", sparse=False)
    assert reader.fetch_status(reader.tips().status) > 0
    repo = reader.open()
    stored = status.read_status(repo, "m1")
    assert stored is not None and stored.files == {"cluster.yaml": b"a: 1\n"}
    remote.git("update-ref", "-d", status.status_ref("m1"))
    assert reader.fetch_status(reader.tips().status) == 0
    assert status.read_status(repo, "m1") is None
    repo.close()


def test_a_moved_status_ref_is_replaced(remote: Remote, tmp_path: Path) -> None:
    remote.publish({"m1": app()})
    agent = _copy(remote, tmp_path / "agent", sparse=False)
    other = _copy(remote, tmp_path / "other", sparse=False)
    first = _status_commit(agent, b"mine: 1\n")
    agent.push_status(status.status_ref("m1"), first, None)
    theirs = _status_commit(other, b"theirs: 1\n")
    other.push_status(status.status_ref("m1"), theirs, first)
    mine = _status_commit(agent, b"mine: 2\n")
    agent.push_status(status.status_ref("m1"), mine, first)  # the lease is stale
    assert remote.status_commit("m1") == mine
    assert remote.status_file("m1", "cluster.yaml") == {"mine": 2}
    repo = repository.open_repository(remote.path)
    assert repo is not None
    data = repo.read([mine], objects.COMMIT)[mine]
    assert b"\nparent " not in data
    repo.close()
