"""A hostile customization script stops within the default time limit on every path that runs
scripts, and each path reports it as it reports any bad input.

The example fleet's Widget customization (example-repo/interpreter/widget.yaml) is given a
GetReplicas that loops over C string functions until stopped. Each command is timed against
the same command on the unchanged fleet: what it does besides running the script is not the
script's time. Render runs GetReplicas once per Widget (two of them) before it reports.

Aspects covered:
- `gitfleet render` exits 1 naming the customization's file and line, the Widget and the time
  limit, and keeps the last good render;
- `gitfleet preview` of a branch adding the script exits 1 with the same error;
- the reconcile service's look is `invalid`, records the error at the script's file and line,
  keeps the last good render, and renders the next good commit (it stays up).
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from click.testing import Result
from service.conftest import fleet_fixture  # noqa: F401  (the reconciler tests' fleet)
from service.service_helpers import EXAMPLE, Fleet

from gitfleet.interpreter import lua
from gitfleet.service import reconciler
from tests.conftest import GitRepo, Invoke
from tests.interpreter.lua.conftest import REP

WIDGET = "interpreter/widget.yaml"
SCRIPT_LINE = 14
"""Line of GetReplicas's `luaScript:` in the Widget customization."""
WIDGETS = 2
MARGIN = 1.5
"""Seconds a command may take beyond the script's limits: the watchdog's wake-up, the last library
call, and a loaded test machine."""
HARMLESS = "          local spec = desiredObj.spec or {}\n"
HOSTILE = (
    f"          {REP}local s = rep('x', 1000000)\n"
    "          while true do local u = s:upper() .. s:lower() end\n"
)
"""GetReplicas's script lines 2 and 3 (a loop over C calls) in place of its line 2."""
BUDGET = WIDGETS * lua.Limits().seconds + MARGIN


def _make_hostile(root: Path) -> None:
    path = root / WIDGET
    text = path.read_text()
    assert HARMLESS in text
    path.write_text(text.replace(HARMLESS, HOSTILE, 1))


def _timed(cli: Invoke, *args: str) -> tuple[float, Result]:
    started = time.monotonic()
    result = cli(*args)
    return time.monotonic() - started, result


def _assert_reports_the_script(output: str) -> None:
    assert f"{WIDGET}:{SCRIPT_LINE}:" in output
    assert "Widget shop/" in output
    assert "lua line 3: time limit exceeded" in output


def test_render_stops_a_hostile_script(cli: Invoke, git_repo: GitRepo) -> None:
    shutil.copytree(EXAMPLE, git_repo.path, dirs_exist_ok=True)
    git_repo.commit({}, "fleet")
    repo = str(git_repo.path)
    assert cli("render", "--repo", repo).exit_code == 0
    web = git_repo.path / "apps/shop/web.yaml"
    git_repo.commit({"apps/shop/web.yaml": web.read_text().replace("replicas: 6", "replicas: 7")})
    usual, harmless = _timed(cli, "render", "--repo", repo)
    assert harmless.exit_code == 0, harmless.output
    good = git_repo.git("rev-parse", "refs/heads/gitfleet/rendered")

    _make_hostile(git_repo.path)
    git_repo.commit({}, "hostile widget script")
    elapsed, result = _timed(cli, "render", "--repo", repo)

    assert elapsed < usual + BUDGET
    assert result.exit_code == 1
    _assert_reports_the_script(result.output)
    assert git_repo.git("rev-parse", "refs/heads/gitfleet/rendered") == good


def test_preview_stops_a_hostile_script(cli: Invoke, git_repo: GitRepo) -> None:
    shutil.copytree(EXAMPLE, git_repo.path, dirs_exist_ok=True)
    git_repo.commit({}, "fleet")
    repo = str(git_repo.path)
    assert cli("render", "--repo", repo).exit_code == 0
    git_repo.git("checkout", "-q", "-b", "change")
    web = git_repo.path / "apps/shop/web.yaml"
    git_repo.commit({"apps/shop/web.yaml": web.read_text().replace("replicas: 6", "replicas: 9")})
    preview = ("preview", "--repo", repo, "--base", "main", "--head", "change")
    usual, harmless = _timed(cli, *preview)
    assert harmless.exit_code == 0, harmless.output

    _make_hostile(git_repo.path)
    git_repo.commit({}, "hostile widget script")
    elapsed, result = _timed(cli, *preview)

    assert elapsed < usual + BUDGET
    assert result.exit_code == 1
    _assert_reports_the_script(result.output)


def _timed_cycle(service: reconciler.Reconciler) -> tuple[float, reconciler.Outcome]:
    started = time.monotonic()
    outcome = service.cycle()
    return time.monotonic() - started, outcome


def test_reconciler_records_a_hostile_script_and_stays_up(fleet: Fleet) -> None:
    service = reconciler.Reconciler(reconciler.Settings(repo=str(fleet.remote)), lambda e: None)
    try:
        assert service.cycle() is reconciler.Outcome.RENDERED
        fleet.push_change()
        usual, outcome = _timed_cycle(service)
        assert outcome is reconciler.Outcome.RENDERED
        good = fleet.ref("gitfleet/rendered")

        _make_hostile(fleet.work)
        bad = fleet.commit_and_push()
        elapsed, outcome = _timed_cycle(service)

        assert elapsed < usual + BUDGET
        assert outcome is reconciler.Outcome.INVALID
        assert fleet.ref("gitfleet/rendered") == good
        error = fleet.reconciler_state().last_error
        assert error is not None
        assert (error.source_commit, error.path, error.line) == (bad, WIDGET, SCRIPT_LINE)
        assert "time limit exceeded" in error.message

        (fleet.work / WIDGET).write_text((EXAMPLE / WIDGET).read_text())
        fixed = fleet.push_change()
        assert service.cycle() is reconciler.Outcome.RENDERED
        assert fleet.rendered_source() == fixed
    finally:
        service.close()
