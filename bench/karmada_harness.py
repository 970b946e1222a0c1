"""Building gitfleet's Go harnesses (bench/karmada_*.go) inside a Karmada checkout, where
Karmada's vendored packages resolve, so that gitfleet's figures and answers can be set beside
those of Karmada's own code. The harnesses are gitfleet's code calling Karmada's exported API;
each is built with the request loop they share (`LOOP`), and the checkout is left as it was
found."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

LOOP = Path(__file__).with_name("karmada_harness.go")
"""The request loop of every harness (`serve`: a JSON line in, a JSON line out), built beside it."""

GO_FALLBACK = Path.home() / ".cache/gitfleet/realk8s/go/bin/go"
"""The Go toolchain the real API server tier installs (tests/realk8s.py)."""


def go_command(given: str | None) -> str:
    """`given`, else `go` on the PATH, else the real API server tier's; exits without one."""
    found = given or shutil.which("go") or (str(GO_FALLBACK) if GO_FALLBACK.exists() else None)
    if found is None:
        sys.exit("no Go toolchain: give --go")
    return found


def build(
    harness: Path,
    checkout: Path,
    go: str,
    into: Path,
    extras: Mapping[str, Path] | None = None,
) -> Path:
    """`harness` built as a program inside `checkout`, with `LOOP` beside it in its package,
    written into the folder `into`.

    `extras` maps a package folder of the checkout (e.g. `pkg/detector`) to one of gitfleet's Go
    files that is built into that package for the time of the build, e.g. to export what the
    harness asks of the package's unexported code; each is removed afterwards."""
    package = Path(tempfile.mkdtemp(prefix="gitfleetbench", dir=checkout))
    added = [
        checkout / folder / f"zz_{package.name}_{extra.name}"
        for folder, extra in (extras or {}).items()
    ]
    try:
        shutil.copyfile(harness, package / "main.go")
        shutil.copyfile(LOOP, package / "serve.go")
        for target, extra in zip(added, (extras or {}).values(), strict=True):
            if target.exists():
                sys.exit(f"{target} is in the way")
            shutil.copyfile(extra, target)
        binary = into / harness.stem
        env = {**os.environ, "GOTOOLCHAIN": "local", "GOFLAGS": "-mod=vendor", "GOPROXY": "off"}
        subprocess.run(
            [go, "build", "-o", str(binary), f"./{package.name}"], cwd=checkout, env=env, check=True
        )
        return binary
    finally:
        for target in added:
            target.unlink(missing_ok=True)
        shutil.rmtree(package)


@dataclasses.dataclass(frozen=True)
class Checkout:
    """A Karmada checkout, the go command to build in it, and its commit."""

    path: Path
    go: str
    commit: str


def checkout_from_command_line(description: str) -> Checkout:
    """The checkout named by `--karmada PATH [--go GO] [--commit SHA]`."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--karmada", type=Path, required=True, help="a Karmada checkout")
    parser.add_argument("--go", help="the go command (default: go on $PATH)")
    parser.add_argument("--commit", help="the checkout's commit, when it is no Git work tree")
    args = parser.parse_args()
    return Checkout(args.karmada, go_command(args.go), args.commit or _commit_of(args.karmada))


def answers(
    harness: Path,
    checkout: Path,
    go: str,
    cases: list[Any],
    extras: Mapping[str, Path] | None = None,
) -> list[Any]:
    """What `harness`, built inside `checkout` (with `extras`, see `build`), answers to each case
    (one JSON line in, one out)."""
    with tempfile.TemporaryDirectory() as tmp:
        binary = build(harness, checkout, go, Path(tmp), extras)
        lines = "".join(json.dumps(case) + "\n" for case in cases)
        done = subprocess.run([str(binary)], input=lines.encode(), capture_output=True)
    if done.returncode != 0:
        sys.exit(done.stderr.decode(errors="replace")[-4000:])
    return [json.loads(line) for line in done.stdout.decode().splitlines()]


def write_answers(path: Path, commit: str, answers: list[Any]) -> None:
    """`answers` of Karmada `commit`, one per seed, as the oracle tests read them
    (tests/oracle.py): compact sorted JSON, so that the same answers make the same file."""
    path.parent.mkdir(exist_ok=True)
    found = {"karmada": commit, "answers": answers}
    path.write_text(json.dumps(found, separators=(",", ":"), sort_keys=True) + "\n")
    print(f"wrote {path}: {len(answers)} answers of Karmada {commit}")


def _commit_of(checkout: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True
    )
    return done.stdout.decode().strip() or "unknown"
