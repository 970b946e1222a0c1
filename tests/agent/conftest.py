"""Agent tests run the applier against a simulated member cluster (`sim_cluster`, named
member1) through a real `KubeClient`, retries without waiting. `sync(docs)` syncs a Work set
made of documents and returns the result."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import pytest
from agent.agent_kit import CLUSTER, FAST, Sync, work_set
from simfixture import RunningSim, make_sim_cluster_fixture, sim_cluster_fixture

from gitfleet.agent import apply, kube, workdir
from gitfleet.interpreter import Interpreter

__all__ = ["make_sim_cluster_fixture", "sim_cluster_fixture"]


@pytest.fixture(name="client")
def client_fixture(sim_cluster: RunningSim) -> Iterator[kube.KubeClient]:
    client = kube.KubeClient(sim_cluster.kubeconfig, name=CLUSTER, retry=kube.NO_WAIT)
    yield client
    client.close()


@pytest.fixture(name="sync")
def sync_fixture(client: kube.KubeClient) -> Sync:
    """Sync documents (or a ready Work set) to member1."""

    def run(
        docs: Iterable[dict[str, Any]] | workdir.WorkSet,
        *,
        interpreter: Interpreter | None = None,
        options: apply.Options = FAST,
        **work: Any,
    ) -> apply.SyncResult:
        target = docs if isinstance(docs, workdir.WorkSet) else work_set(docs, **work)
        return apply.sync(client, target, interpreter=interpreter, options=options)

    return run
