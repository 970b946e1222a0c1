"""Progressive rollout end to end: a source pushed to a bare repository with two waves (a canary
wave of a Push and a Pull cluster, then the rest), the reconciler, the push agent, a pull agent,
simulated member clusters, and a clock the test moves (bake times and timeouts never sleep).

Aspects covered:
- a change reaches the canary wave's Push and Pull clusters alike, and the last wave only once
  the canary wave reported it healthy for its bake time; every release is a commit on the
  cluster's ref naming the wave, the source commit and why;
- `gitfleet status` shows each wave, its clusters and what it waits for, and a held cluster as
  waiting, not failing;
- a canary made unhealthy by a Lua health rule halts the rollout after its timeout and is
  rolled back, by a new commit, to the render last healthy on it; nothing else moves;
- `control: Pause` and `Abort` are commits: a pause holds the next wave past its bake time,
  `Run` resumes it, an abort rolls the canary back;
- a reconciler restarted mid-rollout goes on where it was (the bake started before the restart
  is not started again);
- `Gitfleet-Rollout: skip` on a source commit releases every cluster at once;
- with signed renders, agents checking signatures and lineage apply the releases, the push
  agent switching from the rendered branch to its clusters' refs without a refusal.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from builders import make_cluster, make_object, make_policy
from simfixture import SimFactory, make_sim_cluster_fixture

from gitfleet.agent import kube, pull, push, worker
from gitfleet.gitstore import rendered, repository
from gitfleet.service import events, reconciler

__all__ = ["make_sim_cluster_fixture"]

CANARY_PUSH, CANARY_PULL, LAST = "m1", "q1", "m2"
CLUSTERS = (CANARY_PUSH, CANARY_PULL, LAST)
CONFIG = "shop/ConfigMap.core/settings.yaml"
HEALTH = """\
function InterpretHealth(observedObj)
  return observedObj.data == nil or observedObj.data.healthy ~= "false"
end
"""


def _settings(control: str = "Run") -> str:
    return yaml.safe_dump(
        {
            "rollout": {
                "control": control,
                "waves": [
                    {
                        "name": "canary",
                        "labelSelector": {"matchLabels": {"wave": "canary"}},
                        "bake": "30s",
                        "timeout": "2m",
                        "onFailure": "rollback",
                    }
                ],
            }
        }
    )


def _source(version: str, healthy: bool = True) -> str:
    clusters = [
        make_cluster(CANARY_PUSH, labels={"wave": "canary"}),
        make_cluster(CANARY_PULL, labels={"wave": "canary"}),
        make_cluster(LAST),
    ]
    clusters[1]["spec"]["syncMode"] = "Pull"
    settings = make_object("v1", "ConfigMap", "settings", "shop")
    settings["data"] = {"version": version, **({} if healthy else {"healthy": "false"})}
    selector = {"apiVersion": "v1", "kind": "ConfigMap"}
    customization = {
        "apiVersion": "config.karmada.io/v1alpha1",
        "kind": "ResourceInterpreterCustomization",
        "metadata": {"name": "configmap-health"},
        "spec": {
            "target": {"apiVersion": "v1", "kind": "ConfigMap"},
            "customizations": {"healthInterpretation": {"luaScript": HEALTH}},
        },
    }
    docs = [
        *clusters,
        make_object("v1", "Namespace", "shop"),
        settings,
        customization,
        make_policy(
            "settings", selector, placement={"clusterAffinity": {"clusterNames": list(CLUSTERS)}}
        ),
    ]
    return yaml.safe_dump_all(docs)


class Clock:
    def __init__(self) -> None:
        self.now = float(int(time.time()))

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class Fleet:
    """The source, the remote, the reconciler and the agents, moved one step at a time."""

    def __init__(
        self,
        source: Any,
        remote: Path,
        kubeconfigs: Path,
        sims: dict[str, Any],
        keys: tuple[Path, Path] | None = None,
    ) -> None:
        """`keys`: the reconciler's signing key and the agents' allowed-signers file."""
        self.source = source
        self.remote = remote
        self.sims = sims
        self.clock = Clock()
        self.log: list[events.Event] = []
        self.signing_key, allowed = keys or (None, None)
        self.reconciler = self._reconciler()
        self.push = push.PushAgent(
            push.Settings(
                repo=str(remote), kubeconfig_dir=kubeconfigs, cache_dir=remote.parent / "push",
                retry=kube.NO_WAIT, heartbeat=10.0, allowed_signers=allowed,
            ),
            clock=self.clock,
        )  # fmt: skip
        self.pull = pull.PullAgent(
            pull.Settings(
                repo=remote.as_uri(), cluster=CANARY_PULL,
                kubeconfig=kubeconfigs / f"{CANARY_PULL}.yaml", cache_dir=remote.parent / "pull",
                retry=kube.NO_WAIT, pace=worker.Pace(heartbeat=10.0), allowed_signers=allowed,
            ),
            clock=self.clock,
        )  # fmt: skip

    def _reconciler(self) -> reconciler.Reconciler:
        settings = reconciler.Settings(
            repo=self.remote.as_uri(),
            branch="main",
            watch=False,
            signing_key=self.signing_key,
            cache=self.remote.parent / "cache",
        )
        return reconciler.Reconciler(settings, self.log.append, clock=self.clock)

    def restart(self) -> None:
        """A new reconciler process: nothing of the old one's memory."""
        self.reconciler.close()
        self.reconciler = self._reconciler()

    def close(self) -> None:
        self.pull.close()
        self.reconciler.close()

    def change(self, files: dict[str, str], message: str = "change") -> str:
        commit: str = self.source.commit(files, message)
        self.source.git("push", "-q", "origin", "main")
        return commit

    def look(self) -> reconciler.Outcome:
        return self.reconciler.cycle("test")

    def ship(self, version: str, healthy: bool = True) -> None:
        """Commit a new version, render it, and let the agents apply what is released."""
        self.change({"fleet.yaml": _source(version, healthy)})
        assert self.look() is reconciler.Outcome.RENDERED
        self.agents()

    def agents(self) -> None:
        """Every agent syncs, the clusters settle, and the agents report."""
        for _ in range(2):
            results = self.push.once() or {}
            assert all(not r.error for r in results.values()), results
            assert self.pull.once() is not None
            for sim in self.sims.values():
                sim.cluster.settle()

    def running(self, cluster: str) -> str | None:
        """The version of the settings ConfigMap running in `cluster`."""
        found = self.sims[cluster].objects.get("v1", "ConfigMap", "settings", "shop")
        return None if found is None else str(found["data"]["version"])

    def versions(self) -> dict[str, str | None]:
        return {name: self.running(name) for name in CLUSTERS}

    def git(self, *args: str) -> str:
        repo = repository.open_repository(self.remote)
        assert repo is not None
        try:
            code, out, err = repo.run(*args)
            assert code == 0, err
            return out.decode()
        finally:
            repo.close()

    def ref(self, cluster: str) -> str:
        return self.git("rev-parse", rendered.cluster_ref(cluster)).strip()

    def released(self, cluster: str) -> str | None:
        """The version the cluster's ref holds."""
        ref = rendered.cluster_ref(cluster)
        text = self.git("show", f"{ref}:works/{cluster}/{CONFIG}")
        return str(yaml.safe_load(text)["data"]["version"])

    def message(self, cluster: str) -> str:
        return self.git("log", "-1", "--format=%B", rendered.cluster_ref(cluster))

    def status(self, cli: Any) -> dict[str, Any]:
        done = cli("status", "--repo", str(self.remote), "-o", "json", "--grace", "1e9")
        assert done.exit_code == 0, done.output
        view: dict[str, Any] = json.loads(done.output)
        return view


@pytest.fixture(name="fleet")
def fleet_fixture(
    git_repo: Any, bare_remote: Path, make_sim_cluster: SimFactory
) -> Iterator[Fleet]:
    """The fleet with version 1 of the settings released everywhere."""
    sims = {name: make_sim_cluster(name) for name in CLUSTERS}
    git_repo.commit({"fleet.yaml": _source("1"), "gitfleet.yaml": _settings()}, "fleet")
    git_repo.git("push", "-q", "origin", "main")
    fleet = Fleet(git_repo, bare_remote, sims[CANARY_PUSH].kubeconfig.parent, sims)
    assert fleet.look() is reconciler.Outcome.RENDERED
    fleet.agents()
    fleet.look()
    assert fleet.versions() == {name: "1" for name in CLUSTERS}
    yield fleet
    fleet.close()


def _bake(fleet: Fleet, seconds: float) -> None:
    """Time passes; the agents report (their heartbeats stay fresh)."""
    fleet.clock.advance(seconds)
    fleet.agents()


def test_a_change_reaches_the_last_wave_after_the_canary_baked(fleet: Fleet, cli: Any) -> None:
    source = fleet.change({"fleet.yaml": _source("2")})
    assert fleet.look() is reconciler.Outcome.RENDERED
    assert {n: fleet.released(n) for n in CLUSTERS} == {"m1": "2", "q1": "2", "m2": "1"}
    message = fleet.message(CANARY_PUSH)
    assert f"rollout: release source {source} to m1 in wave canary" in message
    assert "wave canary (1/2) released (first wave)" in message
    assert "Gitfleet-Wave: canary" in message
    assert "Gitfleet-Sync-Mode: Push" in message
    assert "Gitfleet-Sync-Mode: Pull" in fleet.message(CANARY_PULL)
    fleet.agents()
    assert fleet.versions() == {"m1": "2", "q1": "2", "m2": "1"}, "Push and Pull alike"

    fleet.look()
    view = fleet.status(cli)
    waves = {w["name"]: w for w in view["rollout"]["waves"]}
    assert waves["canary"]["phase"] == "Baking"
    assert waves["rest"]["phase"] == "Waiting"
    assert waves["rest"]["clusters"] == [LAST]
    held = next(c for c in view["clusters"] if c["name"] == LAST)
    assert (held["synced"], held["waiting"]) == (True, "wave canary")
    table = cli("status", "--repo", str(fleet.remote), "--grace", "1e9").output
    assert "rollout of source " in table and ": Progressing: wave canary (1/2)" in table
    assert "  canary  Baking   m1, q1    healthy for its bake time (30s)" in table
    assert "yes (held)" in table

    _bake(fleet, 20)
    fleet.look()
    assert fleet.released(LAST) == "1", "the canary has not baked long enough"
    _bake(fleet, 11)
    fleet.look()
    assert fleet.released(LAST) == "2"
    assert "wave rest (2/2) released (wave canary is done)" in fleet.message(LAST)
    fleet.agents()
    fleet.look()
    assert fleet.versions() == {name: "2" for name in CLUSTERS}
    assert fleet.status(cli)["rollout"]["phase"] == "Complete"


def test_an_unhealthy_canary_halts_and_rolls_back(fleet: Fleet) -> None:
    last_before = fleet.ref(LAST)
    canary_before = fleet.ref(CANARY_PUSH)
    fleet.ship("3", healthy=False)
    assert fleet.versions() == {"m1": "3", "q1": "3", "m2": "1"}
    _bake(fleet, 60)
    fleet.look()
    assert fleet.released(CANARY_PUSH) == "3", "within its timeout"
    _bake(fleet, 61)
    fleet.look()
    assert {n: fleet.released(n) for n in CLUSTERS} == {"m1": "1", "q1": "1", "m2": "1"}
    assert fleet.ref(LAST) == last_before, "nothing else moved"
    rolled = fleet.ref(CANARY_PUSH)
    assert fleet.git("rev-parse", f"{rolled}~2").strip() == canary_before, "a new commit"
    assert "rollout: roll back m1 to source " in fleet.message(CANARY_PUSH)
    assert "wave canary not healthy within 120s" in fleet.message(CANARY_PUSH)
    fleet.agents()
    assert fleet.versions() == {name: "1" for name in CLUSTERS}
    _bake(fleet, 200)
    fleet.look()
    assert fleet.ref(CANARY_PUSH) == rolled, "a halted rollout releases nothing"
    assert fleet.ref(LAST) == last_before


def test_pause_resume_and_abort_are_commits(fleet: Fleet) -> None:
    fleet.ship("2")
    fleet.change({"gitfleet.yaml": _settings("Pause")}, "pause the rollout")
    fleet.look()
    _bake(fleet, 40)
    fleet.look()
    assert fleet.released(LAST) == "1", "paused"
    fleet.change({"gitfleet.yaml": _settings("Run")}, "resume the rollout")
    fleet.look()
    assert fleet.released(LAST) == "2", "resumed: the canary had baked"
    fleet.agents()

    fleet.ship("3")
    assert fleet.versions() == {"m1": "3", "q1": "3", "m2": "2"}
    fleet.change({"gitfleet.yaml": _settings("Abort")}, "abort the rollout")
    fleet.look()
    assert {n: fleet.released(n) for n in CLUSTERS} == {"m1": "2", "q1": "2", "m2": "2"}
    fleet.agents()
    assert fleet.versions() == {name: "2" for name in CLUSTERS}


def test_a_restarted_reconciler_resumes_the_rollout(fleet: Fleet) -> None:
    fleet.ship("2")
    fleet.look()
    _bake(fleet, 20)
    fleet.restart()
    fleet.look()
    assert fleet.released(LAST) == "1"
    _bake(fleet, 11)
    fleet.look()
    assert fleet.released(LAST) == "2", "the bake began before the restart"


def test_a_commit_can_skip_the_waves(fleet: Fleet) -> None:
    fleet.change({"fleet.yaml": _source("9")}, "hotfix\n\nGitfleet-Rollout: skip")
    fleet.look()
    assert {n: fleet.released(n) for n in CLUSTERS} == {name: "9" for name in CLUSTERS}


def test_signed_renders_go_on_when_a_rollout_begins(
    git_repo: Any, bare_remote: Path, make_sim_cluster: SimFactory, tmp_path: Path
) -> None:
    """Agents that check signatures and lineage: the push agent switches from the rendered
    branch to its clusters' refs without refusing anything, and follows releases."""
    key = tmp_path / "keys" / "reconciler"
    key.parent.mkdir()
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    kind, public = Path(f"{key}.pub").read_text().split()[:2]
    allowed = key.parent / "allowed"
    allowed.write_text(f'reconciler@fleet namespaces="git" {kind} {public}\n')
    sims = {name: make_sim_cluster(name) for name in CLUSTERS}
    git_repo.commit({"fleet.yaml": _source("1")}, "fleet without waves")
    git_repo.git("push", "-q", "origin", "main")
    kubeconfigs = sims[CANARY_PUSH].kubeconfig.parent
    fleet = Fleet(git_repo, bare_remote, kubeconfigs, sims, (key, allowed))
    try:
        fleet.look()
        fleet.agents()
        assert fleet.versions() == {name: "1" for name in CLUSTERS}
        fleet.change({"fleet.yaml": _source("2"), "gitfleet.yaml": _settings()}, "waves")
        fleet.look()
        fleet.agents()
        assert fleet.versions() == {"m1": "2", "q1": "2", "m2": "1"}
        fleet.look()
        _bake(fleet, 31)
        fleet.look()
        fleet.agents()
        assert fleet.versions() == {name: "2" for name in CLUSTERS}
    finally:
        fleet.close()
