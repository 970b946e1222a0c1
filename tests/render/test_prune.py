"""Fields a member cluster owns are pruned before a manifest is written (Karmada's
RemoveIrrelevantFields with RemoveJobTTLSeconds).

Aspects covered:
- server-set metadata, ownerReferences, finalizers and status, on every kind;
- by kind: Deployment revision annotations; Job TTL and generated selector/pod labels unless
  manualSelector; Service clusterIP(s) unless headless; ServiceAccount token secrets (with
  Karmada's skip of the element after a removed one); service-account-token Secret data and
  uid annotation; PVC selected-node annotation;
- kinds are matched by name alone, as Karmada does; other fields are left alone.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gitfleet import errors
from gitfleet.render import _prune

SERVER_META = {
    "name": "x",
    "namespace": "shop",
    "creationTimestamp": "2026-01-01T00:00:00Z",
    "deletionTimestamp": "2026-01-02T00:00:00Z",
    "deletionGracePeriodSeconds": 30,
    "generation": 4,
    "managedFields": [{"manager": "kubectl"}],
    "resourceVersion": "123",
    "selfLink": "/api/v1/x",
    "uid": "0000",
    "ownerReferences": [{"kind": "X", "name": "y"}],
    "finalizers": ["a/b"],
}


def _doc(kind: str, api_version: str = "v1", **fields: Any) -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"}, **fields}


CASES = [
    pytest.param(
        {**_doc("ConfigMap"), "metadata": copy.deepcopy(SERVER_META), "status": {"a": 1}},
        {**_doc("ConfigMap"), "metadata": {"name": "x", "namespace": "shop"}},
        id="server metadata and status",
    ),
    pytest.param(
        _doc("Deployment", "apps/v1", metadata={"name": "x", "annotations": {
            "deployment.kubernetes.io/revision": "3",
            "deployment.kubernetes.io/revision-history": "1,2", "keep": "me"}}),
        _doc("Deployment", "apps/v1", metadata={"name": "x", "annotations": {"keep": "me"}}),
        id="deployment revisions",
    ),
    pytest.param(
        _doc("Job", "batch/v1", spec={
            "ttlSecondsAfterFinished": 10,
            "selector": {"matchLabels": {
                "controller-uid": "u", "batch.kubernetes.io/controller-uid": "u", "app": "a"}},
            "template": {"metadata": {"labels": {
                "job-name": "x", "batch.kubernetes.io/job-name": "x", "controller-uid": "u",
                "app": "a"}}}}),
        _doc("Job", "batch/v1", spec={
            "selector": {"matchLabels": {"app": "a"}},
            "template": {"metadata": {"labels": {"app": "a"}}}}),
        id="job generated labels and ttl",
    ),
    pytest.param(
        _doc("Job", "batch/v1", spec={
            "manualSelector": True, "ttlSecondsAfterFinished": 10,
            "selector": {"matchLabels": {"controller-uid": "u"}}}),
        _doc("Job", "batch/v1", spec={
            "manualSelector": True, "selector": {"matchLabels": {"controller-uid": "u"}}}),
        id="job manual selector kept",
    ),
    pytest.param(
        _doc("Service", spec={"clusterIP": "10.0.0.1", "clusterIPs": ["10.0.0.1"], "ports": []}),
        _doc("Service", spec={"ports": []}),
        id="service cluster ip",
    ),
    pytest.param(
        _doc("Service", spec={"clusterIP": "None", "clusterIPs": ["None"]}),
        _doc("Service", spec={"clusterIP": "None", "clusterIPs": ["None"]}),
        id="headless service",
    ),
    pytest.param(
        _doc("ServiceAccount", secrets=[
            {"name": "x-token-a"}, {"name": "x-token-b"}, {"name": "other"},
            {"name": "x-token-c"}]),
        _doc("ServiceAccount", secrets=[{"name": "x-token-b"}, {"name": "other"}]),
        id="service account token secrets, as Karmada skips",
    ),
    pytest.param(
        _doc("Secret", type="kubernetes.io/service-account-token", data={"token": "dA=="},
             metadata={"name": "x", "annotations": {
                 "kubernetes.io/service-account.uid": "u", "k": "v"}}),
        _doc("Secret", type="kubernetes.io/service-account-token", data=None,
             metadata={"name": "x", "annotations": {"k": "v"}}),
        id="service account token secret",
    ),
    pytest.param(
        _doc("Secret", type="Opaque", data={"a": "b"}),
        _doc("Secret", type="Opaque", data={"a": "b"}),
        id="other secrets untouched",
    ),
    pytest.param(
        _doc("PersistentVolumeClaim", metadata={"name": "x", "annotations": {
            "volume.kubernetes.io/selected-node": "node-1"}}),
        _doc("PersistentVolumeClaim", metadata={"name": "x", "annotations": {}}),
        id="pvc selected node",
    ),
    pytest.param(
        _doc("Deployment", "example.com/v1", metadata={"name": "x", "annotations": {
            "deployment.kubernetes.io/revision": "3"}}),
        _doc("Deployment", "example.com/v1", metadata={"name": "x", "annotations": {}}),
        id="kind matched by name in any group",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("before", "after"), CASES)
def test_prune(before: dict[str, Any], after: dict[str, Any]) -> None:
    doc = copy.deepcopy(before)
    _prune.prune(doc)
    assert doc == after


@pytest.mark.parametrize(
    ("secrets", "at"),
    [
        pytest.param([{"name": "keep"}, {"namespace": "shop"}], 1, id="reference without a name"),
        pytest.param([{"name": "x-token-a"}, {"name": "b"}, None], 2, id="null after a removal"),
        pytest.param([{"name": 5}], 0, id="name that is no string"),
        pytest.param(["x-token-a"], 0, id="no object"),
    ],
)
def test_service_account_secret_karmada_cannot_read_is_an_error(
    secrets: list[Any], at: int
) -> None:
    """Karmada's controller panics on it and makes no Work."""
    with pytest.raises(errors.InterpretError) as raised:
        _prune.prune(_doc("ServiceAccount", secrets=secrets))
    assert raised.value.keys == ("secrets", at)


def test_service_account_secret_the_loop_skips_is_not_read() -> None:
    doc = _doc("ServiceAccount", secrets=[{"name": "x-token-a"}, None])
    _prune.prune(doc)
    assert doc["secrets"] == [None]
