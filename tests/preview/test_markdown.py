"""The preview comment's Markdown.

Aspects covered:
- it starts with the hidden marker and a title naming both revisions, each as inline code
  that nothing in the revision's name (backticks, HTML, @mentions, new lines) breaks out of,
  and a revision of thousands of characters is cut in the middle;
- validation errors come first, in a code block, and the summary says nothing renders;
- refusals come next, in a code block, each marked when the base refuses it too (whatever its
  line there), at most 100 and then a count; the summary counts them before the changes;
- the placement table shows clusters added and removed and replicas before → after (0 where
  the resource is not placed);
  added and removed resources get their own tables; table cells escape `|`;
- each cluster's diffs are folded in a <details> block whose summary counts the changes;
  a diff holding ``` gets a longer fence;
- whatever the preview holds, the comment is at most its limit: a listed error of thousands
  of characters keeps its start and end and says how much was cut, errors that do not fit are
  counted, tables are cut row by row and diffs cut with a note, and the closing note names what
  was left out, while the summary is always there (a property test over hostile previews).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from preview.preview_builders import error, file_change, placement, preview_of, refusal

from gitfleet import render as rendering
from gitfleet.model.origin import Origin
from gitfleet.preview import diff, inputs, markdown, result


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
    assert text.endswith(
        f"_Not shown (comment size limit): {2000 - shown:,} of 2,000 clusters' diffs. "
        "Run `gitfleet preview` for all of it._\n"
    )


def test_a_placement_table_over_the_limit_is_cut_row_by_row() -> None:
    moved = tuple(placement(f"web-{i:05}", {"m1": 1}, {"m2": 1}) for i in range(3000))
    clusters = (diff.ClusterChanges("m1", (file_change("m1", "x", "removed", lines=100),)),)
    text = markdown.render(preview_of(diff.TreeDiff(moved, (), (), clusters)))
    assert len(text) <= markdown.LIMIT
    rows = [
        i for i in range(3000) if f"| Deployment shop/web-{i:05} | added m2; removed m1 |" in text
    ]
    assert rows == list(range(len(rows))) and 0 < len(rows) < 3000
    assert "<details>" not in text
    assert text.endswith(
        f"_Not shown (comment size limit): {3000 - len(rows):,} of 3,000 placement changes; "
        "1 of 1 clusters' diffs. Run `gitfleet preview` for all of it._\n"
    )


def test_long_errors_are_cut_and_counted_within_the_limit() -> None:
    """A pull request adding ConfigMaps whose names are thousands of characters long: each
    error keeps its file and line and what is wrong, and the comment stays within the limit
    that `--limit` sets."""
    errors = tuple(
        error(f"apps/long{i}.yaml", 4, f"ConfigMap default/{'x' * 6000}: metadata.name: too long")
        for i in range(60)
    )
    for limit in (markdown.LIMIT, markdown.MIN_LIMIT):
        text = markdown.render(preview_of(None, errors), limit)
        assert len(text) <= limit
        assert "apps/long0.yaml:4:3: error: ConfigMap default/xxx" in text
        assert re.search(r"x …\([\d,]+ characters cut\)… x+: metadata.name: too long\n", text)
        assert "**60 validation errors: nothing would be rendered**" in text
    assert "\n... and 59 more\n" in text


def test_a_long_revision_is_cut_in_the_title() -> None:
    preview = dataclasses.replace(
        preview_of(diff.TreeDiff((), (), (), ())),
        head=result.Side("feature/" + "`" * 5000 + "/end", "b" * 40, "render"),
    )
    title = markdown.render(preview).splitlines()[1]
    assert len(title) < 400
    assert re.fullmatch(
        r"### gitfleet preview: `main` \(a{12}\) → (`+)feature/`+ …\([\d,]+ characters cut\)…"
        r" `+/end\1 \(b{12}\)",
        title,
    )


def test_a_limit_below_the_smallest_is_refused() -> None:
    with pytest.raises(ValueError, match="below 1000"):
        markdown.render(preview_of(diff.TreeDiff((), (), (), ())), markdown.MIN_LIMIT - 1)


_HOSTILE = st.one_of(
    st.text(max_size=40),
    st.builds(
        lambda piece, times, tail: piece * times + tail,
        st.sampled_from(["`", "x", "|", "\n", "<b>", "é"]),
        st.integers(0, 7000),
        st.text(alphabet="`|\n x", max_size=10),
    ),
)
_COUNTS = st.one_of(st.none(), st.integers(0, 10**9))


def _many(draw: st.DrawFn, items: st.SearchStrategy[Any], times: int = 40) -> tuple[Any, ...]:
    """A few hostile things, repeated up to `times` times (a hundred different ones cost
    hypothesis more than they find)."""
    return tuple(draw(st.lists(items, max_size=3))) * draw(st.integers(1, times))


@st.composite
def _placements(draw: st.DrawFn) -> diff.Placement:
    clusters = st.dictionaries(_HOSTILE, _COUNTS, max_size=4).map(
        lambda found: {f"{name}{i}": n for name, n in found.items() for i in range(30)}
    )
    resource = diff.Resource(draw(_HOSTILE), draw(_HOSTILE), draw(_HOSTILE))
    return diff.Placement(resource, draw(clusters), draw(clusters))


@st.composite
def _clusters(draw: st.DrawFn) -> diff.ClusterChanges:
    files = st.builds(diff.FileChange, _HOSTILE, st.sampled_from(["added", "changed", "removed"]),
                      _HOSTILE)  # fmt: skip
    return diff.ClusterChanges(draw(_HOSTILE), _many(draw, files, times=5))


@st.composite
def _previews(draw: st.DrawFn) -> result.Preview:
    """Previews as `gitfleet preview` makes them (a head with errors is not rendered), holding
    whatever a hostile pull request could put in them."""
    found = dataclasses.replace(
        preview_of(None),
        base=result.Side(draw(_HOSTILE), "a" * 40, "render"),
        head=result.Side(draw(_HOSTILE), "b" * 40, "render"),
        base_errors=tuple(error("b.yaml", 1, m) for m in draw(st.lists(_HOSTILE, max_size=2))),
    )
    if draw(st.booleans()):
        messages = _many(draw, _HOSTILE) or ("",)
        return dataclasses.replace(found, errors=tuple(error("a.yaml", 1, m) for m in messages))
    bindings = st.builds(
        diff.BindingChange,
        st.just(diff.Resource("Deployment", "shop", "web")),
        st.lists(_HOSTILE, max_size=3).map(tuple),
    )
    changes = diff.TreeDiff(
        _many(draw, _placements()), _many(draw, _placements()), _many(draw, _placements()),
        _many(draw, _clusters()), _many(draw, bindings),
    )  # fmt: skip
    refused = st.builds(rendering.Refusal, st.just(Origin("a.yaml", 1, 1)), _HOSTILE, _HOSTILE,
                        _HOSTILE)  # fmt: skip
    names = st.lists(_HOSTILE, max_size=4).map(lambda found: tuple(found * 10))
    waves = st.builds(result.Wave, _HOSTILE, names, names)
    beyond = st.builds(inputs.InputChange, _HOSTILE, _HOSTILE,
                       st.lists(_HOSTILE, max_size=3).map(tuple))  # fmt: skip
    return dataclasses.replace(
        found, changes=changes, refusals=_many(draw, refused), waves=_many(draw, waves),
        beyond=_many(draw, beyond),
    )  # fmt: skip


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.data_too_large])  # fmt: skip
@given(_previews(), st.one_of(st.integers(markdown.MIN_LIMIT, 3000), st.just(markdown.LIMIT)))
def test_the_comment_never_exceeds_its_limit(found: result.Preview, limit: int) -> None:
    text = markdown.render(found, limit)
    assert len(text) <= limit
    assert text.startswith(markdown.MARKER + "\n### gitfleet preview: ")
    assert f"\n**{found.summary}**\n" in text
    if found.errors:
        assert "#### Validation errors" in text
