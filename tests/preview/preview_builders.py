"""Builders for preview results, shared by the formatting tests."""

from __future__ import annotations

from gitfleet import render as rendering
from gitfleet.model import diagnostic
from gitfleet.model.origin import Origin
from gitfleet.preview import diff, result


def side(rev: str, commit: str) -> result.Side:
    return result.Side(rev=rev, commit=commit, obtained="render")


def placement(
    name: str, before: dict[str, int | None], after: dict[str, int | None]
) -> diff.Placement:
    return diff.Placement(diff.Resource("Deployment", "shop", name, "apps"), before, after)


def file_change(cluster: str, name: str, change: str, lines: int = 1) -> diff.FileChange:
    path = f"works/{cluster}/shop/Deployment.apps/{name}.yaml"
    body = "".join(f"+line {i}\n" for i in range(lines))
    return diff.FileChange(
        path, change, f"--- a/{path}\n+++ b/{path}\n@@ -0,0 +1,{lines} @@\n{body}"
    )


def preview_of(
    changes: diff.TreeDiff | None,
    errors: tuple[diagnostic.Diagnostic, ...] = (),
    refusals: tuple[rendering.Refusal, ...] = (),
    base_refusals: tuple[rendering.Refusal, ...] = (),
) -> result.Preview:
    return result.Preview(
        base=side("main", "a" * 40), head=side("HEAD", "b" * 40), errors=errors, changes=changes,
        refusals=refusals, base_refusals=base_refusals,
    )  # fmt: skip


def refusal(name: str, cluster: str = "", line: int = 4) -> rendering.Refusal:
    return rendering.Refusal(
        Origin("apps/shop/web.yaml", line, 3), f"ConfigMap/shop/{name}", cluster, "refused"
    )


def error(path: str, line: int, message: str) -> diagnostic.Diagnostic:
    return diagnostic.error(Origin(path, line, 3), message)
