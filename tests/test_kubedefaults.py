"""The defaults table a server fills in (`gitfleet.kubedefaults`), shared by the simulated
cluster and the override stage.

Aspects covered: a container's pull policy follows its image's tag as Kubernetes reads it
(no tag and no digest is `latest`; a digest alone is no tag; a registry's port is no tag); a
pull policy written stays; probes get their timings (0 read as unset) and an HTTP action its
path and scheme; file volumes their mode; a Job's completions only when neither completions
nor parallelism is set; the defaults of a current (1.3x) server the table once lacked, each
with the condition Kubernetes puts on it (a Job's pod replacement policy follows its pod
failure policy, a Service's affinity config its affinity and its node-port allocation its
type, a Job's labels are its template's, ...).
"""

from __future__ import annotations

from typing import Any

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


def _defaulted(group: str, plural: str, obj: dict[str, Any]) -> dict[str, Any]:
    kubedefaults.apply_defaults(group, plural, obj)
    return obj


def _job(**spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": "j"}, "spec": {**spec, "template": {"spec": {}}}}


def _svc(**spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": "s"}, "spec": {"ports": [{"port": 80}], **spec}}


@pytest.mark.parametrize(
    ("group", "plural", "obj", "pointer", "expected"),
    [
        pytest.param(
            "apps",
            "statefulsets",
            {"spec": {"template": {"spec": {}}}},
            ("spec", "persistentVolumeClaimRetentionPolicy"),
            {"whenDeleted": "Retain", "whenScaled": "Retain"},
            id="statefulset claim retention",
        ),
        pytest.param(
            "apps",
            "statefulsets",
            {"spec": {"persistentVolumeClaimRetentionPolicy": {"whenScaled": "Delete"}}},
            ("spec", "persistentVolumeClaimRetentionPolicy"),
            {"whenDeleted": "Retain", "whenScaled": "Delete"},
            id="statefulset claim retention written in part",
        ),
        pytest.param(
            "apps",
            "statefulsets",
            {"spec": {"volumeClaimTemplates": [{"metadata": {"name": "d"}, "spec": {}}]}},
            ("spec", "volumeClaimTemplates"),
            [
                {
                    "metadata": {"name": "d", "creationTimestamp": None},
                    "spec": {"volumeMode": "Filesystem"},
                    "status": {"phase": "Pending"},
                }
            ],
            id="statefulset claim templates",
        ),
        pytest.param(
            "batch",
            "jobs",
            _job(),
            ("spec", "podReplacementPolicy"),
            "TerminatingOrFailed",
            id="job pod replacement",
        ),
        pytest.param(
            "batch",
            "jobs",
            _job(podFailurePolicy={"rules": [{"action": "Ignore", "onPodConditions": [{}]}]}),
            ("spec",),
            {
                "podFailurePolicy": {
                    "rules": [{"action": "Ignore", "onPodConditions": [{"status": "True"}]}]
                },
                "template": {
                    "metadata": {"creationTimestamp": None},
                    "spec": {
                        "restartPolicy": "Never",
                        "dnsPolicy": "ClusterFirst",
                        "schedulerName": "default-scheduler",
                        "terminationGracePeriodSeconds": 30,
                        "securityContext": {},
                    },
                },
                "completions": 1,
                "parallelism": 1,
                "backoffLimit": 6,
                "completionMode": "NonIndexed",
                "suspend": False,
                "podReplacementPolicy": "Failed",
            },
            id="job pod replacement with a pod failure policy",
        ),
        pytest.param(
            "batch",
            "jobs",
            _job(backoffLimitPerIndex=1),
            ("spec", "backoffLimit"),
            2**31 - 1,
            id="job backoff limit per index",
        ),
        pytest.param(
            "",
            "pods",
            _pod(
                containers=[
                    {
                        "image": "a:1",
                        "env": [{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "x"}}}],
                        "resources": {"limits": {"cpu": "1"}},
                    }
                ]
            ),
            ("spec", "containers"),
            [
                {
                    "image": "a:1",
                    "env": [
                        {
                            "name": "N",
                            "valueFrom": {"fieldRef": {"fieldPath": "x", "apiVersion": "v1"}},
                        }
                    ],
                    "resources": {"limits": {"cpu": "1"}, "requests": {"cpu": "1"}},
                    "imagePullPolicy": "IfNotPresent",
                    "terminationMessagePath": "/dev/termination-log",
                    "terminationMessagePolicy": "File",
                }
            ],
            id="pod env field ref and requests from limits",
        ),
        pytest.param(
            "",
            "pods",
            _pod(containers=[]),
            ("spec", "enableServiceLinks"),
            True,
            id="pod service links",
        ),
        pytest.param(
            "",
            "pods",
            _pod(
                containers=[],
                volumes=[
                    {"name": "empty"},
                    {"name": "host", "hostPath": {"path": "/x"}},
                    {
                        "name": "p",
                        "projected": {
                            "sources": [
                                {"serviceAccountToken": {"path": "t"}},
                                {"downwardAPI": {"items": [{"fieldRef": {"fieldPath": "x"}}]}},
                            ]
                        },
                    },
                ],
            ),
            ("spec", "volumes"),
            [
                {"name": "empty", "emptyDir": {}},
                {"name": "host", "hostPath": {"path": "/x", "type": ""}},
                {
                    "name": "p",
                    "projected": {
                        "defaultMode": 0o644,
                        "sources": [
                            {"serviceAccountToken": {"path": "t", "expirationSeconds": 3600}},
                            {
                                "downwardAPI": {
                                    "items": [{"fieldRef": {"fieldPath": "x", "apiVersion": "v1"}}]
                                }
                            },
                        ],
                    },
                },
            ],
            id="pod volumes",
        ),
        pytest.param(
            "",
            "services",
            _svc(sessionAffinity="ClientIP"),
            ("spec", "sessionAffinityConfig"),
            {"clientIP": {"timeoutSeconds": 10800}},
            id="service client ip affinity",
        ),
        pytest.param(
            "",
            "services",
            _svc(sessionAffinityConfig={"clientIP": {"timeoutSeconds": 5}}),
            ("spec", "sessionAffinityConfig"),
            None,
            id="service affinity config without affinity",
        ),
        pytest.param(
            "",
            "services",
            _svc(type="LoadBalancer"),
            ("spec", "allocateLoadBalancerNodePorts"),
            True,
            id="service load balancer node ports",
        ),
        pytest.param(
            "",
            "services",
            _svc(externalIPs=["10.0.0.1"]),
            ("spec", "externalTrafficPolicy"),
            "Cluster",
            id="service with external ips",
        ),
        pytest.param(
            "",
            "services",
            _svc(ports=[{"port": 80, "targetPort": 0}]),
            ("spec", "ports"),
            [{"port": 80, "targetPort": 80, "protocol": "TCP"}],
            id="service target port zero",
        ),
        pytest.param(
            "networking.k8s.io",
            "networkpolicies",
            {"spec": {"egress": [{"ports": [{"port": 53}]}]}},
            ("spec",),
            {
                "egress": [{"ports": [{"port": 53, "protocol": "TCP"}]}],
                "policyTypes": ["Ingress", "Egress"],
            },
            id="network policy",
        ),
        pytest.param(
            "",
            "replicationcontrollers",
            {"spec": {"template": {"metadata": {"labels": {"a": "b"}}, "spec": {}}}},
            ("spec", "selector"),
            {"a": "b"},
            id="replication controller selector",
        ),
        pytest.param(
            "",
            "namespaces",
            {"metadata": {"name": "n"}},
            ("status",),
            {"phase": "Active"},
            id="namespace phase",
        ),
    ],
)
def test_current_server_defaults(
    group: str, plural: str, obj: dict[str, Any], pointer: tuple[str, ...], expected: Any
) -> None:
    assert kubedefaults.dig(_defaulted(group, plural, obj), *pointer) == expected


def test_job_takes_its_template_labels() -> None:
    job = _job()
    job["spec"]["template"]["metadata"] = {"labels": {"app": "x"}}
    labelled = _job()
    labelled["metadata"]["labels"] = {"own": "y"}
    labelled["spec"]["template"]["metadata"] = {"labels": {"app": "x"}}
    assert _defaulted("batch", "jobs", job)["metadata"]["labels"] == {"app": "x"}
    assert _defaulted("batch", "jobs", labelled)["metadata"]["labels"] == {"own": "y"}
