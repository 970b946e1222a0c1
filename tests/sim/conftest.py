"""The simulator's tests use the shared simulated-cluster fixtures (tests/simfixture.py),
among them `run_kubectl` (the real kubectl on the cluster), `kubectl` (the same, for runs
that must succeed) and a CustomResourceDefinition some of them need."""

from __future__ import annotations

from typing import Any

import pytest
from simfixture import (
    WIDGETS_CRD,
    Kubectl,
    RunKubectl,
    RunningSim,
    make_sim_cluster_fixture,
    run_kubectl_fixture,
    sim_cluster_fixture,
)

__all__ = ["make_sim_cluster_fixture", "run_kubectl_fixture", "sim_cluster_fixture"]


@pytest.fixture(name="kubectl")
def kubectl_fixture(run_kubectl: RunKubectl) -> Kubectl:
    """Runs kubectl on `sim_cluster` (`run_kubectl`); returns stdout, failing the test on a
    non-zero exit."""

    def run(*args: str) -> str:
        ran = run_kubectl(*args)
        assert ran.code == 0, ran.err
        return ran.out

    return run


@pytest.fixture(name="widget_crd")
def widget_crd_fixture(sim_cluster: RunningSim) -> dict[str, Any]:
    """The namespaced Widget kind (example.com, v1 and v1beta1), created through the API."""
    created = sim_cluster.resource("apiextensions.k8s.io/v1", "CustomResourceDefinition").create(
        body=WIDGETS_CRD
    )
    return dict(created.to_dict())
