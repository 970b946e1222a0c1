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
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from builders import make_cluster, make_deployment, make_object, make_policy
from githttp import GitHttpServer, git_http_fixture
from simfixture import RunningSim, SimFactory, make_sim_cluster_fixture

from gitfleet.gitstore import rendered, status

__all__ = ["git_http_fixture", "make_sim_cluster_fixture"]

CLUSTER = "member2"
TOKEN = "s3cret-token"
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
