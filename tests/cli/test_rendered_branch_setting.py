"""A gitfleet.yaml whose renderedBranch, or a `--branch` / `--rendered-branch` option, names a
ref gitfleet writes for another purpose never has a render overwrite it.

Aspects covered: renderedBranch naming a cluster's ref (`gitfleet/works/<cluster>`), an
agent's status ref, the folder above the cluster refs, `HEAD` or `@` (a branch Git itself
refuses to make, which would make `HEAD` ambiguous in every later Git command, and a name Git
reads as HEAD), or a full ref rather than a branch's name (`refs/heads/HEAD`, a branch spelt
`refs/heads/...`, which names the branch to write instead, a tag, the stash, notes, a
remote-tracking branch, which a render would create or move): `render`, typed from the folder
above the repository, exits 1 with the error at gitfleet.yaml's line and leaves every ref
where it was, and so does `agent push` reading it at HEAD (it applies nothing); the same
names given on the command line to every command that takes a branch are usage errors (exit 2).

A rendered branch the repository cannot hold, because another branch's name is a folder of its
name or lies below it (`gitfleet/rendered` and `gitfleet/rendered/x`): from gitfleet.yaml,
`render`, `validate` (of the working tree, or `--rev`) and `reconcile --once` exit 1 with the
error at its line naming the branch in the way (for the default name, at gitfleet.yaml: the
same line from `render` and `validate`); from `render --branch` it is a usage error naming the
option (exit 2), from `reconcile --rendered-branch` an error naming it (exit 1); no rendered or
cluster ref is written.
"""

from __future__ import annotations

import pytest
import yaml
from builders import make_cluster, make_deployment, make_policy
from conftest import GitRepo, Invoke

SOURCE = yaml.safe_dump_all(
    [make_cluster("m1"), make_deployment(namespace=""), make_policy("web", namespace="default")]
)


FULL_REF = "is a full ref name, not a branch name: give a branch's name (what follows refs/heads/)"
CASES = [
    pytest.param("gitfleet/works/m1", "is not a branch of its own", id="a cluster's ref"),
    pytest.param("refs/heads/gitfleet/works/m1", FULL_REF, id="spelt as a ref"),
    pytest.param("gitfleet/status/m1", "is not a branch of its own", id="a status ref"),
    pytest.param("gitfleet/works", "is not a branch of its own", id="above the cluster refs"),
    pytest.param("HEAD", "is not a valid branch name", id="HEAD"),
    pytest.param("@", "is not a valid branch name", id="@"),
    pytest.param("refs/heads/HEAD", FULL_REF, id="HEAD spelt as a ref"),
    pytest.param("refs/heads/rendered", "is a full ref name: name the branch, 'rendered'",
                 id="a branch spelt as a ref"),
    pytest.param("refs/tags/v1", FULL_REF, id="a tag"),
]  # fmt: skip
OTHER_REFS = [
    pytest.param("refs/stash", FULL_REF, id="the stash"),
    pytest.param("refs/notes/commits", FULL_REF, id="notes"),
    pytest.param("refs/remotes/origin/main", FULL_REF, id="a remote-tracking branch"),
]


@pytest.mark.parametrize(("branch", "message"), CASES + OTHER_REFS)
def test_render_refuses_a_branch_gitfleet_writes_otherwise(
    git_repo: GitRepo, cli: Invoke, monkeypatch: pytest.MonkeyPatch, branch: str, message: str
) -> None:
    git_repo.commit({"fleet.yaml": SOURCE})
    monkeypatch.chdir(git_repo.path.parent)
    assert cli("render", "--repo", "source").exit_code == 0
    git_repo.commit({"gitfleet.yaml": f"renderedBranch: '{branch}'\n"})
    refs = git_repo.git("for-each-ref", "--format=%(refname) %(objectname)")
    done = cli("render", "--repo", "source")
    assert done.exit_code == 1, done.output
    assert "Traceback" not in done.output
    assert f"gitfleet.yaml:1:1: error: renderedBranch: '{branch}' {message}" in done.output
    assert git_repo.git("for-each-ref", "--format=%(refname) %(objectname)") == refs


@pytest.mark.parametrize(("branch", "message"), CASES)
def test_the_push_agent_refuses_the_rendered_branch_render_refuses(
    git_repo: GitRepo, cli: Invoke, monkeypatch: pytest.MonkeyPatch, branch: str, message: str
) -> None:
    git_repo.commit({"fleet.yaml": SOURCE, "gitfleet.yaml": f"renderedBranch: '{branch}'\n"})
    monkeypatch.chdir(git_repo.path.parent)
    refs = git_repo.git("for-each-ref", "--format=%(refname) %(objectname)")
    done = cli("agent", "push", "--once", "--kubeconfig-dir", ".", "--repo", "source")
    assert done.exit_code == 1, done.output
    assert "Traceback" not in done.output
    assert f"gitfleet.yaml: renderedBranch at HEAD: '{branch}' {message}" in done.output
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


IN_THE_WAY = [
    pytest.param("gitfleet/rendered/x", "gitfleet/rendered", id="a branch above it"),
    pytest.param("gitfleet/rendered", "gitfleet/rendered/x", id="a branch below it"),
]
"""(rendered branch asked for, branch already there that keeps Git from making it)."""


def _in_the_way(name: str, other: str) -> str:
    return (
        f"branch '{name}' cannot be made while branch '{other}' exists (a branch cannot also be "
        f"a folder of branches): choose another name, or delete '{other}'"
    )


@pytest.fixture(name="fleet")
def fleet_fixture(git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    """The source committed, the current folder the one above it (`--repo source`)."""
    git_repo.commit({"fleet.yaml": SOURCE})
    monkeypatch.chdir(git_repo.path.parent)
    return git_repo


def _rendered_refs(repo: GitRepo) -> str:
    """Every ref but the reconciler's own status ref, which records the error."""
    listed = repo.git("for-each-ref", "--format=%(refname) %(objectname)").splitlines()
    return "\n".join(r for r in listed if not r.startswith("refs/heads/gitfleet/status/"))


@pytest.mark.parametrize(
    "command",
    [("render",), ("validate",), ("validate", "--rev", "main"), ("reconcile", "--once")],
    ids=" ".join,
)
@pytest.mark.parametrize(("branch", "other"), IN_THE_WAY)
def test_a_rendered_branch_another_branch_is_in_the_way_of_is_refused_at_its_line(
    fleet: GitRepo, cli: Invoke, command: tuple[str, ...], branch: str, other: str
) -> None:
    fleet.commit({"gitfleet.yaml": f"renderedBranch: {branch}\n"})
    fleet.git("branch", other)
    refs = _rendered_refs(fleet)
    done = cli(*command, "--repo", "source")
    assert done.exit_code == 1, done.output
    assert "Traceback" not in done.output
    if command[0] in ("render", "validate"):
        expected = f"source/gitfleet.yaml:1:1: error: renderedBranch: {_in_the_way(branch, other)}"
        assert expected in done.output.splitlines()
    else:
        assert "path=gitfleet.yaml line=1 col=1" in done.output
        assert f'error="renderedBranch: {_in_the_way(branch, other)}"' in done.output
    assert _rendered_refs(fleet) == refs


@pytest.mark.parametrize("command", ["render", "validate"])
def test_the_default_rendered_branch_with_a_branch_in_its_way_names_gitfleet_yaml(
    fleet: GitRepo, cli: Invoke, command: str
) -> None:
    fleet.git("branch", "gitfleet/rendered/old")
    refs = _rendered_refs(fleet)
    done = cli(command, "--repo", "source")
    assert done.exit_code == 1, done.output
    message = _in_the_way("gitfleet/rendered", "gitfleet/rendered/old")
    assert f"source/gitfleet.yaml: error: renderedBranch: {message}" in done.output.splitlines()
    assert _rendered_refs(fleet) == refs


@pytest.mark.parametrize(
    ("command", "code"),
    [
        pytest.param(("render", "--branch"), 2, id="render --branch"),
        pytest.param(("reconcile", "--once", "--rendered-branch"), 1, id="reconcile"),
    ],
)
@pytest.mark.parametrize(("branch", "other"), IN_THE_WAY)
def test_a_branch_option_another_branch_is_in_the_way_of_is_refused_by_its_name(
    fleet: GitRepo, cli: Invoke, command: tuple[str, ...], code: int, branch: str, other: str
) -> None:
    """render refuses the option's value (exit 2); reconcile finds it at its look (exit 1)."""
    fleet.git("branch", other)
    refs = _rendered_refs(fleet)
    done = cli(*command, branch, "--repo", "source")
    assert done.exit_code == code, done.output
    assert "Traceback" not in done.output
    option = command[-1]
    said = f"Invalid value for '{option}': " if code == 2 else f"error: {option}: "
    assert said + _in_the_way(branch, other) in " ".join(done.output.split())
    assert _rendered_refs(fleet) == refs
