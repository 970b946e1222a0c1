"""The pull agent (`agent.pull.PullAgent`) against a Git host over smart HTTP with a credential
(`githttp`), and the faults such a host has that a local remote has not.

Aspects covered:
- a wrong token: the look fails with git's reason and without the token, the cluster keeps
  the last good state (drift still repaired), and a rotated Secret is taken at the next look,
  without a restart; the running agent backs off meanwhile;
- the host down at start and mid-run, an HTTP 500, an answer cut short (of the own ref, or of
  the cluster's folder on the shared branch): nothing is applied from what did not arrive
  whole, the agent recovers once the host answers;
- a long history: the first sync of a repository with 60 renders costs, in bytes the host
  sends, what it costs with one render (on the cluster's own ref and sparsely on the shared
  branch), within twice the cluster's manifests plus the protocol;
- two agents of one cluster (one being replaced) both running: they take turns at its status
  ref, neither stops, the last report stands;
- a copy whose configuration an older agent left holding the token of its URL is found again
  (named after the URL as given) and cleaned of it;
- a read-only credential: what is applied is applied, but the report the host refuses makes
  the sync unconverged, with the host's reason (the fleet cannot see it);
"""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path
from typing import Any

import pytest
from agent.pull_kit import WAIT, Remote, app, folder_size, settings, until
from githttp import GitHttpServer, git_http_fixture
from simfixture import RunningSim, SimFactory, make_sim_cluster_fixture

from gitfleet.agent import pull, worker

__all__ = ["git_http_fixture", "make_sim_cluster_fixture"]

TOKEN = "s3cret-token"
SHARED = "gitfleet/rendered"


@pytest.fixture(name="member")
def member_fixture(make_sim_cluster: SimFactory) -> RunningSim:
    return make_sim_cluster("m1")


@pytest.fixture(name="remote")
def remote_fixture(git_http: GitHttpServer) -> Remote:
    return Remote(git_http.bare("fleet.git"))


@pytest.fixture(name="secret")
def secret_fixture(tmp_path: Path) -> Path:
    """The agent's credential Secret, as mounted: user `agent`, the host's token."""
    folder = tmp_path / "secret"
    folder.mkdir()
    (folder / "username").write_text("agent")
    (folder / "password").write_text(TOKEN)
    return folder


def _agent(
    git_http: GitHttpServer, remote: Remote, tmp_path: Path, secret: Path, **changes: Any
) -> pull.PullAgent:
    found = settings(remote, "m1", tmp_path, credentials=secret, **changes)
    return pull.PullAgent(dataclasses.replace(found, repo=git_http.url(remote.path.name)))


def _replicas(member: RunningSim) -> int | None:
    web = member.objects.get("apps/v1", "Deployment", "web", "shop")
    return None if web is None else int(web["spec"]["replicas"])


def test_a_wrong_token_keeps_the_last_good_state(
    git_http: GitHttpServer, remote: Remote, tmp_path: Path, secret: Path, member: RunningSim
) -> None:
    remote.publish({"m1": app(replicas=2)})
    agent = _agent(git_http, remote, tmp_path, secret)
    try:
        good = agent.once()
        assert good is not None and good.converged, good
        (secret / "password").write_text("wrong-token")
        remote.publish({"m1": app(replicas=3)}, source_commit="s2")
        refused = agent.once()
        assert refused is not None and not refused.converged
        assert "Authentication failed" in refused.error
        assert "wrong-token" not in refused.error
        assert refused.rendered_commit == good.rendered_commit
        assert _replicas(member) == 2
        (secret / "password").write_text(TOKEN)
        back = agent.once()
        assert back is not None and back.converged, back
        assert _replicas(member) == 3
    finally:
        agent.close()


def test_the_running_agent_waits_out_a_rotated_token(
    git_http: GitHttpServer, remote: Remote, tmp_path: Path, secret: Path, member: RunningSim
) -> None:
    remote.publish({"m1": app(replicas=2)})
    first = remote.cluster_ref("m1")
    agent = _agent(git_http, remote, tmp_path, secret)
    runner = threading.Thread(target=agent.run)
    runner.start()
    try:
        until(lambda: remote.status_commit("m1") is not None, "the first report")
        git_http.users["agent"] = "rotated-token"  # the host first, the Secret later
        remote.publish({"m1": app(replicas=4)}, source_commit="s2")
        until(lambda: agent.failures >= 3, "failed looks")
        assert "Authentication failed" in agent.error
        assert agent.current is not None and agent.current.rendered.commit == first
        assert _replicas(member) == 2
        web = member.objects.get("apps/v1", "Deployment", "web", "shop")
        assert web is not None
        web["spec"]["replicas"] = 9
        member.objects.put(web)
        until(lambda: _replicas(member) == 2, "drift repaired while the host refuses")
        (secret / "password").write_text("rotated-token")
        until(lambda: _replicas(member) == 4, "the new render")
        until(lambda: agent.failures == 0, "looks succeeding again")
    finally:
        agent.stop()
        runner.join(WAIT)
        agent.close()
    assert not runner.is_alive()


def test_the_host_down_at_start_and_mid_run(
    git_http: GitHttpServer, remote: Remote, tmp_path: Path, secret: Path, member: RunningSim
) -> None:
    remote.publish({"m1": app(replicas=2)})
    git_http.stop()
    agent = _agent(git_http, remote, tmp_path, secret)
    try:
        assert agent.once() is None
        assert "cannot reach the repository" in agent.error
        git_http.start()
        good = agent.once()
        assert good is not None and good.converged, good
        git_http.stop()
        remote.publish({"m1": app(replicas=5)}, source_commit="s2")
        down = agent.once()
        assert down is not None and not down.converged
        assert down.rendered_commit == good.rendered_commit
        assert _replicas(member) == 2
        git_http.start()
        back = agent.once()
        assert back is not None and back.converged, back
        assert _replicas(member) == 5
    finally:
        agent.close()


@pytest.mark.parametrize(
    ("fault", "ref", "match"),
    [
        pytest.param("500", None, b"command=fetch", id="HTTP 500"),
        pytest.param("cut", None, b"command=fetch", id="answer cut short"),
        pytest.param("500", SHARED, b"filter blob:none", id="HTTP 500 on the folder"),
        pytest.param("cut", SHARED, b"filter blob:none", id="folder cut short"),
    ],
)
def test_a_failing_host_brings_nothing_half_fetched(
    git_http: GitHttpServer,
    remote: Remote,
    tmp_path: Path,
    secret: Path,
    member: RunningSim,
    fault: str,
    ref: str | None,
    match: bytes,
) -> None:
    remote.publish({"m1": app(replicas=2)})
    agent = _agent(git_http, remote, tmp_path, secret, ref=ref)
    try:
        good = agent.once()
        assert good is not None and good.converged, good
        remote.publish({"m1": app(replicas=3, configs=40)}, source_commit="s2")
        if fault == "500":
            git_http.fail(500, match=match)
        else:
            git_http.truncate(match=match)
        failed = agent.once()
        assert "cannot fetch: error: RPC failed" in agent.error, agent.error  # the cause
        assert failed is not None and not failed.converged
        assert failed.rendered_commit == good.rendered_commit
        assert _replicas(member) == 2
        back = agent.once()
        assert back is not None and back.converged, back
        assert _replicas(member) == 3
        assert member.objects.get("v1", "ConfigMap", "c39", "shop") is not None
    finally:
        agent.close()


def test_a_read_only_credential(
    git_http: GitHttpServer, remote: Remote, tmp_path: Path, secret: Path, member: RunningSim
) -> None:
    remote.publish({"m1": app(replicas=2)})
    git_http.writable = False
    agent = _agent(git_http, remote, tmp_path, secret)
    try:
        result = agent.once()
    finally:
        agent.close()
    assert _replicas(member) == 2
    assert remote.status_commit("m1") is None
    assert result is not None and not result.converged
    assert "cannot write its status" in result.error and "403" in result.error


def _render(remote: Remote, n: int) -> None:
    """Render `n`: the other clusters' folders change at every render, m1's at every tenth."""
    others = {f"o{i}": app(configs=20, image=f"v{n}") for i in range(5)}
    remote.publish({"m1": app(replicas=2 + n // 10), **others}, source_commit=f"s{n}")


def _first_look(
    git_http: GitHttpServer, remote: Remote, tmp_path: Path, secret: Path, ref: str | None
) -> int:
    """Bytes the host sends for an agent's first look and sync (a copy of its own)."""
    since = len(git_http.requests)
    agent = _agent(
        git_http, remote, tmp_path, secret, ref=ref, cache_dir=tmp_path / remote.path.name
    )
    try:
        result = agent.once()
    finally:
        agent.close()
    assert result is not None and result.converged, result
    return git_http.sent_by(since=since)


@pytest.mark.parametrize("ref", [None, SHARED], ids=["own ref", "shared branch"])
def test_a_long_history_costs_what_a_short_one_does(
    git_http: GitHttpServer,
    tmp_path: Path,
    secret: Path,
    member: RunningSim,
    ref: str | None,
) -> None:
    long, short = Remote(git_http.bare("long.git")), Remote(git_http.bare("short.git"))
    for n in range(60):
        _render(long, n)
    _render(short, 59)
    cost = _first_look(git_http, long, tmp_path, secret, ref)
    assert cost <= _first_look(git_http, short, tmp_path, secret, ref) + 64
    assert cost < 2 * folder_size(long, "m1") + 2048  # its manifests, plus the protocol


def test_two_agents_of_one_cluster_take_turns_at_its_status_ref(
    git_http: GitHttpServer, remote: Remote, tmp_path: Path, secret: Path, member: RunningSim
) -> None:
    remote.publish({"m1": app(replicas=2)})
    pace = worker.Pace(interval=0.05, heartbeat=0.05, backoff=worker.Backoff(base=0.05, cap=0.1))
    agents = [
        _agent(git_http, remote, tmp_path, secret, cache_dir=tmp_path / f"cache-{n}", pace=pace)
        for n in range(2)
    ]
    threads = [threading.Thread(target=a.run) for a in agents]
    for thread in threads:
        thread.start()
    try:
        until(lambda: len(git_http.pushes()) >= 6, "six reports")
    finally:
        for agent in agents:
            agent.stop()
        for thread in threads:
            thread.join(WAIT)
        for agent in agents:
            agent.close()
    assert not any(thread.is_alive() for thread in threads)
    assert remote.status_file("m1", "works.yaml")["converged"] is True
    assert _replicas(member) == 2


def test_a_copy_holding_the_token_from_before_is_cleaned(
    git_http: GitHttpServer, remote: Remote, tmp_path: Path, member: RunningSim
) -> None:
    remote.publish({"m1": app(replicas=2)})
    url = git_http.url("fleet.git", "agent", TOKEN)
    found = settings(remote, "m1", tmp_path)
    agent = pull.PullAgent(dataclasses.replace(found, repo=url))
    copy = agent.remote.path
    agent.close()
    config = copy / "config"
    config.write_text(config.read_text().replace(git_http.url("fleet.git", "agent"), url))
    assert TOKEN in config.read_text()  # as an older agent left it
    again = pull.PullAgent(dataclasses.replace(found, repo=url))
    try:
        assert again.remote.path == copy
        result = again.once()
    finally:
        again.close()
    assert result is not None and result.converged, result
    assert TOKEN not in config.read_text()
