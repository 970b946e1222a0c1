"""A firewalled cluster's pull agent as users run it: the fleet's repository on a Git host
reached over smart HTTP with a credential (`githttp`: git's own http-backend on 127.0.0.1), the
reconciler rendering from that URL, and `gitfleet agent pull` on a simulated member. All
through the command line.

Aspects covered:
- `git push` of the source deploys: `reconcile --once` renders from the URL and pushes the
  render back, the pull agent fetches its ref with its credential, applies it and reports on
  its status ref, and `gitfleet status` reads the report back from the host;
- the token is never shown: not in what the commands print, the status refs, the agent's or
  the reconciler's copies on disk, nor in any process's command line while git talks to the
  host (`ps`), whether it is written into the URL or held in the credential folder;
- a source commit carrying `Gitfleet-Allow-Prune: all` force-pushed onto the Work ref by
  mistake: refused as not a render (nothing deleted, `NotARender` in `gitfleet status`, exit
  1); deleting the ref and reconciling again is the way out;
- `reconcile --webhook` running as a process, its Git credential from a credential helper (as
  deploy/ gives it): a signed GitHub push delivery renders the pushed commit onto the host,
  which the agent then applies; a forged delivery (wrong signature) and a replayed one are
  refused and render nothing.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from builders import make_cluster, make_deployment, make_object, make_policy
from cli.logged import first, read_until
from githttp import GitHttpServer, git_http_fixture
from simfixture import RunningSim, SimFactory, make_sim_cluster_fixture

from gitfleet.gitstore import rendered, status
from gitfleet.service import webhook

__all__ = ["git_http_fixture", "make_sim_cluster_fixture"]

CLUSTER = "member2"
TOKEN = "s3cret-token"
HOOK_SECRET = b"hook-s3cret"
BOUND = 20.0
FRESH = ("--grace", "1e9")


def _source(replicas: int) -> str:
    member = make_cluster(CLUSTER)
    member["spec"]["syncMode"] = "Pull"
    placement = {"clusterAffinity": {"clusterNames": [CLUSTER]}}
    docs = [
        member,
        make_object("v1", "Namespace", "shop"),
        make_deployment(replicas=replicas),
        make_policy("web", placement=placement),
    ]
    return yaml.safe_dump_all(docs)


class Host:
    """The fleet's repository on the Git host, the user's checkout, the member cluster, and
    the commands as a user types them."""

    def __init__(self, server: GitHttpServer, git_repo: Any, cli: Any, member: RunningSim):
        self.server = server
        self.bare = server.bare("fleet.git")
        self.repo = git_repo
        self.cli = cli
        self.member = member
        self.work = git_repo.path.parent
        self.secret = self.work / "git-credentials"
        self.secret.mkdir()
        (self.secret / "username").write_text("agent")
        (self.secret / "password").write_text(TOKEN)
        store = self.work / "user-credentials"
        store.write_text(server.url("", "agent", TOKEN).rstrip("/") + "\n")
        git_repo.git("config", "credential.helper", f"store --file={store}")
        git_repo.git("remote", "add", "origin", server.url("fleet.git"))

    @property
    def url(self) -> str:
        """The URL without a credential, as the agent's Deployment names it."""
        return self.server.url("fleet.git")

    def deploy(self, replicas: int) -> str:
        """Commit and `git push` the source; the commit."""
        commit: str = self.repo.commit({"fleet.yaml": _source(replicas)}, f"web: {replicas}")
        self.repo.git("push", "-q", "origin", "main")
        return commit

    def reconcile(self, *extra: str) -> Any:
        url = self.server.url("fleet.git", "agent", TOKEN)
        cache = str(self.work / "reconciler-cache")
        return self.cli("reconcile", "--repo", url, "--cache", cache, "--once", *extra)

    def agent(self, *extra: str, token_in_url: bool = False) -> Any:
        """`agent pull --once` with the credential folder, or with the token in the URL."""
        access = ["--repo", self.url, "--credentials", str(self.secret)]
        if token_in_url:
            access = ["--repo", self.server.url("fleet.git", "agent", TOKEN)]
        return self.cli(
            "agent", "pull", *access, "--cluster", CLUSTER,
            "--kubeconfig", str(self.member.kubeconfig),
            "--cache-dir", str(self.work / "agent-cache"), "--once", *extra,
        )  # fmt: skip

    def status(self) -> dict[str, Any]:
        done = self.cli("status", "--repo", str(self.bare), "-o", "json", *FRESH)
        assert done.exit_code == 0, done.output
        found: dict[str, Any] = json.loads(done.output)
        return found

    def replicas(self) -> int | None:
        web = self.member.objects.get("apps/v1", "Deployment", "web", "shop")
        return None if web is None else int(web["spec"]["replicas"])

    def on_host(self, *args: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(self.bare), *args], capture_output=True, text=True, check=True
        )
        return done.stdout.strip()


@pytest.fixture(name="host")
def host_fixture(
    git_http: GitHttpServer, git_repo: Any, cli: Any, make_sim_cluster: SimFactory
) -> Host:
    return Host(git_http, git_repo, cli, make_sim_cluster(CLUSTER))


def _files_holding(folder: Path, secret: str) -> list[Path]:
    return [
        path
        for path in folder.rglob("*")
        if path.is_file() and secret.encode() in path.read_bytes()
    ]


@pytest.mark.parametrize("in_url", [False, True], ids=["credential folder", "token in the URL"])
def test_a_push_deploys_and_the_status_comes_back_through_the_host(
    host: Host, in_url: bool
) -> None:
    host.server.watch_argv(TOKEN)
    source = host.deploy(3)
    done = host.reconcile()
    assert done.exit_code == 0, done.output
    works = host.on_host("rev-parse", rendered.cluster_ref(CLUSTER))
    applied = host.agent(token_in_url=in_url)
    assert applied.exit_code == 0, applied.output
    assert host.replicas() == 3
    host.member.cluster.settle()
    again = host.agent(token_in_url=in_url)
    assert again.exit_code == 0, again.output
    view = host.status()
    (row,) = view["clusters"]
    assert (row["name"], row["mode"], row["ready"], row["synced"]) == (
        CLUSTER, "Pull", "True", True
    )  # fmt: skip
    assert row["reportedCommit"] == works
    (web,) = view["resources"]
    assert web["replicas"] == {"desired": 3, "ready": 3}
    assert host.on_host("show", "-s", "--format=%(trailers:key=Source-Commit,valueonly)",
                        "gitfleet/rendered") == source  # fmt: skip

    report = host.on_host("show", f"{status.status_ref(CLUSTER)}:works.yaml")
    assert TOKEN not in report + applied.output + done.output
    assert _files_holding(host.work / "agent-cache", TOKEN) == []
    assert _files_holding(host.work / "reconciler-cache", TOKEN) == []
    assert host.server.argv_leaks == []


def _deliver(address: tuple[str, int], body: bytes, headers: dict[str, str]) -> int:
    conn = http.client.HTTPConnection(*address, timeout=BOUND)
    try:
        conn.request("POST", "/", body, headers)
        return conn.getresponse().status
    finally:
        conn.close()


def _github(body: bytes, secret: bytes, delivery: str) -> dict[str, str]:
    return {
        "X-GitHub-Event": "push",
        "X-GitHub-Delivery": delivery,
        "X-Hub-Signature-256": webhook.sign_github(secret, body),
    }


def test_a_signed_push_delivery_renders_over_http(host: Host, tmp_path: Path) -> None:
    host.server.watch_argv(TOKEN)
    gitconfig = tmp_path / "reconciler-gitconfig"
    store = tmp_path / "user-credentials"  # written by Host: the host's URL with the token
    gitconfig.write_text(f"[credential]\n\thelper = store --file={store}\n")
    first_commit = host.deploy(2)
    process = subprocess.Popen(
        [sys.executable, "-m", "gitfleet", "reconcile", "--repo", host.url, "--no-watch",
         "--interval", "600", "--webhook", "127.0.0.1:0", "--cache", str(tmp_path / "cache"),
         "-o", "json"],
        env={**os.environ, "GITFLEET_WEBHOOK_SECRET": HOOK_SECRET.decode(),
             "GIT_CONFIG_GLOBAL": str(gitconfig)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    lines: list[str] = []
    assert process.stdout is not None
    events = process.stdout
    try:
        listening = read_until(process, "listening", lines)["address"].rsplit(":", 1)
        address = (listening[0], int(listening[1]))
        rendered_at = first(process, events, lambda e: e["event"] == "rendered", lines, "a render")
        assert rendered_at["source"] == first_commit
        pushed = host.deploy(4)
        body = json.dumps({"ref": "refs/heads/main", "after": pushed}).encode()
        forged = _github(body, b"not-the-secret", "d-1")
        assert _deliver(address, body, forged) == 401
        read_until(process, "webhook-rejected", lines)
        genuine = _github(body, HOOK_SECRET, "d-2")
        assert _deliver(address, body, genuine) == 202
        assert _deliver(address, body, genuine) == 409  # the same delivery again
        done = first(process, events, lambda e: e["event"] == "rendered", lines, "the new render")
        assert done["source"] == pushed
    finally:
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=BOUND)
    logged = [json.loads(line) for line in [*lines, *out.splitlines()]]
    assert [e.get("trigger") for e in logged if e["event"] == "seen"] == ["start", "webhook"]
    assert process.returncode == 0, err
    assert host.agent().exit_code == 0
    assert host.replicas() == 4
    assert TOKEN not in out + err
    assert host.server.argv_leaks == []


def test_a_work_ref_forced_to_a_commit_that_is_not_a_render(host: Host) -> None:
    host.deploy(3)
    assert host.reconcile().exit_code == 0
    assert host.agent().exit_code == 0
    applied = host.on_host("rev-parse", rendered.cluster_ref(CLUSTER))
    # A source commit that may delete everything, pushed to the Work ref by mistake.
    host.repo.git(
        "commit", "-q", "--allow-empty", "-m", "retire", "-m", "Gitfleet-Allow-Prune: all"
    )
    host.repo.git("push", "-q", "--force", "origin", f"HEAD:{rendered.cluster_ref(CLUSTER)}")
    done = host.agent()
    assert done.exit_code == 1
    assert "it is not a render" in done.output
    assert host.replicas() == 3
    assert host.member.objects.get("v1", "Namespace", "shop", "") is not None
    (row,) = host.status()["clusters"]
    assert (row["refused"], row["synced"]) == ("NotARender", False)
    report = yaml.safe_load(host.on_host("show", f"{status.status_ref(CLUSTER)}:works.yaml"))
    assert report["lastAppliedCommit"] == applied
    assert host.reconcile().exit_code == 1  # nor does the reconciler build on it
    host.repo.git("push", "-q", "origin", f":{rendered.cluster_ref(CLUSTER)}")  # the way out
    assert host.reconcile().exit_code == 0
    again = host.agent()
    assert again.exit_code == 0, again.output
    assert host.replicas() == 3
