"""The applier and the push agent against simulated clusters.

1. 2,000 manifests (Namespaces, ConfigMaps, Deployments) to one simulated cluster: the first
   sync, then a sync that changes nothing. Write requests are counted by the simulator: the
   no-op sync must make none. Baseline, measured in the same run: the same manifests sent as
   bare server-side applies, one request each, with no planning, hashing or inventory.
2. Latency from a rendered commit to applied: a running push agent (watching the local
   repository) and 5 simulated clusters; each round commits a new rendered commit changing one
   ConfigMap on every cluster, and the time until all 5 serve the new value is measured.
   Target: p99 at most 2 s.

    python -m bench.bench_apply      (from the repository root)
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import yaml

from gitfleet import sim
from gitfleet.agent import apply, kube, push, workdir
from gitfleet.gitstore import rendered, repository

MANIFESTS = 2_000
NAMESPACES = 10
CLUSTERS = 5
ROUNDS = 30
TARGET_P99 = 2.0


def workloads(count: int, namespaces: int) -> list[dict[str, Any]]:
    """`count` objects spread over `namespaces` namespaces (`ns-<n>`): three ConfigMaps for
    every one-replica Deployment."""
    docs: list[dict[str, Any]] = []
    for i in range(count):
        metadata = {"name": f"app-{i}", "namespace": f"ns-{i % namespaces}"}
        if i % 4:
            docs.append(
                {
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": metadata,
                    "data": {"i": str(i)},
                }
            )
            continue
        labels = {"app": f"app-{i}"}
        docs.append(
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": metadata,
                "spec": {
                    "replicas": 1,
                    "selector": {"matchLabels": labels},
                    "template": {
                        "metadata": {"labels": labels},
                        "spec": {"containers": [{"name": "main", "image": "nginx"}]},
                    },
                },
            }
        )
    return docs


def _manifests() -> list[dict[str, Any]]:
    namespaces: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": f"ns-{n}"}}
        for n in range(NAMESPACES)
    ]
    return namespaces + workloads(MANIFESTS - NAMESPACES, NAMESPACES)


def _files(cluster: str, docs: list[dict[str, Any]]) -> dict[str, bytes]:
    files = {}
    for doc in docs:
        meta = doc["metadata"]
        group = doc["apiVersion"].rpartition("/")[0] or "core"
        folder = meta.get("namespace") or "_cluster"
        path = f"works/{cluster}/{folder}/{doc['kind']}.{group}/{meta['name']}.yaml"
        files[path] = yaml.safe_dump(doc).encode()
    return files


def _baseline(client: kube.KubeClient, docs: list[dict[str, Any]]) -> float:
    """Bare server-side applies of `docs`, one request each."""
    start = time.perf_counter()
    for doc in docs:
        rtype = client.resource_type(doc["apiVersion"], doc["kind"])
        client.apply(rtype, doc, manager="bench-baseline")
    return time.perf_counter() - start


def bench_one_cluster(tmp: Path) -> None:
    docs = _manifests()
    work_set = workdir.parse("member1", _files("member1", docs), rendered_commit="r1")
    with sim.SimCluster("member1", ready_delay=0) as member, sim.SimCluster("floor") as floor:
        base_client = kube.KubeClient(floor.kubeconfig(tmp / "floor.yaml"))
        baseline = _baseline(base_client, docs)
        base_client.close()
        client = kube.KubeClient(member.kubeconfig(tmp / "member1.yaml"))
        start = time.perf_counter()
        first = apply.sync(client, work_set)
        first_seconds = time.perf_counter() - start
        first_writes = member.requests.writes
        member.reset_requests()
        start = time.perf_counter()
        again = apply.sync(client, work_set)
        noop_seconds = time.perf_counter() - start
        noop = member.requests
        client.close()
    assert first.converged and again.converged
    print(f"first sync of {MANIFESTS} manifests: {first_seconds:.2f} s, {first_writes} writes")
    print(f"  baseline (bare applies, one request each): {baseline:.2f} s")
    print(f"  ratio to baseline: {first_seconds / baseline:.2f}")
    print(
        f"no-op sync: {noop_seconds:.3f} s, {noop.writes} writes, {noop.reads} reads"
        f" ({noop_seconds / baseline:.3f} of the baseline)"
    )
    if noop.writes:
        raise SystemExit("a no-op sync made write requests")


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@localhost",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@localhost"}  # fmt: skip
    done = subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)
    return done.stdout.decode().strip()


def _clusters_source(names: list[str]) -> str:
    return "".join(
        f"---\napiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\n"
        f"metadata: {{name: {name}}}\nspec: {{syncMode: Push}}\n"
        for name in names
    )


def bench_latency(tmp: Path) -> None:
    source = tmp / "fleet"
    source.mkdir()
    _git(source, "init", "-q", "-b", "main")
    fleet = sim.SimFleet.of(CLUSTERS, ready_delay=0)
    names = [c.name for c in fleet]
    (source / "clusters.yaml").write_text(_clusters_source(names))
    _git(source, "add", "-A")
    _git(source, "commit", "-qm", "clusters")
    source_commit = _git(source, "rev-parse", "HEAD")
    repo = repository.open_repository(source)
    assert repo is not None
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "bench"}}

    def publish(value: int, expected: str | None) -> str:
        config = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "probe", "namespace": "bench"},
            "data": {"value": str(value)},
        }
        files: dict[str, Any] = {"render.yaml": f"round: {value}\n".encode()}
        for name in names:
            files.update(_files(name, [namespace, config]))
        done = rendered.publish(
            repo, "gitfleet/rendered", files, expected=expected,
            source_commit=source_commit, version="bench",
        )  # fmt: skip
        return done.commit

    def applied(value: int) -> bool:
        for member in fleet:
            found = member.objects.get("v1", "ConfigMap", "probe", "bench")
            if found is None or found["data"]["value"] != str(value):
                return False
        return True

    with fleet:
        fleet.write_kubeconfigs(tmp / "kube")
        tip = publish(0, None)
        agent = push.PushAgent(
            push.Settings(repo=str(source), kubeconfig_dir=tmp / "kube", interval=30.0)
        )
        runner = threading.Thread(target=agent.run)
        runner.start()
        try:
            while not applied(0):
                time.sleep(0.005)
            latencies = []
            for value in range(1, ROUNDS + 1):
                start = time.perf_counter()
                tip = publish(value, tip)
                while not applied(value):
                    time.sleep(0.002)
                latencies.append(time.perf_counter() - start)
        finally:
            agent.stop()
            runner.join()
    repo.close()
    latencies.sort()
    p50 = statistics.median(latencies)
    p99 = latencies[min(len(latencies) - 1, round(0.99 * (len(latencies) - 1)))]
    print(
        f"rendered commit to applied on {CLUSTERS} clusters ({ROUNDS} rounds):"
        f" p50 {p50:.3f} s, p99 {p99:.3f} s, max {latencies[-1]:.3f} s"
        f" (target p99 <= {TARGET_P99:g} s; ratio {p99 / TARGET_P99:.2f})"
    )
    if p99 > TARGET_P99:
        raise SystemExit("p99 latency over target")


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="gitfleet-bench-apply-") as folder:
        tmp = Path(folder)
        bench_one_cluster(tmp)
        bench_latency(tmp)


if __name__ == "__main__":
    main()
