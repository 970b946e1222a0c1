"""A misconfigured agent is not a failed cluster; an unreachable cluster fails over only once
its failure has lasted. End to end: a source pushed to a bare remote, `gitfleet render`, a
simulated member cluster, the agents and the reconciler through the command line.

Aspects covered:
- `agent pull --once` without a usable kubeconfig (none given outside a pod, credentials the
  cluster refuses, a file that is not a kubeconfig) exits 1, says why, and writes no status
  ref, so the reconciler judges nothing and moves nothing;
- without `--kubeconfig`, `$KUBECONFIG` is read as kubectl reads it: several files merged,
  relative paths from each file's folder; `--kubeconfig` comes first;
- `agent push --once` with no kubeconfig for one cluster: that cluster reports nothing, the
  other converges and reports, exit 1;
- `agent push --once` with a cluster's kubeconfig copied from another member's: the API server
  it reaches holds the other cluster's inventory, so nothing is applied there, the error says
  whose it is and how to hand it over after a rename, exit 1; with the right file it converges;
- `agent pull --once` for a Push cluster (its ref's commit says so) applies nothing, writes
  no status ref and exits 1 saying why; once the Cluster is made Pull (a commit of the mode
  alone), it converges;
- a cluster that does not answer is reported not Ready (ClusterNotReachable) with a heartbeat;
  the reconciler does not count it failed before `failover.clusterFailureThreshold`, and does
  once the threshold is over (the reconciler's clock moved on), saying so in the commit.
"""

from __future__ import annotations

import base64
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from builders import make_push_and_pull
from simfixture import RunningSim, SimFactory, make_sim_cluster_fixture

from gitfleet import sim
from gitfleet.gitstore import status
from gitfleet.service import reconciler

__all__ = ["make_sim_cluster_fixture"]

THRESHOLD = 30
SETTINGS = f"failover: {{clusterFailureThreshold: {THRESHOLD}s, defaultTolerationSeconds: 0}}\n"


def _source() -> dict[str, str]:
    docs = make_push_and_pull("p1", "q1")
    return {"fleet.yaml": yaml.safe_dump_all(docs), "gitfleet.yaml": SETTINGS}


class Fleet:
    def __init__(self, git_repo: Any, remote: Path, cli: Any, members: dict[str, RunningSim]):
        self.repo, self.remote, self.cli, self.members = git_repo, remote, cli, members
        self.kubeconfigs = members["q1"].kubeconfig.parent
        self.cache = remote.parent / "cache"

    @property
    def url(self) -> str:
        return f"file://{self.remote}"

    def pull(self, *options: str, cluster: str = "q1") -> Any:
        return self.cli(
            "agent", "pull", "--repo", self.url, "--cluster", cluster,
            "--cache-dir", str(self.cache / cluster), "--once", *options,
        )  # fmt: skip

    def push(self, kubeconfigs: Path) -> Any:
        return self.cli(
            "agent", "push", "--repo", self.url, "--kubeconfig-dir", str(kubeconfigs),
            "--cache-dir", str(self.cache / "push"), "--once",
        )  # fmt: skip

    def status_ref(self, cluster: str) -> str:
        return str(self.repo.git("ls-remote", "origin", status.status_ref(cluster)))

    def render_report(self) -> dict[str, Any]:
        found: dict[str, Any] = yaml.safe_load(
            self.repo.git("--git-dir", str(self.remote), "show", "gitfleet/rendered:render.yaml")
        )
        return found

    def reconcile(self, clock: float) -> reconciler.Outcome:
        """One look of the reconciler at the remote, its clock at `clock`."""
        settings = reconciler.Settings(repo=str(self.remote), watch=False)
        service = reconciler.Reconciler(settings, lambda event: None, clock=lambda: clock)
        try:
            return service.cycle()
        finally:
            service.close()


@pytest.fixture(name="fleet")
def fleet_fixture(
    git_repo: Any, bare_remote: Path, cli: Any, make_sim_cluster: SimFactory
) -> Fleet:
    members = {name: make_sim_cluster(name) for name in ("p1", "q1")}
    git_repo.commit(_source())
    assert cli("render", "--repo", str(git_repo.path)).exit_code == 0
    git_repo.git("push", "-q", "origin", "main", "+refs/heads/gitfleet/*:refs/heads/gitfleet/*")
    return Fleet(git_repo, bare_remote, cli, members)


def _wrong_token(fleet: Fleet, tmp_path: Path) -> list[str]:
    data = fleet.members["q1"].cluster.kubeconfig_data()
    data["users"][0]["user"]["token"] = "not-the-token"
    path = tmp_path / "wrong.yaml"
    path.write_text(yaml.safe_dump(data))
    return ["--kubeconfig", str(path)]


def _not_a_kubeconfig(fleet: Fleet, tmp_path: Path) -> list[str]:
    path = tmp_path / "notes.yaml"
    path.write_text("just: [some, notes\n")
    return ["--kubeconfig", str(path)]


def _yaml_but_no_kubeconfig(fleet: Fleet, tmp_path: Path) -> list[str]:
    path = tmp_path / "list.yaml"
    path.write_text("just a sentence\n")
    return ["--kubeconfig", str(path)]


@pytest.mark.parametrize(
    ("options", "says"),
    [
        pytest.param(lambda fleet, tmp: [], "no kubeconfig given (--kubeconfig or $KUBECONFIG)",
                     id="no kubeconfig outside a pod"),
        pytest.param(_wrong_token, "Unauthorized", id="credentials refused"),
        pytest.param(_not_a_kubeconfig, "cannot read kubeconfig", id="not a kubeconfig"),
        pytest.param(_yaml_but_no_kubeconfig, "it is not a kubeconfig (a YAML mapping",
                     id="YAML but no kubeconfig"),
    ],
)  # fmt: skip
def test_a_misconfigured_pull_agent_reports_nothing(
    fleet: Fleet, tmp_path: Path, options: Any, says: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KUBECONFIG", raising=False)
    done = fleet.pull(*options(fleet, tmp_path))
    assert done.exit_code == 1
    assert "the agent cannot use its access to the cluster, so it reports nothing" in done.output
    assert says in done.output
    assert fleet.status_ref("q1") == ""
    assert fleet.reconcile(time.time()) is reconciler.Outcome.UP_TO_DATE
    assert not (fleet.render_report().get("failover") or {}).get("clusters")


def test_kubeconfig_is_taken_from_the_environment_as_kubectl_takes_it(
    fleet: Fleet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --kubeconfig, $KUBECONFIG: several files separated by ':', merged as kubectl
    merges them (a file missing is skipped; the first to set a name or current-context wins),
    each file's relative paths read from its own folder."""
    data = fleet.members["q1"].cluster.kubeconfig_data()
    server = data["clusters"][0]["cluster"]
    certs = tmp_path / "clusters" / "certs"
    certs.mkdir(parents=True)
    (certs / "ca.crt").write_bytes(base64.b64decode(server.pop("certificate-authority-data")))
    server["certificate-authority"] = "certs/ca.crt"
    users = tmp_path / "users.yaml"
    users.write_text(yaml.safe_dump({"users": data.pop("users")}))
    (tmp_path / "clusters" / "config.yaml").write_text(yaml.safe_dump(data))
    merged = [tmp_path / "missing.yaml", tmp_path / "clusters" / "config.yaml", users]
    monkeypatch.setenv("KUBECONFIG", ":".join(str(p) for p in merged))
    done = fleet.pull()
    assert done.exit_code == 0, done.output
    assert fleet.members["q1"].objects.get("apps/v1", "Deployment", "web", "shop") is not None
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "missing.yaml"))
    given = fleet.pull("--kubeconfig", str(fleet.members["q1"].kubeconfig))
    assert given.exit_code == 0, given.output


def test_a_push_cluster_without_kubeconfig_reports_nothing(fleet: Fleet, tmp_path: Path) -> None:
    only_q1 = tmp_path / "kube"
    only_q1.mkdir()
    (only_q1 / "q1.yaml").write_text(fleet.members["q1"].kubeconfig.read_text())
    done = fleet.push(only_q1)
    assert done.exit_code == 1
    assert "p1: NOT converged" in done.output and "no kubeconfig for cluster p1" in done.output
    assert fleet.status_ref("p1") == ""
    everyone = fleet.push(fleet.kubeconfigs)
    assert everyone.exit_code == 0, everyone.output
    assert fleet.status_ref("p1") != ""


def test_a_kubeconfig_reaching_another_members_server_applies_nothing(
    fleet: Fleet, tmp_path: Path
) -> None:
    own = ("--kubeconfig", str(fleet.members["q1"].kubeconfig))
    assert fleet.pull(*own).exit_code == 0
    mixed_up = tmp_path / "kube"
    mixed_up.mkdir()
    (mixed_up / "p1.yaml").write_text(fleet.members["q1"].kubeconfig.read_text())
    done = fleet.push(mixed_up)
    assert done.exit_code == 1, done.output
    assert "p1: NOT converged" in done.output
    assert "this API server runs cluster 'q1', not 'p1'" in done.output
    assert "gitfleet.io/cluster=p1" in done.output
    again = fleet.pull(*own)
    assert again.exit_code == 0, "q1 still converges: nothing of p1 was applied there"
    assert fleet.push(fleet.kubeconfigs).exit_code == 0


def test_an_unreachable_cluster_fails_over_after_the_threshold(fleet: Fleet) -> None:
    kubeconfig = ["--kubeconfig", str(fleet.members["q1"].kubeconfig)]
    assert fleet.pull(*kubeconfig).exit_code == 0
    fleet.members["q1"].cluster.set_fault(sim.Fault.UNREACHABLE)
    down = fleet.pull(*kubeconfig)
    assert down.exit_code == 1
    assert "cannot reach cluster q1" in down.output
    reported = yaml.safe_load(
        fleet.repo.git(
            "--git-dir", str(fleet.remote), "show", f"{status.status_ref('q1')}:cluster.yaml"
        )
    )
    (ready,) = reported["status"]["conditions"]
    assert (ready["status"], ready["reason"]) == ("False", "ClusterNotReachable")
    since = time.time()
    fleet.reconcile(since)
    assert not (fleet.render_report().get("failover") or {}).get("clusters")
    assert fleet.reconcile(since + THRESHOLD + 2) is reconciler.Outcome.RENDERED
    unhealthy = fleet.render_report()["failover"]["clusters"]
    assert unhealthy["q1"]["reason"] == "ClusterNotReachable"
    subject = fleet.repo.git("--git-dir", str(fleet.remote), "log", "-1", "--format=%s",
                             "gitfleet/rendered")  # fmt: skip
    assert subject.startswith("failover:") and "q1" in subject


def test_a_pull_agent_for_a_push_cluster_applies_nothing(fleet: Fleet) -> None:
    p1 = fleet.members["p1"]
    done = fleet.pull("--kubeconfig", str(p1.kubeconfig), cluster="p1")
    assert done.exit_code == 1
    assert "is for a Push cluster: p1's Cluster has spec.syncMode Push" in done.output
    assert "set spec.syncMode: Pull in its Cluster" in done.output
    assert p1.objects.get("apps/v1", "Deployment", "web", "shop") is None
    assert fleet.status_ref("p1") == ""
    works = "refs/heads/gitfleet/works/p1"
    before = fleet.repo.git("rev-parse", works)
    docs = [d for d in yaml.safe_load_all(_source()["fleet.yaml"])]
    for doc in docs:
        if doc["kind"] == "Cluster" and doc["metadata"]["name"] == "p1":
            doc["spec"]["syncMode"] = "Pull"
    fleet.repo.commit({"fleet.yaml": yaml.safe_dump_all(docs)})
    assert fleet.cli("render", "--repo", str(fleet.repo.path)).exit_code == 0
    after = fleet.repo.git("rev-parse", works)
    assert after != before
    assert fleet.repo.git("rev-parse", f"{after}^{{tree}}") == fleet.repo.git(
        "rev-parse", f"{before}^{{tree}}"
    )
    fleet.repo.git("push", "-q", "origin", "main", "+refs/heads/gitfleet/*:refs/heads/gitfleet/*")
    done = fleet.pull("--kubeconfig", str(p1.kubeconfig), cluster="p1")
    assert done.exit_code == 0, done.output
    assert p1.objects.get("apps/v1", "Deployment", "web", "shop") is not None
    assert fleet.status_ref("p1") != ""
