"""Builders of render tests: clusters that serve Jobs too, a source revision from documents,
a rendered branch held in memory, and a reader of rendered manifests."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

import yaml
from builders import API_ENABLEMENTS, Doc, make_cluster, object_set

from gitfleet import pipeline
from gitfleet.gitstore import objects
from gitfleet.model import loaded

Render = Callable[..., pipeline.RenderResult]
"""The `render_docs` fixture: `render_docs(docs, previous=None, full=False)`."""
JOBS = {"groupVersion": "batch/v1", "resources": [{"name": "jobs", "kind": "Job"}]}


def cluster(name: str, **labels: str) -> Doc:
    """A ready cluster serving the builders' APIs and Jobs, with 64 CPUs."""
    doc = make_cluster(name, labels=labels, cpu="64")
    doc["status"]["apiEnablements"] = [*copy.deepcopy(API_ENABLEMENTS), JOBS]
    return doc


def source_of(docs: list[Doc], revision: str = "1" * 40) -> loaded.LoadedSource:
    return loaded.LoadedSource(
        objects=object_set(docs, path="apps.yaml"),
        documents=(),
        diagnostics=(),
        revision=revision,
        config=loaded.SourceConfig(),
    )


class Branch:
    """A rendered branch held in memory: blob contents by id, the tip's files by path."""

    def __init__(self) -> None:
        self.blobs: dict[str, bytes] = {}
        self.files: dict[str, str] = {}

    def previous(self) -> pipeline.PreviousRender | None:
        if not self.files:
            return None

        def read(paths: Any) -> Mapping[str, bytes]:
            return {p: self.blobs[self.files[p]] for p in paths if p in self.files}

        return pipeline.read_previous("0" * 40, dict(self.files), read)

    def commit(self, result: pipeline.RenderResult) -> dict[str, bytes]:
        """Make `result` the tip; returns every file's content."""
        files = {}
        for path, content in result.files.items():
            if isinstance(content, objects.Blob):
                files[path] = content.id
            else:
                data = bytes(content)
                oid = objects.SHA1.object_id(objects.BLOB, data)
                self.blobs[oid] = data
                files[path] = oid
        self.files = files
        return self.contents()

    def contents(self) -> dict[str, bytes]:
        return {p: self.blobs[oid] for p, oid in self.files.items()}


def manifest(result: pipeline.RenderResult, path: str) -> Any:
    content = result.files[path]
    assert not isinstance(content, objects.Blob), f"{path} was kept from the previous render"
    return yaml.safe_load(bytes(content))
