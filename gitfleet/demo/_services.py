"""What runs during the demo, in this process: one simulated cluster per Cluster of the source,
the reconciler, the push agent (every Push cluster) and one pull agent per Pull cluster, each
on its own thread, all reading and writing the workspace's bare repository.

`start` brings them up (the clusters first, so that the agents find them); `stop` takes them
down in the reverse order and waits for every thread, whatever state they are in, for
`JOIN_SECONDS` in all: a thread still running then (stuck in a request, say) is named and left
with what it uses, a daemon that does not keep the process alive. A cluster goes down (`fail`)
by refusing connections, as a cluster whose API server died does: its agent reports it not
ready, and failover takes it from there; `recover` brings it back.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Sequence

from gitfleet import sim
from gitfleet.agent import kube, pull, push, worker
from gitfleet.demo import _workspace, simulated
from gitfleet.service import events, reconciler, wakeup

log = logging.getLogger(__name__)
JOIN_SECONDS = 10.0
"""The longest wait for all the threads to end, together."""


@dataclasses.dataclass(frozen=True, slots=True)
class Pace:
    """How often everything looks and reports: quick enough for a demo."""

    interval: float = 0.5
    """Seconds between the reconciler's and the agents' looks."""
    heartbeat: float = 2.0
    """Seconds between agents' reports when nothing changes."""
    ready_delay: float = 0.3
    """Seconds before a simulated pod runs."""
    retry_cap: float = 2.0
    """The longest wait before an agent tries a failed cluster or remote again."""

    @property
    def backoff(self) -> worker.Backoff:
        return worker.Backoff(self.interval, self.retry_cap)

    @property
    def retry(self) -> kube.Retry:
        """Requests to a cluster give up quickly: a cluster that is down is seen at once."""
        return kube.Retry(attempts=2, base=0.1, cap=0.5, timeout=(1.0, 10.0))


class Services:
    """The demo's clusters, reconciler and agents."""

    def __init__(
        self,
        workspace: _workspace.Workspace,
        plans: Sequence[simulated.ClusterPlan],
        pace: Pace,
        sink: events.Sink,
    ) -> None:
        self.workspace = workspace
        self.plans = tuple(plans)
        self.pace = pace
        self.sink = sink
        self.clusters = sim.SimFleet(
            sim.SimCluster(p.name, ready_delay=pace.ready_delay, **p.options) for p in plans
        )
        self.wake = wakeup.Wakeup()
        self.reconciler: reconciler.Reconciler | None = None
        self.push: push.PushAgent | None = None
        self.pulls: list[pull.PullAgent] = []
        self.threads: dict[object, threading.Thread] = {}
        """Each component's thread, by component."""

    @property
    def pull_clusters(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.plans if p.mode == "Pull")

    @property
    def push_clusters(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.plans if p.mode != "Pull")

    def start(self) -> None:
        ws, pace = self.workspace, self.pace
        self.clusters.start()
        self.clusters.write_kubeconfigs(ws.kubeconfigs)
        settings = reconciler.Settings(
            repo=str(ws.remote),
            branch=ws.branch,
            interval=pace.interval,
            cache=ws.cache,
            retry_base=pace.interval,
            retry_cap=pace.retry_cap,
        )
        self.reconciler = reconciler.Reconciler(settings, self.sink, self.wake)
        self._thread("reconciler", self.reconciler, self.reconciler.run)
        self.push = push.PushAgent(
            push.Settings(
                repo=str(ws.remote),
                kubeconfig_dir=ws.kubeconfigs,
                interval=pace.interval,
                heartbeat=pace.heartbeat,
                cache_dir=ws.cache,
                backoff=pace.backoff,
                retry=pace.retry,
            )
        )
        self._thread("push agent", self.push, self.push.run)
        for name in self.pull_clusters:
            agent = pull.PullAgent(
                pull.Settings(
                    repo=ws.url,
                    cluster=name,
                    kubeconfig=ws.kubeconfigs / f"{name}.yaml",
                    pace=worker.Pace(pace.interval, pace.heartbeat, pace.backoff),
                    retry=pace.retry,
                    cache_dir=ws.cache,
                )
            )
            self.pulls.append(agent)
            self._thread(f"pull agent {name}", agent, agent.run)

    def _thread(self, name: str, component: object, run: Callable[[], None]) -> None:
        thread = threading.Thread(target=run, name=f"gitfleet-demo {name}", daemon=True)
        self.threads[component] = thread
        thread.start()

    def fail(self, name: str) -> None:
        self.clusters[name].set_fault(sim.Fault.UNREACHABLE)

    def recover(self, name: str) -> None:
        self.clusters[name].set_fault(sim.Fault.NONE)

    def stop(self) -> list[str]:
        """Stop everything; the names of threads that did not end in time (none, normally)."""
        deadline = time.monotonic() + JOIN_SECONDS

        def left() -> float:
            return max(0.0, deadline - time.monotonic())

        self.wake.stop()
        if self.push is not None:
            self.push.stop()
        for agent in self.pulls:
            agent.stop()
        stuck = []
        for thread in self.threads.values():
            thread.join(left())
            if thread.is_alive():
                stuck.append(thread.name)
        ended = {c for c, thread in self.threads.items() if not thread.is_alive()}
        for agent in self.pulls:
            if agent in ended and not agent.close(left()):
                stuck.append(f"{self.threads[agent].name} worker")
        if self.reconciler is not None and self.reconciler in ended:
            self.reconciler.close()
        self.clusters.stop()
        return stuck
