"""Building gitfleet's Go harnesses (bench/karmada_*.go) inside a Karmada checkout, where
Karmada's vendored packages resolve, so that gitfleet's figures and answers can be set beside
those of Karmada's own code. The harnesses are gitfleet's code calling Karmada's exported API;
the checkout is left as it was found."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

GO_FALLBACK = Path.home() / ".cache/gitfleet/realk8s/go/bin/go"
"""The Go toolchain the real API server tier installs (tests/realk8s.py)."""


def go_command(given: str | None) -> str:
    """`given`, else `go` on the PATH, else the real API server tier's; exits without one."""
    found = given or shutil.which("go") or (str(GO_FALLBACK) if GO_FALLBACK.exists() else None)
    if found is None:
        sys.exit("no Go toolchain: give --go")
    return found


def build(harness: Path, checkout: Path, go: str, into: Path) -> Path:
    """`harness` built as a program inside `checkout`, written into the folder `into`."""
    package = Path(tempfile.mkdtemp(prefix="gitfleetbench", dir=checkout))
    try:
        shutil.copyfile(harness, package / "main.go")
        binary = into / harness.stem
        env = {**os.environ, "GOTOOLCHAIN": "local", "GOFLAGS": "-mod=vendor", "GOPROXY": "off"}
        subprocess.run(
            [go, "build", "-o", str(binary), f"./{package.name}"], cwd=checkout, env=env, check=True
        )
        return binary
    finally:
        shutil.rmtree(package)
