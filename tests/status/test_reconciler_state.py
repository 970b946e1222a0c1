"""`reconciler.yaml`: the reconciler's status file.

Aspects covered:
- a state with a located error, timings, failing cluster repositories and resources not
  scheduled round-trips through the file;
- the file is sorted, deterministic YAML of kind ReconcilerStatus with camelCase keys; a
  state without failing cluster repositories has no `clusterRepoErrors`, one where everything
  was scheduled no `unscheduled`;
- the document `gitfleet status -o json` shows is the file's with every key, an absent error
  as null and no failing cluster repositories as an empty list;
- an error names `path:line:col: message`, or just the message when no file is at fault;
- files that are not a reconciler status read as None; odd values read as empty.
"""

from __future__ import annotations

import dataclasses

import pytest
import yaml

from gitfleet import render as rendering
from gitfleet.model import diagnostic
from gitfleet.model.origin import Origin
from gitfleet.status import reconciler_state

ERROR = reconciler_state.LastError.of(
    "c" * 40,
    diagnostic.error(Origin("apps/web.yaml", 7, 5), "spec.replicas: bad"),
    "2026-01-01T00:00:00Z",
)
STATE = reconciler_state.ReconcilerState(
    source_branch="main",
    rendered_branch="gitfleet/rendered",
    updated="2026-01-01T00:00:01Z",
    last_seen="c" * 40,
    last_rendered_source="b" * 40,
    last_rendered="d" * 40,
    last_error=ERROR,
    timings={"render": 0.1234, "fetch": 0.5},
    cluster_repos=(
        reconciler_state.ClusterRepoError(
            cluster="m1",
            step="push-works",
            source_commit="c" * 40,
            message="cannot reach file:///m1.git",
            since="2026-01-01T00:00:00Z",
        ),
    ),
    unscheduled=(
        rendering.Unscheduled(
            Origin("apps/api.yaml", 3, 1),
            "Deployment shop/api",
            "Unschedulable",
            "failed to assign replicas",
            ("m1",),
        ),
    ),
)


def test_round_trip() -> None:
    assert reconciler_state.load(reconciler_state.dump(STATE)) == STATE.__class__(
        **{**{f: getattr(STATE, f) for f in STATE.__dataclass_fields__},
           "timings": {"fetch": 0.5, "render": 0.123}}
    )  # fmt: skip


def test_file_layout() -> None:
    doc = yaml.safe_load(reconciler_state.dump(STATE))
    assert doc["kind"] == "ReconcilerStatus"
    assert doc["lastError"] == {
        "sourceCommit": "c" * 40,
        "message": "spec.replicas: bad",
        "time": "2026-01-01T00:00:00Z",
        "path": "apps/web.yaml",
        "line": 7,
        "col": 5,
    }
    assert doc["clusterRepoErrors"] == [
        {
            "cluster": "m1",
            "step": "push-works",
            "sourceCommit": "c" * 40,
            "message": "cannot reach file:///m1.git",
            "since": "2026-01-01T00:00:00Z",
        }
    ]
    assert list(doc) == sorted(doc)
    assert reconciler_state.dump(STATE) == reconciler_state.dump(STATE)
    assert doc["unscheduled"] == [
        {
            "path": "apps/api.yaml",
            "line": 3,
            "col": 1,
            "resource": "Deployment shop/api",
            "reason": "Unschedulable",
            "message": "failed to assign replicas",
            "clusters": ["m1"],
        }
    ]
    in_line = dataclasses.replace(STATE, cluster_repos=(), unscheduled=())
    assert "clusterRepoErrors" not in yaml.safe_load(reconciler_state.dump(in_line))
    assert "unscheduled" not in yaml.safe_load(reconciler_state.dump(in_line))


def test_document_has_every_key() -> None:
    bare = dataclasses.replace(STATE, last_error=None, cluster_repos=(), unscheduled=())
    doc = reconciler_state.document(bare)
    assert (doc["lastError"], doc["clusterRepoErrors"], doc["unscheduled"]) == (None, [], [])
    assert sorted(doc) == sorted(reconciler_state.document(STATE))
    assert yaml.safe_load(reconciler_state.dump(STATE)) == reconciler_state.document(STATE)


@pytest.mark.parametrize(
    ("error", "text"),
    [
        pytest.param(ERROR, "apps/web.yaml:7:5: spec.replicas: bad", id="located"),
        pytest.param(reconciler_state.LastError(source_commit="", message="cannot push", time=""),
                     "cannot push", id="no file"),
        pytest.param(reconciler_state.LastError(source_commit="", message="too big", time="",
                                                path="a.yaml"),
                     "a.yaml: too big", id="whole file"),
    ],
)  # fmt: skip
def test_error_text(error: reconciler_state.LastError, text: str) -> None:
    assert str(error) == text


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"kind: Cluster\n", id="another kind"),
        pytest.param(b"[", id="broken"),
        pytest.param(b"- 1\n", id="a list"),
    ],
)
def test_not_a_reconciler_status(data: bytes) -> None:
    assert reconciler_state.load(data) is None


def test_odd_values_read_as_empty() -> None:
    loaded = reconciler_state.load(
        b"kind: ReconcilerStatus\nsourceBranch: 3\nlastError: {line: x}\ntimings: {a: b, c: 1}\n"
        b"clusterRepoErrors: [7, {cluster: m1, step: 2}]\n"
    )
    assert loaded is not None
    assert loaded.source_branch == ""
    assert loaded.last_error is not None and loaded.last_error.line == 0
    assert loaded.timings == {"c": 1.0}
    assert [(e.cluster, e.step) for e in loaded.cluster_repos] == [("m1", "")]
