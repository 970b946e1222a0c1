"""Status reports: their content, and when they are worth a commit.

Aspects covered:
- works.yaml lists every manifest (applied, health, status, failure message, drift), the
  error that stopped a sync and the deletions still pending; each message on one line (the
  first, and how many follow), as is a cluster condition's;
- cluster.yaml holds the heartbeat, the rendered commit and a Karmada ClusterStatus;
- a report is written the first time, not again while nothing changes, again when the works
  change or the heartbeat is due; an agent resuming from the stored report writes nothing
  new, and remembers the last cluster status;
- an Unhealthy object's `unhealthySince` is the time of the first report that found it so,
  kept while it stays Unhealthy (a report written for other reasons keeps it; the agent
  resuming from the stored report keeps it), and starts anew after it was Healthy or Unknown;
  `gitfleet status` reads it back;
- the files are written as rendered files are (keys sorted, strings quoted only where a YAML
  reader would read something else) and read back the same by PyYAML, and by `gitfleet
  status` whichever way a report was written: one an older agent wrote with PyYAML's own
  writer, one with a value JSON cannot hold (an infinite float a Lua rule made);
- an agent resuming from a report an older agent wrote takes up its heartbeat and status.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import yaml

from gitfleet.agent import apply, clusterinfo, identity, report
from gitfleet.model import cluster, meta, work
from gitfleet.status import reports

WEB = identity.ObjectRef("apps/v1", "Deployment", "shop", "web")
OLD = identity.ObjectRef("v1", "ConfigMap", "shop", "old")
STATUS = cluster.ClusterStatus(
    kubernetes_version="v1.30.0",
    conditions=(meta.Condition(type="Ready", status="True", reason="ClusterReady"),),
)


def _result(
    replicas: int = 2, error: str = "", health: work.ResourceHealth = work.ResourceHealth.HEALTHY
) -> apply.SyncResult:
    return apply.SyncResult(
        cluster="m1",
        rendered_commit="r1",
        source_commit="s1",
        objects=(
            apply.ObjectResult(
                ref=WEB,
                path="works/m1/shop/Deployment.apps/web.yaml",
                action=apply.Action.CONFIGURED,
                drift=("spec.replicas",),
                health=health,
                status={"replicas": replicas},
            ),
        ),
        pruned=(apply.ObjectResult(ref=OLD, action=apply.Action.PRUNE_FAILED, message="403"),),
        error=error,
    )


def test_works_document() -> None:
    doc = report.works_document(_result(error="refused"))
    assert doc["manifests"] == [
        {
            "path": "works/m1/shop/Deployment.apps/web.yaml",
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "namespace": "shop",
            "name": "web",
            "applied": True,
            "health": "Healthy",
            "status": {"replicas": 2},
            "drifted": ["spec.replicas"],
        }
    ]
    assert doc["converged"] is False
    assert doc["error"] == "refused"
    assert doc["pendingDeletions"] == [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "namespace": "shop",
            "name": "old",
            "message": "403",
        }
    ]


class _Store:
    def __init__(self) -> None:
        self.written: list[Mapping[str, bytes]] = []

    def __call__(self, files: Mapping[str, bytes], rendered_commit: str) -> None:
        assert rendered_commit == "r1"
        self.written.append(files)


def test_messages_are_recorded_on_one_line() -> None:
    many = "first line\n  more\n  and more\n"
    result = _result(error=many)
    failed = apply.ObjectResult(ref=WEB, action=apply.Action.FAILED, message=many)
    pending = apply.ObjectResult(ref=OLD, action=apply.Action.PRUNE_FAILED, message=many)
    doc = report.works_document(
        dataclasses.replace(result, objects=(failed,), pruned=(pending,), refused=many)
    )
    line = "first line (+2 more lines)"
    assert doc["error"] == doc["refused"] == line
    assert doc["manifests"][0]["message"] == line
    assert doc["pendingDeletions"][0]["message"] == line
    condition = clusterinfo.ready_condition(None, "False", "ClusterNotReady", many, "now")
    assert condition.message == line


def test_reports_are_written_when_they_say_something_new() -> None:
    store = _Store()
    reporter = report.Reporter("m1", store, heartbeat=60)
    assert reporter.report(_result(), STATUS, now=1000, timestamp="t1")
    assert not reporter.report(_result(), STATUS, now=1010, timestamp="t2")
    assert reporter.report(_result(replicas=3), STATUS, now=1020, timestamp="t3")
    assert reporter.report(_result(replicas=3), STATUS, now=1080, timestamp="t4")
    assert len(store.written) == 3
    summary = yaml.safe_load(store.written[-1][report.CLUSTER_FILE])
    assert summary["heartbeatTime"] == "t4"
    assert summary["renderedCommit"] == "r1"
    assert summary["status"]["kubernetesVersion"] == "v1.30.0"


def test_a_resumed_reporter_writes_nothing_new() -> None:
    first = _Store()
    report.Reporter("m1", first, heartbeat=60).report(
        _result(), STATUS, now=1767225600, timestamp="2026-01-01T00:00:00Z"
    )
    again = _Store()
    resumed = report.Reporter.resume("m1", again, 60, first.written[0])
    assert resumed.remembered_status() == STATUS
    assert not resumed.report(_result(), STATUS, now=1767225630, timestamp="later")
    assert resumed.report(_result(), STATUS, now=1767225700, timestamp="much later")
    assert len(again.written) == 1


def test_timestamps_are_rfc3339() -> None:
    assert report.timestamp(1767225600.7) == "2026-01-01T00:00:00Z"


def _since(files: Mapping[str, bytes]) -> list[object]:
    works = yaml.safe_load(files[report.WORKS_FILE])
    return [m.get("unhealthySince") for m in works["manifests"]]


def test_unhealthy_since_is_kept_while_the_object_stays_unhealthy() -> None:
    stored: dict[str, bytes] = {}

    def write(files: Mapping[str, bytes], commit: str) -> None:
        stored.clear()
        stored.update(files)

    sick = work.ResourceHealth.UNHEALTHY
    reporter = report.Reporter("m1", write, heartbeat=60)
    assert reporter.report(_result(health=sick), STATUS, now=1000, timestamp="t1")
    assert _since(stored) == ["t1"]
    assert reporter.report(_result(replicas=3, health=sick), STATUS, now=1010, timestamp="t2")
    assert _since(stored) == ["t1"]
    resumed = report.Reporter.resume("m1", write, 60, dict(stored))
    assert resumed.report(_result(health=sick), STATUS, now=1100, timestamp="t3")
    assert _since(stored) == ["t1"]
    assert resumed.report(
        _result(health=work.ResourceHealth.UNKNOWN), STATUS, now=1110, timestamp="t4"
    )
    assert _since(stored) == [None]
    assert resumed.report(_result(health=sick), STATUS, now=1120, timestamp="2026-03-01T12:00:00Z")
    assert _since(stored) == ["2026-03-01T12:00:00Z"]
    (found,) = reports.decode("m1", stored).manifests
    assert found.unhealthy_since == "2026-03-01T12:00:00Z"


def _older(files: Mapping[str, bytes]) -> dict[str, bytes]:
    """`files` as agents wrote them with PyYAML's writer."""
    return {
        name: yaml.safe_dump(yaml.safe_load(data), sort_keys=True, allow_unicode=True).encode()
        for name, data in files.items()
    }


def test_reports_are_written_as_rendered_files_are() -> None:
    store = _Store()
    odd = {"on": "yes", "when": "2026-01-01T00:00:00Z", "text": "a: b\nsecond line\n"}
    result = _result(error="refused: 'x'")
    result = dataclasses.replace(
        result, objects=(dataclasses.replace(result.objects[0], status=odd),)
    )
    report.Reporter("m1", store, heartbeat=60).report(
        result, STATUS, now=1767225600, timestamp="2026-01-01T00:00:00Z"
    )
    written = store.written[0]
    works = written[report.WORKS_FILE].decode()
    assert '    "on": "yes"\n' in works
    assert '    when: "2026-01-01T00:00:00Z"\n' in works
    assert "    text: |\n      a: b\n      second line\n" in works
    assert "error: \"refused: 'x'\"\n" in works
    assert yaml.safe_load(works) == report.works_document(result, at="2026-01-01T00:00:00Z")
    older = reports.decode("m1", _older(written))
    assert reports.decode("m1", written) == older
    assert older.manifests[0].status == odd and older.problems == ()


def test_a_value_json_cannot_hold_is_still_written() -> None:
    store = _Store()
    result = _result()
    endless = dataclasses.replace(result.objects[0], status={"ratio": float("inf")})
    report.Reporter("m1", store, heartbeat=60).report(
        dataclasses.replace(result, objects=(endless,)), STATUS, now=1000, timestamp="t1"
    )
    (found,) = reports.decode("m1", store.written[0]).manifests
    assert found.status == {"ratio": float("inf")}


def test_an_agent_resumes_from_a_report_an_older_agent_wrote() -> None:
    written: list[Mapping[str, bytes]] = []
    applied = dataclasses.replace(_result(), rendered_commit="a" * 40)
    report.Reporter("m1", lambda files, _: written.append(files), heartbeat=60).report(
        applied, STATUS, now=1767225600, timestamp="2026-01-01T00:00:00Z"
    )
    older = _older(written[0])
    assert older != written[0]
    resumed = report.Reporter.resume("m1", _Store(), 60, older)
    assert resumed.last_beat == 1767225600
    assert resumed.remembered_status() == STATUS
    assert resumed.last_applied() == "a" * 40
