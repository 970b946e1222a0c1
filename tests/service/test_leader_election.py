"""Leader election through a coordination.k8s.io/v1 Lease, against an API server over real HTTP
(the simulated one, then a real kube-apiserver of the tier), with the official kubernetes client.

Aspects covered:
- the first candidate creates the Lease (holderIdentity, leaseDurationSeconds, acquireTime,
  renewTime, leaseTransitions 0); renewing keeps acquireTime and moves renewTime;
- a held Lease is not taken: the other candidate stands by (logged once), until the record
  has not changed for the lease duration, as that candidate observed it; taking it then adds
  one transition;
- an update carrying an old resourceVersion is refused with 409 Conflict, so of two
  candidates that read the same free Lease only one takes it;
- a released Lease (holder emptied) is taken at the next try;
- two reconcilers on one repository: only the leader renders, their leading periods never
  overlap, and when the leader stops (releasing) the other takes over and renders the next
  commit; a leader that cannot renew within its deadline stops its reconciler and says so;
- timings under which two leaders could overlap are refused.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import realk8s_session
from kubernetes import client, config
from kubernetes.client.exceptions import ApiException
from service.service_helpers import BOUND, Fleet, wait_for
from simfixture import SimFactory, make_sim_cluster_fixture

from gitfleet import errors
from gitfleet.service import events, lease, reconciler

__all__ = ["make_sim_cluster_fixture"]

NAMESPACE = "default"
NAME = "gitfleet-reconciler"
QUICK = {"lease_duration": 2.0, "renew_deadline": 1.0, "retry_period": 0.1}
"""Timings that make a failover take seconds (the bounds of the waits are far larger)."""


class Clock:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@dataclasses.dataclass(frozen=True)
class Server:
    """The API server holding the Lease, as an administrator reaches it."""

    kubeconfig: Path


@pytest.fixture(name="server", params=realk8s_session.SERVER_KINDS)
def server_fixture(
    request: pytest.FixtureRequest, make_sim_cluster: SimFactory
) -> Iterator[Server]:
    """A new simulated server, or the tier's first server with the Lease deleted after the
    test (the tier lives for the session)."""
    if request.param == "sim":
        yield Server(make_sim_cluster("control-plane").kubeconfig)
        return
    tier: realk8s_session.Kubeconfig = request.getfixturevalue("real_tier")
    server = Server(tier(realk8s_session.CLUSTERS[0], "admin"))
    yield server
    api = config.new_client_from_config(config_file=str(server.kubeconfig))
    try:
        client.CoordinationV1Api(api).delete_namespaced_lease(NAME, NAMESPACE)
    except ApiException as error:
        assert error.status == 404, error
    finally:
        api.close()


@pytest.fixture(name="leases")
def leases_fixture(server: Server) -> Iterator[Any]:
    """The CoordinationV1Api of the server, for the test's own reads and writes."""
    api = config.new_client_from_config(config_file=str(server.kubeconfig))
    yield client.CoordinationV1Api(api)
    api.close()


def _lease(leases: Any) -> dict[str, Any]:
    reply = leases.read_namespaced_lease(NAME, NAMESPACE, _preload_content=False)
    found: dict[str, Any] = json.loads(reply.data)
    return found


def _candidate(
    server: Server,
    identity: str,
    logged: list[events.Event] | None = None,
    monotonic: Callable[[], float] | None = None,
    **timings: float,
) -> lease.Elector:
    settings = lease.LeaseSettings(
        namespace=NAMESPACE,
        name=NAME,
        identity=identity,
        kubeconfig=server.kubeconfig,
        **timings,
    )
    sink = logged.append if logged is not None else (lambda event: None)
    if monotonic is None:
        return lease.Elector(settings, sink)
    return lease.Elector(settings, sink, monotonic=monotonic)


def test_the_first_candidate_creates_the_lease(server: Server, leases: Any) -> None:
    first = _candidate(server, "a")
    assert first.try_acquire_or_renew()
    created = _lease(leases)["spec"]
    assert created["holderIdentity"] == "a"
    assert created["leaseDurationSeconds"] == 15
    assert created["leaseTransitions"] == 0
    assert created["acquireTime"] == created["renewTime"]
    assert first.try_acquire_or_renew()
    renewed = _lease(leases)["spec"]
    assert renewed["acquireTime"] == created["acquireTime"]
    assert renewed["renewTime"] >= created["renewTime"]
    assert renewed["leaseTransitions"] == 0


def test_a_held_lease_is_taken_only_once_it_expired(server: Server, leases: Any) -> None:
    clock = Clock()
    logged: list[events.Event] = []
    assert _candidate(server, "a").try_acquire_or_renew()
    second = _candidate(server, "b", logged, clock, lease_duration=15.0)
    assert not second.try_acquire_or_renew()
    clock.now += 14.9
    assert not second.try_acquire_or_renew()
    assert [(e.name, e.fields["holder"]) for e in logged] == [("standby", "a")]
    clock.now += 0.2
    assert second.try_acquire_or_renew()
    taken = _lease(leases)["spec"]
    assert (taken["holderIdentity"], taken["leaseTransitions"]) == ("b", 1)


def test_a_renewal_moves_the_expiry(server: Server) -> None:
    clock = Clock()
    first = _candidate(server, "a")
    second = _candidate(server, "b", monotonic=clock, lease_duration=15.0)
    assert first.try_acquire_or_renew()
    assert not second.try_acquire_or_renew()
    clock.now += 10
    assert first.try_acquire_or_renew()
    assert not second.try_acquire_or_renew()  # the record changed: 15 s from now again
    clock.now += 10
    assert not second.try_acquire_or_renew()


def test_a_stale_resource_version_is_a_conflict(server: Server, leases: Any) -> None:
    assert _candidate(server, "a").try_acquire_or_renew()
    read = _lease(leases)
    assert _candidate(server, "a").try_acquire_or_renew()
    stale = {**read, "spec": {**read["spec"], "holderIdentity": "b"}}
    with pytest.raises(ApiException) as refused:
        leases.replace_namespaced_lease(NAME, NAMESPACE, stale)
    assert refused.value.status == 409
    assert _lease(leases)["spec"]["holderIdentity"] == "a"


def test_a_released_lease_is_taken_at_once(server: Server, leases: Any) -> None:
    first = _candidate(server, "a")
    assert first.try_acquire_or_renew()
    second = _candidate(server, "b", monotonic=Clock())
    assert not second.try_acquire_or_renew()
    first.release()
    released = _lease(leases)["spec"]
    assert (released["holderIdentity"], released["leaseDurationSeconds"]) == ("", 1)
    assert second.try_acquire_or_renew()
    assert _lease(leases)["spec"]["leaseTransitions"] == 1


@pytest.mark.parametrize(
    "timings",
    [
        pytest.param({"lease_duration": 10.0, "renew_deadline": 10.0}, id="deadline not shorter"),
        pytest.param({"renew_deadline": 2.0, "retry_period": 2.0}, id="retry not shorter"),
    ],
)
def test_overlapping_timings_are_refused(server: Server, timings: dict[str, float]) -> None:
    with pytest.raises(errors.UsageError, match="lease duration > renew deadline > retry"):
        _candidate(server, "a", **timings)


class Replica:
    """A reconciler and its candidate, running the election on a thread."""

    def __init__(self, fleet: Fleet, server: Server, identity: str) -> None:
        self.logged: list[events.Event] = []
        settings = reconciler.Settings(repo=str(fleet.remote), interval=0.1)
        self.service = reconciler.Reconciler(settings, self.logged.append)
        self.elector = _candidate(server, identity, self.logged, **QUICK)
        self.ending: list[lease.Ending] = []
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        self.ending.append(self.elector.run(self.service.run, self.service.wake.stop))

    def find(self, name: str) -> list[events.Event]:
        return [e for e in list(self.logged) if e.name == name]

    def stop(self) -> None:
        self.elector.stop()
        self.thread.join(BOUND)
        assert not self.thread.is_alive(), "the replica did not stop"
        self.service.close()

    def period(self) -> tuple[float, float]:
        """From `leading` to the reconciler's `stopped` (it leads no longer after)."""
        (leading,) = self.find("leading")
        (stopped,) = self.find("stopped")
        return leading.time, stopped.time


@pytest.fixture(name="replicas")
def replicas_fixture(fleet: Fleet, server: Server) -> Iterator[Callable[[str], Replica]]:
    started: list[Replica] = []

    def replica(identity: str) -> Replica:
        started.append(Replica(fleet, server, identity))
        return started[-1]

    yield replica
    for each in started:
        if each.thread.is_alive():
            each.stop()


def test_only_the_leader_renders_and_the_other_takes_over(
    fleet: Fleet, replicas: Callable[[str], Replica]
) -> None:
    one = replicas("one")
    wait_for(lambda: one.find("rendered"), "the first leader's render")
    two = replicas("two")
    wait_for(lambda: two.find("standby"), "the second replica standing by")
    pushed = fleet.push_change()
    wait_for(lambda: fleet.rendered_source() == pushed, "the leader rendering a new commit")
    one.stop()
    assert one.ending == [lease.Ending.STOPPED]
    wait_for(lambda: two.find("leading"), "the second replica taking over")
    after = fleet.push_change()
    wait_for(lambda: fleet.rendered_source() == after, "the new leader rendering")
    two.stop()

    assert two.find("standby")[0].fields["holder"] == "one"
    assert not [e for e in two.logged if e.time < two.period()[0] and e.name == "rendered"]
    first, second = one.period(), two.period()
    assert first[1] <= second[0], "the two leading periods overlap"
    for replica, (start, end) in ((one, first), (two, second)):
        for name in ("seen", "rendered", "unchanged", "up-to-date"):
            assert all(start <= e.time <= end for e in replica.find(name))
    rendered = {e.source for r in (one, two) for e in r.find("rendered")}
    assert {pushed, after} <= rendered


def test_a_leader_that_cannot_renew_stops_rendering(
    fleet: Fleet, leases: Any, replicas: Callable[[str], Replica]
) -> None:
    one = replicas("one")
    wait_for(lambda: one.find("rendered"), "the leader's render")

    def intrude() -> bool:
        """Take the lease for another holder (False: the leader renewed it in between)."""
        taken = _lease(leases)
        taken["spec"] = {**taken["spec"], "holderIdentity": "intruder", "leaseDurationSeconds": 60}
        try:
            leases.replace_namespaced_lease(NAME, NAMESPACE, taken)
        except ApiException as error:
            assert error.status == 409
            return False
        return True

    wait_for(intrude, "the lease taken from the leader")
    wait_for(lambda: one.ending, "the leader giving up")
    assert one.ending == [lease.Ending.LOST]
    (lost,) = one.find("leadership-lost")
    assert one.service.wake.stopped  # and `run` returned: its reconciler renders no more
    assert one.period()[1] >= lost.time


def test_the_server_serves_leases(server: Server) -> None:
    """Discovery lists coordination.k8s.io/v1 leases (the simulated server as a real one)."""
    api = config.new_client_from_config(config_file=str(server.kubeconfig))
    try:
        found = client.ApisApi(api).get_api_versions()
        groups = {g.name: [v.version for v in g.versions] for g in found.groups}
        resources = client.CoordinationV1Api(api).get_api_resources().resources
    finally:
        api.close()
    assert "v1" in groups["coordination.k8s.io"]
    assert [(r.name, r.kind, r.namespaced) for r in resources] == [("leases", "Lease", True)]
