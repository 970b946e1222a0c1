"""Ctrl-C in a command that has no stop handling of its own (or before it has installed it)
ends the command with exit 130, as a shell reports a command ended by Ctrl-C, and one line
saying so; never click's "Aborted!" with exit 1, which a script takes for a failure, and never
a traceback.

The signal is sent by a `git` placed first on PATH that runs the real one: at the first git
the command runs, SIGINT goes to the command (`$PPID`), which is waiting for that git.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from builders import make_deployment
from conftest import GitRepo

BOUND = 120.0
"""Seconds that only a hung command exceeds."""

GIT_INTERRUPTING = """\
#!/bin/sh
if mkdir "{mark}" 2>/dev/null; then kill -INT $PPID; sleep 1; fi
exec "{git}" "$@"
"""


@pytest.mark.parametrize("command", [["validate"], ["render"], ["explain", "deployment", "web"]])
def test_ctrl_c_exits_130(git_repo: GitRepo, tmp_path: Path, command: list[str]) -> None:
    git_repo.commit({"web.yaml": yaml.safe_dump(make_deployment("web", "default"))})
    real_git = shutil.which("git")
    assert real_git is not None
    wrapper = tmp_path / "bin" / "git"
    wrapper.parent.mkdir()
    mark = tmp_path / "interrupted"
    wrapper.write_text(GIT_INTERRUPTING.format(mark=mark, git=real_git))
    wrapper.chmod(0o755)
    done = subprocess.run(
        [sys.executable, "-m", "gitfleet", *command, "--repo", "source"],
        cwd=tmp_path,
        env={**os.environ, "PATH": f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}"},
        capture_output=True,
        text=True,
        timeout=BOUND,
        check=False,
    )
    assert mark.is_dir(), done.stderr
    assert done.returncode == 130, done.stdout + done.stderr
    assert done.stderr.strip().endswith("interrupted"), done.stderr
    assert "Aborted" not in done.stderr
    assert "Traceback" not in done.stderr
