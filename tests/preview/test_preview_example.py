"""Previews of changes to the example fleet, end to end over a real repository.

Aspects covered:
- a pull request that scales a workload, narrows a policy and adds a resource reads well as a
  comment: title with both revisions, the exact summary line, one placement row per moved
  resource (clusters removed, replicas before → after), the added resource with its clusters,
  and one folded diff per cluster naming its counts, nothing else;
- the base is read from the rendered branch when it renders the base, and rendered otherwise
  (to the same result); the head renders only the bindings the change touches;
- a head with errors is not rendered: the errors (file, line) lead the comment;
- the JSON form holds the same findings with stable keys;
- revisions that name no commit, and folders that are no repository, are source errors.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from preview.preview_changes import BREAK_WEB, GATEWAY_EU_ONLY, PROMO, SCALE_WEB, on_branch

from gitfleet import preview
from gitfleet.errors import SourceError
from gitfleet.preview import markdown, report


def test_comment_reads_well(example_fleet: Any) -> None:
    on_branch(example_fleet, "change", SCALE_WEB, GATEWAY_EU_ONLY,
              files={"apps/shop/promo.yaml": PROMO})  # fmt: skip
    found = preview.preview(example_fleet.path, "main", "change")
    text = markdown.render(found)
    lines = text.splitlines()
    base, head = found.base.commit[:12], found.head.commit[:12]
    assert lines[:4] == [
        markdown.MARKER,
        f"### gitfleet preview: `main` ({base}) → `change` ({head})",
        "",
        "**2 resources move, 1 resource added, 2 clusters gain 2 manifests, 2 lose 2, "
        "3 manifests change on 3 clusters, 1 binding changes**",
    ]
    assert (
        "#### Placement changes\n\n"
        "| resource | clusters | replicas |\n"
        "|---|---|---|\n"
        "| Deployment platform/gateway | removed aws-use1-a, aws-use1-b "
        "| aws-use1-a 2 → 0, aws-use1-b 2 → 0 |\n"
        "| Deployment shop/web | unchanged | aws-euw1 1 → 2, aws-use1-a 2 → 3, aws-use1-b 2 → 3 |\n"
    ) in text
    assert (
        "#### Resources added\n\n| resource | clusters |\n|---|---|\n"
        "| ConfigMap shop/promo | aws-euw1, gcp-euw1-a |\n"
    ) in text
    summaries = [line for line in lines if line.startswith("<details>")]
    assert summaries == [
        "<details><summary><code>aws-euw1</code>: 1 added, 1 changed</summary>",
        "<details><summary><code>aws-use1-a</code>: 1 changed, 1 removed</summary>",
        "<details><summary><code>aws-use1-b</code>: 1 changed, 1 removed</summary>",
        "<details><summary><code>gcp-euw1-a</code>: 1 added</summary>",
    ]
    assert "+++ b/works/aws-euw1/shop/ConfigMap.core/promo.yaml" in text
    assert "-  replicas: 1\n+  replicas: 2\n" in text
    assert "+++ /dev/null" in text
    assert text.count("```diff") == 4
    assert "Validation errors" not in text


def test_base_from_the_rendered_branch_or_rendered(example_fleet: Any) -> None:
    on_branch(example_fleet, "change", SCALE_WEB)
    reused = preview.preview(example_fleet.path, "main", "change")
    assert reused.base.obtained == "rendered-branch"
    assert reused.head.rendered == 1
    example_fleet.git("update-ref", "-d", "refs/heads/gitfleet/rendered")
    rendered = preview.preview(example_fleet.path, "main", "change")
    assert rendered.base.obtained == "render"
    assert rendered.base.rendered > 1
    assert rendered.head.rendered == 1
    assert markdown.render(rendered) == markdown.render(reused)


def test_head_with_errors_leads_with_them(example_fleet: Any) -> None:
    on_branch(example_fleet, "broken", BREAK_WEB)
    found = preview.preview(example_fleet.path, "main", "broken")
    assert not found.ok
    assert found.changes is None
    text = markdown.render(found)
    assert text.index("#### Validation errors") < text.index("nothing would be rendered")
    assert "apps/shop/web.yaml:" in text
    assert "Placement changes" not in text


def test_json_form(example_fleet: Any) -> None:
    on_branch(example_fleet, "change", GATEWAY_EU_ONLY)
    data = report.as_json(preview.preview(example_fleet.path, "main", "change"))
    assert data["summary"] == "1 resource moves, 2 clusters lose 2 manifests, 1 binding changes"
    (moved,) = data["moved"]
    assert moved["resource"] == {"kind": "Deployment", "group": "apps",
                                 "namespace": "platform", "name": "gateway"}  # fmt: skip
    assert moved["clustersRemoved"] == ["aws-use1-a", "aws-use1-b"]
    assert sorted(data["clusters"]) == ["aws-use1-a", "aws-use1-b"]
    assert data["clusters"]["aws-use1-a"]["removed"] == [
        "works/aws-use1-a/platform/Deployment.apps/gateway.yaml"
    ]
    assert data["base"]["obtained"] == "rendered-branch"
    (binding,) = data["bindings"]
    assert binding["resource"] == moved["resource"]
    assert binding["fields"] == [
        'spec.placement.clusterAffinity: {"labelSelector":{"matchLabels":{"env":"production"}}}'
        ' → {"labelSelector":{"matchLabels":{"geo":"eu"}}}'
    ]


def test_no_change_between_equal_sources(example_fleet: Any) -> None:
    found = preview.preview(example_fleet.path, "main", "main")
    assert found.changes is not None and found.changes.empty
    assert found.summary == "no change"


@pytest.mark.parametrize("rev", ["nope", "-x"])
def test_unknown_revision(example_fleet: Any, rev: str) -> None:
    with pytest.raises(SourceError, match="unknown revision"):
        preview.preview(example_fleet.path, "main", rev)


def test_not_a_repository(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="not a Git repository"):
        preview.preview(tmp_path, "main", "HEAD")
