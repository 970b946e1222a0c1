"""The defaults table a server fills in (`gitfleet.kubedefaults`), shared by the simulated
cluster and the override stage.

Aspects covered: a container's pull policy follows its image's tag as Kubernetes reads it
(no tag and no digest is `latest`; a digest alone is no tag; a registry's port is no tag); a
pull policy written stays.
"""

from __future__ import annotations

import pytest

from gitfleet import kubedefaults


@pytest.mark.parametrize(
    ("image", "policy"),
    [
        pytest.param("nginx", "Always", id="no tag"),
        pytest.param("nginx:latest", "Always", id="latest"),
        pytest.param("nginx:1.25", "IfNotPresent", id="a tag"),
        pytest.param("registry:5000/nginx", "Always", id="a registry port is no tag"),
        pytest.param("registry:5000/nginx:1.25", "IfNotPresent", id="a registry port and a tag"),
        pytest.param("nginx@sha256:" + "a" * 64, "IfNotPresent", id="a digest alone"),
        pytest.param("nginx:latest@sha256:" + "a" * 64, "Always", id="latest and a digest"),
        pytest.param("nginx:1.25@sha256:" + "a" * 64, "IfNotPresent", id="a tag and a digest"),
    ],
)
def test_pull_policy_follows_the_tag(image: str, policy: str) -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [{"image": image}]}}
    kubedefaults.apply_defaults("", "pods", pod)
    assert pod["spec"]["containers"][0]["imagePullPolicy"] == policy


def test_written_pull_policy_stays() -> None:
    container = {"image": "nginx", "imagePullPolicy": "Never"}
    pod = {"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [container]}}
    kubedefaults.apply_defaults("", "pods", pod)
    assert container["imagePullPolicy"] == "Never"
