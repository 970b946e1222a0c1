"""The pull agent (`agent.pull.PullAgent`) against a bare remote and a simulated member cluster.

Aspects covered:
- one look and sync applies the cluster's own ref and pushes only its status ref, naming the
  commit applied, with the cluster's heartbeat, version, APIs, capacity and Ready condition;
  the shared rendered branch (fetched sparsely) gives the same cluster state;
- a restart writes nothing: the status ref and the cluster stay as they were;
- a force-pushed Work ref is the next desired state;
- the remote going down: the last complete commit stays the desired state (drift is still
  repaired), the failure is the sync's error, a start with the remote away resumes from the
  copy, and the agent recovers when the remote is back;
- a commit whose objects cannot all be fetched is never applied and nothing is pruned;
- a status ref another writer moved after the agent looked is replaced (the push is retried
  with a fresh lease);
- no Work ref yet is no desired state; a shared branch without the cluster's folder is not
  taken for an empty one; a Work ref deleted after a sync is none either, and a restarted
  agent says it keeps what the cluster runs;
- the running agent applies new commits as they come, backs off while the remote is away,
  and stops when asked;
- settings: cluster names, the repository URL per cluster, which refs are fetched sparsely.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from agent.pull_kit import NAMESPACE, WAIT, Remote, app, remote_fixture, settings, until
from builders import make_configmap
from simfixture import RunningSim, SimFactory, make_sim_cluster_fixture

from gitfleet import errors
from gitfleet.agent import apply, pull
from gitfleet.gitstore import rendered, status

__all__ = ["make_sim_cluster_fixture", "remote_fixture"]


@pytest.fixture(name="member")
def member_fixture(make_sim_cluster: SimFactory) -> RunningSim:
    return make_sim_cluster("m1")


def _agent(
    remote: Remote, tmp_path: Path, cache: str = "cache", **changes: object
) -> pull.PullAgent:
    """m1's agent, its copy in tmp_path/<cache>."""
    return pull.PullAgent(settings(remote, "m1", tmp_path, cache_dir=tmp_path / cache, **changes))


def _once(
    remote: Remote, tmp_path: Path, cache: str = "cache", **changes: object
) -> apply.SyncResult | None:
    agent = _agent(remote, tmp_path, cache, **changes)
    try:
        return agent.once()
    finally:
        agent.close()


def _live(member: RunningSim, kind: str, name: str) -> dict[str, Any] | None:
    api_version = "apps/v1" if kind == "Deployment" else "v1"
    return member.objects.get(api_version, kind, name, "shop")


def test_once_applies_its_own_ref_and_reports(
    remote: Remote, tmp_path: Path, member: RunningSim
) -> None:
    remote.publish({"m1": app(replicas=3), "m2": app(replicas=5)})
    result = _once(remote, tmp_path)
    assert result is not None and result.converged, result
    applied = result.rendered_commit
    assert applied == remote.cluster_ref("m1")
    web = _live(member, "Deployment", "web")
    assert web is not None and web["spec"]["replicas"] == 3
    works = remote.status_file("m1", "works.yaml")
    assert works["renderedCommit"] == applied and works["converged"] is True
    assert {m["name"] for m in works["manifests"]} == {"shop", "web", "c0", "c1"}
    summary = remote.status_file("m1", "cluster.yaml")
    reported = summary["status"]
    assert reported["conditions"][0]["status"] == "True"
    assert reported["kubernetesVersion"] and reported["apiEnablements"]
    assert reported["resourceSummary"]["allocatable"]["cpu"]
    assert reported["resourceSummary"]["allocated"]["pods"]
    assert summary["heartbeatTime"] and summary["renderedCommit"] == applied
    assert [r for r in remote.refs() if "/status/" in r] == [status.status_ref("m1")]


def test_the_shared_branch_gives_the_same_state(
    remote: Remote, tmp_path: Path, member: RunningSim
) -> None:
    tip = remote.publish({"m1": app(replicas=3), "m2": app(replicas=5)})
    result = _once(remote, tmp_path, ref="gitfleet/rendered")
    assert result is not None and result.converged
    assert result.rendered_commit == tip
    web = _live(member, "Deployment", "web")
    assert web is not None and web["spec"]["replicas"] == 3
    assert remote.status_file("m1", "works.yaml")["renderedCommit"] == tip


def test_a_restart_writes_nothing(remote: Remote, tmp_path: Path, member: RunningSim) -> None:
    remote.publish({"m1": app()})
    first = _once(remote, tmp_path, "first")
    assert first is not None and first.converged
    reported = remote.status_commit("m1")
    member.cluster.reset_requests()
    again = _once(remote, tmp_path, "second")
    assert again is not None and again.converged
    assert all(o.action is apply.Action.UNCHANGED for o in again.objects)
    assert member.cluster.requests.writes == 0
    assert remote.status_commit("m1") == reported


def test_a_force_pushed_ref_is_followed(remote: Remote, tmp_path: Path, member: RunningSim) -> None:
    remote.publish({"m1": app(image="nginx:1")})
    agent = _agent(remote, tmp_path)
    try:
        assert agent.once() is not None
        other = Remote(tmp_path / "other.git")
        remote.git("init", "-q", "--bare", str(other.path))
        replacement = other.publish({"m1": app(image="nginx:2")}, source_commit="s9")
        assert replacement
        remote.git("fetch", "-q", str(other.path), "+refs/heads/*:refs/heads/*")
        result = agent.once()
    finally:
        agent.close()
    assert result is not None and result.converged
    assert result.rendered_commit == remote.cluster_ref("m1")
    web = _live(member, "Deployment", "web")
    assert web is not None
    assert web["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:2"


def test_the_remote_going_down(remote: Remote, tmp_path: Path, member: RunningSim) -> None:
    remote.publish({"m1": app(replicas=2)})
    agent = _agent(remote, tmp_path)
    away = tmp_path / "away.git"
    try:
        good = agent.once()
        assert good is not None and good.converged
        remote.path.rename(away)
        web = _live(member, "Deployment", "web")
        assert web is not None
        web["spec"]["replicas"] = 7
        member.objects.put(web)
        down = agent.once()
        assert down is not None and not down.converged
        assert "cannot reach the repository" in down.error
        assert down.rendered_commit == good.rendered_commit
        repaired = _live(member, "Deployment", "web")
        assert repaired is not None and repaired["spec"]["replicas"] == 2
        restarted = _agent(remote, tmp_path)
        try:
            assert restarted.current is None
            resumed = restarted.once()
            assert resumed is not None and resumed.rendered_commit == good.rendered_commit
        finally:
            restarted.close()
        away.rename(remote.path)
        back = agent.once()
        assert back is not None and back.converged and not agent.error
    finally:
        agent.close()


def test_a_commit_that_does_not_arrive_whole_is_never_applied(
    remote: Remote, tmp_path: Path, member: RunningSim
) -> None:
    remote.publish({"m1": app(configs=4), "m2": app()})
    agent = _agent(remote, tmp_path, ref="gitfleet/rendered")
    try:
        first = agent.once()
        assert first is not None and first.converged
        tip = remote.publish({"m1": [NAMESPACE, make_configmap("only")], "m2": app()}, "s2")
        lost = remote.git("rev-parse", f"{tip}:works/m1/shop/ConfigMap.core/only.yaml")
        _drop_object(remote, lost)
        result = agent.once()
    finally:
        agent.close()
    assert result is not None and not result.converged
    assert result.rendered_commit == first.rendered_commit
    assert "keeping" in result.error
    assert not any(p.action is apply.Action.PRUNED for p in result.pruned)
    assert _live(member, "Deployment", "web") is not None
    assert _live(member, "ConfigMap", "only") is None


def _drop_object(remote: Remote, oid: str) -> None:
    """Delete one object from the remote (as if its storage lost it)."""
    remote.git("repack", "-q", "-a", "-d")
    kept = remote.git("cat-file", "--batch-all-objects", "--batch-check=%(objectname)")
    others = "".join(f"{o}\n" for o in kept.splitlines() if o != oid)
    packs = remote.path / "objects" / "pack"
    fresh = remote.path / "fresh"
    fresh.mkdir()
    remote.git("pack-objects", "-q", str(fresh / "pack"), input=others)
    for old in packs.iterdir():
        old.unlink()
    for made in fresh.iterdir():
        made.rename(packs / made.name)


def test_a_status_ref_moved_meanwhile_is_replaced(
    remote: Remote, tmp_path: Path, member: RunningSim
) -> None:
    remote.publish({"m1": app()})
    agent = _agent(remote, tmp_path)
    try:
        assert agent.once() is not None
        mine = remote.status_commit("m1")
        remote.publish({"m1": app(replicas=5)}, source_commit="s2")
        assert agent.look() and agent.current is not None
        stranger = remote.git("commit-tree", "-m", "not a report", remote.git("mktree", input=""))
        remote.git("update-ref", status.status_ref("m1"), stranger)
        result = agent.worker.step(agent.current)  # its lease names `mine`: rejected, retried
    finally:
        agent.close()
    assert result.converged
    assert remote.status_commit("m1") not in (mine, stranger)
    assert remote.status_file("m1", "works.yaml")["renderedCommit"] == result.rendered_commit


def test_nothing_rendered_yet(remote: Remote, tmp_path: Path, member: RunningSim) -> None:
    agent = _agent(remote, tmp_path)
    try:
        assert agent.once() is None
        assert "does not exist" in agent.error
    finally:
        agent.close()
    assert remote.status_commit("m1") is None


def test_a_deleted_ref_keeps_what_the_cluster_runs(
    remote: Remote, tmp_path: Path, member: RunningSim
) -> None:
    remote.publish({"m1": app()})
    assert _once(remote, tmp_path) is not None
    remote.git("update-ref", "-d", rendered.cluster_ref("m1"))
    agent = _agent(remote, tmp_path)
    try:
        assert agent.once() is None
        assert agent.error.endswith(
            f"does not exist on {remote.url}; keeping what the cluster runs"
        )
    finally:
        agent.close()
    assert _live(member, "Deployment", "web") is not None


def test_a_shared_branch_without_the_folder_is_not_an_empty_one(
    remote: Remote, tmp_path: Path, member: RunningSim
) -> None:
    remote.publish({"m1": app(), "m2": app()})
    agent = _agent(remote, tmp_path, ref="gitfleet/rendered")
    try:
        assert agent.once() is not None
        remote.publish({"m2": app()}, source_commit="s2")
        result = agent.once()
    finally:
        agent.close()
    assert result is not None and "no works/m1/ folder" in result.error
    assert not result.pruned
    assert _live(member, "Deployment", "web") is not None


def test_the_running_agent(remote: Remote, tmp_path: Path, member: RunningSim) -> None:
    remote.publish({"m1": app(replicas=1)})
    agent = _agent(remote, tmp_path)
    thread = threading.Thread(target=agent.run)
    thread.start()
    try:
        until(lambda: _replicas(member) == 1, "the first commit")
        remote.publish({"m1": app(replicas=4)}, source_commit="s2")
        until(lambda: _replicas(member) == 4, "the second commit")
        away = remote.path.with_name("away.git")
        remote.path.rename(away)
        until(lambda: agent.failures >= 2, "two failed looks")
        away.rename(remote.path)
        until(lambda: agent.failures == 0, "the remote to be back")
    finally:
        agent.stop()
        thread.join(WAIT)
        agent.close()
    assert not thread.is_alive()


def _replicas(member: RunningSim) -> int | None:
    web = _live(member, "Deployment", "web")
    return None if web is None else int(web["spec"]["replicas"])


@pytest.mark.parametrize(
    ("cluster", "ok"),
    [
        pytest.param("m1", True, id="plain"),
        pytest.param("eu-west-1a", True, id="dashes"),
        pytest.param("M1", False, id="upper case"),
        pytest.param("a/b", False, id="slash"),
        pytest.param("x" * 49, False, id="too long"),
        pytest.param("-m1", False, id="leading dash"),
    ],
)
def test_cluster_names(cluster: str, ok: bool) -> None:
    checked = pull.Settings(repo="file:///r.git", cluster=cluster)
    if ok:
        pull.check(checked)
    else:
        with pytest.raises(errors.UsageError, match="not a cluster name"):
            pull.check(checked)


@pytest.mark.parametrize(
    ("ref", "works_ref", "sparse"),
    [
        pytest.param(None, "refs/heads/gitfleet/works/m1", False, id="default"),
        pytest.param("gitfleet/works/m1", "refs/heads/gitfleet/works/m1", False, id="own"),
        pytest.param("gitfleet/rendered", "refs/heads/gitfleet/rendered", True, id="shared"),
        pytest.param("refs/heads/x", "refs/heads/x", True, id="full name"),
    ],
)
def test_which_refs_are_sparse(ref: str | None, works_ref: str, sparse: bool) -> None:
    checked = pull.Settings(repo="https://git.example/fleet-{cluster}.git", cluster="m1", ref=ref)
    assert checked.url == "https://git.example/fleet-m1.git"
    assert checked.works_ref == works_ref
    assert checked.sparse is sparse
    assert rendered.cluster_ref("m1") == "refs/heads/gitfleet/works/m1"
