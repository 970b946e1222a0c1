"""Rendered Work directories for agent tests, laid out as DESIGN.md section 3 says:
`works/<cluster>/<namespace or _cluster>/<kind>.<group or core>/<name>.yaml`, one manifest a
file, plus each cluster's `kustomization.yaml`.

`work_files({cluster: [doc, ...]})` gives the files; `publish(path, clusters, source_commit=...)`
commits them on the rendered branch of the repository at `path` (and its per-cluster refs)
through `gitfleet.gitstore.rendered`, as a render does, and returns the rendered commit.
Importable as `workfiles` from any test (tests/ is on the path).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from gitfleet.gitstore import rendered, repository

Doc = dict[str, Any]
BRANCH = "gitfleet/rendered"


def work_path(cluster: str, doc: Doc) -> str:
    metadata = doc["metadata"]
    group = doc["apiVersion"].rpartition("/")[0] or "core"
    folder = metadata.get("namespace") or "_cluster"
    return f"works/{cluster}/{folder}/{doc['kind']}.{group}/{metadata['name']}.yaml"


def work_files(clusters: Mapping[str, Iterable[Doc]]) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for cluster, docs in clusters.items():
        paths = []
        for doc in docs:
            path = work_path(cluster, doc)
            files[path] = yaml.safe_dump(doc, sort_keys=True).encode()
            paths.append(path.removeprefix(f"works/{cluster}/"))
        listing = {"resources": sorted(paths)}
        files[f"works/{cluster}/kustomization.yaml"] = yaml.safe_dump(listing).encode()
    return files


def publish(
    path: Path,
    clusters: Mapping[str, Iterable[Doc]],
    *,
    source_commit: str,
    branch: str = BRANCH,
) -> str:
    """Commit the clusters' Work directories on `branch`; the new (or unchanged) tip."""
    repo = repository.open_repository(path)
    assert repo is not None
    try:
        tip = rendered.read_tip(repo, branch)
        files = {"render.yaml": f"sourceCommit: {source_commit}\n".encode(), **work_files(clusters)}
        done = rendered.publish(
            repo,
            branch,
            dict(files),
            expected=tip.commit if tip else None,
            source_commit=source_commit,
            version="test",
        )
        return done.commit
    finally:
        repo.close()
