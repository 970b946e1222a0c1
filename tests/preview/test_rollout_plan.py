"""The preview of a change to a fleet with a rollout section shows the wave plan.

Aspects covered:
- Markdown: a Rollout table, one row per wave in order (the implicit last one included), with
  the clusters the change touches and those it leaves;
- JSON: `rollout`, the same plan; a fleet without a rollout section has no such key.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
WAVES = """\
rollout:
  waves:
  - name: canary
    clusterNames: [aws-use1-a]
    bake: 10m
"""


def _pull_request(git_repo: Any, settings: str) -> Any:
    shutil.copytree(ROOT / "example-repo", git_repo.path, dirs_exist_ok=True)
    config = git_repo.path / "gitfleet.yaml"
    config.write_text(config.read_text() + settings)
    git_repo.commit({}, "fleet")
    git_repo.git("checkout", "-q", "-b", "change")
    web = git_repo.path / "apps/shop/web.yaml"
    web.write_text(web.read_text().replace("web:1.4.2", "web:1.4.3"))
    git_repo.commit({}, "new image")
    return git_repo


def _preview(cli: Any, repo: Any, *options: str) -> Any:
    done = cli("preview", "--repo", str(repo.path), "--base", "main", "--head", "change", *options)
    assert done.exit_code == 0, done.output
    return done


def test_the_wave_plan_is_in_the_comment_and_the_json(git_repo: Any, cli: Any) -> None:
    repo = _pull_request(git_repo, WAVES)
    doc = json.loads(_preview(cli, repo, "--format", "json").stdout)
    plan = doc["rollout"]
    assert [w["wave"] for w in plan] == ["canary", "rest"]
    assert plan[0]["clusters"] == plan[0]["changed"] == ["aws-use1-a"]
    changed = sorted(doc["clusters"])
    assert sorted(plan[0]["changed"] + plan[1]["changed"]) == changed
    markdown = _preview(cli, repo).stdout
    assert "#### Rollout" in markdown
    assert "| 1. canary | aws-use1-a | - |" in markdown
    assert "| 2. rest | " in markdown


def test_no_plan_without_a_rollout_section(git_repo: Any, cli: Any) -> None:
    repo = _pull_request(git_repo, "")
    doc = json.loads(_preview(cli, repo, "--format", "json").stdout)
    assert "rollout" not in doc
    assert "#### Rollout" not in _preview(cli, repo).stdout
