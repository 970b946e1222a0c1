"""Publishing a small change on a large rendered tree: the whole tree (`files`) against only the
change (`changes`), in the same run.

The tree has the shape of a render of 1,000 templates x 50 clusters (51,051 files: one
manifest per template and cluster, a kustomization per cluster, a binding per template and
render.yaml). Each round changes one template, that is one manifest in every cluster (50
files), and publishes it on the tip read before, as `gitfleet render` does. Measured:

- publish, whole tree: `files` holds every path, unchanged ones as blobs of the tip (as the
  render pipeline hands them over);
- publish, changes: only the 50 changed paths; the first such round after a tip read from git
  is shown on its own (it groups the tip's files by folder once), later ones build on the
  listing the previous publication derived;
- the next `read_tip`: after a whole-tree publish it lists the new commit with git, after a
  change it is the listing the publication derived;
- their sum, the cost of the branch in one render, and the ratio of the two modes
  (the render's budget for a one-template change is 0.5 s in all);
- the tree alone, computed in Python without git (`objects.build_tree` on the tip against
  `objects.apply_changes`): what differs between the modes. The rest of a publication is
  git's and the same in both, mostly `git update-ref` moving the branch and the 50 cluster
  refs, whose time depends on the file system.

    python -m bench.bench_publish      (from the repository root)
"""

from __future__ import annotations

import functools
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from gitfleet.gitstore import objects, rendered, repository

TEMPLATES = 1_000
CLUSTERS = 50
NAMESPACES = 10
ROUNDS = 7
BRANCH = "gitfleet/rendered"
WHO = objects.Signature("bench", "bench@example.com", 1767225600)


def _manifest(template: int, cluster: int, version: int) -> bytes:
    name = f"app{template:05d}"
    return (
        f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n"
        f"  namespace: ns{template % NAMESPACES}\n  labels:\n    app: {name}\n"
        f"    gitfleet.io/cluster: c{cluster:03d}\nspec:\n  replicas: 2\n  template:\n"
        f"    spec:\n      containers:\n      - name: main\n"
        f"        image: registry.example.com/team/{name}:1.{version}\n"
    ).encode()


def _manifest_path(template: int, cluster: int) -> str:
    ns = f"ns{template % NAMESPACES}"
    return f"works/c{cluster:03d}/{ns}/Deployment.apps/app{template:05d}.yaml"


def _tree() -> dict[str, objects.Content]:
    files: dict[str, objects.Content] = {"render.yaml": b"sourceCommit: bench\n"}
    for cluster in range(CLUSTERS):
        for template in range(TEMPLATES):
            files[_manifest_path(template, cluster)] = _manifest(template, cluster, 0)
        files[f"works/c{cluster:03d}/kustomization.yaml"] = f"cluster: {cluster}\n".encode()
    for template in range(TEMPLATES):
        ns = f"ns{template % NAMESPACES}"
        binding = f"bindings/{ns}/Deployment.apps/app{template:05d}.yaml"
        files[binding] = f"binding: app{template:05d}\n".encode()
    return files


def _change(template: int, version: int) -> dict[str, objects.Content | None]:
    return {
        _manifest_path(template, cluster): _manifest(template, cluster, version)
        for cluster in range(CLUSTERS)
    }


def _timed(step: Callable[[], object]) -> float:
    start = time.perf_counter()
    step()
    return time.perf_counter() - start


def _round(
    repo: repository.Repository, template: int, version: int, whole: bool
) -> tuple[float, float]:
    """One change published in one mode: (publish, the next read_tip) in seconds."""
    tip = rendered.read_tip(repo, BRANCH)
    assert tip is not None
    changes = _change(template, version)
    source = f"{template * 100 + version:040x}"
    if whole:
        files: dict[str, objects.Content] = {p: objects.Blob(i) for p, i in tip.files.items()}
        files.update({p: c for p, c in changes.items() if c is not None})

        def publish() -> object:
            return rendered.publish(
                repo, BRANCH, files, expected=tip.commit, source_commit=source,
                version="bench", author=WHO, tip=tip,
            )  # fmt: skip
    else:

        def publish() -> object:
            return rendered.publish(
                repo, BRANCH, changes=changes, expected=tip.commit, source_commit=source,
                version="bench", author=WHO, tip=tip,
            )  # fmt: skip

    took = _timed(publish)
    return took, _timed(lambda: rendered.read_tip(repo, BRANCH))


def _trees(repo: repository.Repository) -> tuple[float, float]:
    """Median seconds to compute the tree of one change on the tip, as the whole tree and as
    changes (no git: the tip's folders are already grouped by the rounds before)."""
    tip = rendered.read_tip(repo, BRANCH)
    assert tip is not None
    whole, changed = [], []
    for template in range(ROUNDS):
        changes = _change(template, 3)
        files: dict[str, objects.Content] = {p: objects.Blob(i) for p, i in tip.files.items()}
        files.update({p: c for p, c in changes.items() if c is not None})
        whole.append(_timed(functools.partial(objects.build_tree, files, objects.SHA1, tip.base)))
        changed.append(_timed(functools.partial(objects.apply_changes, tip.base, changes)))
    return statistics.median(whole), statistics.median(changed)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rendered.git"
        subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
        repo = repository.open_repository(path)
        assert repo is not None
        tree = _tree()
        first = _timed(
            lambda: rendered.publish(
                repo,
                BRANCH,
                tree,
                expected=None,
                source_commit="0" * 40,
                version="bench",
                author=WHO,
            )
        )
        print(f"tree: {len(tree)} files; first publication {first:.2f} s")
        whole = [_round(repo, t, 1, whole=True) for t in range(ROUNDS)]
        cold = _round(repo, ROUNDS, 1, whole=False)
        delta = [_round(repo, t, 2, whole=False) for t in range(ROUNDS)]
        trees = _trees(repo)
        repo.close()
    rows = {
        "whole tree": [statistics.median(w[i] for w in whole) for i in (0, 1)],
        "changes": [statistics.median(d[i] for d in delta) for i in (0, 1)],
    }
    print(f"one template changed ({CLUSTERS} files), median of {ROUNDS} rounds:")
    print(f"  {'mode':12} {'publish':>9} {'read_tip':>9} {'both':>9}")
    for mode, (publish, read) in rows.items():
        print(f"  {mode:12} {publish:8.3f}s {read:8.3f}s {publish + read:8.3f}s")
    print(f"  changes, first after a tip listed by git: publish {cold[0]:.3f} s")
    (w_pub, w_read), (d_pub, d_read) = rows["whole tree"], rows["changes"]
    print(f"  ratio whole/changes: publish {w_pub / d_pub:.1f}x,", end=" ")
    print(f"publish + read_tip {(w_pub + w_read) / (d_pub + d_read):.1f}x")
    whole_tree, changed_tree = trees
    print(f"  the tree alone: whole {whole_tree:.3f} s, changes {changed_tree:.4f} s,", end=" ")
    print(f"ratio {whole_tree / changed_tree:.0f}x")


if __name__ == "__main__":
    main()
