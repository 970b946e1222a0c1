"""What makes the reconciler look: the ref watcher, polling, webhooks; bursts coalesce.

Aspects covered:
- with the watcher (and polling every hour), a commit pushed to a bare repository is
  rendered before a bounded wait expires, and the look says the watcher triggered it; the
  same when --repo is a linked worktree (`git worktree add`), whose refs live in the common
  git directory;
- with polling only, a pushed commit is rendered within a few intervals;
- a signed GitHub webhook triggers a render; an unsigned one is refused (401) and renders
  nothing;
- pokes that pile up while the reconciler is busy become one render, of the newest commit;
- a look with nothing new renders nothing and logs nothing.
"""

from __future__ import annotations

import http.client
import json
import subprocess
import time
from pathlib import Path

from service.service_helpers import Fleet, Start, wait_for

from gitfleet.service import reconciler, wakeup, webhook

HOUR = 3600.0


def settings(fleet: Fleet, **overrides: object) -> reconciler.Settings:
    values: dict[str, object] = {"repo": str(fleet.remote), "interval": HOUR}
    values.update(overrides)
    return reconciler.Settings(**values)  # type: ignore[arg-type]


def test_watcher_renders_a_pushed_commit_at_once(fleet: Fleet, start: Start) -> None:
    running = start(settings(fleet))
    wait_for(lambda: fleet.rendered_source() is not None, "the first render")
    pushed = fleet.push_change()
    wait_for(lambda: fleet.rendered_source() == pushed, "the pushed commit rendered")
    (seen,) = running.find("seen", pushed)
    assert seen.fields["trigger"] == "watch"


def test_watcher_of_a_linked_worktree_watches_the_common_refs(
    fleet: Fleet, start: Start, tmp_path: Path
) -> None:
    linked = tmp_path / "linked"
    subprocess.run(
        ["git", "-C", str(fleet.remote), "worktree", "add", "-q", "--detach", str(linked)],
        check=True,
    )
    running = start(settings(fleet, repo=str(linked)))
    wait_for(lambda: fleet.rendered_source() is not None, "the first render")
    pushed = fleet.push_change()
    wait_for(lambda: fleet.rendered_source() == pushed, "the pushed commit rendered")
    (seen,) = running.find("seen", pushed)
    assert seen.fields["trigger"] == "watch"


def test_polling_renders_a_pushed_commit(fleet: Fleet, start: Start) -> None:
    running = start(settings(fleet, watch=False, interval=0.2))
    wait_for(lambda: fleet.rendered_source() is not None, "the first render")
    pushed = fleet.push_change()
    wait_for(lambda: fleet.rendered_source() == pushed, "the pushed commit rendered")
    (seen,) = running.find("seen", pushed)
    assert seen.fields["trigger"] == "poll"


def _post(address: tuple[str, int], headers: dict[str, str], body: bytes) -> int:
    conn = http.client.HTTPConnection(*address, timeout=10)
    try:
        conn.request("POST", "/", body=body, headers=headers)
        return conn.getresponse().status
    finally:
        conn.close()


def test_signed_webhook_renders_and_unsigned_does_not(fleet: Fleet, start: Start) -> None:
    secret = b"webhook-secret"
    running = start(settings(fleet, watch=False, webhook=("127.0.0.1", 0), webhook_secret=secret))
    listening = wait_for(lambda: running.find("listening"), "the webhook server")
    host, _, port = str(listening[0].fields["address"]).rpartition(":")
    address = (host, int(port))
    first = wait_for(fleet.rendered_source, "the first render")
    pushed = fleet.push_change()
    body = json.dumps({"ref": "refs/heads/main", "after": pushed}).encode()
    assert _post(address, {"X-GitHub-Event": "push"}, body) == 401
    wait_for(lambda: running.find("webhook-rejected"), "the refusal logged")
    time.sleep(0.3)  # room for a wrongly triggered look to start
    assert fleet.rendered_source() == first
    assert running.find("seen", pushed) == []
    signed = {"X-GitHub-Event": "push", "X-Hub-Signature-256": webhook.sign_github(secret, body)}
    assert _post(address, signed, body) == 202
    wait_for(lambda: fleet.rendered_source() == pushed, "the pushed commit rendered")
    assert running.find("seen", pushed)[0].fields["trigger"] == "webhook"


def test_burst_of_pushes_is_one_render_of_the_newest(fleet: Fleet, start: Start) -> None:
    pushed = [fleet.push_change() for _ in range(5)]
    wake = wakeup.Wakeup()
    for _ in pushed:
        wake.poke("webhook")
    running = start(settings(fleet, watch=False), wake=wake)
    wait_for(lambda: running.find("rendered"), "a render")
    time.sleep(0.2)  # room for further (wrong) renders
    assert [e.source for e in running.find("rendered")] == [pushed[-1]]
    assert [source for source, _ in fleet.renders()] == [pushed[-1]]


def test_idle_look_does_nothing(fleet: Fleet) -> None:
    logged: list[object] = []
    service = reconciler.Reconciler(settings(fleet), logged.append)
    try:
        assert service.cycle() is reconciler.Outcome.RENDERED
        count = len(logged)
        assert service.cycle() is reconciler.Outcome.IDLE
        assert len(logged) == count
    finally:
        service.close()
