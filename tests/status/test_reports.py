"""Reading a status ref's files back (`status.reports.decode`).

Aspects covered:
- what an agent writes (through `agent.report`) reads back whole: heartbeat, rendered commit,
  the Karmada ClusterStatus and its Ready condition, each manifest's identity, applied flag,
  health, reflected status, failure message and drift, the sync's error and the deletions
  still pending;
- a report the files do not name a rendered commit in takes the commit trailer's;
- messages an older agent recorded whole (many lines) read back as one bounded line;
- damaged or foreign files give what could be read and say what could not.
"""

from __future__ import annotations

import pytest
from status.status_kit import NOW, Applied, ready_status, report_files

from gitfleet.agent import apply, identity, report
from gitfleet.model import work
from gitfleet.model.template import ResourceKey
from gitfleet.status import reports

WEB = ResourceKey("apps/v1", "Deployment", "shop", "web")


def test_an_agents_report_reads_back_whole() -> None:
    files = report_files(
        "m1",
        [
            Applied("Deployment", "web", status={"readyReplicas": 2}, drift=("spec.replicas",)),
            Applied("ConfigMap", "c", api_version="v1", message="forbidden"),
        ],
        status=ready_status("False", "ClusterNotReady"),
        error="stopped",
    )
    decoded = reports.decode("m1", files)
    assert decoded.name == "m1"
    assert decoded.heartbeat == NOW
    assert decoded.rendered_commit == "r1" and decoded.source_commit == "s1"
    assert decoded.ready == "False"
    assert decoded.status is not None and decoded.status.kubernetes_version == "v1.31.0"
    assert decoded.converged is False and decoded.error == "stopped"
    web = decoded.manifest(WEB)
    assert web is not None
    assert (web.applied, web.health, web.status, web.drifted) == (
        True,
        work.ResourceHealth.HEALTHY,
        {"readyReplicas": 2},
        ("spec.replicas",),
    )
    assert web.path == "works/m1/shop/Deployment.apps/web.yaml"
    failed = decoded.manifest(ResourceKey("v1", "ConfigMap", "shop", "c"))
    assert failed is not None and not failed.applied and failed.message == "forbidden"
    assert decoded.problems == ()


def test_pending_deletions() -> None:
    result = apply.SyncResult(
        cluster="m1",
        rendered_commit="r1",
        pruned=(
            apply.ObjectResult(
                ref=identity.ObjectRef("v1", "ConfigMap", "shop", "old"),
                action=apply.Action.PRUNE_FAILED,
                message="403",
            ),
        ),
    )
    files = {report.WORKS_FILE: report.encode(report.works_document(result))}
    decoded = reports.decode("m1", files)
    assert decoded.pending_deletions == ("ConfigMap/shop/old: 403",)
    assert decoded.heartbeat is None and decoded.status is None and decoded.ready is None


def test_messages_an_older_agent_wrote_whole_read_as_one_line() -> None:
    refusal = (
        'PersistentVolumeClaim "data" is invalid: spec: Forbidden: immutable\n  core.Spec{\n  }'
    )
    works = {
        "error": "sync stopped\nat step 2",
        "manifests": [{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "namespace": "shop",
                       "name": "data", "applied": False, "message": refusal}],
        "pendingDeletions": [{"apiVersion": "v1", "kind": "ConfigMap", "namespace": "shop",
                              "name": "old", "message": "403\nforbidden"}],
    }  # fmt: skip
    decoded = reports.decode("m1", {report.WORKS_FILE: report.encode(works)})
    claim = decoded.manifest(ResourceKey("v1", "PersistentVolumeClaim", "shop", "data"))
    assert claim is not None
    assert claim.message == (
        'PersistentVolumeClaim "data" is invalid: spec: Forbidden: immutable (+2 more lines)'
    )
    assert decoded.error == "sync stopped (+1 more line)"
    assert decoded.pending_deletions == ("ConfigMap/shop/old: 403 (+1 more line)",)


def test_the_trailer_names_the_commit_when_the_files_do_not() -> None:
    assert reports.decode("m1", {}, "abc").rendered_commit == "abc"
    assert reports.decode("m1", report_files("m1"), "abc").rendered_commit == "r1"


@pytest.mark.parametrize(
    ("files", "problem"),
    [
        pytest.param({"works.yaml": b"a: [\n"}, "works.yaml: not valid YAML", id="bad yaml"),
        pytest.param({"cluster.yaml": b"- 1\n"}, "cluster.yaml: not a mapping", id="a list"),
        pytest.param(
            {"cluster.yaml": b"status: {kubernetesVersion: [1]}\n"},
            "cluster.yaml: status is not a Karmada ClusterStatus",
            id="foreign status",
        ),
        pytest.param(
            {"works.yaml": b"manifests: [{applied: true}, 3]\n"},
            "works.yaml: a manifest without kind and name",
            id="manifest without name",
        ),
    ],
)
def test_damaged_files_say_what_could_not_be_read(files: dict[str, bytes], problem: str) -> None:
    decoded = reports.decode("m1", files)
    assert any(p.startswith(problem) for p in decoded.problems), decoded.problems
    assert decoded.manifests == ()
