"""Bytes a pull agent fetches, against the size of its own manifests, as the fleet grows.

For fleets of 10 to 2,000 clusters, one rendered commit is published on a bare repository that
allows filters (as `gitfleet render` publishes: the rendered branch and every cluster's own
ref); every cluster gets the same kinds of manifests, with its own names and values, about the
size of rendered manifests (labels and annotations included). One cluster's agent then fetches
with an empty copy, over file://, the way `gitfleet agent pull` does (`agent._fetch`):

- own ref: `refs/heads/gitfleet/works/<cluster>` (the default);
- shared branch, sparse: the rendered branch, only the cluster's folder;
- a second look after a render that changed one of its manifests and every other cluster's.

Bytes are those of the packs git received (GIT_TRACE_PACKFILE). The baseline, measured in the
same run, is the size of the cluster's own files in the render; the own ref's ratio must stay
under 1.5 at every fleet size (exit 1 otherwise). The shared branch's sparse fetch also brings
the `works/` tree, one entry per cluster, so its ratio grows with the fleet (printed, with
the bytes each cluster adds): past a few hundred clusters only the own ref keeps an agent's
fetch its own size. For contrast, the last column is a plain depth-1 fetch of the whole
rendered branch, what an agent without sparse fetches would transfer.

    python -m bench.bench_pull_fetch      (from the repository root)
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

from gitfleet.agent import _fetch
from gitfleet.gitstore import rendered, repository

FLEETS = (10, 25, 50, 100, 200, 500, 1000, 2000)
LIMIT = 1.5
AGENT = "c0"
BRANCH = "gitfleet/rendered"


def _labels(cluster: str) -> dict[str, str]:
    return {
        "app": "web",
        "gitfleet.io/cluster": cluster,
        "gitfleet.io/managed-by": "gitfleet",
        "propagationpolicy.karmada.io/permanent-id": f"6f0c1c52-{cluster:0>8}-policy",
        "resourcebinding.karmada.io/permanent-id": f"9a7e3d10-{cluster:0>8}-binding",
    }


def _annotations(path: str) -> dict[str, str]:
    return {
        "gitfleet.io/source-path": path,
        "propagationpolicy.karmada.io/name": "web",
        "propagationpolicy.karmada.io/namespace": "shop",
        "resourcebinding.karmada.io/name": "web-deployment",
        "resourcebinding.karmada.io/namespace": "shop",
    }


def _manifests(cluster: str, revision: int) -> list[dict[str, Any]]:
    """What a render gives one cluster: a namespace, a Deployment, a Service, ConfigMaps."""
    meta = {"namespace": "shop", "labels": _labels(cluster)}
    container = {
        "name": "web",
        "image": f"registry.example.com/shop/web:1.{revision}",
        "args": ["--listen=:8080", f"--region={cluster}"],
        "ports": [{"containerPort": 8080, "name": "http"}],
        "resources": {"requests": {"cpu": "250m", "memory": "256Mi"}},
        "readinessProbe": {"httpGet": {"path": "/healthz", "port": "http"}},
    }
    docs: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}},
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web", **meta, "annotations": _annotations("apps/web.yaml")},
            "spec": {
                "replicas": 3,
                "selector": {"matchLabels": {"app": "web"}},
                "template": {
                    "metadata": {"labels": {"app": "web"}},
                    "spec": {"containers": [container]},
                },
            },
        },
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "web", **meta, "annotations": _annotations("apps/svc.yaml")},
            "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": "http"}]},
        },
    ]
    for i in range(3):
        data = {
            f"setting-{n}": f"{cluster} value {n} of c{i}, revision {revision}" for n in range(12)
        }
        docs.append(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": f"c{i}", **meta, "annotations": _annotations("apps/c.yaml")},
                "data": data,
            }
        )
    return docs


def _path(cluster: str, doc: dict[str, Any]) -> str:
    group = doc["apiVersion"].rpartition("/")[0] or "core"
    folder = doc["metadata"].get("namespace") or "_cluster"
    return f"works/{cluster}/{folder}/{doc['kind']}.{group}/{doc['metadata']['name']}.yaml"


def _render(clusters: int, revisions: dict[str, int]) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for index in range(clusters):
        name = f"c{index}"
        docs = _manifests(name, revisions.get(name, 0))
        paths = [_path(name, d) for d in docs]
        for path, doc in zip(paths, docs, strict=True):
            files[path] = yaml.safe_dump(doc, sort_keys=True).encode()
        listing = sorted(p.removeprefix(f"works/{name}/") for p in paths)
        files[f"works/{name}/kustomization.yaml"] = yaml.safe_dump({"resources": listing}).encode()
    files["render.yaml"] = yaml.safe_dump(
        {"clusters": {f"c{i}": {} for i in range(clusters)}}
    ).encode()
    return files


def _publish(remote: Path, files: dict[str, bytes], source: str) -> None:
    repo = repository.open_repository(remote)
    assert repo is not None
    try:
        tip = rendered.read_tip(repo, BRANCH)
        rendered.publish(
            repo,
            BRANCH,
            dict(files),
            expected=tip.commit if tip else None,
            source_commit=source,
            version="bench",
        )
    finally:
        repo.close()


def _git(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def _full_fetch(url: str, folder: Path) -> int:
    """A plain depth-1 fetch of the whole rendered branch."""
    copy = folder / "full.git"
    _git("init", "-q", "--bare", str(copy))
    trace = folder / "full.pack"
    env = {**os.environ, "GIT_DIR": str(copy), "GIT_TRACE_PACKFILE": str(trace)}
    _git("fetch", "-q", "--depth=1", url, f"+refs/heads/{BRANCH}:refs/heads/{BRANCH}", env=env)
    return trace.stat().st_size


def _measure(clusters: int, folder: Path) -> dict[str, float]:
    remote = folder / "remote.git"
    _git("init", "-q", "--bare", str(remote))
    _git("config", "uploadpack.allowFilter", "true", cwd=remote)
    files = _render(clusters, {})
    _publish(remote, files, "s1")
    own = sum(len(data) for path, data in files.items() if path.startswith(f"works/{AGENT}/"))
    url = f"file://{remote}"
    copies = {
        "own": _fetch.ClusterRemote(
            url, AGENT, rendered.cluster_ref(AGENT), folder / "own", sparse=False
        ),
        "shared": _fetch.ClusterRemote(
            url, AGENT, rendered.branch_ref(BRANCH), folder / "shared", sparse=True
        ),
    }
    first = {}
    for key, copy in copies.items():
        fetched = copy.fetch_works(copy.tips().works or "")
        assert fetched.complete, f"{key}: {fetched}"
        first[key] = fetched.received
    revisions = {f"c{i}": 1 for i in range(1, clusters)}
    changed = _render(clusters, revisions)
    deployment = _path(AGENT, _manifests(AGENT, 0)[1])
    changed[deployment] = changed[deployment].replace(b"web:1.0", b"web:1.1")
    _publish(remote, changed, "s2")
    second = {
        key: copy.fetch_works(copy.tips().works or "").received for key, copy in copies.items()
    }
    for copy in copies.values():
        copy.close()
    return {
        "own": own,
        "own_ref": first["own"],
        "shared": first["shared"],
        "own_ref_next": second["own"],
        "shared_next": second["shared"],
        "full": _full_fetch(url, folder),
    }


def main() -> int:
    header = (
        f"{'clusters':>8}  {'own files':>9}  {'own ref':>8}  {'ratio':>5}  {'shared':>8}"
        f"  {'ratio':>5}  {'next own':>8}  {'next shr':>8}  {'whole branch':>12}"
    )
    print(header)
    ratios = []
    shared = {}
    for clusters in FLEETS:
        with tempfile.TemporaryDirectory(prefix="gitfleet-bench-") as folder:
            m = _measure(clusters, Path(folder))
        own_ratio, shared_ratio = m["own_ref"] / m["own"], m["shared"] / m["own"]
        ratios.append(own_ratio)
        shared[clusters] = m["shared"]
        print(
            f"{clusters:>8}  {m['own']:>9.0f}  {m['own_ref']:>8.0f}  {own_ratio:>5.2f}"
            f"  {m['shared']:>8.0f}  {shared_ratio:>5.2f}  {m['own_ref_next']:>8.0f}"
            f"  {m['shared_next']:>8.0f}  {m['full']:>12.0f}"
        )
    first, last = FLEETS[0], FLEETS[-1]
    slope = (shared[last] - shared[first]) / (last - first)
    print(f"shared branch: {slope:.1f} more bytes per cluster (its entry in the works tree)")
    worst = max(ratios)
    verdict = "ok" if worst < LIMIT else "FAILED"
    print(f"own ref's bytes fetched / own manifests: worst {worst:.2f} (limit {LIMIT}): {verdict}")
    return 0 if worst < LIMIT else 1


if __name__ == "__main__":
    sys.exit(main())
