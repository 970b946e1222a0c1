"""`gitfleet validate`: output formats, paths and exit codes.

Aspects covered:
- a clean source prints nothing on stdout and exits 0; a source without any object warns on
  stderr that it may be the wrong folder, and exits 0; warnings alone exit 0 (a label
  selector Kubernetes cannot convert among them, and other values Karmada's webhooks take:
  they render); any error exits 1; stderr says
  what was read (a folder, a working tree, a commit and how it was chosen);
- each problem is one line `path:line:col: severity: message`, paths as seen from the working
  directory (prefixed with --repo, bare with the default `.`);
- `-o json` is a stable, sorted list of {path, line, col, severity, message};
- a `kind: List` is read as its items, each problem at its own line;
- a repository's top is read as its working tree (on any branch, whatever the source branch;
  uncommitted and untracked files included), or at the commit --rev; a bare repository at its
  source branch;
- --rev with a plain folder is a usage error (exit 2); an unknown revision exits 1 with one
  located line on stderr;
- a sourceBranch the repository does not have is an error at the setting (working tree and
  --rev), where render stops too; the branch HEAD names before the first commit is not missing;
- what render would stop at is an error here too: a Lua GetReplicas failing on a template
  (found by placing the templates), located at the script, once.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from validation.documents import FLEET, variant

Invoke = Callable[..., Result]

CLEAN = FLEET
MEMBER = "clusters/member1.yaml"


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def test_clean_source_prints_nothing(cli: Invoke, tmp_path: Path) -> None:
    result = cli("validate", "--repo", str(write(tmp_path, CLEAN)))
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == f"checked the folder {tmp_path}\n"


def test_a_folder_without_any_object_passes_with_a_warning(cli: Invoke, tmp_path: Path) -> None:
    """An empty source is valid, and far more often the wrong folder (kubectl says "no objects
    passed to apply")."""
    root = write(tmp_path / "notes", {"README.md": "# not a source\n"})
    result = cli("validate", "--repo", str(root))
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr.splitlines() == [
        f"checked the folder {root}",
        "warning: no Kubernetes or Karmada object was found there: is it the source repository?"
        " (files read: gitfleet.yaml's include patterns, by default **/*.yaml and **/*.yml)",
    ]


def test_warnings_alone_pass(cli: Invoke, tmp_path: Path) -> None:
    names = "clusterNames: [member1, member2]"
    unknown = variant("policies/web.yaml", names, names.replace("member2", "member9"))
    root = write(tmp_path, unknown)
    result = cli("validate", "--repo", str(root))
    assert result.exit_code == 0
    assert result.stdout == (
        f"{root}/policies/web.yaml:21:31: warning: PropagationPolicy shop/web: "
        "spec.placement.clusterAffinity.clusterNames.1: no Cluster named 'member9'\n"
    )


def test_a_selector_kubernetes_cannot_convert_warns_and_renders(
    cli: Invoke, tmp_path: Path
) -> None:
    """As Karmada takes such a policy: the selector matches nothing, the render goes on."""
    broken = variant("policies/web.yaml", "matchLabels: {app: web}", "matchLabels: {app: 'a b'}")
    root = write(tmp_path / "source", broken)
    result = cli("validate", "--repo", str(root))
    assert result.exit_code == 0
    assert "labelSelector.matchLabels.app: 'a b' must be empty or consist of" in result.stdout
    rendered = cli("render", "--repo", str(root), "--out", str(tmp_path / "out"))
    assert rendered.exit_code in (0, 3), rendered.output  # 3: this fleet serves no Deployments
    assert "Kubernetes cannot convert the selector, which matches nothing" in rendered.output
    assert (tmp_path / "out" / "works").is_dir()


def test_values_karmada_takes_warn_and_render(cli: Invoke, tmp_path: Path) -> None:
    """A policy Karmada's webhook takes renders, whatever gitfleet thinks of its values: an
    unknown toleration operator, a field selector expression without values."""
    policy = (
        CLEAN["policies/web.yaml"]
        .replace("operator: Equal, value: gpu", "operator: equal, value: gpu")
        .replace("{key: region, operator: In, values: [us-east-1]}", "{key: zone, operator: NotIn}")
    )
    root = write(tmp_path / "source", {**CLEAN, "policies/web.yaml": policy})
    result = cli("validate", "--repo", str(root))
    assert result.exit_code == 0, result.stdout
    assert [line.rsplit(": ", 1)[1] for line in result.stdout.splitlines()] == [
        "operator NotIn without values excludes no zone",
        "it tolerates no taint",
    ]
    rendered = cli("render", "--repo", str(root), "--out", str(tmp_path / "out"))
    assert rendered.exit_code in (0, 3), rendered.output  # 3: this fleet serves no Deployments
    assert (tmp_path / "out" / "works").is_dir()


def test_errors_fail_with_one_line_each(cli: Invoke, tmp_path: Path) -> None:
    broken = {**variant(MEMBER, "syncMode: Push", "syncMode: Sideways"), "x.yaml": "kind: X\n"}
    root = write(tmp_path, broken)
    result = cli("validate", "--repo", str(root))
    assert result.exit_code == 1
    unknown = "spec.placement.{}: no Cluster named 'member1'"
    assert result.stdout.splitlines() == [
        f"{root}/{MEMBER}:8:3: error: Cluster member1: spec.syncMode: unsupported value "
        "'Sideways': expected one of 'Push', 'Pull'",
        f"{root}/policies/crds.yaml:12:24: warning: ClusterPropagationPolicy crds: "
        + unknown.format("clusterAffinities.0.clusterNames.0"),
        f"{root}/policies/web-override.yaml:13:24: warning: OverridePolicy shop/web: "
        "spec.overrideRules.0.targetCluster.clusterNames.0: no Cluster named 'member1'",
        f"{root}/policies/web.yaml:21:22: warning: PropagationPolicy shop/web: "
        + unknown.format("clusterAffinity.clusterNames.0"),
        f"{root}/policies/web.yaml:34:44: warning: PropagationPolicy shop/web: "
        + unknown.format(
            "replicaScheduling.weightPreference.staticWeightList.0.targetCluster.clusterNames.0"
        ),
        f"{root}/x.yaml:1:1: error: document has no apiVersion",
    ]


def test_paths_are_bare_from_the_source_itself(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(write(tmp_path, {**CLEAN, "x.yaml": "kind: X\n"}))
    result = cli("validate")
    assert result.stdout == "x.yaml:1:1: error: document has no apiVersion\n"


def test_json_output(cli: Invoke, tmp_path: Path) -> None:
    root = write(tmp_path, {**CLEAN, "x.yaml": "a: 1\na: 2\n"})
    result = cli("validate", "--repo", str(root), "-o", "json")
    assert result.exit_code == 1
    assert json.loads(result.stdout) == [
        {
            "path": f"{root}/x.yaml",
            "line": 2,
            "col": 1,
            "severity": "error",
            "message": "duplicate key 'a'",
        }
    ]
    assert result.stdout == cli("validate", "--repo", str(root), "-o", "json").stdout


def test_the_working_tree_is_read(cli: Invoke, git_repo: Any) -> None:
    git_repo.commit({**CLEAN, "gitfleet.yaml": "sourceBranch: main\n"})
    git_repo.git("checkout", "-q", "-b", "feature")
    (git_repo.path / "untracked.yaml").write_text("not: [valid\n")
    result = cli("validate", "--repo", str(git_repo.path))
    assert result.exit_code == 1
    assert result.stdout.startswith(f"{git_repo.path}/untracked.yaml:2:1: error:")
    assert result.stderr == (
        f"checked the working tree of {git_repo.path} (uncommitted changes included)\n"
    )


def test_a_commit_is_read_at_rev(cli: Invoke, git_repo: Any) -> None:
    first = git_repo.commit({**CLEAN, "x.yaml": "kind: X\n"})
    git_repo.commit({"x.yaml": None})
    assert cli("validate", "--repo", str(git_repo.path)).exit_code == 0
    old = cli("validate", "--repo", str(git_repo.path), "--rev", first)
    assert old.exit_code == 1
    assert old.stdout.endswith("x.yaml:1:1: error: document has no apiVersion\n")
    assert old.stderr == f"checked commit {first[:12]} of {git_repo.path} (--rev {first})\n"


def test_a_bare_repository_is_read_at_its_source_branch(
    cli: Invoke, git_repo: Any, tmp_path: Path
) -> None:
    released = git_repo.commit({**CLEAN, "gitfleet.yaml": "sourceBranch: release\n"})
    git_repo.git("branch", "release")
    git_repo.commit({"x.yaml": "kind: X\n"})
    bare = tmp_path / "fleet.git"
    git_repo.git("clone", "-q", "--bare", str(git_repo.path), str(bare))
    result = cli("validate", "--repo", str(bare))
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == f"checked commit {released[:12]} of {bare} (source branch release)\n"


def test_a_source_branch_that_does_not_exist(cli: Invoke, git_repo: Any) -> None:
    """render reads the sourceBranch when no --rev is given: a name the repository does not
    have stops it, so validate says so, at the setting, whichever revision it checks."""
    write(
        git_repo.path, {**CLEAN, "gitfleet.yaml": "# the branch CI renders\nsourceBranch: main\n"}
    )
    unborn = cli("validate", "--repo", str(git_repo.path))
    assert (unborn.exit_code, unborn.stdout) == (0, ""), unborn.output
    git_repo.commit({"gitfleet.yaml": "# the branch CI renders\nsourceBranch: release\n"})
    where = f"{git_repo.path}/gitfleet.yaml:2:1"
    message = (
        "sourceBranch: branch 'release' does not exist: render reads it when no --rev is given"
    )
    for rev in ([], ["--rev", "HEAD"]):
        checked = cli("validate", "--repo", str(git_repo.path), *rev)
        assert checked.exit_code == 1, checked.output
        assert checked.stdout.startswith(f"{where}: error: {message}")
    rendered = cli("render", "--repo", str(git_repo.path))
    assert rendered.exit_code == 1
    assert rendered.stderr.startswith(f"{where}: {message}")
    git_repo.git("branch", "release")
    assert cli("validate", "--repo", str(git_repo.path)).exit_code == 0


def test_rev_of_a_plain_folder_is_a_usage_error(cli: Invoke, tmp_path: Path) -> None:
    result = cli("validate", "--repo", str(write(tmp_path, CLEAN)), "--rev", "HEAD")
    assert result.exit_code == 2
    assert "--rev needs a Git repository" in result.stderr


def test_unknown_revision(cli: Invoke, git_repo: Any) -> None:
    git_repo.commit(CLEAN)
    result = cli("validate", "--repo", str(git_repo.path), "--rev", "v9")
    assert result.exit_code == 1
    assert result.stderr == f"{git_repo.path}: unknown revision 'v9'\n"
    assert result.stdout == ""


def test_list_items_are_read_and_located(cli: Invoke, tmp_path: Path) -> None:
    """A `kind: List` is read as its items, each checked where it is written."""
    items = (
        "apiVersion: v1\nkind: List\nitems:\n"
        "- {apiVersion: v1, kind: ConfigMap, metadata: {name: ok, namespace: shop}}\n"
        "- apiVersion: cluster.karmada.io/v1alpha1\n  kind: Cluster\n"
        "  metadata: {name: member9}\n  spec: {syncMode: Sideways}\n"
    )
    root = write(tmp_path, {**CLEAN, "list.yaml": items})
    result = cli("validate", "--repo", str(root))
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"{root}/list.yaml:8:10: error: Cluster member9: spec.syncMode: unsupported value "
        "'Sideways': expected one of 'Push', 'Pull'"
    ]


WIDGET = """\
apiVersion: example.io/v1
kind: Widget
metadata:
  name: w
  namespace: shop
spec:
  replicas: 2
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: widgets
  namespace: shop
spec:
  resourceSelectors:
    - apiVersion: example.io/v1
      kind: Widget
  placement:
    clusterAffinity:
      clusterNames: [member1]
"""


def test_a_lua_script_failing_on_a_template_is_an_error(cli: Invoke, tmp_path: Path) -> None:
    """What render would stop at is an error here too: a ResourceInterpreterCustomization's
    GetReplicas that fails on a template it interprets, located at the script (placing the
    templates finds it, validating the documents alone does not)."""
    good = write(tmp_path / "good", {**CLEAN, "apps/widget.yaml": WIDGET})
    assert cli("validate", "--repo", str(good)).exit_code == 0
    script = "return obj.spec.replicas, nil"
    broken = variant("interpreter/widgets.yaml", script, "return obj.spec.replicas.count, nil")
    root = write(tmp_path / "broken", {**broken, "apps/widget.yaml": WIDGET})
    result = cli("validate", "--repo", str(root))
    assert result.exit_code == 1
    assert result.stdout.startswith(
        f"{root}/interpreter/widgets.yaml:11:7: error: Widget/shop/w: cannot interpret replicas:"
    )
    assert "attempt to index field 'replicas' (a number value)" in result.stdout
    assert len(result.stdout.splitlines()) == 1
    rendered = cli("render", "--repo", str(root), "--out", str(tmp_path / "out"))
    assert rendered.exit_code == 1
    assert result.stdout.split(": error: ")[1] in rendered.output
