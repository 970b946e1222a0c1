"""The push agent and `gitfleet status` on a cluster holding thousands of objects.

A source repository with 3,000 templates (ConfigMaps and Deployments over a few namespaces)
and a policy placing them all on one Push cluster (a simulated one) is rendered, then:

1. `gitfleet agent push --once`: the first sync (every object created);
2. the same again with nothing changed: a no-op sync, which must write nothing to the cluster;
3. `gitfleet status` on the repository.

Each runs in-process through the command line, as a user types it. Baseline, measured in the
same run: the same manifests sent as bare server-side applies, one request each, with no
planning, reading back or reporting. Budgets: the no-op sync 5 s, `status` 2 s.

    python -m bench.bench_agent      (from the repository root)
    python -m bench.bench_agent --profile     (cProfile of the no-op sync and of status)
"""

from __future__ import annotations

import contextlib
import cProfile
import multiprocessing
import os
import pstats
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

from bench.bench_apply import workloads
from gitfleet import collector, sim
from gitfleet.agent import kube
from gitfleet.cli import main as cli_main

TEMPLATES = int(os.environ.get("BENCH_TEMPLATES", "3000"))
NAMESPACES = 6
NOOP_BUDGET = 5.0
STATUS_BUDGET = 2.0
CLUSTER = "member1"


_POLICY = """\
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterPropagationPolicy
metadata: {name: everything}
spec:
  resourceSelectors:
    - {apiVersion: v1, kind: ConfigMap}
    - {apiVersion: apps/v1, kind: Deployment}
  placement:
    clusterAffinity: {clusterNames: [member1]}
"""


_DECLARED = """\
status:
  apiEnablements:
    - groupVersion: v1
      resources:
        - {name: configmaps, kind: ConfigMap}
        - {name: namespaces, kind: Namespace}
    - groupVersion: apps/v1
      resources:
        - {name: deployments, kind: Deployment}
  conditions:
    - {type: Ready, status: "True", reason: ClusterReady}
"""
"""What the scheduler knows of the cluster before its agent reports."""


def _git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@localhost",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@localhost"}  # fmt: skip
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def _source(folder: Path) -> None:
    folder.mkdir()
    _git(folder, "init", "-q", "-b", "main")
    (folder / "clusters.yaml").write_text(
        f"apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\n"
        f"metadata: {{name: {CLUSTER}}}\nspec: {{syncMode: Push}}\n" + _DECLARED
    )
    (folder / "policy.yaml").write_text(_POLICY)
    (folder / "namespaces.yaml").write_text(
        "".join(
            f"---\napiVersion: v1\nkind: Namespace\nmetadata: {{name: ns-{n}}}\n"
            for n in range(NAMESPACES)
        )
    )
    apps = folder / "apps"
    apps.mkdir()
    (apps / "all.yaml").write_text(yaml.safe_dump_all(workloads(TEMPLATES, NAMESPACES)))
    _git(folder, "add", "-A")
    _git(folder, "commit", "-qm", "source")


def _run(*args: str) -> float:
    """Seconds `gitfleet ARGS` took in-process; exits when it fails."""
    start = time.perf_counter()
    done = CliRunner().invoke(cli_main.cli, list(args), catch_exceptions=False)
    seconds = time.perf_counter() - start
    if done.exit_code != 0:
        raise SystemExit(f"gitfleet {' '.join(args)} failed:\n{done.output}")
    return seconds


def _profiled(what: str, run: Callable[[], float]) -> float:
    """`run` under cProfile, the threads it starts included (the agent syncs in a pool)."""
    profiles = [cProfile.Profile()]

    def start_thread(*_: object) -> None:
        sys.setprofile(None)
        profile = cProfile.Profile()
        profiles.append(profile)
        profile.enable()

    threading.setprofile(start_thread)
    try:
        seconds = profiles[0].runcall(run)
    finally:
        threading.setprofile(None)  # type: ignore[arg-type]
    print(f"--- profile of {what} ---")
    stats = pstats.Stats(profiles[0])
    for each in profiles[1:]:
        each.create_stats()
        stats.add(each)
    stats.sort_stats("cumulative").print_stats(60)
    stats.sort_stats("tottime").print_stats(25)
    return seconds


def _serve(name: str, kubeconfig: Path, orders: Connection) -> None:
    """A simulated cluster in a process of its own (as `gitfleet sim` runs it), so that it
    does not share the interpreter with the agent it answers; it counts the write requests
    it served, and forgets them, when told."""
    with sim.SimCluster(name, ready_delay=0) as member:
        member.kubeconfig(kubeconfig)
        orders.send("ready")
        while (order := orders.recv()) != "stop":
            orders.send(member.requests.writes)
            if order == "reset":
                member.reset_requests()


@contextlib.contextmanager
def _cluster(name: str, kubeconfig: Path) -> Iterator[Callable[[], int]]:
    """A simulated cluster in its own process; gives a function that returns the write
    requests served since it was last called."""
    ours, theirs = multiprocessing.Pipe()
    process = multiprocessing.Process(target=_serve, args=(name, kubeconfig, theirs))
    process.start()
    try:
        ours.recv()

        def writes() -> int:
            ours.send("reset")
            return int(ours.recv())

        yield writes
        ours.send("stop")
    finally:
        process.join(10)
        if process.is_alive():
            process.kill()


def _baseline(kubeconfig: Path, docs: list[dict[str, Any]]) -> float:
    """Bare server-side applies of `docs`, one request each."""
    client = kube.KubeClient(kubeconfig)
    start = time.perf_counter()
    for doc in docs:
        rtype = client.resource_type(doc["apiVersion"], doc["kind"])
        client.apply(rtype, doc, manager="bench-baseline")
    seconds = time.perf_counter() - start
    client.close()
    return seconds


def main() -> None:
    profile = "--profile" in sys.argv[1:]
    collector.tune()
    with tempfile.TemporaryDirectory(prefix="gitfleet-bench-agent-") as folder:
        tmp = Path(folder)
        repo = tmp / "fleet"
        _source(repo)
        kubeconfigs = tmp / "kubeconfigs"
        kubeconfigs.mkdir()
        render = _run("render", "--repo", str(repo))
        namespaces = [
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": f"ns-{n}"}}
            for n in range(NAMESPACES)
        ]
        with _cluster("floor", tmp / "floor.yaml"):
            objects = [*namespaces, *workloads(TEMPLATES, NAMESPACES)]
            baseline = _baseline(tmp / "floor.yaml", objects)
        with _cluster(CLUSTER, kubeconfigs / f"{CLUSTER}.yaml") as writes:
            push = ("agent", "push", "--repo", str(repo), "--kubeconfig-dir", str(kubeconfigs),
                    "--once")  # fmt: skip
            first = _run(*push)
            first_writes = writes()
            noop_run = lambda: _run(*push)  # noqa: E731
            noop = _profiled("the no-op sync", noop_run) if profile else noop_run()
            noop_writes = writes()
        status_run = lambda: _run("status", "--repo", str(repo))  # noqa: E731
        status = _profiled("status", status_run) if profile else status_run()
    objects = TEMPLATES + NAMESPACES
    print(f"render of {TEMPLATES} templates to one cluster: {render:.2f} s")
    print(f"first sync of {objects} objects: {first:.2f} s, {first_writes} writes")
    print(f"  baseline (bare applies, one request each): {baseline:.2f} s")
    print(f"  ratio to baseline: {first / baseline:.2f}")
    print(
        f"no-op sync: {noop:.2f} s, {noop_writes} writes (budget {NOOP_BUDGET:g} s;"
        f" {noop / baseline:.3f} of the baseline)"
    )
    print(f"status: {status:.2f} s (budget {STATUS_BUDGET:g} s)")
    if noop_writes:
        raise SystemExit("a no-op sync made write requests")
    if noop > NOOP_BUDGET or status > STATUS_BUDGET:
        raise SystemExit("over budget")


if __name__ == "__main__":
    main()
