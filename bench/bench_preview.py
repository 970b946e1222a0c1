"""Preview a one-file pull request in a generated fleet of 1,000 templates x 50 clusters (the
render benchmark's fleet), as `gitfleet preview` runs it.

Measures, after rendering `main` onto the rendered branch:
- the preview of a branch that changes one template, the base read from the rendered branch
  (budget 2 s);
- the same preview when the rendered branch does not render the base (the base is rendered on
  top of it first);
- the baseline, in the same run: a full render of the head from scratch, which is what a
  preview that rendered both sides whole would pay twice. Ratios are to it.

    python -m bench.bench_preview      (from the repository root)
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from bench.bench_render import _git, generate
from gitfleet import collector, pipeline, preview, source
from gitfleet.cli import render as render_command
from gitfleet.preview import markdown

BUDGET = 2.0


def _preview(repo: Path) -> tuple[float, preview.result.Preview]:
    start = time.perf_counter()
    found = preview.preview(repo, "main", "change")
    markdown.render(found)
    return time.perf_counter() - start, found


def main() -> None:
    collector.tune()  # as `gitfleet` sets the process up
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "source"
        print("fleet: 1000 templates x 50 clusters")
        generate(repo, 1000, 50)
        outcome = render_command.run(str(repo), None, None, None, False)
        assert outcome.result.ok
        _git(repo, "checkout", "-q", "-b", "change")
        changed = repo / "apps" / "app00007.yaml"
        changed.write_text(changed.read_text().replace("1.0", "2.0"))
        _git(repo, "commit", "-q", "-am", "one template")
        _git(repo, "checkout", "-q", "main")

        start = time.perf_counter()
        loaded = source.load(repo, "change")
        assert pipeline.render(loaded, None, None).ok
        baseline = time.perf_counter() - start

        warm, found = _preview(repo)
        assert found.base.obtained == "rendered-branch" and found.head.rendered == 1
        assert found.changes is not None and found.changes.clusters
        _git(repo, "commit", "-q", "--allow-empty", "-m", "base moved on")
        cold, found = _preview(repo)
        assert found.base.obtained == "render"

        print(f"  baseline, full render of the head: {baseline:6.2f} s")
        print(f"  preview, base on rendered branch:  {warm:6.2f} s  ratio {warm / baseline:.2f}x")
        print(f"  preview, base rendered first:      {cold:6.2f} s  ratio {cold / baseline:.2f}x")
        print(f"  summary: {found.summary}")
        verdict = "ok" if warm <= BUDGET else "OVER"
        print(f"  budget one-file preview: {BUDGET} s -> {verdict}")
    sys.exit(0 if warm <= BUDGET else 1)


if __name__ == "__main__":
    main()
