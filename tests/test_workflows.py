"""The CI workflow, .ci/run and the README's Quick start run the same, existing commands.

Aspects covered:
- the workflow runs on push and pull_request, tests Python 3.11 to 3.13, and uses no
  action besides actions/checkout and actions/setup-python;
- its test step is the README's test command, which is .ci/run's command;
- every extra it installs exists in pyproject.toml, and the dev extra brings the lint tools
  the lint job runs (ruff, mypy --strict, lint-imports, whose config is at the top);
- the README's Quick start has exactly two commands; the first installs gitfleet and runs
  `gitfleet demo`, a registered command;
- the README's command table matches the commands this checkout has.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
import realk8s
import realk8s_session
import yaml

from gitfleet.cli import main

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "ci.yml"
ALLOWED_ACTIONS = {"actions/checkout", "actions/setup-python"}
LINT_TOOLS = {"ruff": "ruff", "mypy": "mypy", "lint-imports": "import-linter"}


def workflow() -> dict[Any, Any]:
    loaded = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def steps(job: str) -> list[dict[str, Any]]:
    return list(workflow()["jobs"][job]["steps"])


def runs(job: str) -> list[str]:
    return [step["run"].strip() for step in steps(job) if "run" in step]


CI_SET_UP = ("#", "set ", "cd ", "for ", "export ", "trap ")
"""How .ci/run's lines that prepare the shell begin (the one other line is the command)."""


def ci_run_command() -> str:
    """The one command .ci/run runs (the lines that are not comments or shell set-up)."""
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    commands = [line.strip() for line in lines if line.strip() and not line.startswith(CI_SET_UP)]
    assert len(commands) == 1, commands
    return commands[0]


def quick_start() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, "no ```sh block under Quick start"
    return [line for line in block.group(1).splitlines() if line.strip()]


def extras() -> dict[str, list[str]]:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return dict(pyproject["project"]["optional-dependencies"])


def readme_commands() -> set[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return set(re.findall(r"^\| `gitfleet (\w+)[^`]*` \|", readme, re.M))


def test_workflow_triggers_on_push_and_pull_request() -> None:
    loaded = workflow()
    triggers = loaded.get("on", loaded.get(True))  # YAML 1.1 reads a bare `on` as true
    assert {"push", "pull_request"} <= set(triggers)


def test_workflow_tests_every_supported_python() -> None:
    matrix = workflow()["jobs"]["test"]["strategy"]["matrix"]
    assert matrix["python-version"] == ["3.11", "3.12", "3.13"]


def test_workflow_uses_only_checkout_and_setup_python() -> None:
    used = {
        step["uses"].split("@")[0]
        for job in workflow()["jobs"]
        for step in steps(job)
        if "uses" in step
    }
    assert used == ALLOWED_ACTIONS


def test_kind_job_runs_the_real_cluster_tier_on_the_fleets_clusters() -> None:
    """The kind job starts a cluster per Cluster the tier expects and points the realk8s
    tests at their kubeconfigs, with the README's installation, in one process (workers
    would share those clusters)."""
    job = workflow()["jobs"]["kind"]
    (start, tests) = runs("kind")
    assert '--kubeconfig "$KUBECONFIGS/$cluster.yaml"' in start
    named = re.search(r"for cluster in ([\w\- ]+); do", start)
    assert named and tuple(named.group(1).split()) == realk8s_session.CLUSTERS
    assert tests == quick_start()[1] + " -m " + realk8s_session.MARK + " -n 0", "one process"
    step = next(s for s in job["steps"] if s.get("run") == tests)
    assert step["env"][realk8s.ENV_CLUSTERS] == job["env"]["KUBECONFIGS"]


def test_test_job_leaves_the_local_tier_to_the_kind_job() -> None:
    (step,) = [s for s in steps("test") if "run" in s]
    assert step["env"] == {realk8s.ENV_CLUSTERS: "off"}


def test_test_job_runs_the_readme_command_which_is_ci_run() -> None:
    assert runs("test") == [quick_start()[1]]
    assert quick_start()[1] == ci_run_command()


def test_ci_run_runs_as_on_a_new_machine(tmp_path: Path) -> None:
    """.ci/run's set-up lines, run in a shell that has XDG settings and a home: the command
    then sees a new, empty home and no XDG variable, and the real-server tier's build cache of
    the old home."""
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    set_up = [line for line in lines if line.startswith(("for ", "export ", "trap "))]
    probe = "\n".join(
        [*set_up, 'ls -A "$HOME" | wc -l; compgen -e | grep -c ^XDG_ || true',
         'echo "$GITFLEET_REALK8S_CACHE"']
    )  # fmt: skip
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)}
    (tmp_path / ".gitconfig").write_text("[user]\n\tname = someone\n")
    done = subprocess.run(["bash", "-c", probe], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "0", f"{tmp_path}/.cache/gitfleet/realk8s"]


@pytest.mark.parametrize("job", ["test", "lint"])
def test_installed_extras_exist(job: str) -> None:
    named = {extra for command in runs(job) for extra in re.findall(r"\.\[(\w+)\]", command)}
    assert named and named <= set(extras())


def test_lint_job_runs_the_dev_tools() -> None:
    commands = [part for command in runs("lint") for part in command.split("&&")]
    programs = {shlex.split(part)[0] for part in commands}
    assert set(LINT_TOOLS) <= programs
    assert any(shlex.split(part)[:2] == ["mypy", "--strict"] for part in commands)
    dev = " ".join(extras()["dev"])
    assert all(package in dev for package in LINT_TOOLS.values())
    assert (ROOT / ".importlinter").is_file()


def test_quick_start_installs_and_runs_gitfleet() -> None:
    first, _ = quick_start()
    setup, _, run = first.rpartition(" && ")
    assert setup == "python3 -m venv .venv && .venv/bin/pip install -q ."
    program, command, *args = shlex.split(run)
    assert program == ".venv/bin/gitfleet"
    assert command == "demo" and command in main.COMMANDS
    assert args == [], "the demo needs nothing but an installation"


def test_readme_command_table_matches_the_cli() -> None:
    assert readme_commands() == set(main.COMMANDS)
    assert all(
        importlib.util.find_spec(target.partition(":")[0]) is not None
        for target in main.COMMANDS.values()
    ), "every command the table lists is built"
