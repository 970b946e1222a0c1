"""What a simulated cluster keeps of fields that came with later releases than the one it
claims, as a real server of that release does (checked against 1.20.2): a Service's IP
families and internal traffic policy, a Job's completion mode, `suspend` and pod replacement
policy, a StatefulSet's claim retention policy, a Namespace's name label (one the writer sent
is kept); the newest release keeps them all. A StatefulSet is created with `replicas: 0` in
its status, as the strategy's empty status is written.
"""

from __future__ import annotations

from typing import Any

import pytest
from simfixture import raw, statefulset

NAMESPACED = "/api/v1/namespaces/default"
SERVICE = {"metadata": {"name": "web"}, "spec": {"ports": [{"port": 80, "protocol": "TCP"}]}}
JOB = {
    "metadata": {"name": "once"},
    "spec": {
        "template": {
            "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}
        }
    },
}
SERVICE_FIELDS = {"ipFamilies", "ipFamilyPolicy", "internalTrafficPolicy"}
JOB_FIELDS = {"completionMode", "suspend", "podReplacementPolicy"}
LATER = [
    pytest.param(f"{NAMESPACED}/services", SERVICE, SERVICE_FIELDS, id="Service"),
    pytest.param("/apis/batch/v1/namespaces/default/jobs", JOB, JOB_FIELDS, id="Job"),
    pytest.param(
        "/apis/apps/v1/namespaces/default/statefulsets",
        statefulset(),
        {"persistentVolumeClaimRetentionPolicy"},
        id="StatefulSet",
    ),
]


def _created(sim: Any, path: str, body: dict[str, Any]) -> dict[str, Any]:
    code, created = raw(sim, "POST", path, body=body)
    assert code == 201, created
    return dict(created)


@pytest.mark.parametrize(("path", "body", "fields"), LATER)
def test_fields_of_later_releases(
    make_sim_cluster: Any, path: str, body: dict[str, Any], fields: set[str]
) -> None:
    old = make_sim_cluster(kubernetes_version="v1.20.2")
    new = make_sim_cluster()
    assert not fields & set(_created(old, path, body)["spec"])
    assert fields <= set(_created(new, path, body)["spec"])


def test_the_namespace_name_label(make_sim_cluster: Any) -> None:
    old = make_sim_cluster(kubernetes_version="v1.20.2")
    new = make_sim_cluster()
    label = "kubernetes.io/metadata.name"
    assert (
        "labels" not in _created(old, "/api/v1/namespaces", {"metadata": {"name": "a"}})["metadata"]
    )
    sent = {"metadata": {"name": "b", "labels": {label: "mine"}}}
    assert _created(old, "/api/v1/namespaces", sent)["metadata"]["labels"] == {label: "mine"}
    assert _created(new, "/api/v1/namespaces", {"metadata": {"name": "a"}})["metadata"][
        "labels"
    ] == {label: "a"}


def test_a_statefulset_is_created_with_no_replicas(make_sim_cluster: Any) -> None:
    sim = make_sim_cluster(kubernetes_version="v1.20.2")
    created = _created(sim, "/apis/apps/v1/namespaces/default/statefulsets", statefulset())
    assert created["status"] == {"replicas": 0}
