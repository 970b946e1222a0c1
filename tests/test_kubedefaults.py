"""The defaults table a server fills in (`gitfleet.kubedefaults`), shared by the simulated
cluster and the override stage.

Aspects covered: a container's pull policy follows its image's tag as Kubernetes reads it
(no tag and no digest is `latest`; a digest alone is no tag; a registry's port is no tag); a
pull policy written stays; probes get their timings (0 read as unset) and an HTTP action its
path and scheme; file volumes their mode; a Job's completions only when neither completions
nor parallelism is set.
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


def _pod(**spec: object) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "Pod", "spec": spec}


def test_probe_timings_and_http_action() -> None:
    probe = {"httpGet": {"port": 80}, "periodSeconds": 0, "failureThreshold": 5}
    hook = {"httpGet": {"port": 80, "path": "/stop"}}
    container = {"image": "nginx:1", "livenessProbe": probe, "lifecycle": {"preStop": hook}}
    kubedefaults.apply_defaults("", "pods", _pod(containers=[container]))
    assert probe == {
        "httpGet": {"port": 80, "path": "/", "scheme": "HTTP"},
        "periodSeconds": 10,
        "failureThreshold": 5,
        "timeoutSeconds": 1,
        "successThreshold": 1,
    }
    assert hook == {"httpGet": {"port": 80, "path": "/stop", "scheme": "HTTP"}}


def test_file_volume_modes() -> None:
    volumes = [
        {"name": "a", "secret": {"secretName": "s"}},
        {"name": "b", "configMap": {"name": "c", "defaultMode": 0o400}},
        {"name": "c", "emptyDir": {}},
    ]
    kubedefaults.apply_defaults("", "pods", _pod(containers=[], volumes=volumes))
    assert [v.get("secret", v.get("configMap", {})).get("defaultMode") for v in volumes] == [
        0o644,
        0o400,
        None,
    ]


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        pytest.param({}, {"completions": 1, "parallelism": 1}, id="neither"),
        pytest.param({"parallelism": 3}, {"parallelism": 3}, id="a work queue"),
        pytest.param({"completions": 4}, {"completions": 4, "parallelism": 1}, id="completions"),
    ],
)
def test_job_completions(written: dict[str, int], expected: dict[str, int]) -> None:
    job = {"apiVersion": "batch/v1", "kind": "Job", "spec": {**written, "template": {}}}
    kubedefaults.apply_defaults("batch", "jobs", job)
    spec = job["spec"]
    assert isinstance(spec, dict)
    assert {k: spec[k] for k in ("completions", "parallelism") if k in spec} == expected
