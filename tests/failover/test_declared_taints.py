"""NoExecute taints a Cluster declares in the source evict without a status snapshot too
(`pipeline.place` with `now` and no `observed`: what `gitfleet render`, `preview` and `explain`
run), as the reconciler's render of the same commit evicts.

Aspects: an untolerated declared NoExecute taint moves the replicas at once and keeps the
evicted cluster's copy with a graceful eviction task; a tolerated one with seconds waits until
its timeAdded plus the seconds, as measured at `now`; NoSchedule taints and a disabled failover
move nothing; without a time (a plain folder) nothing is evicted; no cluster is judged by
heartbeats, since there are no reports.
"""

from __future__ import annotations

from typing import Any

from builders import make_cluster, make_deployment, object_set, previous_map
from failover_kit import SETTINGS, at, place, placed, tasks, web_policy

from gitfleet import interpreter, pipeline
from gitfleet.model import loaded

NO_EXECUTE = {"key": "maintenance", "effect": "NoExecute", "timeAdded": at(0)}


def docs(taint: dict[str, Any] | None = None, **policy: Any) -> list[dict[str, Any]]:
    clusters = [make_cluster(n, cpu="8") for n in ("m1", "m2", "m3")]
    if taint is not None:
        clusters[1]["spec"]["taints"] = [taint]
    return [make_deployment("web", replicas=3), web_policy(**policy), *clusters]


def at_time(
    found: list[dict[str, Any]],
    previous: pipeline.Placement | None,
    seconds: float | None,
    settings: loaded.FailoverSettings = SETTINGS,
) -> pipeline.Placement:
    """`pipeline.place` as `gitfleet render` runs it: the commit's time, no status snapshot."""
    return pipeline.place(
        object_set(found),
        interpreter.Interpreter(),
        previous_map(previous.bindings if previous else None),
        now=at(seconds) if seconds is not None else None,
        settings=settings,
    )


def test_an_untolerated_declared_taint_evicts_at_the_commit_time() -> None:
    first = place(docs())
    assert placed(first) == {"m1": 1, "m2": 1, "m3": 1}
    tainted = at_time(docs(NO_EXECUTE), first, 60)
    assert placed(tainted) == {"m1": 2, "m3": 1}
    assert tasks(tainted) == {"m2": "Gracefully"}
    assert tainted.failover is not None and not tainted.failover.health


def test_a_tolerated_taint_waits_for_its_seconds() -> None:
    tolerating = {
        "placement": {
            "clusterTolerations": [
                {
                    "key": "maintenance",
                    "operator": "Exists",
                    "effect": "NoExecute",
                    "tolerationSeconds": 300,
                }
            ]
        }
    }
    first = place(docs(**tolerating))
    assert placed(at_time(docs(NO_EXECUTE, **tolerating), first, 200)) == {
        "m1": 1,
        "m2": 1,
        "m3": 1,
    }
    assert placed(at_time(docs(NO_EXECUTE, **tolerating), first, 400)) == {"m1": 2, "m3": 1}


def test_what_moves_nothing() -> None:
    first = place(docs())
    no_schedule = {**NO_EXECUTE, "effect": "NoSchedule"}
    off = loaded.FailoverSettings(enabled=False)
    for result in (
        at_time(docs(no_schedule), first, 60),
        at_time(docs(NO_EXECUTE), first, 60, off),
        at_time(docs(NO_EXECUTE), first, None),
    ):
        assert placed(result) == {"m1": 1, "m2": 1, "m3": 1}
        assert tasks(result) == {}
    assert at_time(docs(no_schedule), first, 60).failover is None
