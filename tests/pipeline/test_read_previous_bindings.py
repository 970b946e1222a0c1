"""Reading the previous render's bindings back (gitfleet.pipeline.read_previous).

Aspects covered:
- every binding reads back as the render placed it, with the digests it carries (of its
  files' inputs and of its template) taken off into `recorded`; bindings of one policy, read
  together, share one annotations object;
- a binding file written in another YAML layout (edited by hand) reads back the same;
- a binding file that cannot be a binding (annotations that are not all strings, text that
  is not YAML) is left out, its template then placed as new, and the others are read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest
import yaml
from builders import make_cluster, make_deployment, make_object, make_policy, object_set

from gitfleet import pipeline
from gitfleet.gitstore import objects
from gitfleet.model import loaded
from gitfleet.render import TEMPLATE_ANNOTATION

APPS = ("api", "web", "worker")
PLACEMENT = {"clusterAffinity": {"clusterNames": ["m1", "m2"]}}
FILES_ANNOTATION = "gitfleet.io/render-inputs"


def _rendered() -> tuple[pipeline.RenderResult, dict[str, bytes]]:
    docs = [
        make_cluster("m1"),
        make_cluster("m2"),
        make_object("v1", "Namespace", "shop"),
        make_policy("spread", placement=PLACEMENT),
        *(make_deployment(name) for name in APPS),
    ]
    source = loaded.LoadedSource(
        objects=object_set(docs, path="apps.yaml"),
        documents=(),
        diagnostics=(),
        revision="1" * 40,
        config=loaded.SourceConfig(),
    )
    result = pipeline.render(source)
    assert result.ok, [str(d) for d in result.diagnostics]
    files = {p: bytes(c) for p, c in result.changes.items() if c is not None}
    return result, files


def _read(files: Mapping[str, bytes]) -> pipeline.PreviousRender:
    ids = {p: objects.SHA1.object_id(objects.BLOB, data) for p, data in files.items()}

    def read(paths: Sequence[str]) -> dict[str, bytes]:
        return {p: files[p] for p in paths if p in files}

    return pipeline.read_previous("0" * 40, ids, read)


def _binding_file(name: str) -> str:
    return f"bindings/shop/Deployment.apps/{name}.yaml"


def test_bindings_read_back_as_placed_with_their_digests_apart() -> None:
    result, files = _rendered()
    assert result.placement is not None
    previous = _read(files)
    placed = {pipeline.rendering.resource_key(b): b for b in result.placement.bindings}
    assert previous.bindings == placed
    for key in placed:
        written = yaml.safe_load(files[_binding_file(key.name)])["metadata"]["annotations"]
        assert previous.recorded.files[key] == written[FILES_ANNOTATION]
        assert previous.recorded.templates[key] == written[TEMPLATE_ANNOTATION]
    annotations = [b.metadata.annotations for b in previous.bindings.values()]
    assert annotations[0] and not any(FILES_ANNOTATION in a for a in annotations if a)
    assert all(a is annotations[0] for a in annotations)


def test_a_binding_in_another_layout_reads_back_the_same() -> None:
    _, files = _rendered()
    expected = _read(files)
    path = _binding_file("web")
    doc = yaml.safe_load(files[path])
    edited = {**files, path: yaml.safe_dump(doc, default_flow_style=True).encode()}
    previous = _read(edited)
    assert previous.bindings == expected.bindings
    assert previous.recorded == expected.recorded


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda doc: doc["metadata"]["annotations"].update(note=7), id="number"),
        pytest.param(
            lambda doc: doc["metadata"].update(annotations=["a"]), id="annotations a list"
        ),
        pytest.param(None, id="not yaml"),
    ],
)
def test_a_file_that_cannot_be_a_binding_is_left_out(damage: object) -> None:
    _, files = _rendered()
    path = _binding_file("web")
    if callable(damage):
        doc = yaml.safe_load(files[path])
        damage(doc)
        data = yaml.safe_dump(doc).encode()
    else:
        data = b"metadata: [\n"
    previous = _read({**files, path: data})
    assert sorted(k.name for k in previous.bindings) == ["api", "worker"]
    assert sorted(k.name for k in previous.recorded.files) == ["api", "worker"]
