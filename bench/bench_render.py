"""Render and commit a generated fleet: 1,000 templates x 50 clusters (mixed placement strategies,
3 override policies matching each template), through `gitfleet render` as the CLI runs it.

Measures, each in a fresh process-free call of the same code path as the command, timed from
a collected heap (`_timed`):
- the first full render and commit (budget 10 s);
- a render after a commit that changes one template (budget 0.5 s), measured on the second
  such change: later changes read only the previous bindings that changed, as a running
  reconciler does;
- the first such change after start (budget 0.5 s): it reads every previous binding cold;
- a no-op render: the same source commit again (budget 0.3 s);
- peak memory of the 1,000 x 50 run (budget 1 GiB);
- the floor: `git fast-import` of the identical output into an empty repository, and
  gitfleet's full render as a ratio to it (target within 3x).

Larger fleets each run in a fresh process (a "cell"), so that the peak memory printed is the
cell's own, measured right after its full render and commit:
- `--grid` prints the curve: templates 1k/5k/10k x clusters 10/50/200, full render time,
  the fast-import floor of the same output, their ratio, peak memory and manifests (no
  budgets: it shows how cost grows);
- `--large` checks the large fleets against their budgets: 10,000 templates x 200 clusters
  within 60 s, 2x the floor and 2 GiB; 500 templates x 2,000 clusters within 60 s, 2x the
  floor and 2 GiB (exit 1 when over).
`--long-running` renders 40 commits after the 1,000 x 50 fleet's full render (every cluster
with a file of its own), in a fresh process, each commit adding a template and every fifth
also changing every template: resident memory after the last render must be within 1.15x
that after the tenth (a reconciler's memory must not grow with the renders it has made).
`--signed` runs the 1,000 x 50 fleet again with every commit signed (`--signing-key`, a
throwaway SSH key): one ssh-keygen per commit, so its full render (51 commits) costs what 51
signatures cost more. The machine's load (`uptime`) is printed with the figures: compare
ratios, not seconds, between runs on a shared machine.

    python -m bench.bench_render [--grid] [--large] [--long-running] [--signed]
                                                                (from the repository root)
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from gitfleet import collector
from gitfleet.cli import render as render_command
from gitfleet.gitstore import rendered, repository

BUDGETS = {"full": 10.0, "first change": 0.5, "one change": 0.5, "no-op": 0.3}
MEMORY_BUDGET_MIB = 1024
FLOOR_SLICE = 20_000
"""Files read at a time to write the fast-import stream."""
GRID = tuple((t, c) for t in (1000, 5000, 10_000) for c in (10, 50, 200))
LARGE_BUDGETS = {(10_000, 200): (60.0, 2.0, 2048), (500, 2000): (60.0, 2.0, 2048)}
"""Large fleets (templates, clusters): full render seconds, ratio to the floor, peak MiB."""
LONG_RUNNING = (1000, 50, 40)
"""The long-running process: templates, clusters, renders after the first."""
RESHAPE_EVERY = 5
WARM_ROUNDS = 10
LONG_RUNNING_GROWTH = 1.15
"""Resident memory after the last render over that after the warm-up: the bounded memos fill
during the warm-up and after it (a few MiB each), nothing else may grow."""
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


def _template(i: int, more_replicas: int = 0) -> dict[str, Any]:
    ns = f"ns{i % NAMESPACES}"
    spread = (i // NAMESPACES) % 5
    strategy = STRATEGIES[0] if spread < 3 else STRATEGIES[spread - 2]
    replicas = (2 if strategy == "duplicated" else 60) + more_replicas
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


def _pinned(i: int) -> list[dict[str, Any]]:
    """A ConfigMap for cluster `i` alone, and its policy: no two clusters list the same files."""
    name = f"only-c{i:03d}"
    return [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": "ns0"},
            "data": {"cluster": f"c{i:03d}"},
        },
        {
            "apiVersion": "policy.karmada.io/v1alpha1",
            "kind": "PropagationPolicy",
            "metadata": {"name": name, "namespace": "ns0"},
            "spec": {
                "resourceSelectors": [{"apiVersion": "v1", "kind": "ConfigMap", "name": name}],
                "placement": {"clusterAffinity": {"clusterNames": [f"c{i:03d}"]}},
            },
        },
    ]


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
    """One render, timed from a collected heap: the objects the previous step left in the
    cycle collector's young generations would otherwise be scanned by whichever step next
    crosses its threshold (60 ms after the full render), a cost of that step's place in the
    sequence, not of its work; a `gitfleet render` process starts with none."""
    gc.collect()
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
    """`git fast-import` of the rendered tree's files into an empty repository. The stream is
    written to a file a slice of files at a time (the large fleets' output does not fit in
    memory twice), then fed to fast-import, which alone is timed."""
    opened = repository.open_repository(repo)
    assert opened is not None
    tip = rendered.read_tip(opened, "gitfleet/rendered")
    assert tip is not None
    paths = sorted(tip.files)
    stream = scratch.parent / "floor.stream"
    with stream.open("wb") as out:
        out.write(
            b"commit refs/heads/floor\ncommitter bench <bench@example.com> 0 +0000\ndata 5\nfloor\n"
        )
        for at in range(0, len(paths), FLOOR_SLICE):
            chosen = set(paths[at : at + FLOOR_SLICE])
            files = rendered.read_files(opened, tip, chosen.__contains__)
            for path in paths[at : at + FLOOR_SLICE]:
                data = files[path]
                out.write(b"M 100644 inline %s\ndata %d\n%s\n" % (path.encode(), len(data), data))
        out.write(b"\n")
    opened.close()
    _git(scratch.parent, "init", "-q", "--bare", str(scratch))
    with stream.open("rb") as fed:
        start = time.perf_counter()
        subprocess.run(["git", "fast-import", "--quiet"], cwd=scratch, stdin=fed, check=True)
        elapsed = time.perf_counter() - start
    stream.unlink()
    floor_tree = _git(scratch, "rev-parse", "refs/heads/floor^{tree}")
    assert floor_tree == tip.tree, "fast-import built another tree"
    return elapsed, len(paths)


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


def _load() -> str:
    return "load average " + ", ".join(f"{n:.2f}" for n in os.getloadavg())


def measure_cell(templates: int, clusters: int) -> dict[str, float]:
    """One fleet's full render and commit, in this process: seconds, peak memory right after
    it, the fast-import floor of the same output."""
    with tempfile.TemporaryDirectory(prefix="gitfleet-bench-") as tmp:
        repo = Path(tmp) / "source"
        generate(repo, templates, clusters)
        before = _peak_mib()
        full, outcome = _timed(repo)
        peak = _peak_mib()
        manifests = sum(len(c.added) for c in outcome.result.clusters.values())
        del outcome
        floor, files = _fast_import_floor(repo, Path(tmp) / "floor.git")
    return {
        "templates": templates, "clusters": clusters, "full": full, "floor": floor,
        "ratio": full / floor, "peak_mib": peak, "start_mib": before,
        "manifests": manifests, "files": files,
    }  # fmt: skip


def _resident_mib() -> float:
    """The process's resident memory now (Linux), else its peak."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except OSError:
        return _peak_mib()
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def measure_rounds(templates: int, clusters: int, rounds: int) -> dict[str, float]:
    """A long-running reconciler's memory, in this process: the fleet's full render (every
    cluster with a file of its own), then `rounds` renders of a commit that adds a template,
    every `RESHAPE_EVERY`-th also changing every template's replicas (every binding and
    manifest rewritten). Resident memory after the first render, after `WARM_ROUNDS` rounds
    and after the last."""
    with tempfile.TemporaryDirectory(prefix="gitfleet-bench-") as tmp:
        repo = Path(tmp) / "source"
        generate(repo, templates, clusters)
        pinned = [doc for i in range(clusters) for doc in _pinned(i)]
        (repo / "pinned.yaml").write_text(_dump(pinned))
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", "a file for each cluster")
        _timed(repo)
        first = _resident_mib()
        warm = first
        more = 0
        for at in range(1, rounds + 1):
            (repo / "apps" / f"added{at:05d}.yaml").write_text(_dump([_template(templates + at)]))
            if at % RESHAPE_EVERY == 0:
                more += 1
                for i in range(templates):
                    (repo / "apps" / f"app{i:05d}.yaml").write_text(_dump([_template(i, more)]))
            _git(repo, "add", "-A")
            _git(repo, "commit", "-q", "-m", f"round {at}")
            _timed(repo)
            if at == WARM_ROUNDS:
                gc.collect()
                warm = _resident_mib()
        gc.collect()
        last = _resident_mib()
    return {"first": first, "warm": warm, "last": last}


def run_long_running() -> bool:
    """A long-running reconciler's memory against its budget."""
    templates, clusters, rounds = LONG_RUNNING
    print(
        f"long-running: {templates} templates x {clusters} clusters, {rounds} renders,"
        f" every {RESHAPE_EVERY}th changing every template ({_load()})"
    )
    found = _fresh("--rounds", templates, clusters, rounds)
    growth = found["last"] / found["warm"]
    within = growth <= LONG_RUNNING_GROWTH
    print(
        f"  resident memory: {found['first']:.0f} MiB after the first render,"
        f" {found['warm']:.0f} MiB after {WARM_ROUNDS}, {found['last']:.0f} MiB after {rounds}"
    )
    verdict = "ok" if within else "OVER"
    print(f"  budget growth after warm-up: {growth:.2f}x <= {LONG_RUNNING_GROWTH}x -> {verdict}")
    return within


def _fresh(option: str, *numbers: int) -> dict[str, float]:
    """What this benchmark measures with `option` (`--cell`, `--rounds`) in a fresh process,
    so that the memory it reports is that measurement's own."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.bench_render", option, *map(str, numbers)],
        capture_output=True, check=True, cwd=Path(__file__).resolve().parent.parent,
    )  # fmt: skip
    found: dict[str, float] = json.loads(done.stdout.decode().splitlines()[-1])
    return found


_HEADER = (
    f"{'templates':>9} {'clusters':>8} {'manifests':>9} {'full s':>7} {'floor s':>7}"
    f" {'ratio':>5} {'peak MiB':>8}"
)


def _row(cell: dict[str, float]) -> str:
    return (
        f"{cell['templates']:>9.0f} {cell['clusters']:>8.0f} {cell['manifests']:>9.0f}"
        f" {cell['full']:>7.2f} {cell['floor']:>7.2f} {cell['ratio']:>5.2f}"
        f" {cell['peak_mib']:>8.0f}"
    )


def run_grid() -> None:
    print(f"grid, each cell in a fresh process ({_load()})")
    print(_HEADER)
    for templates, clusters in GRID:
        print(_row(_fresh("--cell", templates, clusters)), flush=True)
    print(f"({_load()})")


def run_large() -> bool:
    """The large fleets against their budgets."""
    ok = True
    for (templates, clusters), (seconds, ratio, mib) in LARGE_BUDGETS.items():
        print(f"large fleet: {templates} templates x {clusters} clusters ({_load()})")
        cell = _fresh("--cell", templates, clusters)
        print(_HEADER)
        print(_row(cell))
        for what, value, budget in (
            ("full render s", cell["full"], seconds),
            ("ratio to floor", cell["ratio"], ratio),
            ("peak MiB", cell["peak_mib"], mib),
        ):
            within = value <= budget
            ok &= within
            print(f"  budget {what}: {value:.2f} <= {budget} -> {'ok' if within else 'OVER'}")
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", action="store_true", help="time and memory over a grid")
    parser.add_argument("--large", action="store_true", help="the large fleets' budgets")
    parser.add_argument("--signed", action="store_true", help="also 1,000 x 50, signed")
    parser.add_argument("--long-running", action="store_true", help="memory over many renders")
    parser.add_argument("--cell", nargs=2, type=int, metavar=("TEMPLATES", "CLUSTERS"))
    parser.add_argument("--rounds", nargs=3, type=int, metavar=("TEMPLATES", "CLUSTERS", "N"))
    args = parser.parse_args()
    collector.tune()  # as `gitfleet` sets the process up
    if args.cell:
        print(json.dumps(measure_cell(*args.cell)))
        return
    if args.rounds:
        print(json.dumps(measure_rounds(*args.rounds)))
        return
    print(f"machine: {os.cpu_count()} cores, {_load()}")
    ok = run_fleet(1000, 50, budgets=True)
    peak = _peak_mib()
    within = peak <= MEMORY_BUDGET_MIB
    verdict = "ok" if within else "OVER"
    print(f"peak memory: {peak:.0f} MiB (budget {MEMORY_BUDGET_MIB} MiB) -> {verdict}")
    if args.signed:
        ok &= run_fleet(1000, 50, budgets=True, signed=True)
    if args.grid:
        run_grid()
    if args.large:
        ok &= run_large()
    if args.long_running:
        ok &= run_long_running()
    sys.exit(0 if ok and within else 1)


if __name__ == "__main__":
    main()
