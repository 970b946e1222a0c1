"""A folder the command line names for a command to write into, which cannot be made (here a
file stands where a folder of its path goes), is a bad value of that option: exit 2, as click
reports `--out FILE`, with the option, the path and the system's reason, never a traceback;
nothing is written.

Aspects covered:
- `render --out`, `init DIR`, `reconcile --once --cache`, `agent push|pull --once --cache-dir`,
  `sim --kubeconfig-dir` (its clusters stopped again) and `demo --dir`, each typed from the
  folder next to the repository;
- `demo --dir` naming a folder that is not empty is the same kind of mistake (exit 2), as it
  is for `render --out` and `init`;
- a cache whose copies' folder is a file (made by the command's own layout, not named on the
  command line): exit 1, the copy that cannot be made named, as when git cannot make it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from builders import make_cluster, make_deployment, make_policy
from conftest import GitRepo, Invoke

IN_THE_WAY = "../afile"
"""A file, where each command is asked for a folder below it."""

COMMANDS = [
    pytest.param(("render", "--repo", "../source", "--out"), "--out ", id="render --out"),
    pytest.param(("init",), "", id="init"),
    pytest.param(
        ("reconcile", "--once", "--repo", "../source", "--cache"), "--cache ",
        id="reconcile --cache",
    ),
    pytest.param(
        ("agent", "push", "--once", "--repo", "../source", "--kubeconfig-dir", ".",
         "--cache-dir"), "--cache-dir ",
        id="agent push --cache-dir",
    ),
    pytest.param(
        ("agent", "pull", "--once", "--repo", "../source", "--cluster", "m1", "--cache-dir"),
        "--cache-dir ",
        id="agent pull --cache-dir",
    ),
    pytest.param(
        ("sim", "--clusters", "1", "--kubeconfig-dir"), "--kubeconfig-dir ",
        id="sim --kubeconfig-dir",
    ),
    pytest.param(("demo", "--fast", "--dir"), "--dir ", id="demo --dir"),
]  # fmt: skip


@pytest.fixture(name="fleet")
def fleet_fixture(git_repo: GitRepo, elsewhere: Path) -> GitRepo:
    """A source of one cluster, next to the current folder, and the file `IN_THE_WAY`."""
    docs = [make_cluster("m1"), make_deployment(), make_policy("web")]
    git_repo.commit({"fleet.yaml": yaml.safe_dump_all(docs, sort_keys=False)})
    (elsewhere / IN_THE_WAY).write_text("x")
    return git_repo


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if ".git" not in p.parts)


@pytest.mark.parametrize(("command", "named"), COMMANDS)
def test_a_folder_below_a_file_is_a_usage_error(
    fleet: GitRepo, elsewhere: Path, cli: Invoke, command: tuple[str, ...], named: str
) -> None:
    before = _tree(elsewhere.parent)
    done = cli(*command, f"{IN_THE_WAY}/folder")
    assert done.exit_code == 2, done.output
    assert f"Error: {named}{IN_THE_WAY}/folder: cannot create: Not a directory" in done.stderr
    assert _tree(elsewhere.parent) == before


def test_demo_refuses_a_folder_that_is_not_empty(elsewhere: Path, cli: Invoke) -> None:
    (elsewhere / "used").mkdir()
    (elsewhere / "used" / "notes.txt").write_text("mine")
    done = cli("demo", "--fast", "--dir", "used")
    assert done.exit_code == 2, done.output
    assert "Error: --dir used: not empty; choose a new or empty folder" in done.stderr
    assert _tree(elsewhere) == ["used", "used/notes.txt"]


def test_a_cache_whose_copies_cannot_be_made(fleet: GitRepo, elsewhere: Path, cli: Invoke) -> None:
    (elsewhere / "cache").mkdir()
    (elsewhere / "cache" / "pull").write_text("x")
    done = cli(
        "agent", "pull", "--once", "--repo", "file://" + str(fleet.path), "--cluster", "m1",
        "--cache-dir", "cache",
    )  # fmt: skip
    assert done.exit_code == 1, done.output
    assert "cannot create a copy in cache/pull: File exists" in done.stderr
