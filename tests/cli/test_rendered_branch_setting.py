"""A gitfleet.yaml whose renderedBranch, or a `--branch` / `--rendered-branch` option, names a
ref gitfleet writes for another purpose never has a render overwrite it.

Aspects covered: renderedBranch naming a cluster's ref (`gitfleet/works/<cluster>`, also
spelt `refs/heads/...`), an agent's status ref, the folder above the cluster refs, or `HEAD`
(a branch Git itself refuses to make, which would make `HEAD` ambiguous in every later Git
command): `render`, typed from the folder above the repository, exits 1 with the error at
gitfleet.yaml's line and leaves every ref where it was; the same names given on the command
line to every command that takes a branch are usage errors (exit 2).
"""

from __future__ import annotations

import pytest
import yaml
from builders import make_cluster, make_deployment, make_policy
from conftest import GitRepo, Invoke

SOURCE = yaml.safe_dump_all(
    [make_cluster("m1"), make_deployment(namespace=""), make_policy("web", namespace="default")]
)


CASES = [
    pytest.param("gitfleet/works/m1", "is not a branch of its own", id="a cluster's ref"),
    pytest.param("refs/heads/gitfleet/works/m1", "is not a branch of its own", id="spelt as a ref"),
    pytest.param("gitfleet/status/m1", "is not a branch of its own", id="a status ref"),
    pytest.param("gitfleet/works", "is not a branch of its own", id="above the cluster refs"),
    pytest.param("HEAD", "is not a valid branch name", id="HEAD"),
]


@pytest.mark.parametrize(("branch", "message"), CASES)
def test_render_refuses_a_branch_gitfleet_writes_otherwise(
    git_repo: GitRepo, cli: Invoke, monkeypatch: pytest.MonkeyPatch, branch: str, message: str
) -> None:
    git_repo.commit({"fleet.yaml": SOURCE})
    monkeypatch.chdir(git_repo.path.parent)
    assert cli("render", "--repo", "source").exit_code == 0
    git_repo.commit({"gitfleet.yaml": f"renderedBranch: {branch}\n"})
    refs = git_repo.git("for-each-ref", "--format=%(refname) %(objectname)")
    done = cli("render", "--repo", "source")
    assert done.exit_code == 1, done.output
    assert "Traceback" not in done.output
    assert f"gitfleet.yaml:1:1: error: renderedBranch: '{branch}' {message}" in done.output
    assert git_repo.git("for-each-ref", "--format=%(refname) %(objectname)") == refs


@pytest.mark.parametrize(
    "command",
    [
        ("render", "--branch"),
        ("reconcile", "--once", "--branch"),
        ("reconcile", "--once", "--rendered-branch"),
        ("preview", "--base", "main", "--head", "main", "--rendered-branch"),
        ("status", "--branch"),
        ("agent", "push", "--once", "--kubeconfig-dir", ".", "--branch"),
    ],
    ids=lambda c: " ".join(a for a in c if a.startswith("--") or a.isalpha()),
)
@pytest.mark.parametrize(("branch", "message"), CASES)
def test_a_branch_option_gitfleet_writes_otherwise_is_a_usage_error(
    git_repo: GitRepo,
    cli: Invoke,
    monkeypatch: pytest.MonkeyPatch,
    command: tuple[str, ...],
    branch: str,
    message: str,
) -> None:
    git_repo.commit({"fleet.yaml": SOURCE})
    monkeypatch.chdir(git_repo.path.parent)
    refs = git_repo.git("for-each-ref", "--format=%(refname) %(objectname)")
    done = cli(*command, branch, "--repo", "source")
    assert done.exit_code == 2, done.output
    assert f"'{branch}' {message}" in done.output
    assert git_repo.git("for-each-ref", "--format=%(refname) %(objectname)") == refs
