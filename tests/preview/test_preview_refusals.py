"""`gitfleet preview` shows what merging would refuse, and fails the check on it.

Aspects covered (each through the CLI, over a real repository holding the example fleet):
- every kind of manifest a render refuses (a Secret in plain text, an override that does not
  apply, a cluster override that does not apply to a Namespace, a Lua ReviseReplica that fails,
  a manifest over 1.5 MiB after overrides) leads the comment under "Refused manifests" with its
  file and line, counts in the summary line, is listed under `refused` in the JSON with `ok`
  false, and makes the exit status 1;
- a refusal the base has too is marked as such, and still fails the check (merging leaves it);
- a head whose tree cannot be read, or that does not validate (a name that cannot be a path),
  is an error in the comment with file and line, not a crash or a silent pass;
- a rendered branch that is not at a render (reset to a source commit) is not read as the base.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest
from builders import make_size_bomb
from preview.preview_changes import SCALE_WEB, on_branch

from gitfleet.preview import markdown

SECRET = """\
apiVersion: v1
kind: Secret
metadata:
  name: creds
  namespace: shop
stringData:
  password: hunter2
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: creds
  namespace: shop
spec:
  resourceSelectors:
    - {apiVersion: v1, kind: Secret, name: creds}
  placement:
    clusterAffinity: {clusterNames: [aws-euw1]}
"""

EXTRAS = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {name}
  namespace: shop
  labels: {{extra: "yes"}}
data: {{a: b}}
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: extras
  namespace: shop
spec:
  resourceSelectors:
    - {{apiVersion: v1, kind: ConfigMap, labelSelector: {{matchLabels: {{extra: "yes"}}}}}}
  placement:
    clusterAffinity: {{clusterNames: [aws-euw1]}}
"""

BROKEN_RULE = """\
  overrideRules:
    - targetCluster: {clusterNames: [aws-euw1]}
      overriders:
        plaintext:
          - {path: /spec/missing/field, operator: replace, value: 1}
"""

OVERRIDE = f"""\
apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata:
  name: broken
  namespace: shop
spec:
  resourceSelectors:
    - {{apiVersion: v1, kind: ConfigMap, name: promo}}
{BROKEN_RULE}"""

NAMESPACE_OVERRIDE = f"""\
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterOverridePolicy
metadata:
  name: broken-namespaces
spec:
  resourceSelectors:
    - {{apiVersion: v1, kind: Namespace, name: shop}}
{BROKEN_RULE}"""

FAILING_LUA = (
    "interpreter/widget.yaml",
    "desiredObj.spec.replicas = desiredReplica",
    'error("no replicas here")',
)


PROMO = EXTRAS.format(name="promo")
BOMBS = {f"policies/bomb-{i}.yaml": json.dumps(make_size_bomb("promo", i)) for i in range(4)}
CASES = [
    pytest.param(
        {"apps/shop/creds.yaml": SECRET}, (),
        ("apps/shop/creds.yaml", 3, "", "Secret/shop/creds", "not written in plain text"),
        id="plain-text Secret",
    ),
    pytest.param(
        {"apps/shop/extras.yaml": PROMO, "policies/overrides/broken.yaml": OVERRIDE}, (),
        ("policies/overrides/broken.yaml", 13, "aws-euw1", "ConfigMap/shop/promo",
         "override policy shop/broken: "),
        id="override that does not apply",
    ),
    pytest.param(
        {"policies/overrides/broken.yaml": NAMESPACE_OVERRIDE}, (),
        ("policies/overrides/broken.yaml", 12, "aws-euw1", "Namespace/shop",
         "cluster override policy broken-namespaces: "),
        id="cluster override on a Namespace",
    ),
    pytest.param(
        {}, (FAILING_LUA,),
        ("interpreter/widget.yaml", 25, "aws-euw1", "Widget/shop/banner", "no replicas here"),
        id="Lua ReviseReplica that fails",
    ),
    pytest.param(
        {"apps/shop/extras.yaml": PROMO, **BOMBS},
        (),
        ("apps/shop/extras.yaml", 1, "aws-euw1", "ConfigMap/shop/promo", "over the limit of"),
        id="manifest over 1.5 MiB",
    ),
]  # fmt: skip


def preview(cli: Any, repo: Any, *args: str) -> Any:
    return cli("preview", "--repo", str(repo.path), "--base", "main", "--head", "pr", *args)


def refused_block(comment: str) -> list[str]:
    """The lines of the comment's "Refused manifests" code block."""
    section = comment.split("#### Refused manifests\n", 1)[1]
    return section.split("```\n")[1].splitlines()


@pytest.mark.parametrize(("files", "edits", "expected"), CASES)
def test_each_refusal_leads_the_comment_and_fails(
    cli: Any,
    example_fleet: Any,
    files: dict[str, str],
    edits: tuple[tuple[str, str, str], ...],
    expected: tuple[str, int, str, str, str],
) -> None:
    path, line, cluster, resource, message = expected
    on_branch(example_fleet, "pr", *edits, files=dict(files))
    shown = preview(cli, example_fleet)
    assert shown.exit_code == 1, shown.output
    comment = shown.stdout
    assert comment.startswith(markdown.MARKER)
    where = f" on cluster {cluster}" if cluster else ""
    wanted = f"{path}:{line}:"
    lines = refused_block(comment)
    assert any(
        entry.startswith(wanted) and f": {resource}{where}: " in entry and message in entry
        for entry in lines
    ), lines
    count = len(lines)
    assert f"\n**{count} manifest{'s' if count != 1 else ''} refused, " in comment
    assert comment.index("#### Refused manifests") < comment.index(f"**{count} manifest")
    data = json.loads(preview(cli, example_fleet, "-o", "json").stdout)
    assert data["ok"] is False and data["errors"] == []
    assert len(data["refused"]) == count
    assert any(
        (r["path"], r["line"], r["cluster"], r["resource"], r["onBase"])
        == (path, line, cluster, resource, False)
        and message in r["message"]
        for r in data["refused"]
    ), data["refused"]


def test_a_refusal_the_base_has_too_is_marked_and_fails(cli: Any, example_fleet: Any) -> None:
    example_fleet.commit({"apps/shop/creds.yaml": SECRET}, "a secret on main")
    assert cli("render", "--repo", str(example_fleet.path)).exit_code == 3
    on_branch(example_fleet, "pr", SCALE_WEB)
    shown = preview(cli, example_fleet)
    assert shown.exit_code == 1
    (entry,) = refused_block(shown.stdout)
    assert entry.startswith("apps/shop/creds.yaml:3:1: Secret/shop/creds: ")
    assert entry.endswith(" (refused on the base too)")
    summary = "**1 manifest refused, 1 resource moves, 3 manifests change on 3 clusters**"
    assert summary in shown.stdout
    data = json.loads(preview(cli, example_fleet, "-o", "json").stdout)
    assert data["base"]["obtained"] == "rendered-branch"
    assert [r["onBase"] for r in data["refused"]] == [True]


def test_a_head_whose_tree_cannot_be_read_is_an_error(cli: Any, example_fleet: Any) -> None:
    blob = example_fleet.git("rev-parse", "main:gitfleet.yaml")
    listing = f"100644 blob {blob}\t..\n100644 blob {blob}\tgitfleet.yaml\n"
    tree = subprocess.run(
        ["git", "mktree"], cwd=example_fleet.path, input=listing, text=True,
        capture_output=True, check=True,
    ).stdout.strip()  # fmt: skip
    crafted = example_fleet.git("commit-tree", tree, "-p", "main", "-m", "crafted")
    example_fleet.git("branch", "pr", crafted)
    shown = preview(cli, example_fleet)
    assert shown.exit_code == 1
    assert shown.stdout.startswith(markdown.MARKER)
    assert "#### Validation errors" in shown.stdout and "tree entry '..'" in shown.stdout
    data = json.loads(preview(cli, example_fleet, "-o", "json").stdout)
    assert data["ok"] is False and len(data["errors"]) == 1
    assert (data["base"]["obtained"], data["head"]["obtained"]) == ("none", "none")


def test_a_head_that_does_not_validate_is_an_error(cli: Any, example_fleet: Any) -> None:
    on_branch(example_fleet, "pr", files={"apps/shop/extras.yaml": EXTRAS.format(name='"a b"')})
    shown = preview(cli, example_fleet)
    assert shown.exit_code == 1
    assert "#### Validation errors" in shown.stdout
    assert "apps/shop/extras.yaml:4:3: " in shown.stdout and "name 'a b'" in shown.stdout
    data = json.loads(preview(cli, example_fleet, "-o", "json").stdout)
    assert data["ok"] is False and len(data["errors"]) == 1


def test_a_rendered_branch_that_is_no_render_is_not_read(cli: Any, example_fleet: Any) -> None:
    """A source commit that claims to render main (a Source-Commit trailer alone): read as the
    base, its tree of source files would make the pull request add every manifest."""
    main = example_fleet.git("rev-parse", "main")
    tree = example_fleet.git("rev-parse", "main^{tree}")
    claim = example_fleet.git("commit-tree", tree, "-m", f"claim\n\nSource-Commit: {main}")
    example_fleet.git("update-ref", "refs/heads/gitfleet/rendered", claim)
    on_branch(example_fleet, "pr", SCALE_WEB)
    shown = preview(cli, example_fleet, "-o", "json")
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.stdout)
    assert data["base"]["obtained"] == "render"
    assert data["summary"] == "1 resource moves, 3 manifests change on 3 clusters"
