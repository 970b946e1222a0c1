"""The `gitfleet` process: the cycle collector's settings it runs with."""

from __future__ import annotations

import subprocess
import sys

from gitfleet.cli import main


def test_the_command_runs_with_fewer_young_collections() -> None:
    # Run in a child: the setting is process-wide, and this test process keeps its own.
    probe = (
        "import gc, sys; from gitfleet.cli import main; "
        "sys.argv = ['gitfleet', '--version']; "
        "import atexit; atexit.register(lambda: print(gc.get_threshold()[0])); main.main()"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == str(main.YOUNG_COLLECTION_THRESHOLD)
