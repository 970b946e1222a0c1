"""Every path a command takes is read from the current folder, as the user typed it.

Each command runs from a folder other than the repository's, which it names by a relative path
(`../fleets/my-fleet`); the source is Karmada's nginx sample (no namespace anywhere).

Aspects covered:
- the README's first steps as a user types them (`init my-fleet`, then `validate --repo
  my-fleet`), in processes;
- validate, render (onto the branch, and `--out DIR`), explain, status, preview and
  `reconcile --once`, each with a relative `--repo`; render names a bad file as seen from the
  current folder, as validate does (`-o json` as the source names it, as render.yaml does), and
  so do both of them the file a message names besides (a duplicate's first definition);
- render, status, get, preview, `reconcile --once` and `agent push --once` given a folder inside
  the repository (by `--repo`, or as the current folder) exit 1 naming the `--repo` of its top,
  a `--repo` that does not exist as no such folder, and one that is a file as not a folder (the
  same exit status: the same kind of mistake); validate and explain given such a folder read
  it as plain files and say so, with the same hint;
- `--repo fleet/.git` is the repository `fleet`: validate, render and explain read its work
  tree or commits and name files without `.git/`;
- interpret with relative `-f` and `--desired-file`;
- `agent push --once` (relative `--repo`, `--kubeconfig-dir`, `--cache-dir`) and `agent pull
  --once` (relative `--repo`, `--kubeconfig`, `--cache-dir`) against simulated clusters: both
  apply and report through the status refs;
- `reconcile` of a remote URL mirrored into a relative `--cache`, copying to cluster
  repositories named by a relative `--cluster-repos` template;
- `sim --from-repo` with a relative repository and `--kubeconfig-dir`, in a process;
- a `file://` URL naming a relative path is a usage error (exit 2) that says what to write.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from builders import NGINX_DEPLOYMENT, make_cluster
from conftest import Invoke, git
from simfixture import RunningSim, SimFactory, make_sim_cluster_fixture

from gitfleet.gitstore import rendered, status

__all__ = ["make_sim_cluster_fixture"]

ROOT = Path(__file__).resolve().parents[2]
REPO = "../fleets/my-fleet"

POLICY = """\
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterPropagationPolicy
metadata:
  name: nginx-propagation
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
      name: nginx
  placement:
    clusterAffinity:
      clusterNames:
        - member1
        - member2
"""

CUSTOMIZATION = """\
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: declarative-configuration-example
spec:
  target:
    apiVersion: apps/v1
    kind: Deployment
  customizations:
    replicaResource:
      luaScript: >
        function GetReplicas(obj)
          return obj.spec.replicas, {}
        end
"""


def _clusters() -> str:
    pull = make_cluster("member2", syncMode="Pull")
    return yaml.safe_dump_all([make_cluster("member1"), pull])


@pytest.fixture(name="fleet")
def fleet_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`fleets/my-fleet` committed on main; the current folder is `work`, beside `fleets`."""
    repo = tmp_path / "fleets" / "my-fleet"
    repo.mkdir(parents=True)
    (repo / "clusters.yaml").write_text(_clusters())
    (repo / "deployment.yaml").write_text(NGINX_DEPLOYMENT)
    (repo / "propagationpolicy.yaml").write_text(POLICY)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "nginx")
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    return repo


@pytest.fixture(name="rendered_fleet")
def rendered_fleet_fixture(fleet: Path, cli: Invoke) -> Path:
    done = cli("render", "--repo", REPO)
    assert done.exit_code == 0, done.output
    return fleet


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "gitfleet", *args], cwd=cwd, env=env, capture_output=True, text=True
    )


def test_the_readme_first_steps(tmp_path: Path) -> None:
    created = _run("init", "my-fleet", cwd=tmp_path)
    assert created.returncode == 0, created.stderr
    checked = _run("validate", "--repo", "my-fleet", cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr
    (tmp_path / "elsewhere").mkdir()
    checked = _run("validate", "--repo", "../my-fleet", cwd=tmp_path / "elsewhere")
    assert checked.returncode == 0, checked.stderr


def test_render_commits_onto_the_branch(fleet: Path, cli: Invoke) -> None:
    done = cli("render", "--repo", REPO)
    assert done.exit_code == 0, done.output
    assert git(fleet, "ls-tree", "--name-only", "gitfleet/rendered:works") == "member1\nmember2"


def test_render_writes_a_relative_out_folder(fleet: Path, cli: Invoke) -> None:
    done = cli("render", "--repo", REPO, "--out", "out")
    assert done.exit_code == 0, done.output
    assert (Path("out") / "works" / "member1" / "kustomization.yaml").is_file()


@pytest.mark.parametrize("out", [(), ("--out", "out")], ids=["onto the branch", "--out"])
def test_render_names_a_file_as_seen_from_here(
    fleet: Path, cli: Invoke, out: tuple[str, ...]
) -> None:
    (fleet / "deployment.yaml").write_text(NGINX_DEPLOYMENT.replace("replicas: 2", "replicas: -2"))
    git(fleet, "commit", "-q", "-am", "negative replicas")
    done = cli("render", "--repo", REPO, *out)
    assert done.exit_code == 1, done.output
    assert done.output.startswith(f"{REPO}/deployment.yaml:8:3: error: Deployment ")
    listed = cli("render", "--repo", REPO, *out, "-o", "json")
    [error] = json.loads(listed.stdout)["diagnostics"]
    assert error["path"] == "deployment.yaml"


CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: {name}.example.com
spec:
  group: example.com
  names: {{kind: {kind}, plural: foos}}
  scope: Namespaced
  versions:
    - {{name: v1, served: true, storage: true, schema: {{openAPIV3Schema: {{type: object}}}}}}
"""


@pytest.mark.parametrize(
    "args", [("validate",), ("render",), ("render", "--out", "out")], ids=" ".join
)
def test_a_message_names_the_first_definition_as_seen_from_here(
    fleet: Path, cli: Invoke, args: tuple[str, ...]
) -> None:
    """A message naming a second file (where a duplicate was first defined) names it as it
    names the file it is about: both from the current folder."""
    (fleet / "web.yaml").write_text(NGINX_DEPLOYMENT)
    (fleet / "customization.yaml").write_text(CUSTOMIZATION)
    (fleet / "customization-2.yaml").write_text(CUSTOMIZATION.replace("-example", "-other"))
    (fleet / "crds.yaml").write_text(
        CRD.format(name="foos", kind="Foo") + "---\n" + CRD.format(name="bars", kind="Bar")
    )
    git(fleet, "add", "-A")
    git(fleet, "commit", "-q", "-m", "twice")
    done = cli(*args, "--repo", REPO)
    assert done.exit_code == 1, done.output
    lines = done.output.splitlines()
    assert (
        f"{REPO}/web.yaml:1:1: error: duplicate Deployment default/nginx: first defined at"
        f" {REPO}/deployment.yaml:1:1"
    ) in lines
    first_customization = f"declarative-configuration-example ({REPO}/customization.yaml:1:1)"
    assert any(line.endswith(first_customization) for line in lines)
    assert f"CustomResourceDefinition foos.example.com ({REPO}/crds.yaml:1:1): " in done.output


def test_explain_names_files_as_seen_from_here(rendered_fleet: Path, cli: Invoke) -> None:
    done = cli("explain", "Deployment/nginx", "--repo", REPO)
    assert done.exit_code == 0, done.output
    assert f"(apps/v1, {REPO}/deployment.yaml:1:1)" in done.output
    assert f"ClusterPropagationPolicy nginx-propagation ({REPO}/propagationpolicy.yaml:1:1)" in (
        done.output
    )
    listed = cli("explain", "Deployment/nginx", "--repo", REPO, "-o", "json").stdout
    assert '"propagationpolicy.yaml' in listed and REPO not in listed


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        pytest.param(("validate",), "", id="validate"),
        pytest.param(("explain", "Deployment/nginx"), "member1", id="explain"),
        pytest.param(("status",), "member2", id="status"),
        pytest.param(("preview", "--base", "main", "--head", "main"), "no change", id="preview"),
        pytest.param(("reconcile", "--once"), "up-to-date", id="reconcile"),
    ],
)
def test_commands_read_a_relative_repository(
    rendered_fleet: Path, cli: Invoke, args: tuple[str, ...], expected: str
) -> None:
    done = cli(*args, "--repo", REPO)
    assert done.exit_code == 0, done.output
    assert expected in done.stdout


NEEDS_A_REPOSITORY = [
    pytest.param(("render",), id="render"),
    pytest.param(("status",), id="status"),
    pytest.param(("get", "deploy"), id="get"),
    pytest.param(("preview", "--base", "main", "--head", "main"), id="preview"),
    pytest.param(("reconcile", "--once"), id="reconcile"),
    pytest.param(("agent", "push", "--kubeconfig-dir", ".", "--once"), id="agent push"),
]


@pytest.mark.parametrize("args", NEEDS_A_REPOSITORY)
def test_a_folder_inside_the_repository_names_its_top(
    fleet: Path, cli: Invoke, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]
) -> None:
    """Run from a folder of the repository, as `git` would run, a command that needs the
    repository says which `--repo` that is, from where the user stands."""
    (fleet / "apps").mkdir()
    inside = cli(*args, "--repo", f"{REPO}/apps")
    assert inside.exit_code == 1
    assert f"(--repo {REPO})" in inside.stderr
    monkeypatch.chdir(fleet / "apps")
    here = cli(*args, "--repo", ".")
    assert here.exit_code == 1
    assert "inside the repository at .. (--repo ..)" in here.stderr
    missing = cli(*args, "--repo", "nowhere")
    assert missing.exit_code == 1
    assert "nowhere: no such folder" in missing.stderr
    Path("a-file").write_text("")
    a_file = cli(*args, "--repo", "a-file")
    assert a_file.exit_code == 1, a_file.output
    assert "a-file: not a folder" in a_file.stderr


def test_validate_and_explain_in_a_folder_of_the_repository_say_what_they_read(
    fleet: Path, cli: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """validate and explain read a folder below a repository's top as plain files (it may be
    what the user wants checked), and say so with the hint the commands that need the top
    give."""
    (fleet / "apps").mkdir()
    (fleet / "apps" / "web.yaml").write_text(NGINX_DEPLOYMENT)
    named = cli("validate", "--repo", f"{REPO}/apps")
    assert named.exit_code == 0, named.output
    assert named.stderr == (
        f"checked the folder {REPO}/apps as plain files; it is inside the repository at"
        f" {REPO} (--repo {REPO})\n"
    )
    monkeypatch.chdir(fleet / "apps")
    here = cli("validate")
    assert here.exit_code == 0, here.output
    assert here.stderr == (
        "checked the folder . as plain files; it is inside the repository at .. (--repo ..)\n"
    )
    explained = cli("explain", "deploy/nginx")
    assert explained.stderr.startswith(
        "note: read the folder . as plain files; it is inside the repository at .. (--repo ..)\n"
    )


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("validate",), id="validate"),
        pytest.param(("validate", "--rev", "main"), id="validate --rev"),
        pytest.param(("render",), id="render"),
        pytest.param(("render", "--out", "out"), id="render --out"),
        pytest.param(("explain", "Deployment/nginx"), id="explain"),
    ],
)
def test_a_repositorys_git_folder_names_the_repository(
    fleet: Path, cli: Invoke, args: tuple[str, ...]
) -> None:
    """`--repo fleet/.git` (a path completion often ends there) is the repository `fleet`, as
    it is for git: its work tree, its branches, and paths printed without `.git/` in them."""
    (fleet / "deployment.yaml").write_text(NGINX_DEPLOYMENT.replace("replicas: 2", "replicas: -2"))
    git(fleet, "commit", "-q", "-am", "negative replicas")
    done = cli(*args, "--repo", f"{REPO}/.git/")
    assert done.exit_code == 1, done.output
    assert ".git" not in done.output
    assert f"{REPO}/deployment.yaml:" in done.output


def test_interpret_reads_relative_files(fleet: Path, cli: Invoke) -> None:
    Path("customization.yaml").write_text(CUSTOMIZATION)
    done = cli(
        "interpret", "-f", "customization.yaml", "--operation", "InterpretReplica",
        "--desired-file", f"{REPO}/deployment.yaml", "-o", "json",
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    assert '"replica": 2' in done.stdout


@pytest.fixture(name="members")
def members_fixture(make_sim_cluster: SimFactory) -> Iterator[dict[str, RunningSim]]:
    """member1 and member2, their kubeconfigs in `../kubeconfigs` (seen from `work`)."""
    yield {name: make_sim_cluster(name) for name in ("member1", "member2")}


def _reported(repo: Path, cluster: str) -> bool:
    return bool(git(repo, "for-each-ref", status.status_ref(cluster)))


def test_agents_apply_and_report(
    rendered_fleet: Path, cli: Invoke, members: dict[str, RunningSim]
) -> None:
    pushed = cli(
        "agent", "push", "--repo", REPO, "--kubeconfig-dir", "../kubeconfigs",
        "--cache-dir", "cache", "--once",
    )  # fmt: skip
    assert pushed.exit_code == 0, pushed.output
    assert pushed.stdout.startswith("member1: converged")
    pulled = cli(
        "agent", "pull", "--repo", REPO, "--cluster", "member2",
        "--kubeconfig", "../kubeconfigs/member2.yaml", "--cache-dir", "cache", "--once",
    )  # fmt: skip
    assert pulled.exit_code == 0, pulled.output
    assert pulled.stdout.startswith("member2: converged")
    assert _reported(rendered_fleet, "member1") and _reported(rendered_fleet, "member2")
    for name, member in members.items():
        assert ("apps/v1", "Deployment", "default", "nginx") in member.objects, name


def test_agent_push_in_the_repository_needs_no_repo_option(
    rendered_fleet: Path,
    cli: Invoke,
    members: dict[str, RunningSim],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(rendered_fleet)
    pushed = cli("agent", "push", "--kubeconfig-dir", "../../kubeconfigs", "--once")
    assert pushed.exit_code == 0, pushed.output
    assert pushed.stdout.startswith("member1: converged")
    assert _reported(rendered_fleet, "member1")


def test_reconcile_copies_to_relative_cluster_repositories(fleet: Path, cli: Invoke) -> None:
    bare = fleet.parent / "fleet.git"
    git(fleet.parent, "clone", "-q", "--bare", str(fleet), str(bare))
    for name in ("member1", "member2"):
        git(fleet.parent, "init", "-q", "--bare", f"clusters/{name}.git")
    done = cli(
        "reconcile", "--repo", bare.as_uri(), "--cache", "cache", "--once",
        "--cluster-repos", "../fleets/clusters/{cluster}.git",
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    works = git(fleet.parent / "clusters" / "member1.git", "for-each-ref", "--format=%(refname)")
    assert works == rendered.cluster_ref("member1")
    assert len(list(Path("cache").iterdir())) == 1


def test_sim_from_a_relative_repository(fleet: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "gitfleet", "sim", "--from-repo", REPO, "--kubeconfig-dir", "kc"],
        cwd=Path.cwd(),
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        names = [process.stdout.readline().split()[0] for _ in range(2)]
        assert names == ["member1", "member2"]
        assert sorted(p.name for p in Path("kc").iterdir()) == ["member1.yaml", "member2.yaml"]
    finally:
        process.terminate()
        process.communicate(timeout=30)


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("reconcile", "--repo", "file://fleet.git", "--once"), id="reconcile"),
        pytest.param(
            ("agent", "push", "--repo", "file://fleet.git", "--kubeconfig-dir", ".", "--once"),
            id="agent push",
        ),
        pytest.param(
            ("agent", "pull", "--repo", "file://fleet.git", "--cluster", "member2", "--once"),
            id="agent pull",
        ),
        pytest.param(
            ("reconcile", "--repo", REPO, "--once", "--cluster-repos", "file://c/{cluster}.git"),
            id="cluster repositories",
        ),
    ],
)
def test_a_file_url_with_a_relative_path_is_a_usage_error(
    fleet: Path, cli: Invoke, args: tuple[str, ...]
) -> None:
    done = cli(*args)
    assert done.exit_code == 2
    assert "file:///path/to/repo" in done.stderr
