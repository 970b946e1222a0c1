"""The ref watcher on a real bare repository.

Aspects covered:
- once started, a push to the watched branch wakes the reconciler (within a bounded wait);
- pushes to other refs (the rendered branch, status refs) do not;
- the watcher thread ends soon after the stop event is set.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gitfleet.service import wakeup, watcher


def test_push_to_the_branch_wakes_and_others_do_not(git_repo: Any, bare_remote: Path) -> None:
    git_repo.commit({"a.yaml": "a: 1\n"})
    git_repo.git("push", "-q", "origin", "main")
    wake = wakeup.Wakeup()
    watch = watcher.RefWatcher(bare_remote, "refs/heads/main", wake)
    watch.start()
    try:
        wake.wait(0)  # the start-up poke
        git_repo.git("push", "-q", "origin", "main:refs/heads/gitfleet/rendered")
        git_repo.commit({"a.yaml": "a: 2\n"})
        git_repo.git("push", "-q", "origin", "main")
        assert wake.wait(10) == ("watch",)
        git_repo.git("push", "-q", "origin", "main:refs/heads/gitfleet/status/m1")
        assert wake.wait(0.5) == ()
    finally:
        wake.stop()
        watch.join(10)
    assert not watch.alive
