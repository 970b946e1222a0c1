"""`gitfleet render` never loses or leaks: bad commits, races, secrets, bombs, names, folders.

Aspects covered:
- a commit with an error refuses the whole commit (exit 1, `path:line:col`), and the rendered
  branch and every cluster ref stay at the last good render;
- compare-and-swap: a render that lost the race to another writer raises RefConflictError and
  leaves the other writer's commit in place;
- a Secret template is refused (with its file and line, `validate` exiting 1 and `render` 3)
  unless it opts in, and then written;
- a manifest over 1.5 MiB after overrides is refused, located at the template (exit 3);
- names that cannot be paths (spaces, non-ASCII, too long) fail validation, each located, so
  nothing is rendered and nothing is written outside the rendered tree;
- YAML 1.1 and 1.2 readers read the rendered strings as the source meant them;
- a binding no cluster fits any more keeps its clusters and manifests (Scheduled is False;
  the render lists it under `unscheduled` and exits 3);
- `--out`: refuses a non-empty folder that is not a previous render and a symbolic link,
  replaces a previous render.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from builders import make_size_bomb
from conftest import GitRepo, Invoke
from parsed_yaml import parse_all
from ruamel.yaml import YAML

from gitfleet import inputs, pipeline, source
from gitfleet.cli import render as render_command
from gitfleet.errors import RefConflictError
from gitfleet.gitstore import rendered, repository

BRANCH = "refs/heads/gitfleet/rendered"
CONFIG = "works/aws-euw1/shop/ConfigMap.core/{}.yaml"


def _doc(kind: str, name: str, body: dict[str, Any], **metadata: Any) -> str:
    doc = {
        "apiVersion": "v1",
        "kind": kind,
        "metadata": {"name": name, "namespace": "shop", **metadata},
        **body,
    }
    return json.dumps(doc, indent=2) + "\n"  # JSON is YAML, and quotes every string


POLICY = """\
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: extras, namespace: shop}
spec:
  resourceSelectors:
    - {apiVersion: v1, kind: ConfigMap, labelSelector: {matchLabels: {extra: "yes"}}}
    - {apiVersion: v1, kind: Secret}
  placement:
    clusterAffinity: {clusterNames: [aws-euw1]}
"""


def _render(cli: Invoke, fleet: GitRepo, *args: str) -> Any:
    return cli("render", "--repo", str(fleet.path), *args)


def _refs(fleet: GitRepo) -> str:
    return fleet.git("for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/gitfleet/")


def test_bad_commit_keeps_the_last_good_render(cli: Invoke, fleet: GitRepo) -> None:
    assert _render(cli, fleet).exit_code == 0
    before = _refs(fleet)
    typo = (
        (fleet.path / "policies/propagation/web.yaml")
        .read_text()
        .replace("placement:", "placment:")
    )
    fleet.commit({"policies/propagation/web.yaml": typo})
    result = _render(cli, fleet)
    assert result.exit_code == 1
    assert "policies/propagation/web.yaml:" in result.output and "placment" in result.output
    assert "nothing rendered" in result.output
    assert _refs(fleet) == before


def test_a_lost_race_moves_nothing(fleet: GitRepo) -> None:
    render_command.run(str(fleet.path), None, None, None, False)
    repo = repository.open_repository(fleet.path)
    assert repo is not None
    tip = rendered.read_tip(repo, "gitfleet/rendered")
    assert tip is not None
    previous = inputs.previous_of(repo, tip)
    fleet.commit({"apps/shop/worker.yaml": None})
    result = pipeline.render(source.load(fleet.path), previous, None)
    other = fleet.commit({"apps/shop/search.yaml": None})
    winner = render_command.run(str(fleet.path), None, None, None, False)
    assert winner.created
    with pytest.raises(RefConflictError, match="moved while rendering"):
        rendered.publish(
            repo, "gitfleet/rendered", result.files, expected=previous.commit,
            source_commit=other, version="0.1.0",
        )  # fmt: skip
    assert fleet.git("rev-parse", BRANCH) == winner.commit
    repo.close()


@pytest.mark.parametrize(
    ("annotations", "written"),
    [
        pytest.param({}, False, id="refused"),
        pytest.param({"gitfleet.io/allow-plaintext-secret": "true"}, True, id="opted in"),
    ],
)
def test_secrets(cli: Invoke, fleet: GitRepo, annotations: dict[str, str], written: bool) -> None:
    secret = _doc(
        "Secret", "creds", {"stringData": {"password": "hunter2"}}, annotations=annotations
    )
    fleet.commit({"extras/policy.yaml": POLICY, "extras/secret.yaml": secret})
    validated = cli("validate", "--repo", str(fleet.path))
    assert validated.exit_code == (0 if written else 1), validated.output
    result = _render(cli, fleet)
    assert result.exit_code == (0 if written else 3), result.output
    path = "works/aws-euw1/shop/Secret.core/creds.yaml"
    listed = fleet.git("ls-tree", "-r", "--name-only", BRANCH).splitlines()
    assert (path in listed) is written
    if not written:
        assert "extras/secret.yaml:" in result.output and "plain text" in result.output
        assert "hunter2" not in fleet.git("log", "-p", BRANCH)


def test_manifest_bomb_is_refused(cli: Invoke, fleet: GitRepo) -> None:
    config = _doc("ConfigMap", "big", {"data": {"a": "b"}}, labels={"extra": "yes"})
    bombs = {f"extras/bomb-{i}.yaml": json.dumps(make_size_bomb("big", i)) for i in range(4)}
    fleet.commit({"extras/policy.yaml": POLICY, "extras/big.yaml": config, **bombs})
    result = cli("render", "--repo", str(fleet.path), "-o", "json")
    assert result.exit_code == 3, result.output
    (refused,) = json.loads(result.output)["refused"]
    assert refused["cluster"] == "aws-euw1" and "over the limit of 1572864" in refused["message"]
    assert refused["path"] == "extras/big.yaml"
    assert CONFIG.format("big") not in fleet.git("ls-tree", "-r", "--name-only", BRANCH)


def test_names_that_cannot_be_paths(cli: Invoke, fleet: GitRepo, tmp_path: Path) -> None:
    docs = [
        _doc("ConfigMap", name, {"data": {"a": "b"}}, labels={"extra": "yes"})
        for name in ("a b", "café", "x" * 251)
    ]
    fleet.commit({"extras/policy.yaml": POLICY, "extras/names.yaml": "---\n".join(docs)})
    out = tmp_path / "out"
    result = cli("render", "--repo", str(fleet.path), "--out", str(out), "-o", "json")
    assert result.exit_code == 1, result.output
    errors = json.loads(result.output)["diagnostics"]
    assert [(e["path"], e["line"], e["severity"]) for e in errors] == [
        ("extras/names.yaml", line, "error") for line in (5, 20, 35)
    ]
    assert all(": metadata.name: name '" in e["message"] for e in errors)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["source"]


TRICKY = {
    "no": "no", "on": "on", "y": "y", "exp": "1e3", "hex": "0x1F", "octal": "012",
    "tilde": "~", "null": "null", "underscore": "1_000", "inf": ".inf", "time": "1:20",
    "date": "2026-01-01", "lines": "a: b\n# c\n", "spaced": " x ",
}  # fmt: skip


def test_yaml_means_the_same_to_every_reader(cli: Invoke, fleet: GitRepo) -> None:
    config = _doc("ConfigMap", "tricky", {"data": TRICKY}, labels={"extra": "yes"})
    fleet.commit({"extras/policy.yaml": POLICY, "extras/tricky.yaml": config})
    assert _render(cli, fleet).exit_code == 0
    data = (fleet.git("show", f"{BRANCH}:{CONFIG.format('tricky')}") + "\n").encode()
    parsed, problems = parse_all(data)
    assert not problems
    reader = YAML(typ="safe", pure=True)
    reader.version = (1, 2)
    for doc in (parsed[0].value, yaml.safe_load(data), reader.load(io.BytesIO(data))):
        assert doc["data"] == TRICKY


def test_out_folder_safety(cli: Invoke, fleet: GitRepo, tmp_path: Path) -> None:
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine")
    result = _render(cli, fleet, "--out", str(busy))
    assert result.exit_code == 2 and "not a previous render" in result.output
    assert (busy / "notes.txt").read_text() == "mine"
    target = tmp_path / "target"
    target.mkdir()
    link = tmp_path / "link"
    link.symlink_to(target)
    result = _render(cli, fleet, "--out", str(link))
    assert result.exit_code == 2 and "symbolic link" in result.output
    assert not any(target.iterdir())
    out = tmp_path / "out"
    assert _render(cli, fleet, "--out", str(out)).exit_code == 0
    (out / "works" / "stale.yaml").write_text("old")
    assert _render(cli, fleet, "--out", str(out)).exit_code == 0
    assert not (out / "works" / "stale.yaml").exists()
    assert (out / "render.yaml").is_file()


def test_unschedulable_bindings_keep_their_clusters(cli: Invoke, fleet: GitRepo) -> None:
    assert _render(cli, fleet).exit_code == 0
    before = fleet.git("ls-tree", "-r", BRANCH, "--", "works/aws-euw1/shop/Deployment.apps")
    path = "policies/propagation/web.yaml"
    nowhere = (fleet.path / path).read_text().replace("env: production", "env: nowhere")
    fleet.commit({path: nowhere})
    result = cli("render", "--repo", str(fleet.path), "-o", "json")
    assert result.exit_code == 3, result.output
    listed = {u["resource"]: u["reason"] for u in json.loads(result.output)["unscheduled"]}
    assert listed["Deployment shop/web"] == "NoClusterFit"
    after = fleet.git("ls-tree", "-r", BRANCH, "--", "works/aws-euw1/shop/Deployment.apps")
    assert after == before
    binding = yaml.safe_load(fleet.git("show", f"{BRANCH}:bindings/shop/Deployment.apps/web.yaml"))
    (scheduled,) = [c for c in binding["status"]["conditions"] if c["type"] == "Scheduled"]
    assert scheduled["status"] == "False"
    assert len(binding["spec"]["clusters"]) == 4
