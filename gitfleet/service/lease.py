"""Leader election through a `coordination.k8s.io/v1` Lease, as client-go's leaderelection does
it, so that of several reconcilers on one repository only one renders at a time.

The Lease's spec is the election record: `holderIdentity`, `leaseDurationSeconds`,
`acquireTime`, `renewTime`, `leaseTransitions`. Every `retry_period` seconds a candidate reads
it and:
- takes it when it does not exist (create; 409 AlreadyExists: another candidate was first),
  when its holder is empty (released), or when its record has not changed for
  `lease_duration` seconds *as this candidate observed it* (its own monotonic clock, not the
  holder's `renewTime`, so clocks that disagree do not matter);
- renews it when it holds it (`renewTime` now, `acquireTime` and `leaseTransitions` kept);
  taking it from another holder sets `acquireTime` and adds one to `leaseTransitions`.
Each write is an update carrying the `resourceVersion` read, so two candidates that both
found the lease free cannot both take it: the server refuses the second with 409 Conflict.

The leader renders (`lead` runs) only while its last successful renewal is younger than
`renew_deadline`, which is shorter than `lease_duration`: when it cannot renew in time
(API server away, lease taken), it stops the reconciler before any other candidate may take
the lease; a render not yet published is abandoned, and the command exits 1, as Kubernetes
controllers do, to start again as a candidate. Stopping (SIGTERM) releases the lease (holder
emptied, duration 1 s), so a standby takes over at its next try rather than after
`lease_duration`. The compare-and-swap on the rendered refs stays the safety net for what
timing cannot promise (a process paused longer than the margin).
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
import socket
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gitfleet import errors
from gitfleet.monitor import health, metrics
from gitfleet.service import events

_LOOP = "lease"
"""The lease loop, as health knows it."""
_CONFLICT = 409
_NOT_FOUND = 404


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class LeaseSettings:
    """Where the Lease is and how the election is timed (client-go's defaults)."""

    namespace: str
    name: str
    identity: str = dataclasses.field(
        default_factory=lambda: f"{socket.gethostname()}_{uuid.uuid4()}"
    )
    """The holder's name in the Lease: the host (a pod's name) and a unique suffix."""
    kubeconfig: Path | None = None
    """None: the pod's service account."""
    lease_duration: float = 15.0
    renew_deadline: float = 10.0
    retry_period: float = 2.0

    def check(self) -> None:
        """`UsageError` for timings under which two leaders could overlap."""
        if not self.lease_duration > self.renew_deadline > self.retry_period > 0:
            raise errors.UsageError(
                "leader election needs lease duration > renew deadline > retry period > 0"
                f" (given {self.lease_duration:g}, {self.renew_deadline:g},"
                f" {self.retry_period:g})"
            )


class Ending(enum.StrEnum):
    """Why `Elector.run` returned."""

    STOPPED = "stopped"
    """Stopped on request (the lease, if held, was released)."""
    LOST = "lost"
    """The lease could not be renewed in time: the reconciler was stopped."""


def micro_time(when: float) -> str:
    """`when` as a Kubernetes MicroTime (RFC 3339, microseconds, UTC)."""
    moment = datetime.datetime.fromtimestamp(when, datetime.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _api(kubeconfig: Path | None) -> Any:
    """The CoordinationV1Api of the cluster holding the Lease."""
    import yaml
    from kubernetes import client, config

    configuration = client.Configuration()
    try:
        if kubeconfig is None:
            config.load_incluster_config(  # type: ignore[no-untyped-call]
                client_configuration=configuration
            )
        else:
            config.load_kube_config(  # type: ignore[no-untyped-call]
                config_file=str(kubeconfig), client_configuration=configuration
            )
    except (config.ConfigException, yaml.YAMLError, OSError) as error:
        where = kubeconfig or "the pod's service account"
        raise errors.GitfleetError(f"leader election: cannot use {where}: {error}") from error
    configuration.retries = 0  # the election loop is the retry
    return client.CoordinationV1Api(client.ApiClient(configuration))


class Elector:
    """One candidate. `run(lead, halt)` waits for the lease, runs `lead` on a thread while it
    holds it, and returns when stopped or when the lease is lost (having called `halt`)."""

    def __init__(
        self,
        settings: LeaseSettings,
        sink: events.Sink,
        *,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        counts: metrics.ReconcilerMetrics | None = None,
        alive: health.Health | None = None,
    ) -> None:
        settings.check()
        self.settings = settings
        self.sink = sink
        self.clock = clock
        self.monotonic = monotonic
        self.counts = counts or metrics.ReconcilerMetrics(metrics.new_registry())
        self.alive = alive or health.Health()
        self.api = _api(settings.kubeconfig)
        self.stopping = threading.Event()
        self._observed: dict[str, Any] | None = None
        """The Lease's spec as last read or written."""
        self._observed_at = 0.0
        """When (monotonic) the spec was last seen to change."""
        self._said = ""
        """The last standby or error message logged (each is logged once, not every try)."""

    def stop(self) -> None:
        """Stop (from any thread): the leader halts its reconciler and releases the lease."""
        self.stopping.set()

    # -- one try ------------------------------------------------------------------------

    def _timeout(self) -> float:
        return max(self.settings.retry_period, 1.0)

    def try_acquire_or_renew(self) -> bool:
        """One read and at most one write of the Lease; whether this candidate holds it now.
        An API server that does not answer, or refuses, is a try that failed (logged)."""
        from kubernetes.client.exceptions import ApiException
        from urllib3.exceptions import HTTPError

        settings = self.settings
        try:
            try:
                found = self._read()
            except ApiException as error:
                if error.status != _NOT_FOUND:
                    raise
                self.alive.done(_LOOP)
                return self._create()
            return self._take_or_renew(found)
        except ApiException as error:
            if error.status == _CONFLICT:  # another candidate wrote first
                return False
            self._failed(f"{error.status} {error.reason}")
        except (HTTPError, OSError) as error:
            self._failed(f"{type(error).__name__}: {error}")
        except ValueError as error:  # not a Lease (a server of something else)
            self._failed(f"lease {settings.namespace}/{settings.name}: {error}")
        return False

    def _read(self) -> dict[str, Any]:
        settings = self.settings
        reply = self.api.read_namespaced_lease(
            settings.name,
            settings.namespace,
            _preload_content=False,
            _request_timeout=self._timeout(),
        )
        found = json.loads(reply.data)
        if not isinstance(found, dict) or not isinstance(found.get("metadata"), dict):
            raise ValueError("the server's answer is not an object")
        self.alive.done(_LOOP)
        return found

    def _record(self, holder: str, now: float, acquired: str, transitions: int) -> dict[str, Any]:
        return {
            "holderIdentity": holder,
            "leaseDurationSeconds": max(1, round(self.settings.lease_duration)),
            "acquireTime": acquired,
            "renewTime": micro_time(now),
            "leaseTransitions": transitions,
        }

    def _create(self) -> bool:
        settings = self.settings
        now = self.clock()
        spec = self._record(settings.identity, now, micro_time(now), 0)
        body = {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {"name": settings.name, "namespace": settings.namespace},
            "spec": spec,
        }
        self.api.create_namespaced_lease(
            settings.namespace, body, _preload_content=False, _request_timeout=self._timeout()
        )
        self._observe(spec)
        return True

    def _take_or_renew(self, found: dict[str, Any]) -> bool:
        settings = self.settings
        spec = found.get("spec") or {}
        if spec != self._observed:
            self._observe(spec)
        holder = str(spec.get("holderIdentity") or "")
        duration = spec.get("leaseDurationSeconds") or 0
        held = holder and holder != settings.identity
        if held and self.monotonic() < self._observed_at + float(duration):
            self._standby(holder)
            return False
        now = self.clock()
        transitions = int(spec.get("leaseTransitions") or 0)
        if holder == settings.identity:
            renewed = self._record(
                holder, now, spec.get("acquireTime") or micro_time(now), transitions
            )
        else:
            renewed = self._record(settings.identity, now, micro_time(now), transitions + 1)
        self._replace(found, renewed)
        return True

    def _replace(self, found: dict[str, Any], spec: dict[str, Any]) -> None:
        """Write `spec` over the Lease as `found` (409 Conflict when it changed since)."""
        settings = self.settings
        body = {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {
                "name": settings.name,
                "namespace": settings.namespace,
                "resourceVersion": found["metadata"].get("resourceVersion"),
            },
            "spec": spec,
        }
        self.api.replace_namespaced_lease(
            settings.name,
            settings.namespace,
            body,
            _preload_content=False,
            _request_timeout=self._timeout(),
        )
        self._observe(spec)

    def _observe(self, spec: dict[str, Any]) -> None:
        self._observed = spec
        self._observed_at = self.monotonic()

    def release(self) -> None:
        """Give the lease up, if this candidate holds it: holder emptied, duration 1 s."""
        from kubernetes.client.exceptions import ApiException
        from urllib3.exceptions import HTTPError

        try:
            found = self._read()
            spec = found.get("spec") or {}
            if spec.get("holderIdentity") != self.settings.identity:
                return
            now = micro_time(self.clock())
            released = {
                "holderIdentity": "",
                "leaseDurationSeconds": 1,
                "acquireTime": now,
                "renewTime": now,
                "leaseTransitions": int(spec.get("leaseTransitions") or 0),
            }
            self._replace(found, released)
        except (ApiException, HTTPError, OSError, ValueError) as error:
            self._emit("lease-error", error=f"releasing: {error}")
            return
        self._emit("released")

    # -- the election ---------------------------------------------------------------------

    def run(self, lead: Callable[[], None], halt: Callable[[], None]) -> Ending:
        """Wait for the lease, then run `lead` on a thread while renewing it; `halt` must make
        `lead` return."""
        self.counts.leader.set(0)
        self.alive.pending(_LOOP, "no answer from the API server yet")
        self.alive.done(health.STARTING)
        try:
            if not self._acquire():
                return Ending.STOPPED
            return self._hold(lead, halt)
        finally:
            self.counts.leader.set(0)
            self.alive.end(_LOOP)

    def _beat(self) -> None:
        period = self.settings.retry_period
        self.alive.beat(_LOOP, period + health.allowance(period))

    def _acquire(self) -> bool:
        """Try until the lease is held (True) or a stop (False)."""
        while not self.stopping.is_set():
            self._beat()
            if self.try_acquire_or_renew():
                return True
            self.stopping.wait(self.settings.retry_period)
        return False

    def _hold(self, lead: Callable[[], None], halt: Callable[[], None]) -> Ending:
        settings = self.settings
        renewed = self.monotonic()
        self._said = ""
        self.counts.leader.set(1)
        self._emit("leading", lease=f"{settings.namespace}/{settings.name}")
        leader = threading.Thread(target=lead, name="gitfleet-leader", daemon=True)
        leader.start()
        ending = Ending.STOPPED
        while leader.is_alive() and not self.stopping.wait(settings.retry_period):
            self._beat()
            attempt = self.monotonic()
            if self.try_acquire_or_renew():
                renewed = attempt
            elif self.monotonic() - renewed > settings.renew_deadline:
                self.counts.leader.set(0)
                self._emit("leadership-lost", deadline=settings.renew_deadline)
                ending = Ending.LOST
                break
        halt()
        leader.join()
        if ending is Ending.STOPPED:
            self.release()
        return ending

    # -- the log --------------------------------------------------------------------------

    def _standby(self, holder: str) -> None:
        if self._said != holder:
            self._said = holder
            self._emit("standby", holder=holder)

    def _failed(self, error: str) -> None:
        self.alive.pending(_LOOP, f"the API server did not answer: {error}")
        if self._said != error:
            self._said = error
            self._emit("lease-error", error=error)

    def _emit(self, name: str, **fields: events.Value) -> None:
        self.sink(
            events.Event(name, "", self.clock(), {"identity": self.settings.identity, **fields})
        )
