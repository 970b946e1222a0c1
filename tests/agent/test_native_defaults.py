"""Native defaults the applier fills in before server-side apply (`agent.native_defaults`).

Aspects covered:
- a Service port and a container or init container port without `protocol` get TCP, for
  every native kind that runs pods, wherever it keeps its pod spec;
- a protocol that is given is kept; custom resources and kinds without ports are left alone;
- resource quantities written as numbers (containers, claim templates, a ResourceQuota, a
  LimitRange) become strings;
- the manifest given is never changed, and one with nothing to fill comes back as it is.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gitfleet.agent import native_defaults


def _pod_spec(ports: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "containers": [{"name": "app", "image": "nginx", "ports": copy.deepcopy(ports)}],
        "initContainers": [{"name": "init", "image": "busybox", "ports": copy.deepcopy(ports)}],
    }


def _holder(api_version: str, kind: str, path: tuple[str, ...], spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"}}
    here = body
    for key in path[:-1]:
        here = here.setdefault(key, {})
    here[path[-1]] = spec
    return body


WORKLOADS = [
    pytest.param("v1", "Pod", ("spec",), id="Pod"),
    pytest.param("v1", "PodTemplate", ("template", "spec"), id="PodTemplate"),
    pytest.param("apps/v1", "Deployment", ("spec", "template", "spec"), id="Deployment"),
    pytest.param("apps/v1", "StatefulSet", ("spec", "template", "spec"), id="StatefulSet"),
    pytest.param("apps/v1", "DaemonSet", ("spec", "template", "spec"), id="DaemonSet"),
    pytest.param("batch/v1", "Job", ("spec", "template", "spec"), id="Job"),
    pytest.param(
        "batch/v1beta1",
        "CronJob",
        ("spec", "jobTemplate", "spec", "template", "spec"),
        id="CronJob v1beta1",
    ),
]


@pytest.mark.parametrize(("api_version", "kind", "path"), WORKLOADS)
def test_container_ports_get_tcp(api_version: str, kind: str, path: tuple[str, ...]) -> None:
    ports = [{"containerPort": 80}, {"containerPort": 53, "protocol": "UDP"}]
    manifest = _holder(api_version, kind, path, _pod_spec(ports))
    before = copy.deepcopy(manifest)
    filled = native_defaults.fill(manifest)
    assert manifest == before
    spec = filled
    for key in path:
        spec = spec[key]
    for group in ("containers", "initContainers"):
        assert [p["protocol"] for p in spec[group][0]["ports"]] == ["TCP", "UDP"]


def test_service_ports_get_tcp() -> None:
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web"},
        "spec": {"ports": [{"port": 80}, {"port": 53, "protocol": "UDP"}, {"port": 443}]},
    }
    filled = native_defaults.fill(service)
    assert [p["protocol"] for p in filled["spec"]["ports"]] == ["TCP", "UDP", "TCP"]
    assert "protocol" not in service["spec"]["ports"][0]


@pytest.mark.parametrize(
    "manifest",
    [
        pytest.param(
            _holder(
                "example.com/v1",
                "Deployment",
                ("spec", "template", "spec"),
                _pod_spec([{"containerPort": 80}]),
            ),
            id="a custom kind named like a native one",
        ),
        pytest.param(
            _holder("v1", "ConfigMap", ("data",), {"ports": "80"}), id="a kind without ports"
        ),
        pytest.param(
            _holder("v1", "Service", ("spec",), {"ports": [{"port": 80, "protocol": "TCP"}]}),
            id="every protocol given",
        ),
        pytest.param(_holder("v1", "Service", ("spec",), {"ports": "80"}), id="malformed ports"),
    ],
)
def test_nothing_to_fill_returns_the_manifest(manifest: dict[str, Any]) -> None:
    assert native_defaults.fill(manifest) is manifest


@pytest.mark.parametrize(
    ("manifest", "path"),
    [
        pytest.param(
            _holder("v1", "ResourceQuota", ("spec",), {"hard": {"cpu": 4, "pods": "10"}}),
            ("spec", "hard"),
            id="quota",
        ),
        pytest.param(
            _holder("v1", "LimitRange", ("spec",), {"limits": [{"max": {"cpu": 4, "pods": "10"}}]}),
            ("spec", "limits", 0, "max"),
            id="limit range",
        ),
        pytest.param(
            _holder(
                "apps/v1",
                "StatefulSet",
                ("spec",),
                {
                    "volumeClaimTemplates": [
                        {"spec": {"resources": {"requests": {"cpu": 4, "pods": "10"}}}}
                    ]
                },
            ),
            ("spec", "volumeClaimTemplates", 0, "spec", "resources", "requests"),
            id="claim template",
        ),
    ],
)
def test_numeric_quantities_become_strings(manifest: dict[str, Any], path: tuple[Any, ...]) -> None:
    found: Any = native_defaults.fill(manifest)
    for key in path:
        found = found[key]
    assert found == {"cpu": "4", "pods": "10"}
