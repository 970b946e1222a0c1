"""The fleet view (`status.fleet`), a pure function of the bindings, the reports, the templates,
the interpreter and the time.

Aspects covered:
- per binding, one aggregated-status item per expected cluster (schedule result, requiring
  bindings, graceful evictions except Directly), sorted, as Karmada's assembleWorkStatus makes
  them: applied with status and health, failed with the agent's message, not reported yet;
- FullyApplied, the health summary, replicas desired (Divided and Duplicated) and ready;
- the template's status aggregated by the built-in rules (Deployment) and by a Lua
  customization (the example's Widget), none for kinds without a hook, and a failing
  aggregation reported on its row;
- per cluster: ready as its agent says while its heartbeat is fresh, Unknown once it is older
  than the grace period or when it never reported; the applied rendered commit and the one
  reported, current, synced (current and without errors: one with errors is not), drift, errors;
- the view's JSON has stable keys (`reconciler` null when no reconciler status was read).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from status.status_kit import PURGE, Applied, binding, ready_status, report_files

from gitfleet import status
from gitfleet.interpreter import Interpreter
from gitfleet.model import config, times, work
from gitfleet.model.origin import Origin
from gitfleet.model.template import RawObject, ResourceKey
from gitfleet.status import reports

EXAMPLE = Path(__file__).resolve().parents[2] / "example-repo"
AT = times.parse("2026-01-01T00:10:30Z")
HEALTHY, UNHEALTHY, UNKNOWN = (
    work.ResourceHealth.HEALTHY,
    work.ResourceHealth.UNHEALTHY,
    work.ResourceHealth.UNKNOWN,
)


def _view(
    bindings: list[status.Binding],
    found: Mapping[str, dict[str, bytes]],
    *,
    interp: Interpreter | None = None,
    templates: Mapping[ResourceKey, RawObject] | None = None,
    modes: Mapping[str, str] | None = None,
    applied: Mapping[str, status.Applied] | None = None,
    now: datetime.datetime | None = None,
) -> status.FleetView:
    assert AT is not None
    return status.fleet(
        status.Rendered(branch="gitfleet/rendered", commit="t1", source_commit="s1"),
        bindings=bindings,
        reports_by_cluster={name: reports.decode(name, files) for name, files in found.items()},
        modes=modes or {},
        applied=applied or {},
        templates=templates or {},
        interp=interp or Interpreter(),
        now=now or AT,
        grace=40,
    )


def _web(ready: int, health: work.ResourceHealth = HEALTHY, **more: Any) -> Applied:
    return Applied("Deployment", "web", health=health, status={"readyReplicas": ready, **more})


def test_items_follow_karmadas_assembly() -> None:
    bound = binding(
        clusters={"b": 2, "a": 1},
        required_by={"c": 1},
        evicted={"d": PURGE.GRACEFULLY, "e": PURGE.DIRECTLY},
        replicas=3,
    )
    found = {
        "a": report_files("a", [_web(1)]),
        "b": report_files("b", [Applied("Deployment", "web", message="immutable field")]),
        "d": report_files("d", []),
        "e": report_files("e", [_web(1)]),
    }
    row = _view([bound], found).resources[0]
    assert row.clusters == ("a", "b", "c", "d")
    assert [(i.cluster_name, i.applied, i.applied_message, i.health) for i in row.items] == [
        ("a", True, "", HEALTHY),
        ("b", False, "immutable field", UNKNOWN),
        ("c", False, "", UNKNOWN),
        ("d", False, "", UNKNOWN),
    ]
    assert row.items[0].status == {"readyReplicas": 1}
    assert not row.fully_applied


@pytest.mark.parametrize(
    ("healths", "expected"),
    [
        pytest.param([HEALTHY, HEALTHY], HEALTHY, id="all healthy"),
        pytest.param([HEALTHY, UNHEALTHY], UNHEALTHY, id="one unhealthy"),
        pytest.param([HEALTHY, UNKNOWN], UNKNOWN, id="one unknown"),
        pytest.param([HEALTHY, None], UNKNOWN, id="one not reported"),
    ],
)
def test_health_and_fully_applied(
    healths: list[work.ResourceHealth | None], expected: work.ResourceHealth
) -> None:
    names = [f"m{i}" for i in range(len(healths))]
    found = {
        n: report_files(n, [_web(1, h)] if h is not None else [])
        for n, h in zip(names, healths, strict=True)
    }
    row = _view([binding(clusters=dict.fromkeys(names, 1), replicas=2)], found).resources[0]
    assert row.health is expected
    assert row.fully_applied is all(h is not None for h in healths)


def test_replicas_desired_and_ready_through_the_built_in_aggregation() -> None:
    divided = binding(clusters={"m1": 2, "m2": 3}, replicas=5)
    found = {
        "m1": report_files("m1", [_web(2, replicas=2, availableReplicas=2)]),
        "m2": report_files("m2", [_web(1, replicas=3, availableReplicas=1)]),
    }
    row = _view([divided], found).resources[0]
    assert (row.desired, row.ready) == (5, 3)
    assert row.status["readyReplicas"] == 3 and row.status["replicas"] == 5
    duplicated = binding(clusters={"m1": 4, "m2": 4}, replicas=4)
    assert _view([duplicated], found).resources[0].desired == 8


def test_kinds_without_an_aggregation_hook_have_no_status() -> None:
    bound = binding("cfg", kind="ConfigMap", api_version="v1", clusters={"m1": 0})
    found = {"m1": report_files("m1", [Applied("ConfigMap", "cfg", api_version="v1")])}
    row = _view([bound], found).resources[0]
    assert row.status is None and row.desired is None and row.ready is None
    assert row.health is HEALTHY and row.fully_applied


def _widgets() -> Interpreter:
    doc = yaml.safe_load((EXAMPLE / "interpreter" / "widget.yaml").read_text())
    rule = config.ResourceInterpreterCustomization.from_doc(doc, Origin("widget.yaml"))
    return Interpreter([rule])


def test_a_lua_customization_aggregates_its_kind() -> None:
    kind = ("example.gitfleet.io/v1alpha1", "Widget")
    bound = binding(
        "hero", api_version=kind[0], kind=kind[1], clusters={"m1": 1, "m2": 2}, replicas=3
    )
    widget = {"replicas": 1, "readyReplicas": 1}
    found = {
        name: report_files(name, [Applied("Widget", "hero", api_version=kind[0], status=widget)])
        for name in ("m1", "m2")
    }
    key = ResourceKey(*kind, "shop", "hero")
    template: RawObject = {"apiVersion": kind[0], "kind": kind[1], "metadata": {"name": "hero"}}
    row = _view([bound], found, interp=_widgets(), templates={key: template}).resources[0]
    assert row.status == {"replicas": 2, "readyReplicas": 2}
    assert (row.desired, row.ready) == (3, 2)


def test_a_failing_aggregation_is_reported_on_its_row() -> None:
    bound = binding(clusters={"m1": 1}, replicas=1)
    found = {"m1": report_files("m1", [_web(1, readyReplicas="two")])}
    row = _view([bound], found).resources[0]
    assert row.error.startswith("cannot aggregate the status")
    assert row.status is None


@pytest.mark.parametrize(
    ("files", "ready", "reason"),
    [
        pytest.param(report_files("m1"), "True", "ClusterReady", id="fresh"),
        pytest.param(
            report_files("m1", status=ready_status("False", "ClusterNotReachable")),
            "False",
            "ClusterNotReachable",
            id="agent says not ready",
        ),
        pytest.param(
            report_files("m1", heartbeat="2026-01-01T00:09:49Z"),
            "Unknown",
            "ClusterStatusUnknown",
            id="heartbeat older than the grace period",
        ),
        pytest.param(None, "Unknown", "NoReport", id="never reported"),
    ],
)
def test_cluster_readiness(files: dict[str, bytes] | None, ready: str, reason: str) -> None:
    found = {"m1": files} if files is not None else {}
    row = _view([], found, modes={"m1": "Pull"}).clusters[0]
    assert (row.name, row.mode, row.ready, row.reason) == ("m1", "Pull", ready, reason)
    assert row.reported is (files is not None)


def test_cluster_rows() -> None:
    found = {
        "m1": report_files(
            "m1",
            [
                Applied("Deployment", "web", drift=("spec.replicas",)),
                Applied("ConfigMap", "c", message="denied"),
            ],
            rendered_commit="abc",
            error="stopped",
        ),
        "m2": report_files("m2", [_web(1)]),
    }
    applied = {"m1": status.Applied("r1", current=True), "m2": status.Applied("r1", current=True)}
    rows = _view([], found, modes={"m3": "Push"}, applied=applied).clusters
    assert [r.name for r in rows] == ["m1", "m2", "m3"]
    first = rows[0]
    assert (first.rendered_commit, first.reported_commit) == ("r1", "abc")
    assert (first.current, first.synced, first.converged) == (True, False, False)
    assert (first.manifests, first.applied, first.drifted) == (2, 1, 1)
    assert first.errors == ("stopped", "works/m1/shop/ConfigMap.apps/c.yaml: denied")
    assert rows[1].synced is True and rows[1].errors == ()
    assert not rows[2].reported


def test_the_json_keys() -> None:
    found = {"m1": report_files("m1", [_web(1)])}
    view = _view([binding(clusters={"m1": 1}, replicas=1)], found)
    doc = view.to_json()
    assert sorted(doc) == [
        "autoscalers", "branch", "clusters", "notes", "observedAt", "reconciler",
        "renderedCommit", "resources", "sourceCommit",
    ]  # fmt: skip
    assert doc["reconciler"] is None
    assert doc["observedAt"] == "2026-01-01T00:10:30Z"
    assert sorted(doc["clusters"][0]) == [
        "applied", "capacity", "converged", "current", "drifted", "errors", "heartbeat",
        "manifests", "message", "mode", "name", "ready", "reason", "refused", "renderedCommit",
        "reported",
        "reportedCommit", "synced",
    ]  # fmt: skip
    resource = doc["resources"][0]
    assert resource["replicas"] == {"desired": 1, "ready": 1}
    assert resource["aggregatedStatus"] == [
        {"clusterName": "m1", "status": {"readyReplicas": 1}, "applied": True, "health": "Healthy"}
    ]
