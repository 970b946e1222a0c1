"""The autoscaling stage as a whole: from the source, the previous files and the measurements
to the templates' replicas, the files and the commit message's lines.

Aspects covered:
- a source without FederatedHPAs comes out as the very same objects;
- a first evaluation without measurements keeps the template's replicas and says why;
- under load the target is scaled and annotated for the agents; the line names the metric;
- bounds: replicas above maxReplicas or below minReplicas are brought within first;
- without measurements (a command-line render) the last decision stands; a change of the
  template's replicas in the source is a user's scale and wins;
- a target with no replicas in any cluster is not scaled (its scale cannot be read);
- the file is not rewritten when only the metrics moved;
- measurements are read back from a report; older reports without them give none;
- FederatedHPAs controlling the same pods (two naming one template, or one whose workload's
  selector finds another's pods) scale nothing, each saying so (AmbiguousSelector), after the
  bounds; a FederatedHPA whose pods no other selects still scales.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from builders import make_deployment, make_federated_hpa, object_set

from gitfleet import autoscaling
from gitfleet.model import loaded
from gitfleet.model.template import ResourceKey

NOW = "2026-01-01T12:00:00Z"
LATER = "2026-01-01T12:00:15Z"
KEY = ResourceKey("apps/v1", "Deployment", "shop", "web")
SETTINGS = loaded.AutoscalingSettings()


def pods(used: int, count: int, cluster: str = "m1") -> autoscaling.Workload:
    found = tuple(
        autoscaling.Pod(
            name=f"web-{i}", phase="Running", ready=True, started="2026-01-01T10:00:00Z",
            ready_changed="2026-01-01T10:00:05Z", requests={"cpu": 100}, usage={"cpu": used},
            measured="2026-01-01T11:59:50Z", window=30,
        )
        for i in range(count)
    )  # fmt: skip
    return autoscaling.Workload(cluster=cluster, spec_replicas=count, pods=found)


def run(
    docs: Sequence[dict[str, Any]],
    previous: Mapping[str, Any] | None = None,
    measured: Mapping[ResourceKey, Sequence[autoscaling.Workload]] | None = None,
    now: str | None = NOW,
) -> autoscaling.Autoscaled:
    return autoscaling.autoscale(object_set(docs), previous or {}, measured, now, SETTINGS)


def replicas(found: autoscaling.Autoscaled) -> int:
    (web,) = [t for t in found.objects.templates if t.key == KEY]
    return int(web.body["spec"]["replicas"])


def test_a_source_without_federated_hpas_is_untouched() -> None:
    objs = object_set([make_deployment()])
    found = autoscaling.autoscale(objs, {}, {}, NOW, SETTINGS)
    assert found.objects is objs and not found.files and found.message("render x") == "render x"


def test_a_first_evaluation_without_measurements_keeps_the_replicas() -> None:
    found = run([make_deployment(replicas=3), make_federated_hpa()], measured={})
    assert replicas(found) == 3
    doc = found.files["autoscaling/shop/web.yaml"]
    (able,) = [c for c in doc["status"]["conditions"] if c["type"] == "AbleToScale"]
    assert (able["status"], able["reason"]) == ("False", "FailedGetScale")
    assert found.message("render x") == "render x"


def test_load_scales_the_target_and_the_line_names_the_metric() -> None:
    found = run([make_deployment(replicas=2), make_federated_hpa()], measured={KEY: [pods(90, 2)]})
    assert replicas(found) == 4
    (web,) = [t for t in found.objects.templates if t.key == KEY]
    assert web.body["metadata"]["annotations"] == {"gitfleet.io/federated-hpa": "shop/web"}
    assert found.message("render x") == (
        "autoscale: FederatedHPA shop/web: cpu 90% of 50% target, 2 -> 4 replicas\n\nrender x"
    )
    status = found.files["autoscaling/shop/web.yaml"]["status"]
    assert status["currentMetrics"] == [
        {"type": "Resource", "resource": {"name": "cpu", "current": {
            "averageUtilization": 90, "averageValue": "90m"}}}
    ]  # fmt: skip
    assert status["lastScaleTime"] == NOW


def test_bounds_come_first() -> None:
    above = run(
        [make_deployment(replicas=12), make_federated_hpa()], measured={KEY: [pods(50, 12)]}
    )
    assert replicas(above) == 10
    assert above.decisions[0].line is not None and "above maxReplicas" in above.decisions[0].line
    below = run(
        [make_deployment(replicas=1), make_federated_hpa(min_replicas=3)],
        measured={KEY: [pods(50, 1)]},
    )
    assert replicas(below) == 3


def test_the_last_decision_stands_until_the_source_scales() -> None:
    docs = [make_deployment(replicas=2), make_federated_hpa()]
    first = run(docs, measured={KEY: [pods(90, 2)]})
    kept = run(docs, previous=first.files, measured=None, now=None)
    assert replicas(kept) == 4 and kept.files == first.files
    scaled = run([make_deployment(replicas=7), docs[1]], previous=first.files, measured=None)
    assert replicas(scaled) == 7, "the user's scale wins"


def test_no_replicas_anywhere_is_not_scaled() -> None:
    idle = dataclasses.replace(pods(90, 0), spec_replicas=0, pods=pods(90, 1).pods)
    found = run([make_deployment(replicas=2), make_federated_hpa()], measured={KEY: [idle]})
    assert replicas(found) == 2
    conditions = found.files["autoscaling/shop/web.yaml"]["status"]["conditions"]
    assert {"FailedGetScale"} == {c["reason"] for c in conditions if c["type"] == "AbleToScale"}


def test_the_file_stays_when_only_the_metrics_move() -> None:
    docs = [make_deployment(replicas=2), make_federated_hpa()]
    first = run(docs, measured={KEY: [pods(50, 2)]})
    again = run(docs, previous=first.files, measured={KEY: [pods(52, 2)]}, now=LATER)
    assert again.files == first.files
    assert replicas(again) == 2


def test_measurements_are_read_from_reports() -> None:
    metrics = {"pods": [{"name": "web-0", "phase": "Running", "ready": True,
                         "requests": {"cpu": 100}, "usage": {"cpu": 40}}]}  # fmt: skip
    found = autoscaling.from_report("m1", metrics, {"spec": {"replicas": 1}})
    assert found is not None and found.spec_replicas == 1
    assert found.pods[0].usage == {"cpu": 40} and found.pods[0].ready is True
    assert autoscaling.from_report("m1", None, {}) is None, "an older agent's report"
    broken = autoscaling.from_report("m1", {"pods": ["x", {"name": 3}], "problem": "no API"}, 1)
    assert broken is not None and broken.pods == () and not broken.complete


def _scaling_active(found: autoscaling.Autoscaled, name: str) -> tuple[str, str, str]:
    status = found.files[f"autoscaling/shop/{name}.yaml"]["status"]
    (active,) = [c for c in status["conditions"] if c["type"] == "ScalingActive"]
    return active["status"], active["reason"], active["message"]


def test_federated_hpas_controlling_the_same_pods_scale_nothing() -> None:
    """Karmada's controller (validateAndParseSelector): the pods a FederatedHPA's selector
    finds are selected by more than one FederatedHPA, so it does not scale."""
    twice = [make_deployment(replicas=2), make_federated_hpa(), make_federated_hpa("again")]
    found = run(twice, measured={KEY: [pods(90, 2)]})
    assert replicas(found) == 2
    message = "pods by selector app=web are controlled by multiple HPAs: [shop/again shop/web]"
    for name in ("web", "again"):
        assert _scaling_active(found, name) == ("False", "AmbiguousSelector", message)
    assert found.message("render x") == "render x"
    bounded = run([make_deployment(replicas=12), *twice[1:]], measured={KEY: [pods(50, 12)]})
    assert replicas(bounded) == 10, "bounds come before the selector is read"


def test_a_selector_that_finds_another_workloads_pods_is_ambiguous() -> None:
    """api's selector (tier=shop) finds web's pods too, so web's pods have two FederatedHPAs
    and both are ambiguous; db's pods only its own."""
    wide = make_deployment("api", replicas=2)
    wide["spec"]["selector"] = {"matchLabels": {"tier": "shop"}}
    wide["spec"]["template"]["metadata"]["labels"] = {"app": "api", "tier": "shop"}
    web = make_deployment(replicas=2)
    web["spec"]["template"]["metadata"]["labels"] = {"app": "web", "tier": "shop"}
    api, db = (ResourceKey("apps/v1", "Deployment", "shop", n) for n in ("api", "db"))
    docs = [
        web, wide, make_deployment("db", replicas=2), make_federated_hpa(),
        make_federated_hpa("api", target="api"), make_federated_hpa("db", target="db"),
    ]  # fmt: skip
    load = [pods(90, 2)]
    found = run(docs, measured={KEY: load, api: load, db: load})
    both = "are controlled by multiple HPAs: [shop/api shop/web]"
    assert _scaling_active(found, "api")[1:] == (
        "AmbiguousSelector",
        f"pods by selector tier=shop {both}",
    )
    assert _scaling_active(found, "web")[1:] == (
        "AmbiguousSelector",
        f"pods by selector app=web {both}",
    )
    assert _scaling_active(found, "db")[1] == "ValidMetricFound"
    scaled = {t.name: t.body["spec"]["replicas"] for t in found.objects.templates}
    assert scaled == {"web": 2, "api": 2, "db": 4}


def test_a_selector_that_does_not_parse_selects_only_its_own_target() -> None:
    """Karmada: InvalidSelector (validate reports it); the stage does not fail on it, and two
    FederatedHPAs of the one target are still ambiguous."""
    web = make_deployment(replicas=2)
    web["spec"]["selector"] = {"matchExpressions": [{"key": "a b!", "operator": "In"}]}
    found = run(
        [web, make_federated_hpa(), make_federated_hpa("again")], measured={KEY: [pods(90, 2)]}
    )
    assert replicas(found) == 2
    assert _scaling_active(found, "web")[1] == "AmbiguousSelector"
