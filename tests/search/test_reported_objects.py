"""The objects `gitfleet get` builds from status reports, and how they print
(`search.reported`, `search.columns`).

Aspects covered:
- a report written before agents kept observed fields still reads: AGE is `<unknown>`, READY's
  desired count falls back on the reported `status.replicas`, only applied manifests show;
- a query narrows by kind and group, namespace (cluster-scoped objects pass), name, labels and
  cluster; results are sorted by namespace, name, cluster whatever the reports' order;
- AGE is kubectl's human duration; the layout is kubectl's tab writer (three spaces, at least
  six wide, the last column not padded), NAMESPACE first with `-A`, ADOPTION only wide for pods.
"""

from __future__ import annotations

import datetime

import pytest
from status.status_kit import Applied, report_files

from gitfleet import search
from gitfleet.model import labelquery, times
from gitfleet.search import columns
from gitfleet.status import reports

NOW = datetime.datetime(2026, 1, 1, 1, 0, tzinfo=datetime.UTC)


def _reports() -> dict[str, reports.ClusterReport]:
    web = Applied("Deployment", "web", status={"replicas": 3, "readyReplicas": 2})
    broken = Applied("Deployment", "broken", message="forbidden")
    settings = Applied("ConfigMap", "settings", api_version="v1")
    return {
        name: reports.decode(name, report_files(name, [web, broken, settings]))
        for name in ("m2", "m1")
    }


def _query(**fields: object) -> search.Query:
    return search.Query(**{"group": "apps", "kind": "Deployment", **fields})  # type: ignore[arg-type]


def test_an_old_report_still_reads() -> None:
    found = search.reported(_reports(), _query(namespace="shop"))
    assert [(f.cluster, f.obj["metadata"]["name"]) for f in found] == [("m1", "web"), ("m2", "web")]
    table = columns.rows(found, "apps", "Deployment", now=NOW)
    assert table == [
        ["NAME", "CLUSTER", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "ADOPTION"],
        ["web", "m1", "2/3", "0", "0", "<unknown>", "Y"],
        ["web", "m2", "2/3", "0", "0", "<unknown>", "Y"],
    ]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        pytest.param(_query(namespace="other"), [], id="another namespace"),
        pytest.param(_query(names=frozenset({"nope"})), [], id="another name"),
        pytest.param(_query(names=frozenset({"nope", "web"})), ["m1", "m2"], id="one of names"),
        pytest.param(_query(clusters=frozenset({"m2"})), ["m2"], id="one cluster"),
        pytest.param(_query(selector=labelquery.parse("app")), [], id="labels not reported"),
        pytest.param(_query(selector=labelquery.parse("!app")), ["m1", "m2"], id="absent label"),
        pytest.param(_query(group="", kind="Deployment"), [], id="another group"),
    ],
)
def test_queries(query: search.Query, expected: list[str]) -> None:
    assert [f.cluster for f in search.reported(_reports(), query)] == expected


def test_layout_is_kubectls() -> None:
    text = columns.layout([["NAME", "CLUSTER", "AGE"], ["a-long-name", "m1", "5m"]])
    assert text == "NAME          CLUSTER   AGE\na-long-name   m1        5m\n"


def test_all_namespaces_and_pods() -> None:
    found = [search.Found(cluster="m1", obj={"metadata": {"name": "p", "namespace": "shop"}})]
    table = columns.rows(found, "", "Pod", now=NOW, all_namespaces=True)
    assert table == [["NAMESPACE", "NAME", "CLUSTER", "AGE"], ["shop", "p", "m1", "<unknown>"]]
    wide = columns.rows(found, "", "Pod", now=NOW, wide=True)
    assert wide[0] == ["NAME", "CLUSTER", "AGE", "ADOPTION"]


@pytest.mark.parametrize(
    ("seconds", "spelled"),
    [(-5, "<invalid>"), (59, "59s"), (119, "119s"), (150, "2m30s"), (3600, "60m"),
     (4 * 3600 + 60, "4h1m"), (30 * 3600, "30h"), (3 * 86400 + 3600, "3d1h"), (20 * 86400, "20d"),
     (800 * 86400, "2y70d"), (3000 * 86400, "8y")],
)  # fmt: skip
def test_age(seconds: int, spelled: str) -> None:
    assert times.human_duration(seconds) == spelled
