"""A script that counts negative replicas is refused, never taken for "no replicas".

Karmada keeps whatever number GetReplicas returns (luavm ConvertLuaResultToInt does not check
it, nor does the binding's schema), and the member clusters then refuse the manifests it leads
to. gitfleet refuses the number at the script instead.

Aspects covered:
- GetReplicas returning a negative count, and GetComponents a component with negative
  replicas, fail with a located `LuaError`; `gitfleet interpret` exits 1 with it;
- `gitfleet render` of a commit whose Widget counts negative replicas (example-repo/'s Lua
  customization reads them from the template) exits 1 naming the customization's file and line
  and the Widget, and keeps the last good render: the Widget stays on every cluster.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gitfleet.errors import LuaError
from gitfleet.interpreter import lua
from tests.conftest import GitRepo, Invoke
from tests.interpreter.lua.conftest import customization_yaml, deployment, make_customization

EXAMPLE = Path(__file__).resolve().parents[3] / "example-repo"


@pytest.mark.parametrize(
    ("field", "script", "message"),
    [
        pytest.param(
            "replicaResource",
            "function GetReplicas(obj) return -obj.spec.replicas end",
            "replica -3 is negative",
            id="GetReplicas",
        ),
        pytest.param(
            "componentResource",
            "function GetComponents(obj) return {{name = 'a', replicas = -1}} end",
            "components[0].replicas -1 is negative",
            id="GetComponents",
        ),
    ],
)
def test_negative_replicas_are_an_error(
    sandbox: lua.Sandbox, field: str, script: str, message: str
) -> None:
    layer = lua.LuaLayer([make_customization(**{field: script})], sandbox=sandbox)
    with pytest.raises(LuaError) as caught:
        if field == "replicaResource":
            layer.get_replicas(deployment())
        else:
            layer.get_components(deployment())
    assert str(caught.value).startswith("ric.yaml:11:7: ")
    assert caught.value.message.endswith(f"Deployment default/web: {message}")


def test_interpret_exits_1_on_negative_replicas(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = "function GetReplicas(obj) return -obj.spec.replicas end"
    (tmp_path / "ric.yaml").write_text(customization_yaml(replicaResource=script))
    (tmp_path / "web.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n"
    )
    monkeypatch.chdir(tmp_path.parent)
    folder = tmp_path.name
    result = cli(
        "interpret", "-f", f"{folder}/ric.yaml", "--operation", "InterpretReplica",
        "--desired-file", f"{folder}/web.yaml",
    )  # fmt: skip
    assert result.exit_code == 1
    assert f"{folder}/ric.yaml:11:7: " in result.output
    assert "replica -3 is negative" in result.output


def _rendered_files(fleet: GitRepo) -> list[str]:
    listing = fleet.git("ls-tree", "-r", "--name-only", "refs/heads/gitfleet/rendered")
    return sorted(line for line in listing.splitlines() if "Widget" in line)


def test_render_refuses_a_commit_counting_negative_replicas(cli: Invoke, git_repo: GitRepo) -> None:
    shutil.copytree(EXAMPLE, git_repo.path, dirs_exist_ok=True)
    git_repo.commit({}, "fleet")
    repo = str(git_repo.path)
    assert cli("render", "--repo", repo).exit_code == 0
    widgets = _rendered_files(git_repo)
    assert any("/hero.yaml" in path for path in widgets)
    good = git_repo.git("rev-parse", "refs/heads/gitfleet/rendered")

    hero = git_repo.path / "apps/shop/widgets/hero.yaml"
    git_repo.commit(
        {"apps/shop/widgets/hero.yaml": hero.read_text().replace("replicas: 2", "replicas: -2")}
    )
    result = cli("render", "--repo", repo)

    assert result.exit_code == 1
    assert "interpreter/widget.yaml:14:" in result.output
    assert "Widget shop/hero" in result.output
    assert "replica -2 is negative" in result.output
    assert git_repo.git("rev-parse", "refs/heads/gitfleet/rendered") == good
    assert _rendered_files(git_repo) == widgets
