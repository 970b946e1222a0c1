"""A render that left resources unscheduled is made again once the clusters report a status it
was not made with, as Karmada's scheduler retries a binding until it fits.

Aspects covered, with the Deployment and PropagationPolicy of tests/testdata/karmada_samples/nginx
(Karmada's sample's shape: no `metadata.namespace`) and two Clusters that declare no status (no
API known to be served):
- the first look renders and places nothing; once the agents report that their clusters serve
  Deployments, the next look renders the same source commit again and places it on both, with
  no new source commit;
- a report that changes no status (a later heartbeat) renders nothing more, nor does any report
  once nothing is unscheduled;
- `gitfleet reconcile --once`, typed after the reports from the folder above the repository,
  places it too, and a second one finds nothing to do; so it does when the first render was
  `gitfleet render`'s, made before any reconciler ran.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pytest
import yaml
from conftest import GitRepo, Invoke
from status.status_kit import ready_status, report_files, write_reports

from gitfleet.agent import report
from gitfleet.model import cluster
from gitfleet.service import events, reconciler

NGINX = Path(__file__).resolve().parents[1] / "testdata" / "karmada_samples" / "nginx"
CLUSTERS = "---\n".join(
    yaml.safe_dump(
        {
            "apiVersion": "cluster.karmada.io/v1alpha1",
            "kind": "Cluster",
            "metadata": {"name": name},
            "spec": {"syncMode": "Push"},
        }
    )
    for name in ("member1", "member2")
)
SERVING = dataclasses.replace(
    ready_status(),
    api_enablements=(
        cluster.APIEnablement(
            group_version="apps/v1",
            resources=(cluster.APIResource(name="deployments", kind="Deployment"),),
        ),
    ),
)
PLACED = "works/{}/default/Deployment.apps/web.yaml"
SAMPLE_FILES = ("deployment.yaml", "propagationpolicy.yaml")


@pytest.fixture(name="fleet")
def fleet_fixture(git_repo: GitRepo) -> GitRepo:
    files = {f"nginx/{name}": (NGINX / name).read_text() for name in SAMPLE_FILES}
    git_repo.commit({**files, "clusters.yaml": CLUSTERS})
    return git_repo


def _placed(repo: GitRepo) -> list[int]:
    listed = repo.git("ls-tree", "-r", "--name-only", "gitfleet/rendered").splitlines()
    found = []
    for name in ("member1", "member2"):
        if PLACED.format(name) in listed:
            doc = yaml.safe_load(repo.git("show", f"gitfleet/rendered:{PLACED.format(name)}"))
            found.append(doc["spec"]["replicas"])
    return found


def _report(repo: GitRepo, status: cluster.ClusterStatus) -> None:
    beat = report.timestamp(time.time())
    write_reports(
        repo.path,
        {n: report_files(n, status=status, heartbeat=beat) for n in ("member1", "member2")},
    )


def test_the_same_commit_is_rendered_again_once_the_clusters_can_take_it(fleet: GitRepo) -> None:
    logged: list[events.Event] = []
    service = reconciler.Reconciler(
        reconciler.Settings(repo=str(fleet.path), watch=False), logged.append
    )
    try:
        assert service.cycle() is reconciler.Outcome.RENDERED
        assert _placed(fleet) == []
        first = fleet.git("rev-parse", "gitfleet/rendered")
        assert service.cycle() is reconciler.Outcome.IDLE

        _report(fleet, ready_status())  # ready, but no API known: still nothing fits
        assert service.cycle() is reconciler.Outcome.UNCHANGED
        assert fleet.git("rev-parse", "gitfleet/rendered") == first
        assert service.cycle() is reconciler.Outcome.IDLE

        _report(fleet, SERVING)
        assert service.cycle() is reconciler.Outcome.RENDERED
        assert _placed(fleet) == [1, 1]
        rendered = fleet.git("rev-parse", "gitfleet/rendered")
        assert fleet.git(
            "log", "-1", "--format=%(trailers:key=Source-Commit,valueonly)", rendered
        ) == fleet.git("rev-parse", "main")

        time.sleep(1.1)  # a later heartbeat, the same status
        _report(fleet, SERVING)
        assert service.cycle() is reconciler.Outcome.IDLE
        _report(fleet, ready_status())  # nothing is unscheduled: no reason to look again
        assert service.cycle() is reconciler.Outcome.IDLE
        assert fleet.git("rev-parse", "gitfleet/rendered") == rendered
    finally:
        service.close()
    renders = [e.name for e in logged if e.name in ("rendered", "unchanged")]
    assert renders == ["rendered", "unchanged", "rendered"]


def test_reconcile_once_places_what_the_reports_now_allow(
    fleet: GitRepo, cli: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(fleet.path.parent)
    done = cli("reconcile", "--once", "--repo", "source")
    assert done.exit_code == 0, done.output
    assert "unscheduled=1" in done.output
    assert _placed(fleet) == []
    _report(fleet, SERVING)
    again = cli("reconcile", "--once", "--repo", "source")
    assert again.exit_code == 0, again.output
    assert "unscheduled=0" in again.output
    assert _placed(fleet) == [1, 1]
    last = cli("reconcile", "--once", "--repo", "source")
    assert last.exit_code == 0, last.output
    assert _placed(fleet) == [1, 1]
    assert " rendered " not in f" {last.output} "


def test_a_render_made_before_the_reconciler_is_retried_too(
    fleet: GitRepo, cli: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`gitfleet render` first, the agents next, the reconciler last: the branch's render
    lists what it left unscheduled, and the reconciler knows nothing of the status it used."""
    monkeypatch.chdir(fleet.path.parent)
    assert cli("render", "--repo", "source").exit_code == 3
    _report(fleet, SERVING)
    done = cli("reconcile", "--once", "--repo", "source")
    assert done.exit_code == 0, done.output
    assert "unscheduled=0" in done.output
    assert _placed(fleet) == [1, 1]
