"""The preview comment's Markdown.

Aspects covered:
- it starts with the hidden marker and a title naming both revisions, each as inline code
  that nothing in the revision's name (backticks, HTML, @mentions, new lines) breaks out of;
- validation errors come first, in a code block, and the summary says nothing renders;
- refusals come next, in a code block, each marked when the base refuses it too (whatever its
  line there), at most 100 and then a count; the summary counts them before the changes;
- the placement table shows clusters added and removed and replicas before → after (0 where
  the resource is not placed);
  added and removed resources get their own tables; table cells escape `|`;
- each cluster's diffs are folded in a <details> block whose summary counts the changes;
  a diff holding ``` gets a longer fence;
- over the limit, diffs are cut with a note, clusters that do not fit at all are counted,
  and the placement table is never cut, however long.
"""

from __future__ import annotations

import dataclasses
import re

import pytest
from preview.preview_builders import error, file_change, placement, preview_of, refusal

from gitfleet.preview import diff, markdown, result


def test_marker_title_and_summary() -> None:
    text = markdown.render(preview_of(diff.TreeDiff((), (), (), ())))
    lines = text.splitlines()
    assert lines[0] == markdown.MARKER
    assert lines[1] == f"### gitfleet preview: `main` ({'a' * 12}) → `HEAD` ({'b' * 12})"
    assert "**no change**" in text


@pytest.mark.parametrize(
    ("rev", "shown"),
    [
        pytest.param("pr`<img src=x>`@admin", "``pr`<img src=x>`@admin``", id="backticks"),
        pytest.param("``x", "``` ``x ```", id="leading backticks"),
        pytest.param("a\n# b", "`a # b`", id="new line"),
    ],
)
def test_revisions_stay_inside_their_code_span(rev: str, shown: str) -> None:
    """A pull request's branch name (as CI passes it to --head) can hold backticks, HTML and
    @mentions: in the title they stay code, whatever they hold."""
    preview = dataclasses.replace(
        preview_of(diff.TreeDiff((), (), (), ())),
        head=result.Side(rev, "b" * 40, "render"),
    )
    title = markdown.render(preview).splitlines()[1]
    assert title == f"### gitfleet preview: `main` ({'a' * 12}) → {shown} ({'b' * 12})"


def test_validation_errors_come_first() -> None:
    errors = (error("apps/web.yaml", 4, "spec.replicas: must be an integer"),)
    text = markdown.render(preview_of(None, errors))
    assert text.index("#### Validation errors") < text.index("**1 validation error")
    assert "apps/web.yaml:4:3: error: spec.replicas: must be an integer" in text
    assert "nothing would be rendered" in text


def test_refusals_come_before_the_summary() -> None:
    on_base = refusal("old", "east", line=9)
    found = preview_of(
        diff.TreeDiff((), (), (), ()),
        refusals=(refusal("new", "east"), on_base),
        base_refusals=(refusal("old", "east", line=7),),
    )
    text = markdown.render(found)
    assert text.index("#### Refused manifests") < text.index("**2 manifests refused, no change**")
    assert "apps/shop/web.yaml:4:3: ConfigMap/shop/new on cluster east: refused\n" in text
    assert (
        "web.yaml:9:3: ConfigMap/shop/old on cluster east: refused (refused on the base too)"
        in text
    )
    assert not found.ok


def test_refusals_are_counted_past_one_hundred() -> None:
    many = tuple(refusal(f"c{i:03}") for i in range(150))
    text = markdown.render(preview_of(diff.TreeDiff((), (), (), ()), refusals=many))
    assert "ConfigMap/shop/c099: refused\n... and 50 more\n" in text
    assert "c100" not in text and "**150 manifests refused, no change**" in text


def test_placement_and_resource_tables() -> None:
    changes = diff.TreeDiff(
        moved=(placement("web", {"m1": 2, "m2": 2}, {"m2": 3, "m3": 1}),),
        added=(placement("new", {}, {"m1": 1, "m2": None}),),
        removed=(placement("old", {"m3": 4}, {}),),
        clusters=(),
    )
    text = markdown.render(preview_of(changes))
    assert "| Deployment shop/web | added m3; removed m1 | m1 2 → 0, m2 2 → 3, m3 0 → 1 |" in text
    assert "#### Resources added\n\n| resource | clusters |\n|---|---|\n" \
           "| Deployment shop/new | m1 (1), m2 |" in text  # fmt: skip
    assert "#### Resources removed\n\n| resource | clusters |\n|---|---|\n" \
           "| Deployment shop/old | m3 (4) |" in text  # fmt: skip


def test_cells_escape_pipes() -> None:
    moved = diff.Placement(diff.Resource("Odd", "ns", "a|b"), {"m1": 1}, {"m1": 2})
    text = markdown.render(preview_of(diff.TreeDiff((moved,), (), (), ())))
    assert "| Odd ns/a\\|b | unchanged | m1 1 → 2 |" in text


def test_cluster_diffs_are_folded() -> None:
    cluster = diff.ClusterChanges(
        "m1", (file_change("m1", "a", "added"), file_change("m1", "b", "changed"))
    )
    text = markdown.render(preview_of(diff.TreeDiff((), (), (), (cluster,))))
    assert "<details><summary><code>m1</code>: 1 added, 1 changed</summary>\n\n```diff\n" in text
    assert text.rstrip().endswith("</details>")


def test_fence_outgrows_backticks_in_the_diff() -> None:
    change = diff.FileChange("works/m1/x.yaml", "added", "+text: ```` quoted\n")
    text = markdown.render(
        preview_of(diff.TreeDiff((), (), (), (diff.ClusterChanges("m1", (change,)),)))
    )
    assert "`````diff\n+text: ```` quoted\n`````" in text


def test_long_diffs_are_cut_to_fit_with_a_note() -> None:
    clusters = tuple(
        diff.ClusterChanges(f"m{i}", (file_change(f"m{i}", "web", "added", lines=3000),))
        for i in range(5)
    )
    changes = diff.TreeDiff((placement("web", {}, {"m1": 1}),), (), (), clusters)
    text = markdown.render(preview_of(changes))
    assert len(text) <= markdown.LIMIT
    assert text.count("<details>") == 5
    assert text.count("_Diff cut short:") == 5
    assert text.count("<details>") == text.count("</details>")
    assert len(re.findall(r"^```$", text, re.M)) == 5


def test_clusters_that_do_not_fit_are_counted() -> None:
    clusters = tuple(
        diff.ClusterChanges(f"m{i:04}", (file_change(f"m{i:04}", "web", "added"),))
        for i in range(2000)
    )
    text = markdown.render(preview_of(diff.TreeDiff((), (), (), clusters)))
    assert len(text) <= markdown.LIMIT
    shown = text.count("<details>")
    assert 0 < shown < 2000
    assert f"_Diffs of {2000 - shown} more clusters not shown" in text


def test_placement_table_is_never_cut() -> None:
    moved = tuple(placement(f"web-{i:05}", {"m1": 1}, {"m2": 1}) for i in range(3000))
    clusters = (diff.ClusterChanges("m1", (file_change("m1", "x", "removed", lines=100),)),)
    text = markdown.render(preview_of(diff.TreeDiff(moved, (), (), clusters)))
    assert all(
        f"| Deployment shop/web-{i:05} | added m2; removed m1 |" in text for i in range(3000)
    )
    assert "<details>" not in text
    assert "_Diffs of 1 more cluster not shown" in text
