"""Two reconcilers on the same repository: one wins each commit, none loses work.

Aspects covered, for a local (bare) repository and for a remote reached by two mirrors:
- every source commit, pushed one at a time, is rendered exactly once (two reconcilers that
  render the same commit at the same second make the very same commit, which both may push);
- under a burst of pushes the rendered branch's history stays linear (each render's parent is
  the previous render), ends at the newest commit, and no render commit is lost or repeated.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from service.service_helpers import Fleet, Running, Start, wait_for

from gitfleet.service import reconciler


def two(fleet: Fleet, tmp_path: Path, start: Start, where: str) -> list[Running]:
    found = []
    for name in ("one", "two"):
        if where == "local":
            settings = reconciler.Settings(repo=str(fleet.remote), interval=0.1)
        else:
            settings = reconciler.Settings(
                repo=fleet.url, interval=0.1, cache=tmp_path / f"cache-{name}"
            )
        found.append(start(settings))
    return found


def linear(fleet: Fleet) -> None:
    renders = fleet.renders()
    commits = fleet.git("rev-list", "gitfleet/rendered").split()
    for (_, parents), parent in zip(renders, [*commits[1:], None], strict=True):
        assert parents == ([parent] if parent else [])


@pytest.mark.parametrize("where", ["local", "remote"])
def test_each_commit_rendered_once(fleet: Fleet, tmp_path: Path, start: Start, where: str) -> None:
    running = two(fleet, tmp_path, start, where)
    sources = [fleet.ref("main")]
    wait_for(lambda: fleet.rendered_source() == sources[0], "the first render")
    for _ in range(3):
        sources.append(fleet.push_change())
        wait_for(lambda: fleet.rendered_source() == sources[-1], "the pushed commit rendered")

    def rendered() -> set[str]:
        return {e.source for r in running for e in r.find("rendered")}

    wait_for(lambda: rendered() == set(sources), "every render logged")
    assert [s for s, _ in fleet.renders()] == sources[::-1]
    linear(fleet)


@pytest.mark.parametrize("where", ["local", "remote"])
def test_burst_keeps_history_linear(fleet: Fleet, tmp_path: Path, start: Start, where: str) -> None:
    two(fleet, tmp_path, start, where)
    pushed = [fleet.push_change() for _ in range(6)]
    wait_for(lambda: fleet.rendered_source() == pushed[-1], "the newest commit rendered")
    linear(fleet)
    sources = [s for s, _ in fleet.renders()]
    assert len(sources) == len(set(sources))
    assert set(sources) <= {fleet.git("rev-parse", "main~6"), *pushed}
