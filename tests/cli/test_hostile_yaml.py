"""Hostile YAML through every command that reads it, typed as a user types them (from the
folder above the repository).

Each hostile text (`hostile_yaml.CASES`) is one that once crashed or hung a reader: a mapping
merging itself, a merge through another mapping, merge-key and alias billion laughs, a list
holding itself, a merge chain deeper than the bound, 100,000 levels of brackets. The readers
of status files, rendered files and `interpret`'s files, built on PyYAML's safe loader, also
crashed on a scalar whose tag cannot hold it (`hostile_yaml.SCALARS`: `!!int abc`,
`!!timestamp 2026-02-30`, an int of 5,000 digits, ...), which the source's own reader
refused already.

Aspects covered:
- `validate` and `render`: exit 1 within seconds, the file's `path:line:col: error: ...`, no
  traceback; render leaves the rendered branch where the last good render put it;
- `status`: the same source at HEAD, and a cluster whose status ref holds such YAML in
  `cluster.yaml` and `works.yaml`: exit 0, the cluster's report problems are shown located,
  the view of everything else stands;
- a cluster whose status ref holds such a scalar: its report is ignored, and `render`,
  `explain` and `get` go on with the cluster as the source declares it; a plain scalar that
  PyYAML's patterns type but cannot build (`hostile_yaml.PLAIN`: an invalid date, 5,000
  digits) is text, as go-yaml reads it, so as a heartbeat it is one that does not read;
- `interpret`: a customization file or an object file holding such YAML: exit 1, located;
  an object on standard input holding such a plain scalar reads it as its text;
- a rendered branch whose render.yaml and bindings were replaced by such YAML (someone with
  write access to it): `explain` and `preview` read them as unreadable, the next `render`
  renders anew, `status` still shows the fleet;
- nothing in the repository changes.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
import yaml
from builders import make_cluster, make_deployment, make_policy
from conftest import GitRepo, Invoke, git
from hostile_yaml import CASES, PLAIN, SCALARS
from status.status_kit import NOW, report_files

from gitfleet.gitstore import repository, status

HOSTILE = [
    pytest.param(text, f"{line}:{col}", message, id=case.id)
    for case in CASES
    for text, (line, col), message in [case.values]
]
UNBUILDABLE = [
    pytest.param(text, f"{line}:{col}", message, id=case.id)
    for case in SCALARS
    for text, (line, col), message in [case.values]
]

SOURCE = yaml.safe_dump_all(
    [make_cluster("m1"), make_deployment(namespace=""), make_policy("web", namespace="default")]
)


def _ref(repo: GitRepo, name: str) -> str:
    return repo.git("rev-parse", "--verify", "-q", name)


@pytest.fixture(name="rendered")
def rendered_fixture(git_repo: GitRepo, cli: Invoke, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    """A source rendered once, with the current folder its parent."""
    git_repo.commit({"fleet.yaml": SOURCE})
    monkeypatch.chdir(git_repo.path.parent)
    done = cli("render", "--repo", str(git_repo.path))
    assert done.exit_code == 0, done.output
    return git_repo


@pytest.mark.parametrize(("text", "where", "message"), HOSTILE)
def test_validate_and_render_refuse_it_located(
    rendered: GitRepo, cli: Invoke, text: str, where: str, message: str
) -> None:
    good = _ref(rendered, "gitfleet/rendered")
    rendered.commit({"apps/hostile.yaml": text})
    for command in ("validate", "render"):
        started = time.monotonic()
        done = cli(command, "--repo", str(rendered.path))
        assert time.monotonic() - started < 10
        assert done.exit_code == 1, done.output
        assert "Traceback" not in done.output
        assert f"apps/hostile.yaml:{where}: error: {message}" in done.output
    assert _ref(rendered, "gitfleet/rendered") == good
    assert rendered.git("status", "--porcelain") == ""


@pytest.mark.parametrize(("text", "where", "message"), HOSTILE + UNBUILDABLE)
def test_status_shows_a_hostile_report_and_the_rest(
    rendered: GitRepo, cli: Invoke, text: str, where: str, message: str
) -> None:
    rendered.commit({"apps/hostile.yaml": text})
    files = report_files("m1", rendered_commit=_ref(rendered, "gitfleet/works/m1"))
    files = {**files, "cluster.yaml": text.encode(), "works.yaml": text.encode()}
    repo = repository.open_repository(rendered.path)
    assert repo is not None
    try:
        status.write_status(repo, "m1", files, expected=None, rendered_commit="r1")
    finally:
        repo.close()
    started = time.monotonic()
    done = cli("status", "--repo", str(rendered.path), "-o", "json")
    assert time.monotonic() - started < 10
    assert done.exit_code == 0, done.output
    view = json.loads(done.stdout)
    [m1] = view["clusters"]
    line, col = where.split(":")
    for name in ("cluster.yaml", "works.yaml"):
        problem = f"report: {name}: not valid YAML: line {line}, column {col}: {message}"
        assert problem in m1["errors"], m1
    assert [r["name"] for r in view["resources"]] == ["web"]


def _report(repo_path: Path, files: dict[str, bytes]) -> None:
    repo = repository.open_repository(repo_path)
    assert repo is not None
    try:
        status.write_status(repo, "m1", files, expected=None, rendered_commit="r1")
    finally:
        repo.close()


@pytest.mark.parametrize(("text", "where", "message"), UNBUILDABLE)
def test_a_report_holding_such_a_scalar_is_ignored(
    rendered: GitRepo, cli: Invoke, text: str, where: str, message: str
) -> None:
    """Read, m1's report would replace the status its Cluster declares (explain would name
    it reported); ignored, m1 is scheduled on what the source declares, and the render goes
    on."""
    files = report_files("m1", rendered_commit=_ref(rendered, "gitfleet/works/m1"))
    _report(rendered.path, {name: data + text.encode() for name, data in files.items()})
    rendered.commit({"fleet.yaml": SOURCE.replace("replicas: 3", "replicas: 4")})
    done = cli("render", "--repo", str(rendered.path))
    assert done.exit_code == 0, done.output
    manifest = rendered.git("show", "gitfleet/rendered:works/m1/default/Deployment.apps/web.yaml")
    assert "replicas: 4" in manifest
    done = cli("explain", "deployment/web", "--repo", str(rendered.path))
    assert done.exit_code == 0, done.output
    assert "status declared in the source for m1" in done.output
    done = cli("get", "deployments", "-A", "--repo", str(rendered.path))
    assert (done.exit_code, done.output) == (0, "No resources found.\n")


@pytest.mark.parametrize("text", PLAIN)
def test_a_plain_scalar_is_text_in_a_report(rendered: GitRepo, cli: Invoke, text: str) -> None:
    files = report_files("m1", rendered_commit=_ref(rendered, "gitfleet/works/m1"))
    summary = files["cluster.yaml"].replace(
        f'heartbeatTime: "{NOW}"'.encode(), b"heartbeatTime: " + text.encode()
    )
    assert summary != files["cluster.yaml"]
    _report(rendered.path, {**files, "cluster.yaml": summary})
    done = cli("status", "--repo", str(rendered.path), "-o", "json")
    assert done.exit_code == 0, done.output
    [m1] = json.loads(done.stdout)["clusters"]
    assert (m1["heartbeat"], m1["ready"]) == (None, "Unknown")
    assert "report: cluster.yaml: heartbeatTime is not a time" in m1["errors"]


@pytest.mark.parametrize(("text", "where", "message"), HOSTILE + UNBUILDABLE)
@pytest.mark.parametrize("role", ["-f", "--desired-file"])
def test_interpret_refuses_it_located(
    tmp_path: Path,
    cli: Invoke,
    monkeypatch: pytest.MonkeyPatch,
    role: str,
    text: str,
    where: str,
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hostile.yaml").write_text(text)
    (tmp_path / "ric.yaml").write_text(
        "apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\n"
        "metadata: {name: r}\nspec:\n  target: {apiVersion: apps/v1, kind: Deployment}\n"
        "  customizations:\n    healthInterpretation:\n"
        "      luaScript: 'function InterpretHealth(obj) return true end'\n"
    )
    files = {"-f": "hostile.yaml", "--desired-file": "ric.yaml"}
    if role == "--desired-file":
        files = {"-f": "ric.yaml", "--desired-file": "hostile.yaml"}
    done = cli("interpret", *(a for pair in files.items() for a in pair), "--operation", "Retain")
    assert done.exit_code == 1, done.output
    assert "Traceback" not in done.output
    assert f"hostile.yaml:{where}: invalid YAML: {message}" in done.output


@pytest.mark.parametrize("text", [p for p in PLAIN if p.id != "timestamp of no day"])
def test_interpret_reads_a_plain_scalar_as_its_text(
    tmp_path: Path, cli: Invoke, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    """The script counts the characters of `spec.x`, which as a number would not run.
    (Dates are text to `interpret` in any case: JSON has none.)"""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ric.yaml").write_text(
        "apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\n"
        "metadata: {name: r}\nspec:\n  target: {apiVersion: example.io/v1, kind: Foo}\n"
        "  customizations:\n    replicaResource:\n"
        "      luaScript: 'function GetReplicas(obj) return #obj.spec.x, nil end'\n"
    )
    desired = f"apiVersion: example.io/v1\nkind: Foo\nmetadata: {{name: f}}\nspec: {{x: {text}}}\n"
    done = cli(
        "interpret", "-f", "ric.yaml", "--desired-file", "-", "--operation", "InterpretReplica",
        "-o", "json", input=desired,
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["replica"] == len(text)


@pytest.mark.parametrize(
    "text", [pytest.param(p.values[0], id=p.id) for p in HOSTILE + UNBUILDABLE]
)
def test_a_hostile_rendered_branch_is_not_trusted(
    rendered: GitRepo, cli: Invoke, tmp_path: Path, text: str
) -> None:
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "-b", "gitfleet/rendered", str(rendered.path), str(clone))
    for path in (clone / "render.yaml", *clone.glob("bindings/**/*.yaml")):
        path.write_text(text)
    message = git(clone, "log", "-1", "--format=%B")  # a render's trailers, as a forger would
    git(clone, "commit", "-q", "-a", "-m", message)
    git(clone, "push", "-q", "origin", "gitfleet/rendered")
    started = time.monotonic()
    done = cli("explain", "deployment/web", "--repo", str(rendered.path))
    assert done.exit_code == 0, done.output
    done = cli("preview", "--base", "HEAD", "--head", "HEAD", "--repo", str(rendered.path))
    assert done.exit_code == 0, done.output
    rendered.commit({"fleet.yaml": SOURCE.replace("replicas: 3", "replicas: 4")})
    done = cli("render", "--repo", str(rendered.path))
    assert done.exit_code == 0, done.output
    done = cli("status", "--repo", str(rendered.path), "-o", "json")
    assert done.exit_code == 0, done.output
    assert time.monotonic() - started < 20
    assert [r["replicas"]["desired"] for r in json.loads(done.stdout)["resources"]] == [4]
    manifest = rendered.git("show", "gitfleet/rendered:works/m1/default/Deployment.apps/web.yaml")
    assert "replicas: 4" in manifest
    with pytest.raises(subprocess.CalledProcessError):
        rendered.git("grep", "-q", "<<", "gitfleet/rendered")
