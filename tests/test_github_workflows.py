"""The pull-request and render workflows (.github/workflows/preview.yml and render.yml).

Aspects covered:
- preview.yml runs on pull requests and may comment; render.yml runs on pushes to every branch
  but gitfleet's own and may push; neither uses an action besides actions/checkout and
  actions/setup-python;
- both install gitfleet only from GITFLEET_INSTALL, which has no default and must be a Git URL
  pinned to a commit or tag: unset, a package index name (pinned to a version or not) or an
  unpinned URL fails the job before anything is installed, with a message saying what to set;
- every command their steps run exists: each `gitfleet <command>` is a command of this
  checkout and each `python -I -m <module>` a module here, and every option they pass is one the
  command accepts; every `python` runs isolated (`-I`): a pull request adding its own
  gitfleet/preview/github_comment.py at its top does not get it run with the token;
- what preview prints about a pull request is printed with the runner's workflow commands
  stopped (a fresh token each run): a file named `::error title=…::….yaml` is no command;
- run locally step by step as GitHub runs them (bash -e, `if:` conditions, `${{ }}` values,
  $GITHUB_OUTPUT), against bare repositories and a stand-in for GitHub's API:
  - preview.yml on a pull request posts one comment with the placement diff, and updates it
    on the next push instead of posting another;
  - preview.yml on a pull request that does not render posts the errors and fails;
  - preview.yml on a pull request whose render refuses a manifest (a Secret in plain text)
    posts the refusal with its file and line, and fails;
  - render.yml renders the pushed commit and pushes the rendered branch and cluster refs to
    the repository, and a second run changes nothing;
  - render.yml follows gitfleet.yaml's sourceBranch (on the default branch): a push to that
    branch renders its commit, a push to another branch renders nothing of its own;
  - in a repository without gitfleet.yaml (such as gitfleet's own) both only say so.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import click
import pytest
import yaml
from preview.fake_github import REPO, FakeGitHub

from gitfleet.cli import main
from gitfleet.preview import markdown

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"
ALLOWED_ACTIONS = {"actions/checkout", "actions/setup-python"}
SKIPPED = {"Install gitfleet"}
FAIL_STEP = "Fail when the pull request does not render or its render refuses manifests"
SECRET = """\
# a Secret and the policy that sends it, without the opt-in to plain text
apiVersion: v1
kind: Secret
metadata: {name: creds, namespace: shop}
stringData: {password: hunter2}
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: creds, namespace: shop}
spec:
  resourceSelectors: [{apiVersion: v1, kind: Secret, name: creds}]
  placement: {clusterAffinity: {clusterNames: [aws-euw1]}}
"""
"""Steps not run locally: gitfleet is imported from this checkout instead."""
_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def workflow(name: str) -> dict[Any, Any]:
    loaded = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def triggers(name: str) -> dict[str, Any]:
    loaded = workflow(name)
    found = loaded.get("on", loaded.get(True))  # YAML 1.1 reads a bare `on` as true
    assert isinstance(found, dict)
    return found


def steps(name: str) -> list[dict[str, Any]]:
    return [step for job in workflow(name)["jobs"].values() for step in job["steps"]]


# -- what the workflows run -----------------------------------------------------------------


def commands(line: str) -> Iterator[list[str]]:
    """Each simple command of one line of shell, as words (operators split off)."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    words: list[str] = []
    for token in lexer:
        if token in {"&&", "||", ";", "|", "(", ")", "&"}:
            if words:
                yield words
            words = []
        else:
            words.append(token)
    if words:
        yield words


def invocations() -> list[tuple[str, list[str]]]:
    """(workflow, words) of every gitfleet or `python -m gitfleet...` command the steps run."""
    found = []
    for name in ("preview.yml", "render.yml"):
        for step in steps(name):
            script = str(step.get("run", "")).replace("\\\n", " ")
            for words in (w for line in script.splitlines() for w in commands(line)):
                module = words[:3] == ["python", "-I", "-m"] and words[3].startswith("gitfleet")
                if words[0] == "gitfleet" or module:
                    found.append((name, words))
    return found


def command_of(words: list[str]) -> tuple[click.Command, list[str]]:
    """The click command `words` run, and the arguments it gets."""
    if words[0] == "gitfleet":
        assert words[1] in main.COMMANDS, f"gitfleet has no command {words[1]}"
        command = main.cli.get_command(click.Context(main.cli), words[1])
        assert command is not None, f"gitfleet {words[1]} is not built in this checkout"
        return command, words[2:]
    module = __import__(words[3], fromlist=["main"])
    command = module.main
    assert isinstance(command, click.Command)
    return command, words[4:]


def _options(command: click.Command) -> set[str]:
    return {name for p in command.params for name in [*p.opts, *p.secondary_opts]}


def test_triggers() -> None:
    assert set(triggers("preview.yml")) == {"pull_request"}
    assert triggers("render.yml") == {"push": {"branches": ["**", "!gitfleet/**"]}}
    assert workflow("preview.yml")["permissions"] == {"contents": "read", "pull-requests": "write"}
    assert workflow("render.yml")["permissions"] == {"contents": "write"}


@pytest.mark.parametrize("name", ["preview.yml", "render.yml"])
def test_only_checkout_and_setup_python(name: str) -> None:
    used = {step["uses"].split("@")[0] for step in steps(name) if "uses" in step}
    assert used == ALLOWED_ACTIONS


PINNED = "git+https://github.com/octo/gitfleet@" + "0123456789abcdef" * 2 + "01234567"
INSTALL_CHECK = "Is GITFLEET_INSTALL a pinned Git URL?"


@pytest.mark.parametrize("name", ["preview.yml", "render.yml"])
def test_gitfleet_install_has_no_default(name: str) -> None:
    (job,) = workflow(name)["jobs"].values()
    assert job["env"]["GITFLEET_INSTALL"] == "${{ vars.GITFLEET_INSTALL }}"
    names = [step.get("name", "") for step in job["steps"]]
    assert names.index(INSTALL_CHECK) < names.index("Install gitfleet")
    (check,) = (step for step in job["steps"] if step.get("name") == INSTALL_CHECK)
    (other,) = (s for s in steps("preview.yml" if name == "render.yml" else "render.yml")
                if s.get("name") == INSTALL_CHECK)  # fmt: skip
    assert check == other


@pytest.mark.parametrize(
    ("value", "accepted"),
    [
        pytest.param(PINNED, True, id="commit"),
        pytest.param("git+https://github.com/octo/gitfleet@v0.1.0", True, id="tag"),
        pytest.param("git+ssh://git@github.com/octo/gitfleet@v0.1.0", True, id="ssh at a tag"),
        pytest.param("", False, id="unset"),
        pytest.param("gitfleet", False, id="package index name"),
        pytest.param("gitfleet==0.1.0", False, id="package index version"),
        pytest.param("git+https://github.com/octo/gitfleet", False, id="no ref"),
        pytest.param("git+ssh://git@github.com/octo/gitfleet", False, id="ssh without a ref"),
        pytest.param(f"{PINNED} gitfleet", False, id="two requirements"),
        pytest.param("https://example.com/gitfleet.tar.gz", False, id="an archive"),
    ],
)
def test_gitfleet_install_must_be_a_pinned_git_url(value: str, accepted: bool) -> None:
    (check,) = (step for step in steps("render.yml") if step.get("name") == INSTALL_CHECK)
    done = subprocess.run(
        ["bash", "-e", "-c", check["run"]], env={"PATH": os.environ["PATH"],
        "GITFLEET_INSTALL": value}, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert (done.returncode == 0) is accepted, done.stdout
    if not accepted:
        assert "Set the repository variable GITFLEET_INSTALL to gitfleet's Git URL" in done.stdout
        assert "the name gitfleet on the package index is another project" in done.stdout


@pytest.mark.parametrize("name", ["preview.yml", "render.yml"])
def test_python_runs_isolated_from_the_checkout(name: str) -> None:
    """The checkout is the pull request's (or the pushed branch's): `python -m pip` or
    `python -m gitfleet...` run from it would import a pip/ or gitfleet/ folder it adds."""
    found = [
        words
        for step in steps(name)
        for line in str(step.get("run", "")).splitlines()
        for words in commands(line)
        if words[0] == "python"
    ]
    assert found
    assert all(words[1] == "-I" for words in found), found


def test_commands_exist_with_their_options() -> None:
    found = invocations()
    assert {
        tuple(words[:2]) if words[0] == "gitfleet" else tuple(words[:4]) for _, words in found
    } == {
        ("gitfleet", "preview"),
        ("python", "-I", "-m", "gitfleet.preview.github_comment"),
        ("gitfleet", "reconcile"),
    }
    for name, words in found:
        command, args = command_of(words)
        unknown = {a.partition("=")[0] for a in args if a.startswith("-")} - _options(command)
        assert not unknown, f"{name}: {' '.join(words[:3])} has no option {sorted(unknown)}"


# -- running the workflows here ---------------------------------------------------------------


@dataclasses.dataclass
class Runner:
    """Runs a workflow's steps in `workspace` as GitHub's runner would, for the parts that
    matter here: `if:`, `${{ }}` values from `context`, env, bash -e, $GITHUB_OUTPUT."""

    workspace: Path
    context: dict[str, str]
    env: dict[str, str]
    ran: list[str] = dataclasses.field(default_factory=list)
    outputs: dict[str, dict[str, str]] = dataclasses.field(default_factory=dict)
    logs: dict[str, str] = dataclasses.field(default_factory=dict)
    """What each step printed (its standard output, then its standard error), by name."""

    def value(self, expression: str) -> str:
        """A `${{ }}` expression: a path, a 'literal', `a || b`, `a == b`, `a != b`, `a && b`."""
        if "&&" in expression:
            parts = [self.value(part) for part in expression.split("&&")]
            return "true" if all(p == "true" for p in parts) else "false"
        for op in ("==", "!="):
            if op in expression:
                left, right = (self.value(part) for part in expression.split(op))
                return "true" if (left == right) == (op == "==") else "false"
        if "||" in expression:
            return next((v for v in map(self.value, expression.split("||")) if v), "")
        text = expression.strip()
        if text.startswith("'") and text.endswith("'"):
            return text[1:-1]
        if text.startswith("steps."):
            _, step, _, key = text.split(".")
            return self.outputs.get(step, {}).get(key, "")
        assert text in self.context, f"no value for {text} in the test's context"
        return self.context[text]

    def substitute(self, text: str) -> str:
        return _EXPRESSION.sub(lambda m: self.value(m.group(1)), text)

    def run(self, name: str) -> int:
        """Run every step until one fails; its exit code (0 when all succeed)."""
        job_env: Mapping[str, str] = next(iter(workflow(name)["jobs"].values())).get("env", {})
        base = {**self.env, **{k: self.substitute(str(v)) for k, v in job_env.items()}}
        for index, step in enumerate(steps(name)):
            if "if" in step and self.value(str(step["if"])) != "true":
                continue
            if "uses" in step or step.get("name") in SKIPPED:
                continue
            output = self.workspace.parent / f"output-{index}"
            output.write_text("")
            env = {**base, "GITHUB_OUTPUT": str(output)}
            env.update({k: self.substitute(str(v)) for k, v in step.get("env", {}).items()})
            done = subprocess.run(
                ["bash", "-e", "-c", self.substitute(step["run"])], cwd=self.workspace, env=env,
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            self.ran.append(step.get("name", step.get("id", "")))
            self.logs[self.ran[-1]] = done.stdout + done.stderr
            if "id" in step:
                pairs = (line.partition("=") for line in output.read_text().splitlines())
                self.outputs[step["id"]] = {k: v for k, _, v in pairs}
            if done.returncode != 0:
                return done.returncode
        return 0


def git(*args: str, cwd: Path | None = None) -> str:
    identity = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}  # fmt: skip
    done = subprocess.run(
        ["git", *args], cwd=cwd, env={**os.environ, **identity}, check=True,
        capture_output=True, text=True,
    )  # fmt: skip
    return done.stdout.strip()


@pytest.fixture(name="tools")
def tools_fixture(tmp_path: Path) -> dict[str, str]:
    """An environment whose `gitfleet` and `python` are this checkout's, with its own HOME."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    # -P: as an installed console script, `gitfleet` imports nothing from the folder it runs in
    for name, target in (("gitfleet", f'"{sys.executable}" -P -m gitfleet'),
                         ("python", f'"{sys.executable}"')):  # fmt: skip
        shim = bin_dir / name
        shim.write_text(f'#!/bin/sh\nexec {target} "$@"\n')
        shim.chmod(0o755)
    home = tmp_path / "home"
    home.mkdir()
    return {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT),
        "HOME": str(home),
        "RUNNER_TEMP": str(tmp_path / "runner"),
    }


@pytest.fixture(name="origin")
def origin_fixture(tmp_path: Path) -> Path:
    """The repository on the server: the example fleet on main, at <tmp>/octo/fleet.git."""
    remote = tmp_path / "server" / REPO
    remote = remote.with_name(remote.name + ".git")
    git("init", "-q", "--bare", "-b", "main", str(remote))
    seed = tmp_path / "seed"
    shutil.copytree(ROOT / "example-repo", seed)
    git("init", "-q", "-b", "main", cwd=seed)
    git("add", "-A", cwd=seed)
    git("commit", "-q", "-m", "fleet", cwd=seed)
    git("push", "-q", str(remote), "main", cwd=seed)
    return remote


def checkout(origin: Path, tmp_path: Path) -> Path:
    """What actions/checkout with fetch-depth 0 leaves: a clone with every branch fetched."""
    workspace = tmp_path / "workspace"
    git("clone", "-q", str(origin), str(workspace))
    return workspace


@pytest.fixture(name="github")
def github_fixture() -> Iterator[FakeGitHub]:
    fake = FakeGitHub()
    fake.start()
    yield fake
    fake.close()


def pull_request_runner(workspace: Path, tools: dict[str, str], github: FakeGitHub) -> Runner:
    context = {
        "github.base_ref": "main",
        "github.repository": REPO,
        "github.event.pull_request.number": "7",
        "github.event.pull_request.head.repo.full_name": REPO,
        "secrets.GITHUB_TOKEN": "token",
        "vars.GITFLEET_INSTALL": PINNED,
    }
    env = {**tools, "GITHUB_API_URL": github.url, "GITHUB_REPOSITORY": REPO}
    return Runner(workspace, context, env)


def push_pull_request(workspace: Path, old: str, new: str) -> None:
    web = workspace / "apps/shop/web.yaml"
    web.write_text(web.read_text().replace(old, new))
    git("commit", "-q", "-am", "change", cwd=workspace)


def render_main(origin: Path, tools: dict[str, str]) -> None:
    subprocess.run(
        ["gitfleet", "reconcile", "--once", "--repo", str(origin)],
        env={**os.environ, **tools}, check=True, capture_output=True,
    )  # fmt: skip


def test_preview_posts_then_updates_one_comment(
    origin: Path, tmp_path: Path, tools: dict[str, str], github: FakeGitHub
) -> None:
    render_main(origin, tools)
    workspace = checkout(origin, tmp_path)
    push_pull_request(workspace, "replicas: 6", "replicas: 9")
    runner = pull_request_runner(workspace, tools, github)
    assert runner.run("preview.yml") == 0
    assert runner.outputs["preview"] == {"status": "0"}
    (comment,) = github.comments
    first = comment["body"]
    assert first.startswith(markdown.MARKER)
    assert "**1 resource moves, 3 manifests change on 3 clusters**" in first
    assert git("rev-parse", "--verify", "refs/heads/gitfleet/rendered", cwd=workspace)
    push_pull_request(workspace, "replicas: 9", "replicas: 12")
    assert pull_request_runner(workspace, tools, github).run("preview.yml") == 0
    (comment,) = github.comments
    head = git("rev-parse", "--short=12", "HEAD", cwd=workspace)
    assert comment["body"] != first
    assert f"`HEAD` ({head})" in comment["body"]


def test_preview_of_a_broken_pull_request_posts_errors_and_fails(
    origin: Path, tmp_path: Path, tools: dict[str, str], github: FakeGitHub
) -> None:
    workspace = checkout(origin, tmp_path)
    push_pull_request(workspace, "replicas: 6", "replicas: [6")
    runner = pull_request_runner(workspace, tools, github)
    assert runner.run("preview.yml") == 1
    assert runner.ran[-1] == FAIL_STEP
    (comment,) = github.comments
    assert "#### Validation errors" in comment["body"]
    assert "apps/shop/web.yaml:" in comment["body"]


def test_preview_of_a_pull_request_with_refusals_posts_them_and_fails(
    origin: Path, tmp_path: Path, tools: dict[str, str], github: FakeGitHub
) -> None:
    render_main(origin, tools)
    workspace = checkout(origin, tmp_path)
    (workspace / "apps/shop/creds.yaml").write_text(SECRET)
    git("add", "-A", cwd=workspace)
    git("commit", "-q", "-m", "a secret", cwd=workspace)
    runner = pull_request_runner(workspace, tools, github)
    assert runner.run("preview.yml") == 1
    assert runner.outputs["preview"] == {"status": "1"}
    assert runner.ran[-1] == FAIL_STEP
    (comment,) = github.comments
    body = comment["body"]
    assert body.index("#### Refused manifests") < body.index("**1 manifest refused, ")
    assert "apps/shop/creds.yaml:4:1: Secret/shop/creds: Secrets are not written" in body


IMPOSTOR = """\
import pathlib, sys
pathlib.Path("impostor-ran").write_text("yes")
sys.exit(0)
"""


def test_preview_imports_nothing_the_pull_request_adds(
    origin: Path, tmp_path: Path, tools: dict[str, str], github: FakeGitHub
) -> None:
    """A pull request adding its own gitfleet/preview/github_comment.py at its top: the step
    that holds the token with write access to pull requests runs the installed one."""
    render_main(origin, tools)
    workspace = checkout(origin, tmp_path)
    for path in ("gitfleet/__init__.py", "gitfleet/preview/__init__.py"):
        (workspace / path).parent.mkdir(parents=True, exist_ok=True)
        (workspace / path).write_text("")
    (workspace / "gitfleet/preview/github_comment.py").write_text(IMPOSTOR)
    push_pull_request(workspace, "replicas: 6", "replicas: 9")
    git("add", "-A", cwd=workspace)
    git("commit", "-q", "-m", "an impostor", cwd=workspace)
    runner = pull_request_runner(workspace, {**tools, "PYTHONPATH": ""}, github)
    assert runner.run("preview.yml") == 0
    assert not (workspace / "impostor-ran").exists()
    (comment,) = github.comments
    assert "**1 resource moves, 3 manifests change on 3 clusters**" in comment["body"]


def test_what_preview_prints_is_no_workflow_command(
    origin: Path, tmp_path: Path, tools: dict[str, str], github: FakeGitHub
) -> None:
    """A file named like a workflow command starts a line of the errors printed: the runner
    must not take it for one (an annotation saying the check passed, a mask over the log)."""
    workspace = checkout(origin, tmp_path)
    name = "::error title=gitfleet::all checks passed.yaml"
    (workspace / name).write_text("a: [\n")
    git("add", "-A", cwd=workspace)
    git("commit", "-q", "-m", "a file named like a command", cwd=workspace)
    runner = pull_request_runner(workspace, tools, github)
    assert runner.run("preview.yml") == 1
    log = runner.logs[FAIL_STEP].splitlines()
    printed = [i for i, line in enumerate(log) if line.lstrip().startswith(name)]
    assert printed, runner.logs[FAIL_STEP]
    stop, resume = log[0], log[-1]
    token = stop.removeprefix("::stop-commands::")
    assert stop != token and len(token) == 32
    assert resume == f"::{token}::"
    assert token not in (workspace / "preview.md").read_text()
    other = pull_request_runner(workspace, tools, github)
    assert other.run("preview.yml") == 1
    assert other.logs[FAIL_STEP].splitlines()[0] != stop


def push_runner(workspace: Path, tools: dict[str, str], branch: str, install: str) -> Runner:
    """render.yml as GitHub runs it for a push to `branch` of <tmp>/server/octo/fleet."""
    env = {**tools, "GITHUB_SERVER_URL": (workspace.parent / "server").as_uri(),
           "GITHUB_REPOSITORY": REPO, "GITHUB_REF_NAME": branch}  # fmt: skip
    return Runner(workspace, {"secrets.GITHUB_TOKEN": "token", "vars.GITFLEET_INSTALL": install},
                  env)  # fmt: skip


def rendered_source(origin: Path) -> str:
    found = git(
        "--git-dir", str(origin), "log", "-1", "--format=%(trailers:key=Source-Commit,valueonly)",
        "gitfleet/rendered",
    )  # fmt: skip
    return found.strip()


def test_render_pushes_the_rendered_branch(
    origin: Path, tmp_path: Path, tools: dict[str, str]
) -> None:
    workspace = checkout(origin, tmp_path)
    assert push_runner(workspace, tools, "main", PINNED).run("render.yml") == 0
    assert rendered_source(origin) == git("--git-dir", str(origin), "rev-parse", "main")
    works = git("--git-dir", str(origin), "for-each-ref", "refs/heads/gitfleet/works/")
    assert len(works.splitlines()) == 5
    header = git("config", "--file", str(Path(tools["HOME"]) / ".gitconfig"), "--list")
    assert "extraheader=authorization: basic" in header.lower()
    tip = git("--git-dir", str(origin), "rev-parse", "gitfleet/rendered")
    assert push_runner(workspace, tools, "main", PINNED).run("render.yml") == 0
    assert git("--git-dir", str(origin), "rev-parse", "gitfleet/rendered") == tip


def test_render_without_gitfleet_install_fails_first(
    origin: Path, tmp_path: Path, tools: dict[str, str]
) -> None:
    runner = push_runner(checkout(origin, tmp_path), tools, "main", "")
    assert runner.run("render.yml") == 1
    assert runner.ran == ["Is this a gitfleet source repository?", INSTALL_CHECK]
    assert git("--git-dir", str(origin), "for-each-ref", "refs/heads/gitfleet/") == ""


def test_render_follows_the_source_branch(
    origin: Path, tmp_path: Path, tools: dict[str, str]
) -> None:
    """gitfleet.yaml on main names `production` as the source: pushes to production render
    it; a push to another branch renders nothing of its own."""
    workspace = checkout(origin, tmp_path)
    config = workspace / "gitfleet.yaml"
    config.write_text(config.read_text().replace("sourceBranch: main", "sourceBranch: production"))
    git("commit", "-q", "-am", "render production", cwd=workspace)
    git("push", "-q", "origin", "main", cwd=workspace)
    git("checkout", "-q", "-b", "production", cwd=workspace)
    push_pull_request(workspace, "replicas: 6", "replicas: 9")
    git("push", "-q", "origin", "production", cwd=workspace)
    production = git("rev-parse", "HEAD", cwd=workspace)
    assert push_runner(workspace, tools, "production", PINNED).run("render.yml") == 0
    assert rendered_source(origin) == production
    git("checkout", "-q", "-b", "feature", "main", cwd=workspace)
    push_pull_request(workspace, "replicas: 6", "replicas: 12")
    git("push", "-q", "origin", "feature", cwd=workspace)
    tip = git("--git-dir", str(origin), "rev-parse", "gitfleet/rendered")
    assert push_runner(workspace, tools, "feature", PINNED).run("render.yml") == 0
    assert git("--git-dir", str(origin), "rev-parse", "gitfleet/rendered") == tip


@pytest.mark.parametrize("name", ["preview.yml", "render.yml"])
def test_nothing_happens_without_gitfleet_yaml(
    name: str, origin: Path, tmp_path: Path, tools: dict[str, str], github: FakeGitHub
) -> None:
    workspace = checkout(origin, tmp_path)
    git("rm", "-q", "gitfleet.yaml", cwd=workspace)
    runner = pull_request_runner(workspace, tools, github)
    assert runner.run(name) == 0
    assert runner.ran == ["Is this a gitfleet source repository?"]
    assert runner.outputs["source"] == {"enabled": "false"}
    assert github.comments == []
