"""Which bindings the descheduler lowers (Karmada's FilterBindings): Deployments whose applied
placement divides replicas dynamically.

Aspects: dynamic weights and Aggregated are lowered; Duplicated, static weights and Weighted
without weights are not; nor a kind other than apps/v1 Deployment; nor a binding never
scheduled (no applied placement) or whose applied placement cannot be read; nor anything when
the descheduler is turned off in gitfleet.yaml.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from builders import DYNAMIC_WEIGHT
from descheduler_kit import SETTINGS, at, fleet_docs, place, placed, snapshot, web, workload

from gitfleet import descheduler, pipeline
from gitfleet.model import loaded

LATE = SETTINGS.unschedulable_threshold_seconds + SETTINGS.interval_seconds
AGGREGATED = {
    "replicaScheduling": {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Aggregated",
    }
}
STATIC = {
    "replicaScheduling": {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted",
        "weightPreference": {
            "staticWeightList": [
                {"targetCluster": {"clusterNames": ["m1", "m2", "m3"]}, "weight": 1}
            ]
        },
    }
}
WEIGHTED = {"replicaScheduling": {"replicaSchedulingType": "Divided"}}
DUPLICATED = {"replicaScheduling": {"replicaSchedulingType": "Duplicated"}}


def lowered(first: pipeline.Placement, binding: Any = None) -> Any:
    found = binding or web(first)
    reports = {
        name: descheduler.ClusterReport(
            current=True, workloads={descheduler.key_of(found): workload(0, (0, 2))}
        )
        for name in ("m1", "m2", "m3")
    }
    return descheduler.Descheduler(reports, at(LATE), SETTINGS).lower(found)


@pytest.mark.parametrize(
    ("placement", "acted"),
    [
        pytest.param(DYNAMIC_WEIGHT, True, id="dynamic weights"),
        pytest.param(AGGREGATED, True, id="aggregated"),
        pytest.param(STATIC, False, id="static weights"),
        pytest.param(WEIGHTED, False, id="weighted without weights"),
        pytest.param(DUPLICATED, False, id="duplicated"),
    ],
)
def test_only_dynamic_division_is_lowered(placement: dict[str, Any], acted: bool) -> None:
    first = place(fleet_docs(placement=placement))
    assert (lowered(first) is not web(first)) is acted


def test_only_deployments() -> None:
    first = place(fleet_docs(kind="StatefulSet"))
    binding = next(b for b in first.bindings if descheduler.key_of(b).kind == "StatefulSet")
    assert lowered(first, binding) is binding


@pytest.mark.parametrize(
    "annotation",
    [pytest.param(None, id="never scheduled"), pytest.param("{not json", id="unreadable")],
)
def test_no_readable_applied_placement(annotation: str | None) -> None:
    first = place(fleet_docs())
    binding = web(first)
    annotations = {
        k: v
        for k, v in (binding.metadata.annotations or {}).items()
        if k != "policy.karmada.io/applied-placement"
    }
    if annotation is not None:
        annotations["policy.karmada.io/applied-placement"] = annotation
    changed = dataclasses.replace(
        binding, metadata=dataclasses.replace(binding.metadata, annotations=annotations)
    )
    assert lowered(first, changed) is changed


def test_turned_off_nothing_moves() -> None:
    first = place(fleet_docs())
    off = loaded.DeschedulerSettings(enabled=False)
    again = place(fleet_docs(full=("m1",)), first, snapshot(LATE, {"m1": workload(0, (0, 2))}), off)
    assert again.descheduler is None
    assert placed(web(again)) == placed(web(first))
