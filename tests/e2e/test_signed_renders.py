"""Signed renders end to end, through the command line: `gitfleet render --signing-key`, a bare
remote, a push agent (Push cluster p1) and a pull agent on its own ref (Pull cluster q1), both
with `--allowed-signers`, simulated member clusters and `gitfleet status`. Keys are made with
ssh-keygen for each test; paths are typed relative to the current folder.

Aspects covered:
- a signed render is applied by both agents; the rendered commit and the cluster refs carry
  good signatures Git itself verifies;
- an unsigned render is refused by both agents: nothing applied, `UnsignedRender` in the status
  ref and in `gitfleet status`, exit 1;
- a cluster ref and the rendered branch tampered with after a signed render (an unsigned
  commit, a commit signed by a stranger's key) are refused and reported, and the clusters keep
  what ran; a signed render afterwards is applied again;
- an edit amended into the signed tip (the render's trailers kept) is never signed by the next
  render, even where that render's inputs did not change: it renders every binding again;
  a file the render keeps (a suspended cluster's) is the newest signed render's below the
  edit (a forged render on top, an amended one), and, with signing just turned on, the tip's;
- a replacement pushed as `refs/replace/<blob>` for a signed render's manifest is not read:
  the agent reads the repository by its path, and applies the signed content;
- key rotation: with the old and the new key allowed, renders signed by either are applied;
  once the old key is removed from the list, a render signed by it is refused
  (`UntrustedSigner`);
- `gitfleet reconcile --verify-source-signers`: an unsigned source commit is reported and not
  rendered (exit 1); a signed one is rendered, and with `--signing-key` its render and the
  reconciler's status ref are signed;
- without `--allowed-signers`, agents apply an unsigned render and warn that they do not check;
- a replayed render: a pull agent's ref pointed at another cluster's signed commit, and the
  rendered branch pointed at a cluster ref's, are refused (`WrongCluster`);
- a rollback: both refs moved back to an older signed render (of the same history, or its
  first, parentless commit) is refused (`Rollback`), also by agents started afresh (from the
  status ref; the pull agent with an empty cache), and a newer render is applied again;
- a Push cluster that left the fleet: its ref's leaving commit is checked as a pull agent
  checks its ref (a render signed by a key no longer allowed is refused, nothing pruned), and
  once allowed, it is applied, which deletes what gitfleet made there;
- what goes forward is applied: successive renders (some never seen by the agents), a cluster
  added later, a cluster ref deleted and written again, and `render --new-history` after the
  refs were reset; a cluster ref's commits chain on each other.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from builders import make_cluster, make_deployment, make_object, make_policy
from conftest import GIT_ENV
from simfixture import RunningSim, SimFactory, make_sim_cluster_fixture

from gitfleet.gitstore import rendered, status

__all__ = ["make_sim_cluster_fixture"]

CLUSTERS = ("p1", "q1")
FRESH = ("--grace", "1e9")
START = 1_780_000_000
"""The committer time of the first render; each render is a minute later."""


def _keygen(folder: Path, name: str) -> str:
    """A new ed25519 key pair in `folder`; its public key line (type and key)."""
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(folder / name)],
        check=True,
    )
    kind, key = (folder / f"{name}.pub").read_text().split()[:2]
    return f"{kind} {key}"


@pytest.fixture(name="keys")
def keys_fixture(tmp_path: Path) -> Path:
    """keys/: `old`, `new` and `stranger` key pairs, and allowed-signers files `both` (old and
    new, as during a rotation), `old-only` and `new-only`."""
    folder = tmp_path / "keys"
    folder.mkdir()
    public = {name: _keygen(folder, name) for name in ("old", "new", "stranger")}
    lists = {"both": ("old", "new"), "old-only": ("old",), "new-only": ("new",)}
    for file, names in lists.items():
        lines = [f'reconciler@fleet namespaces="git" {public[n]}\n' for n in names]
        (folder / file).write_text("".join(lines))
    return folder


def _source(replicas: int, names: tuple[str, ...]) -> str:
    """Push cluster p1 and Pull clusters q…, each running `replicas` of web."""
    clusters = [make_cluster(name) for name in names]
    for each in clusters:
        if each["metadata"]["name"].startswith("q"):
            each["spec"]["syncMode"] = "Pull"
    placement = {"clusterAffinity": {"clusterNames": list(names)}}
    docs = [
        *clusters,
        make_object("v1", "Namespace", "shop"),
        make_deployment(replicas=replicas),
        make_policy("web", placement=placement),
    ]
    return yaml.safe_dump_all(docs)


class Fleet:
    """The source checkout (`source/`), its bare remote (`remote.git`), the member clusters;
    commands run from the test's folder, with relative paths."""

    def __init__(
        self,
        git_repo: Any,
        cli: Any,
        members: dict[str, RunningSim],
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        self.repo = git_repo
        self.cli = cli
        self.members = members
        self.monkeypatch = monkeypatch
        self.renders = 0

    def git(self, *args: str) -> str:
        found: str = self.repo.git(*args)
        return found

    def commit(
        self,
        replicas: int,
        *,
        sign_with: str | None = None,
        clusters: tuple[str, ...] = CLUSTERS,
        message: str = "",
        extra: dict[str, str] | None = None,
    ) -> str:
        text = message or f"web: {replicas} replicas"
        self.repo.commit({"fleet.yaml": _source(replicas, clusters), **(extra or {})}, text)
        if sign_with is not None:
            key = Path("keys", sign_with).resolve()
            self.git("-c", "gpg.format=ssh", "-c", f"user.signingKey={key}",
                     "commit", "-q", "--amend", "--no-edit", "-S")  # fmt: skip
        return self.git("rev-parse", "HEAD")

    def render(
        self,
        replicas: int,
        key: str | None,
        *options: str,
        clusters: tuple[str, ...] = CLUSTERS,
        message: str = "",
    ) -> None:
        """Commit the source (with `message`, if given) and render it, a minute after the last
        render."""
        self.commit(replicas, clusters=clusters, message=message)
        self.renders += 1
        for who, value in (("NAME", "reconciler"), ("EMAIL", "reconciler@fleet"),
                           ("DATE", f"@{START + 60 * self.renders} +0000")):  # fmt: skip
            self.monkeypatch.setenv(f"GIT_COMMITTER_{who}", value)
        signing = ("--signing-key", f"keys/{key}") if key else ()
        done = self.cli("render", "--repo", "source", *signing, *options)
        assert done.exit_code == 0, done.output
        self.publish()

    def publish(self) -> None:
        self.git(
            "push", "-q", "-f", "origin", "main", "+refs/heads/gitfleet/*:refs/heads/gitfleet/*"
        )

    def agents(self, allowed: str | None = "both") -> dict[str, Any]:
        """Both agents once; each one's result."""
        check = ("--allowed-signers", f"keys/{allowed}") if allowed else ()
        push = self.cli(
            "agent", "push", "--repo", "remote.git", "--kubeconfig-dir", "kubeconfigs",
            "--cache-dir", "cache/push", "--once", "-o", "json", *check,
        )  # fmt: skip
        return {"p1": push, "q1": self.pull("q1", allowed)}

    def pull(self, cluster: str, allowed: str | None = "both", cache: str = "") -> Any:
        """The pull agent of `cluster` once, its Git copy in `cache` (default: cache/CLUSTER)."""
        check = ("--allowed-signers", f"keys/{allowed}") if allowed else ()
        return self.cli(
            "agent", "pull", "--repo", "remote.git", "--cluster", cluster,
            "--kubeconfig", f"kubeconfigs/{cluster}.yaml", "--cache-dir",
            cache or f"cache/{cluster}", "--once", "-o", "json", *check,
        )  # fmt: skip

    def replicas(self, cluster: str) -> int | None:
        web = self.members[cluster].objects.get("apps/v1", "Deployment", "web", "shop")
        return None if web is None else int(web["spec"]["replicas"])

    def works_report(self, cluster: str) -> dict[str, Any]:
        text = self.git(
            "--git-dir=../remote.git", "show", f"{status.status_ref(cluster)}:works.yaml"
        )
        found: dict[str, Any] = yaml.safe_load(text)
        return found

    def status(self) -> dict[str, dict[str, Any]]:
        done = self.cli("status", "--repo", "remote.git", "-o", "json", *FRESH)
        assert done.exit_code == 0, done.output
        return {c["name"]: c for c in json.loads(done.output)["clusters"]}

    def signature(self, rev: str, allowed: str = "both") -> str:
        """Git's own verdict: `%G?` and the signer, against keys/`allowed`."""
        signers = Path("keys", allowed).resolve()
        return self.git("-c", f"gpg.ssh.allowedSignersFile={signers}", "log", "-1",
                        "--format=%G? %GS", rev)  # fmt: skip


@pytest.fixture(name="fleet")
def fleet_fixture(
    git_repo: Any,
    bare_remote: Path,
    cli: Any,
    make_sim_cluster: SimFactory,
    keys: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Fleet:
    members = {name: make_sim_cluster(name) for name in CLUSTERS}
    monkeypatch.chdir(tmp_path)
    return Fleet(git_repo, cli, members, monkeypatch)


def _converged(results: dict[str, Any]) -> dict[str, bool]:
    return {n: r.exit_code == 0 for n, r in results.items()}


def test_a_signed_render_is_applied_by_both_agents(fleet: Fleet) -> None:
    fleet.render(4, key="old")
    for ref in ("gitfleet/rendered", *(rendered.cluster_ref(c) for c in CLUSTERS)):
        assert fleet.signature(ref) == "G reconciler@fleet"
    results = fleet.agents()
    assert _converged(results) == {"p1": True, "q1": True}, results["q1"].output
    assert (fleet.replicas("p1"), fleet.replicas("q1")) == (4, 4)
    assert "refused" not in fleet.works_report("q1")


def test_an_unsigned_render_is_refused_by_both_agents_and_reported(fleet: Fleet) -> None:
    fleet.render(4, key=None)
    results = fleet.agents()
    assert _converged(results) == {"p1": False, "q1": False}
    for name, done in results.items():
        (row,) = json.loads(done.stdout)["clusters"]
        assert row["refused"] == "UnsignedRender", name
        assert "is not signed" in row["error"]
        assert fleet.replicas(name) is None
        report = fleet.works_report(name)
        assert (report["refused"], report["converged"], report["manifests"]) == (
            "UnsignedRender", False, [],
        )  # fmt: skip
    rows = fleet.status()
    assert {n: (r["refused"], r["synced"]) for n, r in rows.items()} == {
        "p1": ("UnsignedRender", False),
        "q1": ("UnsignedRender", False),
    }


def _tamper(
    fleet: Fleet, ref: str, replicas: int, *config: str, amend: bool = False, forge: bool = False
) -> None:
    """What someone with write access but no reconciler key can do: change the replicas in
    every manifest of `ref` and force-push a new commit (signed with `config`, if any), or
    with `amend`, the ref's commit changed in place (its message and trailers kept), or with
    `forge`, a new commit on top with the message and trailers of the ref's."""
    work = Path("attacker")
    if not work.exists():
        subprocess.run(["git", "clone", "-q", "remote.git", str(work)], check=True)
    env = {**GIT_ENV, "PATH": subprocess.os.environ["PATH"]}

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=work, env=env, check=True, capture_output=True)

    git("fetch", "-q", "origin", f"+{ref}:refs/tampered")
    git("checkout", "-q", "--detach", "refs/tampered")
    for path in work.glob("works/*/shop/Deployment.apps/web.yaml"):
        doc = yaml.safe_load(path.read_text())
        doc["spec"]["replicas"] = replicas
        path.write_text(yaml.safe_dump(doc))
    if amend:
        git(*config, "commit", "-q", "-a", "--amend", "--no-edit")
    elif forge:
        git(*config, "commit", "-q", "-a", "-C", "HEAD")
    else:
        git(*config, "commit", "-q", "-a", "-m", "more replicas")
    git("push", "-q", "-f", "origin", f"HEAD:{ref}")


def test_a_tampered_ref_is_refused_and_the_cluster_keeps_what_ran(fleet: Fleet) -> None:
    fleet.render(4, key="old")
    assert _converged(fleet.agents()) == {"p1": True, "q1": True}
    stranger = ("-c", "gpg.format=ssh", "-c", f"user.signingKey={Path('keys/stranger').resolve()}",
                "-c", "commit.gpgSign=true")  # fmt: skip
    _tamper(fleet, "refs/heads/gitfleet/rendered", 40, *stranger)
    _tamper(fleet, rendered.cluster_ref("q1"), 40)
    results = fleet.agents()
    assert _converged(results) == {"p1": False, "q1": False}
    assert (fleet.replicas("p1"), fleet.replicas("q1")) == (4, 4)
    rows = fleet.status()
    assert {n: r["refused"] for n, r in rows.items()} == {
        "p1": "UntrustedSigner",
        "q1": "UnsignedRender",
    }
    assert "not allowed by keys/both" in fleet.works_report("p1")["error"]

    fleet.render(6, key="new")
    assert _converged(fleet.agents()) == {"p1": True, "q1": True}
    assert (fleet.replicas("p1"), fleet.replicas("q1")) == (6, 6)


def test_a_rotated_key(fleet: Fleet) -> None:
    fleet.render(4, key="old")
    assert _converged(fleet.agents("both")) == {"p1": True, "q1": True}
    fleet.render(6, key="new")
    assert _converged(fleet.agents("both")) == {"p1": True, "q1": True}
    assert (fleet.replicas("p1"), fleet.replicas("q1")) == (6, 6)
    fleet.render(8, key="old")
    results = fleet.agents("new-only")
    assert _converged(results) == {"p1": False, "q1": False}
    assert (fleet.replicas("p1"), fleet.replicas("q1")) == (6, 6)
    assert {n: fleet.works_report(n)["refused"] for n in CLUSTERS} == dict.fromkeys(
        CLUSTERS, "UntrustedSigner"
    )


def test_without_allowed_signers_agents_apply_what_they_find_and_warn(
    fleet: Fleet, caplog: pytest.LogCaptureFixture
) -> None:
    fleet.render(4, key=None)
    results = fleet.agents(allowed=None)
    assert _converged(results) == {"p1": True, "q1": True}
    assert caplog.text.count("signatures are not checked (no --allowed-signers)") == 2
    assert (fleet.replicas("p1"), fleet.replicas("q1")) == (4, 4)


def test_reconcile_renders_only_signed_source_commits(fleet: Fleet) -> None:
    unsigned = fleet.commit(4)
    reconcile = (
        "reconcile", "--repo", "source", "--once", "--no-watch",
        "--verify-source-signers", "keys/old-only", "--signing-key", "keys/new",
    )  # fmt: skip
    refused = fleet.cli(*reconcile)
    assert refused.exit_code == 1
    assert f"unverified source={unsigned}" in refused.stdout
    assert "reason=Unsigned" in refused.stdout
    assert fleet.git("for-each-ref", "refs/heads/gitfleet/rendered") == ""
    state = yaml.safe_load(fleet.git("show", "gitfleet/status/_reconciler:reconciler.yaml"))
    assert state["lastError"]["sourceCommit"] == unsigned
    assert "is not signed" in state["lastError"]["message"]

    signed = fleet.commit(6, sign_with="old")
    done = fleet.cli(*reconcile)
    assert done.exit_code == 0, done.output
    tip = fleet.git("log", "-1", "--format=%(trailers:key=Source-Commit,valueonly)",
                    "gitfleet/rendered")  # fmt: skip
    assert tip.strip() == signed
    assert fleet.signature("gitfleet/rendered") == "G reconciler@fleet"
    assert fleet.signature(status.status_ref("_reconciler")) == "G reconciler@fleet"


BRANCH = rendered.branch_ref("gitfleet/rendered")
Q1 = rendered.cluster_ref("q1")


def _point(fleet: Fleet, ref: str, commit: str) -> None:
    """What someone with write access can do with signed commits alone: force-push one of
    them to `ref`."""
    fleet.git("push", "-q", "-f", "origin", f"{commit}:{ref}")


def _tips(fleet: Fleet) -> dict[str, str]:
    """Where the remote's rendered branch and q1's ref are."""
    return {ref: fleet.git("--git-dir=../remote.git", "rev-parse", ref) for ref in (BRANCH, Q1)}


def _refused(results: dict[str, Any]) -> dict[str, str]:
    return {n: json.loads(r.stdout)["clusters"][0]["refused"] for n, r in results.items()}


def test_another_clusters_signed_render_is_refused(fleet: Fleet) -> None:
    fleet.render(4, key="old")
    assert _converged(fleet.agents()) == {"p1": True, "q1": True}
    p1_commit = fleet.git("rev-parse", rendered.cluster_ref("p1"))
    _point(fleet, Q1, p1_commit)
    _point(fleet, BRANCH, fleet.git("rev-parse", Q1))
    results = fleet.agents()
    assert _refused(results) == {"p1": "WrongCluster", "q1": "WrongCluster"}
    assert (fleet.replicas("p1"), fleet.replicas("q1")) == (4, 4)
    assert (
        f"refused {p1_commit}: it is a render for cluster p1, read from cluster q1's ref"
        in (fleet.works_report("q1")["error"])
    )
    assert (
        "a render for cluster q1, read from a ref of the whole fleet"
        in (fleet.works_report("p1")["error"])
    )
    assert {n: r["refused"] for n, r in fleet.status().items()} == {
        "p1": "WrongCluster",
        "q1": "WrongCluster",
    }


def test_a_ref_rolled_back_to_an_older_signed_render_is_refused(fleet: Fleet) -> None:
    history = []
    for replicas in (4, 6, 8):
        fleet.render(replicas, key="old")
        assert _converged(fleet.agents()) == {"p1": True, "q1": True}
        history.append(_tips(fleet))
    for older in history[1], history[0]:  # a render of the history, then its first commit
        for ref, commit in older.items():
            _point(fleet, ref, commit)
        results = fleet.agents()
        assert _refused(results) == {"p1": "Rollback", "q1": "Rollback"}
        assert (fleet.replicas("p1"), fleet.replicas("q1")) == (8, 8)
    report = fleet.works_report("q1")
    assert (report["renderedCommit"], report["lastAppliedCommit"]) == (
        history[0][Q1], history[2][Q1],
    )  # fmt: skip
    assert f"does not descend from {history[2][Q1]}, the commit last applied" in report["error"]
    assert fleet.works_report("p1")["lastAppliedCommit"] == history[2][BRANCH]
    assert {n: r["refused"] for n, r in fleet.status().items()} == dict.fromkeys(
        CLUSTERS, "Rollback"
    )
    # An agent with no copy of its own learns what it applied from its status ref.
    assert _refused({"q1": fleet.pull("q1", cache="cache/new-q1")}) == {"q1": "Rollback"}

    fleet.render(10, key="old")
    assert _converged(fleet.agents()) == {"p1": True, "q1": True}
    assert (fleet.replicas("p1"), fleet.replicas("q1")) == (10, 10)


def test_what_goes_forward_is_applied(fleet: Fleet, make_sim_cluster: SimFactory) -> None:
    fleet.render(4, key="old")
    assert _converged(fleet.agents()) == {"p1": True, "q1": True}
    first = _tips(fleet)
    fleet.render(5, key="old")  # never seen by the agents
    fleet.render(6, key="old")
    assert _converged(fleet.agents()) == {"p1": True, "q1": True}
    assert (fleet.replicas("p1"), fleet.replicas("q1")) == (6, 6)
    chain = fleet.git("log", "--format=%H", Q1).splitlines()
    assert len(chain) == 3
    assert chain[-1] == first[Q1]

    fleet.members["q2"] = make_sim_cluster("q2")
    fleet.render(7, key="old", clusters=("p1", "q1", "q2"))
    assert fleet.pull("q2").exit_code == 0
    assert _converged(fleet.agents()) == {"p1": True, "q1": True}
    assert (fleet.replicas("q1"), fleet.replicas("q2")) == (7, 7)

    # The reconciler writes a deleted cluster ref again, as a new, parentless history.
    fleet.git("update-ref", "-d", Q1)
    fleet.git("push", "-q", "origin", f":{Q1}")
    fleet.render(8, key="old", clusters=("p1", "q1", "q2"))
    assert fleet.git("log", "--format=%P", Q1) == ""
    assert _converged(fleet.agents()) == {"p1": True, "q1": True}
    assert fleet.replicas("q1") == 8

    # The documented recovery when the refs were reset to something else than a render.
    for ref in (BRANCH, Q1):
        fleet.git("update-ref", ref, "main")
    fleet.render(9, "old", "--new-history", clusters=("p1", "q1", "q2"))
    assert [fleet.git("log", "--format=%P", ref) for ref in (BRANCH, Q1)] == ["", ""]
    assert _converged(fleet.agents()) == {"p1": True, "q1": True}
    assert (fleet.replicas("p1"), fleet.replicas("q1")) == (9, 9)


def test_a_push_cluster_that_left_is_pruned_from_its_signed_ref(fleet: Fleet) -> None:
    fleet.render(4, key="old")
    assert _converged(fleet.agents()) == {"p1": True, "q1": True}
    retire = "retire p1\n\nGitfleet-Allow-Prune: all"
    fleet.render(4, key="old", clusters=("q1",), message=retire)
    leaving = fleet.git("rev-parse", rendered.cluster_ref("p1"))
    assert fleet.signature(leaving) == "G reconciler@fleet"
    refused = fleet.agents(allowed="new-only")["p1"]
    assert refused.exit_code == 1
    assert fleet.works_report("p1")["refused"] == "UntrustedSigner"
    assert fleet.replicas("p1") == 4
    assert _converged(fleet.agents()) == {"p1": True, "q1": True}
    assert fleet.replicas("p1") is None
    report = fleet.works_report("p1")
    assert (report["renderedCommit"], report["converged"]) == (leaving, True)


def test_an_edit_amended_into_the_tip_is_never_signed_by_the_next_render(fleet: Fleet) -> None:
    """The amended tip still reads as a render (its trailers), so the next render builds on
    it; were it to take over the files of every binding whose inputs did not change, the
    edit would come out signed by the reconciler, and q1's pull agent, whose own ref was never
    touched, would apply it."""
    reconcile = ("reconcile", "--repo", "remote.git", "--once", "--no-watch",
                 "--signing-key", "keys/old")  # fmt: skip
    fleet.commit(4)
    fleet.git("push", "-q", "origin", "main")
    assert fleet.cli(*reconcile).exit_code == 0
    assert _converged(fleet.agents()) == {"p1": True, "q1": True}
    _tamper(fleet, BRANCH, 40, amend=True)
    refused = fleet.agents()
    assert _converged(refused) == {"p1": False, "q1": True}
    assert _refused({"p1": refused["p1"]}) == {"p1": "UnsignedRender"}

    api = yaml.safe_dump(make_deployment(name="api", replicas=1))
    fleet.commit(4, extra={"api.yaml": api}, message="add api")
    fleet.git("push", "-q", "origin", "main")
    done = fleet.cli(*reconcile)
    assert done.exit_code == 0, done.output
    fleet.git("fetch", "-q", "origin", f"+{BRANCH}:{BRANCH}")
    web = fleet.git("show", f"{BRANCH}:works/q1/shop/Deployment.apps/web.yaml")
    assert yaml.safe_load(web)["spec"]["replicas"] == 4
    assert fleet.signature(BRANCH) == "G reconciler@fleet"
    assert fleet.pull("q1").exit_code == 0
    api_applied = fleet.members["q1"].objects.get("apps/v1", "Deployment", "api", "shop")
    assert (fleet.replicas("q1"), api_applied is not None) == (4, True)


@pytest.mark.parametrize("how", ["forge", "amend"])
def test_a_kept_file_is_the_last_signed_render_s_not_an_edit_s(fleet: Fleet, how: str) -> None:
    """A suspended cluster keeps its previous manifest, as Karmada leaves its Work alone. When
    the previous tip is an edit (a commit made to read as a render, or one amended in place),
    the file kept must be the one of the newest render below it that the key signed, or the
    edit comes out signed for q1's pull agent. An amended render is itself gone from the
    branch's history: its signed parent is what is kept then."""
    reconcile = ("reconcile", "--repo", "remote.git", "--once", "--no-watch",
                 "--signing-key", "keys/old")  # fmt: skip
    for replicas in (3, 4):
        fleet.commit(replicas)
        fleet.git("push", "-q", "origin", "main")
        assert fleet.cli(*reconcile).exit_code == 0
    assert _converged(fleet.agents()) == {"p1": True, "q1": True}
    _tamper(fleet, BRANCH, 40, amend=how == "amend", forge=how == "forge")
    signed = 4 if how == "forge" else 3

    docs = list(yaml.safe_load_all(_source(5, CLUSTERS)))
    policy = next(d for d in docs if d["kind"] == "PropagationPolicy")
    policy["spec"]["suspension"] = {"dispatchingOnClusters": {"clusterNames": ["q1"]}}
    fleet.repo.commit({"fleet.yaml": yaml.safe_dump_all(docs)}, "suspend q1")
    fleet.git("push", "-q", "origin", "main")
    done = fleet.cli(*reconcile)
    assert done.exit_code == 0, done.output
    fleet.git("fetch", "-q", "origin", f"+{BRANCH}:{BRANCH}")
    for cluster, replicas in (("p1", 5), ("q1", signed)):
        web = fleet.git("show", f"{BRANCH}:works/{cluster}/shop/Deployment.apps/web.yaml")
        assert yaml.safe_load(web)["spec"]["replicas"] == replicas, cluster
    assert fleet.signature(BRANCH) == "G reconciler@fleet"
    assert fleet.pull("q1").exit_code == 0
    assert fleet.replicas("q1") == signed
    made = fleet.git("rev-parse", BRANCH)
    assert fleet.cli(*reconcile).exit_code == 0
    fleet.git("fetch", "-q", "origin", f"+{BRANCH}:{BRANCH}")
    assert fleet.git("rev-parse", BRANCH) == made


def test_signing_turned_on_keeps_a_suspended_cluster_s_file(fleet: Fleet) -> None:
    """No render below the tip bears the new key's signature: the suspended cluster keeps its
    file as the tip has it (dropping it would delete what runs there)."""
    fleet.render(3, key=None)
    fleet.render(4, key=None)
    docs = list(yaml.safe_load_all(_source(5, CLUSTERS)))
    policy = next(d for d in docs if d["kind"] == "PropagationPolicy")
    policy["spec"]["suspension"] = {"dispatchingOnClusters": {"clusterNames": ["q1"]}}
    fleet.repo.commit({"fleet.yaml": yaml.safe_dump_all(docs)}, "suspend q1")
    done = fleet.cli("render", "--repo", "source", "--signing-key", "keys/old")
    assert done.exit_code == 0, done.output
    assert fleet.signature(BRANCH) == "G reconciler@fleet"
    for cluster, replicas in (("p1", 5), ("q1", 4)):
        web = fleet.git("show", f"{BRANCH}:works/{cluster}/shop/Deployment.apps/web.yaml")
        assert yaml.safe_load(web)["spec"]["replicas"] == replicas, cluster


def test_a_replacement_object_is_never_read_for_a_signed_one(fleet: Fleet) -> None:
    """Git reads an object through `refs/replace/` by default, and a host lets anyone who can
    push push such a ref: the push agent, reading `remote.git` by its path, would check the
    signed commit and apply the replacement's content."""
    fleet.render(4, key="old")
    web = f"{BRANCH}:works/p1/shop/Deployment.apps/web.yaml"
    signed = fleet.git("--git-dir=../remote.git", "rev-parse", web)
    text = fleet.git("--git-dir=../remote.git", "cat-file", "blob", signed)
    doc = yaml.safe_load(text)
    doc["spec"]["replicas"] = 40
    Path("forged.yaml").write_text(yaml.safe_dump(doc))
    forged = fleet.git(
        "--git-dir=../remote.git", "hash-object", "-w", str(Path("forged.yaml").resolve())
    )
    fleet.git("--git-dir=../remote.git", "update-ref", f"refs/replace/{signed}", forged)
    assert _converged(fleet.agents()) == {"p1": True, "q1": True}
    assert (fleet.replicas("p1"), fleet.replicas("q1")) == (4, 4)
