"""Benchmark: load and validate a large source repository, against the cost of parsing alone.

    python bench/bench_load.py [--apps N]

Generates a Git repository of 5,000 files holding 10,000 documents (by default): per app a
Deployment with its Service, and a ConfigMap with the PropagationPolicy that places all three
(every tenth app has an OverridePolicy there instead); plus ten files of two Clusters each.
The repository is packed, as repositories that have lived are. Then, in this process:

- load + validate: `source.load(repo)` (read from the object database) and
  `validation.validate(...)`, timed (wall clock and this process's CPU), best of three, each
  a cold load (nothing kept from an earlier load);
- cold load against warm reload: `source.load(repo)` alone, cold, against a reload after a
  commit that changes one file (a running reconciler's case: unchanged files are reused from
  the previous load), each best of three;
- floor: the same bytes, already in memory, parsed with the fastest loader available
  (`yaml.load_all(..., Loader=yaml.CSafeLoader)`), timed the same way;
- memory: the peak of Python allocations during one load + validate (tracemalloc, untimed)
  and the process's peak resident size.

Prints documents per second for both, the ratio to the floor, the warm reload against the
cold load, and whether load + validate met the target of 3 seconds.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout as is

from gitfleet import source, validation
from gitfleet.source import _cache

TARGET_SECONDS = 3.0
CLUSTER_FILES = 10

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {app}
  namespace: {team}
  labels:
    app: {app}
    team: {team}
spec:
  replicas: {replicas}
  selector:
    matchLabels:
      app: {app}
  template:
    metadata:
      labels:
        app: {app}
        team: {team}
    spec:
      containers:
        - name: {app}
          image: registry.example.com/{team}/{app}:1.{minor}.0
          ports:
            - containerPort: 8080
          env:
            - name: LOG_LEVEL
              value: info
          envFrom:
            - configMapRef:
                name: {app}-config
          resources:
            requests:
              cpu: 100m
              memory: 128Mi
            limits:
              memory: 256Mi
          readinessProbe:
            httpGet:
              path: /healthz
              port: 8080
---
apiVersion: v1
kind: Service
metadata:
  name: {app}
  namespace: {team}
  labels:
    app: {app}
spec:
  selector:
    app: {app}
  ports:
    - name: http
      port: 80
      targetPort: 8080
"""

CONFIG = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {app}-config
  namespace: {team}
  labels:
    app: {app}
data:
  FEATURE_FLAGS: "search,checkout"
  TIMEOUT_SECONDS: "30"
  config.json: '{{"retries": 3, "endpoint": "https://{app}.{team}.svc"}}'
---
"""

POLICY = """\
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: {app}
  namespace: {team}
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
      name: {app}
    - apiVersion: v1
      kind: Service
      name: {app}
    - apiVersion: v1
      kind: ConfigMap
      labelSelector:
        matchLabels:
          app: {app}
  placement:
    clusterAffinity:
      labelSelector:
        matchLabels:
          env: production
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference:
        dynamicWeight: AvailableReplicas
"""

OVERRIDE = """\
apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata:
  name: {app}
  namespace: {team}
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
      name: {app}
  overrideRules:
    - targetCluster:
        clusterNames: [member-0]
      overriders:
        imageOverrider:
          - component: Registry
            operator: replace
            value: eu.registry.example.com
"""

CLUSTER = """\
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata:
  name: member-{index}
  labels:
    env: production
spec:
  syncMode: Push
  apiEndpoint: https://10.0.{index}.1:6443
  provider: aws
  region: region-{region}
status:
  resourceSummary:
    allocatable: {{cpu: "64", memory: 256Gi, pods: "330"}}
---
"""


def generate(root: Path, apps: int) -> tuple[int, int]:
    """Write the repository's files; returns (files, documents)."""
    files = documents = 0
    for index in range(apps):
        team, app = f"team-{index % 50}", f"app-{index}"
        folder = root / "apps" / team / app
        folder.mkdir(parents=True, exist_ok=True)
        values = {"team": team, "app": app, "replicas": 2 + index % 5, "minor": index % 9}
        (folder / "workload.yaml").write_text(DEPLOYMENT.format(**values))
        policy = OVERRIDE if index % 10 == 9 else POLICY
        (folder / "config.yaml").write_text(CONFIG.format(**values) + policy.format(**values))
        files, documents = files + 2, documents + 4
    (root / "clusters").mkdir()
    for index in range(CLUSTER_FILES):
        pair = "".join(CLUSTER.format(index=2 * index + k, region=k) for k in range(2))
        (root / "clusters" / f"pair-{index}.yaml").write_text(pair)
        files, documents = files + 1, documents + 2
    return files, documents


def git(root: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@example.com",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@example.com",
    }
    subprocess.run(["git", "-c", "gc.auto=0", *args], cwd=root, env=env, check=True)


def commit(root: Path) -> None:
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "fleet")
    git(root, "repack", "-adq")


def change_one(root: Path, index: int) -> None:
    """Commit a new replica count for one app's Deployment."""
    path = root / "apps" / f"team-{index % 50}" / f"app-{index}" / "workload.yaml"
    text = path.read_text()
    path.write_text(text.replace("  replicas: ", "  replicas: 1", 1))
    git(root, "commit", "-qam", f"scale app-{index}")


def cold(action: Callable[[], object]) -> Callable[[], object]:
    """`action` as the first load of a process does it: nothing kept from earlier loads."""

    def run() -> object:
        _cache.FILES.clear()
        return action()

    return run


def best_of(runs: int, action: Callable[[], object]) -> tuple[float, float]:
    """(wall, CPU) seconds of the fastest run; CPU time says more on a busy machine."""
    times = []
    for _ in range(runs):
        start, cpu = time.perf_counter(), time.process_time()
        action()
        times.append((time.perf_counter() - start, time.process_time() - cpu))
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", type=int, default=(5000 - CLUSTER_FILES) // 2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        files, documents = generate(root, args.apps)
        commit(root)
        contents = [p.read_bytes() for p in sorted(root.rglob("*.yaml"))]

        def load_and_validate() -> None:
            loaded = source.load(root)
            problems = validation.validate(loaded)
            assert len(loaded.documents) == documents and not problems, problems[:3]

        def load() -> None:
            assert len(source.load(root).documents) == documents

        def floor() -> None:
            for data in contents:
                for _ in yaml.load_all(data, Loader=yaml.CSafeLoader):
                    pass

        ours, ours_cpu = best_of(3, cold(load_and_validate))
        base, base_cpu = best_of(3, floor)
        first, first_cpu = best_of(3, cold(load))
        reloads = []
        for index in range(3):  # the cache holds the revision before each change
            change_one(root, index)
            reloads.append(best_of(1, load))
        warm, warm_cpu = min(reloads)
        tracemalloc.start()
        cold(load_and_validate)()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    print(f"repository: {files} files, {documents} documents, {sum(map(len, contents))} bytes")
    print(f"load + validate: {ours:.2f} s, {documents / ours:,.0f} docs/s (CPU {ours_cpu:.2f} s)")
    print(f"floor, CSafeLoader parse only: {base:.2f} s, {documents / base:,.0f} docs/s", end="")
    print(f" (CPU {base_cpu:.2f} s)")
    print(f"ratio to floor: {ours / base:.2f}x (CPU {ours_cpu / base_cpu:.2f}x)")
    print(f"cold load: {first:.3f} s (CPU {first_cpu:.3f} s)")
    print(f"warm reload after one-file change: {warm:.3f} s (CPU {warm_cpu:.3f} s),", end="")
    print(f" {first / warm:.0f}x faster than the cold load (CPU {first_cpu / warm_cpu:.0f}x)")
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"peak Python allocations (load + validate): {peak / 2**20:.1f} MiB")
    print(f"peak resident size of this process: {rss:.0f} MiB")
    verdict = "met" if ours <= TARGET_SECONDS else "MISSED"
    print(f"target {TARGET_SECONDS:.1f} s: {verdict}")
    return 0 if ours <= TARGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
