"""A render's output inside a source (`gitfleet render --out out` typed in the repository) is not
read as source.

Aspects covered:
- a folder holding only render.yaml (kind Render), works/ and bindings/ is left out, in a plain
  folder, a working tree and a commit, at any depth, empty works included;
- a folder that also holds anything else, or whose render.yaml is not gitfleet's Render (another
  kind, or not YAML), is read as ever (its kustomizations are kustomize's build files, which
  are not: `_buildfiles`); so is a render.yaml at the top of the source;
- render.yaml files that weigh more together than maxSourceSize are not read to tell (a tree
  can hold a large one in any number of folders): the source is refused for its size.
"""

from __future__ import annotations

from typing import Any

import pytest
from source.conftest import LoadFolder

from gitfleet import source
from gitfleet.errors import SourceError
from gitfleet.source import _files

RENDER = "apiVersion: gitfleet.io/v1alpha1\nkind: Render\nsourceCommit: null\n"
WEB = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers: [{name: web, image: nginx}]
"""
OUTPUT = {
    "out/render.yaml": RENDER,
    "out/works/member1/kustomization.yaml": "resources: []\n",
    "out/works/member1/default/Deployment.apps/web.yaml": WEB,
    "out/bindings/default/Deployment.apps/web.yaml": (
        "apiVersion: work.karmada.io/v1alpha2\nkind: ResourceBinding\nmetadata: {name: web}\n"
    ),
}


def _read(result: source.LoadedSource) -> set[str]:
    return {d.origin.path for d in result.documents}


IN_OUT = {
    "out/render.yaml",
    "out/works/member1/default/Deployment.apps/web.yaml",
    "out/bindings/default/Deployment.apps/web.yaml",
}


@pytest.mark.parametrize(
    ("files", "read"),
    [
        pytest.param(OUTPUT, set(), id="render --out folder left out"),
        pytest.param({f"build/{p}": t for p, t in OUTPUT.items()}, set(), id="at any depth"),
        pytest.param({"out/render.yaml": RENDER}, set(), id="a render without works"),
        pytest.param(
            {**OUTPUT, "out/notes.yaml": WEB.replace("web", "notes")},
            {*IN_OUT, "out/notes.yaml"},
            id="a folder holding more is source",
        ),
        pytest.param(
            {**OUTPUT, "out/render.yaml": RENDER.replace("Render", "ConfigMap")},
            IN_OUT,
            id="render.yaml of another kind",
        ),
        pytest.param(
            {**OUTPUT, "out/render.yaml": "kind: Render\n: [\n"},
            IN_OUT - {"out/render.yaml"},
            id="render.yaml that is not YAML",
        ),
        pytest.param({"render.yaml": RENDER}, {"render.yaml"}, id="a render.yaml at the top"),
    ],
)
def test_which_files_are_read(
    load_folder: LoadFolder, files: dict[str, str], read: set[str]
) -> None:
    assert _read(load_folder({"web.yaml": WEB, **files})) == {"web.yaml", *read}


def test_a_render_output_committed_or_in_the_working_tree(git_repo: Any) -> None:
    git_repo.commit({"web.yaml": WEB, **OUTPUT})
    for result in (source.load(git_repo.path), source.load(git_repo.path, working_tree=True)):
        assert [t.name for t in result.objects.templates] == ["web"]
        assert not [d for d in result.diagnostics if d.severity == "error"]


def test_render_yaml_files_past_the_source_size_are_not_read(
    load_folder: LoadFolder, monkeypatch: pytest.MonkeyPatch
) -> None:
    read: list[str] = []
    plain = _files.FolderFiles.read

    def counted(self: _files.FolderFiles, entries: list[_files.Entry]) -> dict[str, bytes | str]:
        read.extend(e.path for e in entries)
        return plain(self, entries)

    monkeypatch.setattr(_files.FolderFiles, "read", counted)
    outputs = {f"out{i}/render.yaml": RENDER + "# " + "x" * 200 + "\n" for i in range(5)}
    with pytest.raises(SourceError, match=r"over the limit of 1000 \(maxSourceSize\)"):
        load_folder({"gitfleet.yaml": "maxSourceSize: 1000\n", **outputs})
    assert read == ["gitfleet.yaml"]
    assert _read(load_folder({"gitfleet.yaml": "maxSourceSize: 2000\n", **outputs})) == set()
