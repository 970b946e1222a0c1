"""Which phase an object is written in, and the prune guard's verdicts.

Aspects covered:
- Namespaces and CRDs first, other cluster-scoped objects, namespaced objects, admission
  configurations last; deletions in the reverse order;
- the guard: nothing to delete, under and over the share, an empty desired set, allowed.
"""

from __future__ import annotations

import pytest

from gitfleet.agent import identity, order, prune


@pytest.mark.parametrize(
    ("api_version", "kind", "namespace", "phase"),
    [
        pytest.param("v1", "Namespace", "", order.Phase.FOUNDATION, id="namespace"),
        pytest.param(
            "apiextensions.k8s.io/v1",
            "CustomResourceDefinition",
            "",
            order.Phase.FOUNDATION,
            id="crd",
        ),
        pytest.param(
            "rbac.authorization.k8s.io/v1", "ClusterRole", "", order.Phase.CLUSTER, id="cluster"
        ),
        pytest.param("apps/v1", "Deployment", "shop", order.Phase.NAMESPACED, id="namespaced"),
        pytest.param(
            "admissionregistration.k8s.io/v1",
            "ValidatingWebhookConfiguration",
            "",
            order.Phase.ADMISSION,
            id="webhook",
        ),
    ],
)
def test_phases(api_version: str, kind: str, namespace: str, phase: order.Phase) -> None:
    assert order.phase_of(identity.ObjectRef(api_version, kind, namespace, "x")) is phase


def test_deletions_run_backwards() -> None:
    assert tuple(reversed(order.APPLY_ORDER)) == order.DELETE_ORDER
    assert order.APPLY_ORDER[0] is order.Phase.FOUNDATION


@pytest.mark.parametrize(
    ("deleting", "managed", "desired", "allowed", "verdict"),
    [
        pytest.param(0, 10, 10, False, "", id="nothing to delete"),
        pytest.param(5, 10, 5, False, "", id="half"),
        pytest.param(6, 10, 4, False, "refusing to delete 6 of the 10", id="over half"),
        pytest.param(3, 3, 0, False, "refusing to delete all 3", id="empty desired set"),
        pytest.param(10, 10, 0, True, "", id="allowed"),
    ],
)
def test_guard(deleting: int, managed: int, desired: int, allowed: bool, verdict: str) -> None:
    found = prune.refusal(
        cluster="m1", deleting=deleting, managed=managed, desired=desired, allowed=allowed
    )
    assert (found == "") if not verdict else (verdict in found and "m1" in found)
    if verdict:  # the way out, also once the deletion is rendered without the trailer
        assert "Gitfleet-Allow-Prune: all' to the source commit that deletes them" in found
        assert "revert and delete again with the trailer" in found
        # a larger share never lifts the guard on an emptied folder: not offered there
        assert ("--max-prune-share 1" in found) is (desired > 0)
