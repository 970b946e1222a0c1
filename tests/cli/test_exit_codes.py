"""One rule for exit codes, the same in every command: 1 when what the command line names is
missing or wrong, 2 only when the command line cannot be run as typed.

Each command runs from a folder beside the repository (`../fleets/my-fleet`), paths relative, as
a user types them.

Aspects covered:
- a path given to read that does not exist, or is a file where a folder is wanted (and the other
  way round): `--repo` of every command, `-f`, `--desired-file`, `--kubeconfig`,
  `--kubeconfig-dir` (the push agent's and `get --live`'s), `--credentials`, `--signing-key`,
  `--allowed-signers`, `--verify-source-signers`, `--webhook-secret-file`, `sim --from-repo`:
  exit 1 with `OPTION PATH: no such file` (or folder), as kubectl exits 1 for `-f nowhere.yaml`;
- a plain folder where a Git repository is required (render, preview, get, status, reconcile,
  the push agent) and a source without any Cluster for `sim --from-repo`: exit 1;
- a `--rev` (or `--base`, `--head`) that does not resolve: exit 1, naming the revision;
- what stays a usage error (exit 2): `--rev` asked of a plain folder (it has no revisions).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from builders import NGINX_DEPLOYMENT, make_cluster
from conftest import Invoke, git

REPO = "../fleets/my-fleet"


@pytest.fixture(name="fleet", autouse=True)
def fleet_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`fleets/my-fleet` committed on main, Karmada's nginx sample on two clusters; the current
    folder is `work`, beside `fleets`, holding a plain folder `plain`, a file `a-file` and
    `ric.yaml` (whose content no case reaches)."""
    repo = tmp_path / "fleets" / "my-fleet"
    repo.mkdir(parents=True)
    clusters = [make_cluster("member1"), make_cluster("member2", syncMode="Pull")]
    (repo / "clusters.yaml").write_text(yaml.safe_dump_all(clusters))
    (repo / "deployment.yaml").write_text(NGINX_DEPLOYMENT)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "nginx")
    work = tmp_path / "work"
    (work / "plain").mkdir(parents=True)
    (work / "a-file").write_text("")
    (work / "ric.yaml").write_text("")
    monkeypatch.chdir(work)
    return repo


PUSH = ("agent", "push", "--repo", REPO, "--kubeconfig-dir", ".", "--once")
PULL = ("agent", "pull", "--repo", REPO, "--cluster", "member2", "--once")
RECONCILE = ("reconcile", "--repo", REPO, "--once")
INTERPRET = ("interpret", "-f", "ric.yaml", "--operation", "InterpretReplica")

NOWHERE = "nowhere: no such folder"
MISSING_PATHS = [
    pytest.param(*case[1:], id=case[0])
    for case in [
        ("validate", ("validate", "--repo", "nowhere"), NOWHERE),
        ("render", ("render", "--repo", "nowhere"), NOWHERE),
        ("render --signing-key", ("render", "--repo", REPO, "--signing-key", "nowhere"),
         "--signing-key nowhere: no such file"),
        ("preview", ("preview", "--base", "main", "--head", "main", "--repo", "nowhere"), NOWHERE),
        ("explain", ("explain", "deploy/nginx", "--repo", "nowhere"), NOWHERE),
        ("get", ("get", "deploy", "--repo", "nowhere"), NOWHERE),
        ("get --kubeconfig-dir", ("get", "deploy", "--repo", REPO, "--live", "--kubeconfig-dir",
         "nowhere"), "--kubeconfig-dir nowhere: no such folder"),
        ("get --kubeconfig-dir a file", ("get", "deploy", "--repo", REPO, "--live",
         "--kubeconfig-dir", "a-file"), "--kubeconfig-dir a-file: not a folder"),
        ("status", ("status", "--repo", "nowhere"), NOWHERE),
        ("interpret -f", ("interpret", "-f", "nowhere.yaml", "--check"),
         "-f nowhere.yaml: no such file or folder"),
        ("interpret --desired-file", (*INTERPRET, "--desired-file", "nowhere.yaml"),
         "--desired-file nowhere.yaml: no such file"),
        ("interpret --desired-file a folder", (*INTERPRET, "--desired-file", "plain"),
         "--desired-file plain: not a file"),
        ("sim --from-repo", ("sim", "--from-repo", "nowhere", "--kubeconfig-dir", "kc"), NOWHERE),
        ("reconcile", ("reconcile", "--repo", "nowhere", "--once"), NOWHERE),
        ("reconcile --webhook-secret-file", (*RECONCILE, "--webhook-secret-file", "nowhere"),
         "--webhook-secret-file nowhere: no such file"),
        ("reconcile --verify-source-signers", (*RECONCILE, "--verify-source-signers", "nowhere"),
         "--verify-source-signers nowhere: no such file"),
        ("agent push --repo", ("agent", "push", "--repo", "nowhere", "--kubeconfig-dir", ".",
         "--once"), NOWHERE),
        ("agent push --kubeconfig-dir", ("agent", "push", "--repo", REPO, "--kubeconfig-dir",
         "nowhere", "--once"), "--kubeconfig-dir nowhere: no such folder"),
        ("agent push --kubeconfig-dir a file", ("agent", "push", "--repo", REPO,
         "--kubeconfig-dir", "a-file", "--once"), "--kubeconfig-dir a-file: not a folder"),
        ("agent push --allowed-signers", (*PUSH, "--allowed-signers", "nowhere"),
         "--allowed-signers nowhere: no such file"),
        ("agent pull --kubeconfig", (*PULL, "--kubeconfig", "nowhere"),
         "--kubeconfig nowhere: no such file"),
        ("agent pull --credentials", (*PULL, "--credentials", "nowhere"),
         "--credentials nowhere: no such folder"),
    ]
]  # fmt: skip


@pytest.mark.parametrize(("args", "message"), MISSING_PATHS)
def test_a_path_that_is_not_there_is_invalid_input(
    cli: Invoke, args: tuple[str, ...], message: str
) -> None:
    done = cli(*args)
    assert done.exit_code == 1, done.output
    assert f"{message}\n" in done.stderr
    assert "Usage:" not in done.stderr


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("render",), id="render"),
        pytest.param(("preview", "--base", "main", "--head", "main"), id="preview"),
        pytest.param(("get", "deploy"), id="get"),
        pytest.param(("status",), id="status"),
        pytest.param(("reconcile", "--once"), id="reconcile"),
        pytest.param(("agent", "push", "--kubeconfig-dir", ".", "--once"), id="agent push"),
    ],
)
def test_a_plain_folder_where_a_repository_is_required_is_invalid_input(
    cli: Invoke, args: tuple[str, ...]
) -> None:
    done = cli(*args, "--repo", "plain")
    assert done.exit_code == 1, done.output
    assert "plain: not a Git repository" in done.stderr
    assert "Usage:" not in done.stderr


def test_a_source_without_clusters_is_invalid_input(cli: Invoke) -> None:
    Path("plain/app.yaml").write_text(NGINX_DEPLOYMENT)
    done = cli("sim", "--from-repo", "plain", "--kubeconfig-dir", "kubeconfigs")
    assert done.exit_code == 1, done.output
    assert done.stderr == "plain: defines no Cluster\n"


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("validate", "--rev", "nope"), id="validate"),
        pytest.param(("render", "--rev", "nope"), id="render"),
        pytest.param(("render", "--rev", "nope", "--out", "out"), id="render --out"),
        pytest.param(("explain", "deploy/nginx", "--rev", "nope"), id="explain"),
        pytest.param(("preview", "--base", "nope", "--head", "main"), id="preview --base"),
        pytest.param(("preview", "--base", "main", "--head", "nope"), id="preview --head"),
    ],
)
def test_a_revision_that_does_not_resolve_is_invalid_input(
    cli: Invoke, args: tuple[str, ...]
) -> None:
    done = cli(*args, "--repo", REPO)
    assert done.exit_code == 1, done.output
    assert f"{REPO}: unknown revision 'nope'" in done.stderr


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("validate",), id="validate"),
        pytest.param(("render", "--out", "out"), id="render --out"),
        pytest.param(("explain", "deploy/nginx"), id="explain"),
    ],
)
def test_a_revision_of_a_plain_folder_is_a_usage_error(cli: Invoke, args: tuple[str, ...]) -> None:
    done = cli(*args, "--repo", "plain", "--rev", "main")
    assert done.exit_code == 2, done.output
    assert "--rev needs a Git repository; plain is a plain folder" in done.stderr
