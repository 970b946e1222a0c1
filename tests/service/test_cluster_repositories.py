"""A repository per cluster (`Settings.cluster_repos`): the reconciler copies each cluster's
works ref there and brings the cluster's status ref back.

Aspects covered:
- a look copies each cluster's works ref, and nothing else, to the cluster's repository: its
  history holds that cluster's folder alone; a look with nothing new copies nothing;
- a status ref an agent wrote in its cluster's repository is what the next render uses
  (render.yaml says that cluster's status came `from: reported`);
- a cluster whose repository cannot be reached: the others are copied and the render lands;
  the failure is logged with the cluster and the source commit and kept in the reconciler's
  status ref; once the repository exists, the next look copies it without a new commit and
  the failure is cleared;
- a cluster's repository set back to an older render is brought up to date at the next look;
- the same through a remote URL's mirror (statuses fetched into the mirror, copies made
  from it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from service.service_helpers import EXAMPLE, Fleet, git

from gitfleet.gitstore import repository, status
from gitfleet.service import events, reconciler

CLUSTERS = tuple(sorted(path.stem for path in (EXAMPLE / "clusters").glob("*.yaml")))
WORKS = "refs/heads/gitfleet/works/"


@dataclasses.dataclass
class Members:
    """A folder of bare repositories, one per cluster, named `<cluster>.git`."""

    root: Path

    @property
    def template(self) -> str:
        return f"{self.root.as_uri()}/{{cluster}}.git"

    def create(self, *names: str) -> None:
        for name in names:
            git("init", "-q", "--bare", str(self.root / f"{name}.git"))

    def git(self, name: str, *args: str) -> str:
        return git("--git-dir", str(self.root / f"{name}.git"), *args)

    def refs(self, name: str) -> list[str]:
        return self.git(name, "for-each-ref", "--format=%(refname)").split()


@dataclasses.dataclass
class Service:
    reconciler: reconciler.Reconciler
    logged: list[events.Event]

    def look(self) -> reconciler.Outcome:
        self.logged.clear()
        return self.reconciler.cycle()

    def clusters(self, name: str) -> list[str]:
        """The `cluster` of each event called `name` in the last look."""
        return [str(e.fields["cluster"]) for e in self.logged if e.name == name]


@pytest.fixture(name="members")
def members_fixture(tmp_path: Path) -> Members:
    root = tmp_path / "members"
    root.mkdir()
    return Members(root)


@pytest.fixture(name="service")
def service_fixture(
    fleet: Fleet, members: Members, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Service]:
    """A reconciler of the fleet's repository, by path; by URL (through a mirror) when the
    test passes `"url"` as the fixture's parameter."""
    location = fleet.url if getattr(request, "param", "") == "url" else str(fleet.remote)
    logged: list[events.Event] = []
    settings = reconciler.Settings(
        repo=location, cache=tmp_path / "cache", cluster_repos=members.template
    )
    engine = reconciler.Reconciler(settings, logged.append)
    yield Service(engine, logged)
    engine.close()


def status_from(fleet: Fleet) -> dict[str, str]:
    """Where the rendered tip's render took each cluster's status from."""
    report = yaml.safe_load(fleet.git("show", "gitfleet/rendered:render.yaml"))
    return {name: used["from"] for name, used in report["status"].items()}


def test_each_cluster_repository_gets_its_own_folder_only(
    fleet: Fleet, members: Members, service: Service
) -> None:
    members.create(*CLUSTERS)
    assert service.look() is reconciler.Outcome.RENDERED
    assert service.clusters("cluster-copied") == list(CLUSTERS)
    for name in CLUSTERS:
        assert members.refs(name) == [WORKS + name]
        assert members.git(name, "rev-parse", WORKS + name) == fleet.ref(WORKS + name)
        listed = members.git(name, "rev-list", "--objects", "--all").splitlines()
        paths = {line.partition(" ")[2] for line in listed} - {""}
        assert "works" in paths
        assert all(p == "works" or p.startswith(f"works/{name}") for p in paths), name
    assert service.look() is reconciler.Outcome.IDLE
    assert service.clusters("cluster-copied") == []


@pytest.mark.parametrize("service", ["path", "url"], indirect=True)
def test_a_status_reported_in_a_cluster_repository_is_used(
    fleet: Fleet, members: Members, service: Service
) -> None:
    members.create(*CLUSTERS)
    service.look()
    reporter = CLUSTERS[0]
    assert status_from(fleet)[reporter] == "declared"
    own = repository.open_repository(members.root / f"{reporter}.git")
    assert own is not None
    try:
        status.write_status(
            own,
            reporter,
            {status.CLUSTER_FILE: b"status:\n  kubernetesVersion: v1.31.0\n"},
            expected=None,
            rendered_commit=members.git(reporter, "rev-parse", WORKS + reporter),
        )
    finally:
        own.close()
    fleet.push_change()
    assert service.look() is reconciler.Outcome.RENDERED
    used = status_from(fleet)
    assert used.pop(reporter) == "reported"
    assert set(used.values()) == {"declared"}


@pytest.mark.parametrize("service", ["path", "url"], indirect=True)
def test_an_unreachable_cluster_repository_holds_up_nothing(
    fleet: Fleet, members: Members, service: Service
) -> None:
    *reachable, gone = CLUSTERS
    members.create(*reachable)
    head = fleet.ref("main")
    assert service.look() is reconciler.Outcome.RENDERED
    assert fleet.rendered_source() == head
    assert service.clusters("cluster-copied") == reachable
    failures = [
        (e.fields["cluster"], e.fields["step"], e.source)
        for e in service.logged
        if e.name == "cluster-repo-error"
    ]
    assert failures == [(gone, "fetch-status", head), (gone, "push-works", head)]
    recorded = fleet.reconciler_state().cluster_repos
    assert [(e.cluster, e.step, e.source_commit) for e in recorded] == [
        (gone, "fetch-status", head),
        (gone, "push-works", head),
    ]
    assert all("cannot reach" in e.message for e in recorded)

    members.create(gone)
    assert service.look() is reconciler.Outcome.IDLE
    assert service.clusters("cluster-copied") == [gone]
    assert members.git(gone, "rev-parse", WORKS + gone) == fleet.ref(WORKS + gone)
    assert fleet.reconciler_state().cluster_repos == ()


def test_a_cluster_repository_set_back_is_brought_up_to_date(
    fleet: Fleet, members: Members, service: Service
) -> None:
    members.create(*CLUSTERS)
    service.look()
    before = {name: fleet.ref(WORKS + name) for name in CLUSTERS}
    fleet.push_change()
    service.look()
    moved = [name for name in CLUSTERS if fleet.ref(WORKS + name) != before[name]]
    assert moved
    name = moved[0]
    older = before[name]
    assert older is not None
    members.git(name, "update-ref", WORKS + name, older)
    assert service.look() is reconciler.Outcome.IDLE
    assert service.clusters("cluster-copied") == [name]
    assert members.git(name, "rev-parse", WORKS + name) == fleet.ref(WORKS + name)
