"""Render and commit a generated fleet: 1,000 templates x 50 clusters (mixed placement strategies,
3 override policies matching each template), through `gitfleet render` as the CLI runs it.

Measures, each in a fresh process-free call of the same code path as the command:
- the first full render and commit (budget 10 s);
- a render after a commit that changes one template (budget 0.5 s), measured on the second
  such change: later changes read only the previous bindings that changed, as a running
  reconciler does;
- the first such change after start (budget 0.5 s): it reads every previous binding cold;
- a no-op render: the same source commit again (budget 0.3 s);
- peak memory of the 1,000 x 50 run (budget 1 GiB; the large run's is printed after it);
- the floor: `git fast-import` of the identical output into an empty repository, and
  gitfleet's full render as a ratio to it (target within 3x).
`--large` also runs 10,000 templates x 200 clusters (no budgets; takes minutes). `--signed` runs
the 1,000 x 50 fleet again with every commit signed (`--signing-key`, a throwaway SSH key): one
ssh-keygen per commit, so its full render (51 commits) costs what 51 signatures cost more.

    python -m bench.bench_render [--large] [--signed]      (from the repository root)
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from gitfleet.cli import main as main_module
from gitfleet.cli import render as render_command
from gitfleet.gitstore import rendered, repository

BUDGETS = {"full": 10.0, "first change": 0.5, "one change": 0.5, "no-op": 0.3}
MEMORY_BUDGET_MIB = 1024
NAMESPACES = 10
STRATEGIES = ("duplicated", "weighted", "aggregated")
ENV = {
    "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com",
}  # fmt: skip


def _cluster(i: int) -> dict[str, Any]:
    region = ("eu", "us", "ap")[i % 3]
    return {
        "apiVersion": "cluster.karmada.io/v1alpha1",
        "kind": "Cluster",
        "metadata": {"name": f"c{i:03d}", "labels": {"region": region, "tier": f"t{i % 2}"}},
        "spec": {"syncMode": "Push", "provider": "bench", "region": region},
        "status": {
            "apiEnablements": [
                {"groupVersion": "v1", "resources": [{"name": "namespaces", "kind": "Namespace"}]},
                {
                    "groupVersion": "apps/v1",
                    "resources": [{"name": "deployments", "kind": "Deployment"}],
                },
            ],
            "conditions": [
                {"type": "Ready", "status": "True", "reason": "Ready", "message": "ready"}
            ],
            "resourceSummary": {
                "allocatable": {"cpu": "1000", "memory": "4000Gi", "pods": "5000"},
                "allocated": {"cpu": "10", "memory": "10Gi", "pods": "10"},
            },
        },
    }


def _template(i: int) -> dict[str, Any]:
    ns = f"ns{i % NAMESPACES}"
    spread = (i // NAMESPACES) % 5
    strategy = STRATEGIES[0] if spread < 3 else STRATEGIES[spread - 2]
    replicas = 2 if strategy == "duplicated" else 60
    name = f"app{i:05d}"
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": ns, "labels": {"app": name, "strategy": strategy}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {
                    "containers": [
                        {
                            "name": "main",
                            "image": f"registry.example.com/team/{name}:1.{i % 7}",
                            "args": ["--port=8080", f"--name={name}"],
                            "ports": [{"containerPort": 8080}],
                            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
                        }
                    ]
                },
            },
        },
    }


def _placement(strategy: str) -> dict[str, Any]:
    if strategy == "duplicated":
        return {"clusterAffinity": {"labelSelector": {"matchLabels": {}}}}
    if strategy == "weighted":
        return {
            "replicaScheduling": {
                "replicaSchedulingType": "Divided",
                "replicaDivisionPreference": "Weighted",
                "weightPreference": {
                    "staticWeightList": [
                        {
                            "targetCluster": {"labelSelector": {"matchLabels": {"tier": "t0"}}},
                            "weight": 2,
                        },
                        {
                            "targetCluster": {"labelSelector": {"matchLabels": {"tier": "t1"}}},
                            "weight": 1,
                        },
                    ]
                },
            }
        }
    return {
        "replicaScheduling": {
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
            "weightPreference": {"dynamicWeight": "AvailableReplicas"},
        }
    }


def _policies() -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = [
        {
            "apiVersion": "policy.karmada.io/v1alpha1",
            "kind": "ClusterOverridePolicy",
            "metadata": {"name": "fleet-labels"},
            "spec": {
                "overrideRules": [
                    {
                        "overriders": {
                            "labelsOverrider": [{"operator": "add", "value": {"fleet": "bench"}}]
                        }
                    }
                ]
            },
        }
    ]
    for n in range(NAMESPACES):
        ns = f"ns{n}"
        docs.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        for strategy in STRATEGIES:
            docs.append({
                "apiVersion": "policy.karmada.io/v1alpha1",
                "kind": "PropagationPolicy",
                "metadata": {"name": strategy, "namespace": ns},
                "spec": {
                    "resourceSelectors": [{
                        "apiVersion": "apps/v1", "kind": "Deployment",
                        "labelSelector": {"matchLabels": {"strategy": strategy}},
                    }],
                    "placement": _placement(strategy),
                },
            })  # fmt: skip
        docs.append({
            "apiVersion": "policy.karmada.io/v1alpha1",
            "kind": "OverridePolicy",
            "metadata": {"name": "registry", "namespace": ns},
            "spec": {
                "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}],
                "overrideRules": [{
                    "targetCluster": {"labelSelector": {"matchLabels": {"region": "eu"}}},
                    "overriders": {"imageOverrider": [
                        {"component": "Registry", "operator": "replace", "value": "eu.example.com"}
                    ]},
                }],
            },
        })  # fmt: skip
        docs.append({
            "apiVersion": "policy.karmada.io/v1alpha1",
            "kind": "OverridePolicy",
            "metadata": {"name": "args", "namespace": ns},
            "spec": {
                "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}],
                "overrideRules": [{
                    "targetCluster": {"labelSelector": {"matchLabels": {"tier": "t1"}}},
                    "overriders": {"argsOverrider": [
                        {"containerName": "main", "operator": "add", "value": ["--tier=1"]}
                    ]},
                }],
            },
        })  # fmt: skip
    return docs


def _dump(docs: list[dict[str, Any]]) -> str:
    return yaml.safe_dump_all(docs, sort_keys=False)


def _git(path: Path, *args: str, data: bytes | None = None) -> str:
    done = subprocess.run(
        ["git", *args], cwd=path, input=data, capture_output=True, check=True,
        env={**os.environ, **ENV},
    )  # fmt: skip
    return done.stdout.decode().strip()


def generate(path: Path, templates: int, clusters: int) -> None:
    _git(path.parent, "init", "-q", "-b", "main", str(path))
    (path / "clusters.yaml").write_text(_dump([_cluster(i) for i in range(clusters)]))
    (path / "policies.yaml").write_text(_dump(_policies()))
    apps = path / "apps"
    apps.mkdir()
    for i in range(templates):
        (apps / f"app{i:05d}.yaml").write_text(_dump([_template(i)]))
    _git(path, "add", "-A")
    _git(path, "commit", "-q", "-m", "fleet")


def _timed(
    repo: Path, full: bool = False, key: str | None = None
) -> tuple[float, render_command.Outcome]:
    start = time.perf_counter()
    outcome = render_command.run(str(repo), None, None, None, full, signing_key=key)
    elapsed = time.perf_counter() - start
    assert outcome.result.ok, [str(d) for d in outcome.result.diagnostics][:5]
    return elapsed, outcome


def _change(repo: Path, name: str, key: str | None) -> tuple[float, render_command.Outcome]:
    """Commit a new image tag for one template, then render."""
    changed = repo / "apps" / f"{name}.yaml"
    changed.write_text(changed.read_text().replace(":1.", ":2."))
    _git(repo, "commit", "-q", "-am", f"bump {name}")
    return _timed(repo, key=key)


def _fast_import_floor(repo: Path, scratch: Path) -> tuple[float, int]:
    """`git fast-import` of the rendered tree's files into an empty repository."""
    opened = repository.open_repository(repo)
    assert opened is not None
    tip = rendered.read_tip(opened, "gitfleet/rendered")
    assert tip is not None
    files = rendered.read_files(opened, tip, lambda p: True)
    opened.close()
    parts = [
        b"commit refs/heads/floor\ncommitter bench <bench@example.com> 0 +0000\ndata 5\nfloor\n"
    ]
    for path, data in sorted(files.items()):
        parts.append(b"M 100644 inline %s\ndata %d\n%s\n" % (path.encode(), len(data), data))
    stream = b"".join(parts) + b"\n"
    _git(scratch.parent, "init", "-q", "--bare", str(scratch))
    start = time.perf_counter()
    subprocess.run(["git", "fast-import", "--quiet"], cwd=scratch, input=stream, check=True)
    elapsed = time.perf_counter() - start
    floor_tree = _git(scratch, "rev-parse", "refs/heads/floor^{tree}")
    assert floor_tree == tip.tree, "fast-import built another tree"
    return elapsed, len(files)


def run_fleet(templates: int, clusters: int, budgets: bool, signed: bool = False) -> bool:
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "source"
        key = None
        if signed:
            key = str(Path(tmp) / "key")
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key], check=True)
        print(f"fleet: {templates} templates x {clusters} clusters{', signed' if signed else ''}")
        generate(repo, templates, clusters)
        full, outcome = _timed(repo, key=key)
        manifests = sum(len(c.added) for c in outcome.result.clusters.values())
        floor, files = _fast_import_floor(repo, Path(tmp) / "floor.git")
        print(f"  full render + commit: {full:7.2f} s  ({manifests} manifests, {files} files)")
        print(f"  git fast-import floor:{floor:7.2f} s  ratio {full / floor:.2f}x (target 3x)")
        first, _ = _change(repo, "app00007", key)
        one, outcome = _change(repo, "app00013", key)
        assert outcome.created and outcome.result.rendered_bindings == 1
        noop, outcome = _timed(repo, key=key)
        assert not outcome.created and outcome.result.rendered_bindings == 0
        print(f"  first change after start (previous bindings read cold): {first:7.2f} s")
        print(f"  one template changed: {one:7.2f} s  (1 binding rendered)")
        print(f"  no-op render:         {noop:7.2f} s  (the same commit again)")
        if budgets:
            timed = (("full", full), ("first change", first), ("one change", one), ("no-op", noop))
            for what, took in timed:
                verdict = "ok" if took <= BUDGETS[what] else "OVER"
                ok &= took <= BUDGETS[what]
                print(f"  budget {what}: {BUDGETS[what]} s -> {verdict}")
    return ok


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", action="store_true", help="also 10,000 x 200 (slow)")
    parser.add_argument("--signed", action="store_true", help="also 1,000 x 50, signed")
    args = parser.parse_args()
    main_module.tune_collector()  # as `gitfleet` sets the process up
    ok = run_fleet(1000, 50, budgets=True)
    peak = _peak_mib()
    within = peak <= MEMORY_BUDGET_MIB
    verdict = "ok" if within else "OVER"
    print(f"peak memory: {peak:.0f} MiB (budget {MEMORY_BUDGET_MIB} MiB) -> {verdict}")
    if args.signed:
        ok &= run_fleet(1000, 50, budgets=True, signed=True)
    if args.large:
        run_fleet(10_000, 200, budgets=False)
        print(f"peak memory with the large fleet: {_peak_mib():.0f} MiB (no budget)")
    sys.exit(0 if ok and within else 1)


if __name__ == "__main__":
    main()
