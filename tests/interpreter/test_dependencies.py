"""GetDependencies: the objects a resource needs in its cluster.

Aspects: every place a pod spec names a ConfigMap, Secret, ServiceAccount or claim (env,
envFrom, image pull secrets, all container lists, every volume source kind, projected
sources); the first secret-bearing source of a volume is the one read; empty names and the
default ServiceAccount skipped; grouping and order; each workload kind's pod template;
StatefulSet claim templates; Ingress TLS secrets; ServiceImport's derived Service and
EndpointSlices; invalid results refused; kinds without a rule."""

from __future__ import annotations

from typing import Any

import pytest
from interpreter.kube_docs import Doc, container, obj, pod_spec, workload

from gitfleet import errors, interpreter
from gitfleet.model import config, meta


def names(deps: list[config.DependentObjectReference]) -> list[str]:
    return [f"{d.kind}/{d.namespace}/{d.name}" for d in deps]


EVERYTHING = pod_spec(
    container(
        "app",
        env=[
            {"name": "A", "valueFrom": {"configMapKeyRef": {"name": "env-config", "key": "a"}}},
            {"name": "B", "valueFrom": {"secretKeyRef": {"name": "env-secret", "key": "b"}}},
            {"name": "C", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
            {"name": "D", "value": "plain"},
        ],
        envFrom=[{"configMapRef": {"name": "bulk-config"}}, {"secretRef": {"name": "bulk-secret"}}],
    ),
    initContainers=[container("init", envFrom=[{"secretRef": {"name": "init-secret"}}])],
    ephemeralContainers=[
        {
            "name": "debug",
            "env": [{"name": "E", "valueFrom": {"configMapKeyRef": {"name": "debug-config"}}}],
        }
    ],
    imagePullSecrets=[{"name": "registry"}, {"name": ""}],
    serviceAccountName="runner",
    volumes=[
        {"name": "v1", "configMap": {"name": "vol-config"}},
        {"name": "v2", "secret": {"secretName": "vol-secret"}},
        {
            "name": "v3",
            "projected": {
                "sources": [
                    {"configMap": {"name": "proj-config"}},
                    {"secret": {"name": "proj-secret"}},
                    {"serviceAccountToken": {"path": "t"}},
                ]
            },
        },
        {"name": "v4", "persistentVolumeClaim": {"claimName": "data"}},
        {"name": "v5", "csi": {"driver": "d", "nodePublishSecretRef": {"name": "csi-secret"}}},
        {"name": "v6", "azureFile": {"secretName": "azure-secret", "shareName": "s"}},
        {"name": "v7", "rbd": {"monitors": [], "image": "i", "secretRef": {"name": "rbd-secret"}}},
        {"name": "v8", "cephfs": {"monitors": []}},
        {"name": "v9", "emptyDir": {}},
    ],
)

EVERYTHING_DEPS = [
    "ConfigMap/store/bulk-config",
    "ConfigMap/store/debug-config",
    "ConfigMap/store/env-config",
    "ConfigMap/store/proj-config",
    "ConfigMap/store/vol-config",
    "Secret/store/azure-secret",
    "Secret/store/bulk-secret",
    "Secret/store/csi-secret",
    "Secret/store/env-secret",
    "Secret/store/init-secret",
    "Secret/store/proj-secret",
    "Secret/store/rbd-secret",
    "Secret/store/registry",
    "Secret/store/vol-secret",
    "ServiceAccount/store/runner",
    "PersistentVolumeClaim/store/data",
]


def cron_job(spec: Doc) -> Doc:
    return obj(
        "CronJob",
        spec={"schedule": "@hourly", "jobTemplate": {"spec": {"template": {"spec": spec}}}},
    )


@pytest.mark.parametrize(
    "doc",
    [
        pytest.param(workload("Deployment", EVERYTHING), id="deployment"),
        pytest.param(workload("ReplicaSet", EVERYTHING), id="replicaset"),
        pytest.param(workload("DaemonSet", EVERYTHING), id="daemonset"),
        pytest.param(workload("StatefulSet", EVERYTHING), id="statefulset"),
        pytest.param(workload("Job", EVERYTHING), id="job"),
        pytest.param(cron_job(EVERYTHING), id="cronjob"),
        pytest.param(obj("Pod", spec=EVERYTHING), id="pod"),
    ],
)
def test_pod_template_dependencies(chain: interpreter.Interpreter, doc: Doc) -> None:
    deps = chain.get_dependencies(doc)
    assert names(deps) == EVERYTHING_DEPS
    assert {d.api_version for d in deps} == {"v1"}


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        pytest.param(pod_spec(), [], id="nothing named"),
        pytest.param(pod_spec(serviceAccountName="default"), [], id="default service account"),
        pytest.param(
            pod_spec(
                volumes=[{"name": "v", "secret": {}}, {"name": "w", "configMap": {"name": ""}}]
            ),
            [],
            id="empty names",
        ),
        pytest.param(
            pod_spec(
                volumes=[
                    {
                        "name": "v",
                        "cinder": {"volumeID": "x", "secretRef": {"name": "first"}},
                        "secret": {"secretName": "second"},
                    }
                ]
            ),
            ["Secret/store/first"],
            id="only the first secret source of a volume",
        ),
        pytest.param(
            pod_spec(
                volumes=[
                    {"name": "a", "persistentVolumeClaim": {"claimName": "same"}},
                    {"name": "b", "persistentVolumeClaim": {"claimName": "same"}},
                ]
            ),
            ["PersistentVolumeClaim/store/same"],
            id="repeats collapse",
        ),
    ],
)
def test_pod_spec_edge_cases(
    chain: interpreter.Interpreter, spec: Doc, expected: list[str]
) -> None:
    assert names(chain.get_dependencies(workload("Deployment", spec))) == expected


def test_statefulset_skips_its_own_claims(chain: interpreter.Interpreter) -> None:
    spec = pod_spec(
        volumes=[
            {"name": "a", "persistentVolumeClaim": {"claimName": "www"}},
            {"name": "b", "persistentVolumeClaim": {"claimName": "shared"}},
        ]
    )
    doc = workload(
        "StatefulSet", spec, spec_extra={"volumeClaimTemplates": [{"metadata": {"name": "www"}}]}
    )
    assert names(chain.get_dependencies(doc)) == ["PersistentVolumeClaim/store/shared"]


def test_ingress_tls_secrets(chain: interpreter.Interpreter) -> None:
    doc = obj(
        "Ingress",
        spec={
            "tls": [
                {"hosts": ["a.example"], "secretName": "cert-a"},
                {"secretName": "cert-b"},
                {"secretName": "cert-a"},
            ]
        },
    )
    assert names(chain.get_dependencies(doc)) == [
        "Secret/store/cert-a",
        "Secret/store/cert-b",
        "Secret/store/cert-a",
    ]


def test_ingress_tls_without_secret_is_refused(chain: interpreter.Interpreter) -> None:
    doc = obj("Ingress", spec={"tls": [{"hosts": ["a.example"]}]})
    with pytest.raises(
        errors.InterpretError,
        match=r"Ingress store/app: dependencies\[0\]: dependency can not leave name and label",
    ):
        chain.get_dependencies(doc)


def test_service_import(chain: interpreter.Interpreter) -> None:
    deps = chain.get_dependencies(
        obj("ServiceImport", name="payments", spec={"type": "ClusterSetIP"})
    )
    assert deps == [
        config.DependentObjectReference(
            api_version="v1", kind="Service", namespace="store", name="derived-payments"
        ),
        config.DependentObjectReference(
            api_version="discovery.k8s.io/v1",
            kind="EndpointSlice",
            namespace="store",
            label_selector=meta.LabelSelector(
                match_labels={"kubernetes.io/service-name": "derived-payments"}
            ),
        ),
    ]


def test_service_import_with_a_name_too_long_for_a_label(chain: interpreter.Interpreter) -> None:
    with pytest.raises(errors.InterpretError, match="invalid label value"):
        chain.get_dependencies(obj("ServiceImport", name="s" * 60))


@pytest.mark.parametrize(
    "doc",
    [
        pytest.param(obj("Service", spec={"selector": {"app": "app"}}), id="service"),
        pytest.param(obj("ConfigMap"), id="configmap"),
    ],
)
def test_kinds_without_a_rule(chain: interpreter.Interpreter, doc: Doc) -> None:
    assert chain.get_dependencies(doc) == []


def test_malformed_reference_names_the_field(chain: interpreter.Interpreter) -> None:
    spec: dict[str, Any] = pod_spec(container("app", envFrom=[{"secretRef": {"name": 5}}]))
    with pytest.raises(errors.InterpretError) as raised:
        chain.get_dependencies(workload("Deployment", spec))
    assert raised.value.keys == (
        "spec",
        "template",
        "spec",
        "containers",
        0,
        "envFrom",
        0,
        "secretRef",
        "name",
    )
