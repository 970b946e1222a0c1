"""`gitfleet preview` on the command line.

Aspects covered:
- Markdown by default (the comment, marker first), exit 0; `--format json` and `-o json` print
  the same JSON object with stable keys;
- a head with errors still prints the preview (errors first) and exits 1;
- `--limit` bounds the Markdown, also when the head's errors alone would be longer (names of
  thousands of characters); `--rendered-branch` names the branch to reuse;
- a missing --base or --head is a usage error (2); an unknown revision or a folder that is no
  repository is an input error (1, `path: message`).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(name="fleet_pr")
def fleet_pr_fixture(git_repo: Any, cli: Any) -> Any:
    """The example fleet rendered on main, and a branch `change` scaling the web app."""
    shutil.copytree(ROOT / "example-repo", git_repo.path, dirs_exist_ok=True)
    git_repo.commit({}, "fleet")
    assert cli("render", "--repo", str(git_repo.path)).exit_code == 0
    git_repo.git("checkout", "-q", "-b", "change")
    web = git_repo.path / "apps/shop/web.yaml"
    web.write_text(web.read_text().replace("replicas: 6", "replicas: 9"))
    git_repo.commit({}, "scale web")
    return git_repo


def test_markdown_by_default(cli: Any, fleet_pr: Any) -> None:
    result = cli("preview", "--repo", str(fleet_pr.path), "--base", "main", "--head", "change")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("<!-- gitfleet-preview -->\n### gitfleet preview: `main`")
    assert "**1 resource moves, 3 manifests change on 3 clusters**" in result.stdout


@pytest.mark.parametrize("flag", [["--format", "json"], ["-o", "json"]])
def test_json(cli: Any, fleet_pr: Any, flag: list[str]) -> None:
    result = cli("preview", "--repo", str(fleet_pr.path), "--base", "main", "--head", "change",
                 *flag)  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["summary"] == "1 resource moves, 3 manifests change on 3 clusters"
    assert list(data) == sorted(data)


def test_errors_print_and_exit_1(cli: Any, fleet_pr: Any) -> None:
    fleet_pr.commit({"apps/shop/broken.yaml": "kind: [\n"}, "break")
    result = cli("preview", "--repo", str(fleet_pr.path), "--base", "main", "--head", "change")
    assert result.exit_code == 1
    assert "#### Validation errors" in result.stdout
    assert "apps/shop/broken.yaml:2:1: error:" in result.stdout


def test_limit_bounds_the_markdown(cli: Any, fleet_pr: Any) -> None:
    result = cli("preview", "--repo", str(fleet_pr.path), "--base", "main", "--head", "change",
                 "--limit", "1200")  # fmt: skip
    assert result.exit_code == 0
    assert len(result.stdout) <= 1200
    assert "| Deployment shop/web |" in result.stdout


@pytest.mark.parametrize("limit", [None, "1000"])
def test_limit_holds_whatever_the_errors(cli: Any, fleet_pr: Any, limit: str | None) -> None:
    """A pull request adding 60 ConfigMaps with names of 6,000 characters: its errors alone
    would take 370,000 characters."""
    long = {
        f"apps/long{i}.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "
        f"{'x' * 3000}-{i}-{'y' * 3000}\n"
        for i in range(60)
    }
    fleet_pr.commit(long, "long names")
    given = ["--limit", limit] if limit else []
    result = cli("preview", "--repo", str(fleet_pr.path), "--base", "main", "--head", "change",
                 *given)  # fmt: skip
    assert result.exit_code == 1
    assert len(result.stdout) <= int(limit or 65536)
    assert "#### Validation errors" in result.stdout
    assert "apps/long0.yaml:4:3: error: ConfigMap default/xxx" in result.stdout
    assert "**60 validation errors: nothing would be rendered**" in result.stdout


def test_rendered_branch_option(cli: Any, fleet_pr: Any) -> None:
    fleet_pr.git("branch", "-m", "gitfleet/rendered", "elsewhere")
    result = cli("preview", "--repo", str(fleet_pr.path), "--base", "main", "--head", "change",
                 "--rendered-branch", "elsewhere", "-o", "json")  # fmt: skip
    assert json.loads(result.stdout)["base"]["obtained"] == "rendered-branch"


def test_missing_base_is_a_usage_error(cli: Any, fleet_pr: Any) -> None:
    result = cli("preview", "--repo", str(fleet_pr.path), "--head", "change")
    assert result.exit_code == 2
    assert "--base" in result.stderr


def test_unknown_revision_is_an_input_error(cli: Any, fleet_pr: Any) -> None:
    result = cli("preview", "--repo", str(fleet_pr.path), "--base", "main", "--head", "nope")
    assert result.exit_code == 1
    assert result.stderr == f"{fleet_pr.path}: unknown revision 'nope'\n"


def test_not_a_repository(cli: Any, tmp_path: Path) -> None:
    result = cli("preview", "--repo", str(tmp_path), "--base", "a", "--head", "b")
    assert result.exit_code == 1
    assert result.stderr == f"{tmp_path}: not a Git repository (its top must hold .git)\n"
