"""Random replica calculator scenarios, and Karmada's answers to them.

Each scenario is made from its seed alone (`scenario`): a Resource metric (cpu or memory) with
an averageUtilization or averageValue target, the template's replicas (0 among them), the
calibration of a Duplicated or divided target, and one to eight pods spread over member
clusters: Running, Pending, Failed or being deleted, with a Ready condition true, false or
absent that changed within or after the initial readiness delay, started within or after the
cpu initialization period (or not started), sampled before or after they turned ready, with or
without metrics, with one or two containers whose requests may be zero or missing. Usage is
often set at the target or exactly at the tolerance (ratio 1 +/- 0.1), where the rounding of
the utilization decides.

Times are seconds from the evaluation (`NOW` for gitfleet; the harness's clock for Karmada,
where only a pod's start plus the cpu initialization period is set against it, and an equal
moment is past in both).

The answers in testdata/karmada_fhpa_answers.json are what Karmada's own ReplicaCalculator gave
for each (bench/karmada_fhpa.go): the proposed replicas, the utilization and the average
usage, or that no proposal was computed. To make them again (after a change to this generator,
or for another Karmada), from the repository root:

    python tests/autoscaling/fhpa_oracle_scenarios.py --karmada PATH [--go GO] [--commit SHA]

PATH is a checkout of karmada-io/karmada with its vendored packages. The generator must not
change without making the answers again: a seed stands for the scenario it made when they were
made.

Left out on purpose: pods of two clusters with the same name (Karmada keys the metrics by pod
name and counts them once; gitfleet names them `<cluster>/<pod>`, see _calculator), and
metrics of pods the target does not have, which gitfleet's agents never report.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

Doc = dict[str, Any]

ANSWERS = Path(__file__).resolve().parent / "testdata" / "karmada_fhpa_answers.json"
SEEDS = 400
NOW = "2026-03-01T12:00:00Z"
CLUSTERS = ("member1", "member2", "member3")


def _offset(r: random.Random, choices: list[int]) -> int:
    return r.choice(choices) if r.random() < 0.6 else -r.randint(0, 900)


def _pod(r: random.Random, name: str, level: float) -> Doc:
    """One pod, its usage near `level` x its request (or the average target)."""
    phase = r.choices(["Running", "Pending", "Failed", "Succeeded"], [0.8, 0.1, 0.07, 0.03])[0]
    started = None if r.random() < 0.05 else _offset(r, [-300, -299, -301, -10, -600, 0])
    changed = None
    if started is not None and r.random() < 0.9:
        changed = started + r.choice([0, 5, 29, 30, 31, 60, 120])
    ready = r.choices([True, False, None], [0.75, 0.2, 0.05])[0]
    requests = [
        None if r.random() < 0.03 else r.choice([0, 100, 250, 500, 1000, 1500])
        for _ in range(r.choice([1, 1, 2]))
    ]
    base = sum(q or 0 for q in requests) or 500
    usage = None
    if r.random() >= 0.12:
        usage = max(0, round(base * level * r.choice([1, 1, 1, 0.9, 1.3])))
    measured = changed + r.choice([-5, 0, 14, 15, 30, 60]) if changed is not None else -30
    return {
        "name": name,
        "phase": phase,
        "deleting": r.random() < 0.05,
        "ready": ready,
        "readyChanged": changed,
        "started": started,
        "requests": requests,
        "usage": usage,
        "measured": min(measured, 0),
        "window": r.choice([15, 30, 60]),
    }


def scenario(seed: int) -> Doc:
    """The metric, the replicas and the pods of one scenario."""
    r = random.Random(seed)
    utilization = r.random() < 0.65
    target = r.choice([50, 80, 100, 110, 120, 150]) if utilization else r.choice([100, 250, 1000])
    level = r.choice([1.0, 0.9, 1.1, 0.91, 1.09, r.uniform(0.1, 3.0)])
    if utilization:
        level = level * target / 100
    pods = []
    for i in range(r.randint(1, 8)):
        name = f"{r.choice(CLUSTERS)}-web-{i}"
        pods.append(_pod(r, name, level if utilization else level * target / 500))
    return {
        "resource": r.choice(["cpu", "cpu", "memory"]),
        "utilization": target if utilization else None,
        "averageValue": 0 if utilization else target,
        "current": r.choice([0, 1, 2, 3, 4, 5, 8, 10]),
        "calibration": r.choice([1.0, 1.0, 1.0, 2.0, 3.0, 0.5, 1.5]),
        "pods": pods,
    }


def main() -> None:
    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root))
    from bench import karmada_harness

    checkout = karmada_harness.checkout_from_command_line(__doc__.splitlines()[0])
    harness = root / "bench" / "karmada_fhpa.go"
    cases: list[object] = [scenario(seed) for seed in range(SEEDS)]
    given = karmada_harness.answers(harness, checkout.path, checkout.go, cases)
    karmada_harness.write_answers(ANSWERS, checkout.commit, given)


if __name__ == "__main__":
    main()
