"""kubectl's columns for the kinds beyond the workloads and Services (`search.columns`), cell
by cell as kube-apiserver's printers fill them.

Aspects covered:
- Job: COMPLETIONS as succeeded of completions, of one with parallel workers or of one;
  DURATION from start to completion, to now while running, empty before the start; wide adds
  its pod template's containers and selector;
- CronJob: SCHEDULE, SUSPEND (`<unset>` when absent), ACTIVE as the number of active Jobs,
  LAST SCHEDULE as a time since (`<none>` before the first); wide reads its Job template;
- Ingress: CLASS (`<none>`), HOSTS (`*` without any, the first three hosts and `+ N more...`
  counting every rule past the third), ADDRESS sorted and clipped to 16 characters, PORTS
  `80`, or `80, 443` with TLS;
- Namespace: STATUS is its phase.
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from gitfleet import search
from gitfleet.search import columns

NOW = datetime.datetime(2026, 1, 1, 1, 0, tzinfo=datetime.UTC)
CREATED = {"name": "x", "creationTimestamp": "2026-01-01T00:00:00Z"}


def _row(group: str, kind: str, obj: dict[str, Any], *, wide: bool = False) -> dict[str, str]:
    table = columns.rows(
        [search.Found(cluster="m1", obj={"metadata": CREATED, **obj})],
        group,
        kind,
        now=NOW,
        wide=wide,
    )
    return dict(zip(table[0], table[1], strict=True))


@pytest.mark.parametrize(
    ("spec", "status", "completions", "duration"),
    [
        ({"completions": 3}, {"succeeded": 1}, "1/3", ""),
        ({"parallelism": 4}, {"succeeded": 0}, "0/1 of 4", ""),
        ({"parallelism": 1}, {}, "0/1", ""),
        ({}, {"startTime": "2026-01-01T00:58:30Z"}, "0/1", "90s"),
        (
            {"completions": 1},
            {
                "succeeded": 1,
                "startTime": "2026-01-01T00:00:00Z",
                "completionTime": "2026-01-01T00:05:00Z",
            },
            "1/1",
            "5m",
        ),
    ],
)
def test_job(spec: dict[str, Any], status: dict[str, Any], completions: str, duration: str) -> None:
    row = _row("batch", "Job", {"spec": spec, "status": status})
    assert list(row) == ["NAME", "CLUSTER", "COMPLETIONS", "DURATION", "AGE", "ADOPTION"]
    assert (row["COMPLETIONS"], row["DURATION"], row["AGE"]) == (completions, duration, "60m")


def test_job_wide() -> None:
    spec = {
        "selector": {"matchLabels": {"job": "x"}},
        "template": {"spec": {"containers": [{"name": "a", "image": "i:1"}]}},
    }
    row = _row("batch", "Job", {"spec": spec}, wide=True)
    assert (row["CONTAINERS"], row["IMAGES"], row["SELECTOR"]) == ("a", "i:1", "job=x")


def test_cron_job() -> None:
    row = _row(
        "batch",
        "CronJob",
        {
            "spec": {
                "schedule": "*/5 * * * *",
                "suspend": True,
                "jobTemplate": {
                    "spec": {"template": {"spec": {"containers": [{"name": "a", "image": "i:1"}]}}}
                },
            },
            "status": {
                "active": [{"name": "j1"}, {"name": "j2"}],
                "lastScheduleTime": "2026-01-01T00:57:00Z",
            },
        },
        wide=True,
    )
    assert [row[c] for c in ("SCHEDULE", "SUSPEND", "ACTIVE", "LAST SCHEDULE")] == [
        "*/5 * * * *",
        "True",
        "2",
        "3m",
    ]
    assert (row["CONTAINERS"], row["IMAGES"], row["SELECTOR"]) == ("a", "i:1", "<none>")
    never = _row("batch", "CronJob", {"spec": {"schedule": "@daily"}})
    assert (never["SUSPEND"], never["ACTIVE"], never["LAST SCHEDULE"]) == ("<unset>", "0", "<none>")


@pytest.mark.parametrize(
    ("spec", "status", "cells"),
    [
        ({}, {}, ["<none>", "*", "", "80"]),
        (
            {"ingressClassName": "nginx", "tls": [{"hosts": ["a.example"]}],
             "rules": [{"host": "a.example"}, {"host": "b.example"}]},
            {"loadBalancer": {"ingress": [{"ip": "10.0.0.2"}, {"hostname": "lb.example"}]}},
            ["nginx", "a.example,b.example", "10.0.0.2,lb.e...", "80, 443"],
        ),
        (
            {"rules": [{"host": "a"}, {"host": "b"}, {}, {"host": "d"}, {"host": "e"}]},
            {"loadBalancer": {"ingress": [{"ip": "10.0.0.1"}]}},
            ["<none>", "a,b,d + 2 more...", "10.0.0.1", "80"],
        ),
    ],
)  # fmt: skip
def test_ingress(spec: dict[str, Any], status: dict[str, Any], cells: list[str]) -> None:
    row = _row("networking.k8s.io", "Ingress", {"spec": spec, "status": status})
    assert [row[c] for c in ("CLASS", "HOSTS", "ADDRESS", "PORTS")] == cells


def test_namespace() -> None:
    row = _row("", "Namespace", {"status": {"phase": "Active"}})
    assert list(row) == ["NAME", "CLUSTER", "STATUS", "AGE", "ADOPTION"]
    assert row["STATUS"] == "Active"
