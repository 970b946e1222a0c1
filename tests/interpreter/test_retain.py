"""Retain: the fields a member cluster owns survive an update from the desired object.

Aspects: Deployment replicas only under the retain-replicas label (and an error when the member
has none); Pod scheduling and volume fields; Service allocated IP and health-check port;
ServiceAccount secret lists merged; PVC volume and PV claim; Job generated labels; token
Secrets' data; kinds without a rule; inputs never modified; fields read and written as Karmada's
unstructured helpers do (null values and lists refused, a null object on the way is absence)."""

from __future__ import annotations

from typing import Any

import pytest
from interpreter.kube_docs import Doc, container, obj, pod_spec, workload

from gitfleet import errors, interpreter

RETAIN_LABEL = {"labels": {"resourcetemplate.karmada.io/retain-replicas": "true"}}


def _retain(chain: interpreter.Interpreter, desired: Doc, observed: Doc) -> Doc:
    before = (repr(desired), repr(observed))
    retained = chain.retain(desired, observed)
    assert (repr(desired), repr(observed)) == before
    return dict(retained)


@pytest.mark.parametrize(
    ("desired", "observed", "at", "expected"),
    [
        pytest.param(
            workload("Deployment", replicas=2, metadata=RETAIN_LABEL),
            workload("Deployment", replicas=7),
            ("spec", "replicas"),
            7,
            id="deployment keeps member replicas under the label",
        ),
        pytest.param(
            workload("Deployment", replicas=2),
            workload("Deployment", replicas=7),
            ("spec", "replicas"),
            2,
            id="deployment without the label keeps desired replicas",
        ),
        pytest.param(
            obj("Service", spec={"type": "NodePort", "ports": [{"port": 80}]}),
            obj("Service", spec={"clusterIP": "10.0.3.4", "healthCheckNodePort": 31999}),
            ("spec",),
            {
                "type": "NodePort",
                "ports": [{"port": 80}],
                "clusterIP": "10.0.3.4",
                "healthCheckNodePort": 31999,
            },
            id="service allocated IP and port",
        ),
        pytest.param(
            obj("Service", spec={"clusterIP": "None"}),
            obj("Service", spec={"clusterIP": "", "healthCheckNodePort": 0}),
            ("spec",),
            {"clusterIP": "None"},
            id="service with nothing allocated",
        ),
        pytest.param(
            obj("ServiceAccount", secrets=[{"name": "mine"}]),
            obj("ServiceAccount", secrets=[{"name": "app-token-x1"}, {"name": "mine"}]),
            ("secrets",),
            [{"name": "mine"}, {"name": "app-token-x1"}],
            id="service account secrets merged, desired first",
        ),
        pytest.param(
            obj("ServiceAccount", imagePullSecrets=[{"name": "pull"}]),
            obj("ServiceAccount"),
            ("imagePullSecrets",),
            [{"name": "pull"}],
            id="service account pull secrets kept when the member has none",
        ),
        pytest.param(
            obj("PersistentVolumeClaim", spec={"resources": {"requests": {"storage": "1Gi"}}}),
            obj("PersistentVolumeClaim", spec={"volumeName": "pv-0042"}),
            ("spec", "volumeName"),
            "pv-0042",
            id="claim keeps its bound volume",
        ),
        pytest.param(
            obj("PersistentVolume", namespace="", spec={"capacity": {"storage": "1Gi"}}),
            obj(
                "PersistentVolume",
                namespace="",
                spec={"claimRef": {"name": "data", "namespace": "store"}},
            ),
            ("spec", "claimRef"),
            {"name": "data", "namespace": "store"},
            id="volume keeps its claim",
        ),
        pytest.param(
            obj(
                "Secret", type="kubernetes.io/service-account-token", data={"token": "ZGVzaXJlZA=="}
            ),
            obj("Secret", type="kubernetes.io/service-account-token", data={"token": "bWVtYmVy"}),
            ("data",),
            {"token": "bWVtYmVy"},
            id="token secret keeps member data",
        ),
        pytest.param(
            obj("Secret", type="Opaque", data={"password": "ZGVzaXJlZA=="}),
            obj("Secret", type="Opaque", data={"password": "bWVtYmVy"}),
            ("data",),
            {"password": "ZGVzaXJlZA=="},
            id="opaque secret keeps desired data",
        ),
        pytest.param(
            obj("ConfigMap", data={"k": "desired"}),
            obj("ConfigMap", data={"k": "member"}),
            ("data",),
            {"k": "desired"},
            id="kind without a rule",
        ),
    ],
)
def test_retained_field(
    chain: interpreter.Interpreter, desired: Doc, observed: Doc, at: tuple[str, ...], expected: Any
) -> None:
    retained: Any = _retain(chain, desired, observed)
    for key in at:
        retained = retained[key]
    assert retained == expected


def test_retain_replicas_needs_member_replicas(chain: interpreter.Interpreter) -> None:
    desired = workload("Deployment", replicas=2, metadata=RETAIN_LABEL)
    with pytest.raises(errors.InterpretError, match=r"no integer spec\.replicas"):
        chain.retain(desired, workload("Deployment"))


def test_pod_keeps_scheduling_and_volumes(chain: interpreter.Interpreter) -> None:
    desired = obj(
        "Pod",
        spec=pod_spec(
            container("app", volumeMounts=[{"name": "desired", "mountPath": "/d"}]),
            container("sidecar"),
            initContainers=[container("setup")],
            serviceAccountName="desired-sa",
            volumes=[{"name": "desired", "emptyDir": {}}],
        ),
    )
    mounts = [
        {
            "name": "kube-api-access-abcde",
            "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
        }
    ]
    observed = obj(
        "Pod",
        spec=pod_spec(
            container("app", volumeMounts=mounts),
            container("sidecar", volumeMounts=mounts),
            initContainers=[container("setup", volumeMounts=mounts)],
            nodeName="node-7",
            volumes=[{"name": "kube-api-access-abcde", "projected": {"sources": []}}],
        ),
    )
    spec = _retain(chain, desired, observed)["spec"]
    assert spec["nodeName"] == "node-7"
    assert "serviceAccountName" not in spec
    assert spec["volumes"] == observed["spec"]["volumes"]
    assert [c.get("volumeMounts") for c in spec["containers"]] == [mounts, mounts]
    assert spec["initContainers"][0]["volumeMounts"] == mounts


def test_job_keeps_generated_labels(chain: interpreter.Interpreter) -> None:
    generated = {"batch.kubernetes.io/controller-uid": "0f3c", "job-name": "app"}
    desired = workload("Job", spec_extra={"completions": 1})
    observed = workload("Job")
    observed["spec"]["selector"] = {"matchLabels": generated}
    observed["spec"]["template"]["metadata"]["labels"] = {**generated, "app": "app"}
    spec = _retain(chain, desired, observed)["spec"]
    assert spec["selector"]["matchLabels"] == generated
    assert spec["template"]["metadata"]["labels"] == {**generated, "app": "app"}
    assert spec["completions"] == 1


def test_retained_values_are_copies(chain: interpreter.Interpreter) -> None:
    observed = obj("PersistentVolume", namespace="", spec={"claimRef": {"name": "data"}})
    retained = chain.retain(obj("PersistentVolume", namespace="", spec={}), observed)
    retained["spec"]["claimRef"]["name"] = "other"
    assert observed["spec"]["claimRef"]["name"] == "data"


def _account(**lists: Any) -> Doc:
    return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa"}, **lists}


@pytest.mark.parametrize(
    ("desired", "observed", "match"),
    [
        pytest.param(
            _account(secrets=None), _account(), r"secrets: expected an array, got null", id="null"
        ),
        pytest.param(
            _account(secrets=[{"name": "a"}, None]),
            _account(),
            r"secrets\[1\]: expected an object, got null",
            id="null entry",
        ),
        pytest.param(
            _account(),
            _account(imagePullSecrets=[{}]),
            r"imagePullSecrets\[0\]\.name: expected a string, got null",
            id="entry without a name",
        ),
    ],
)
def test_service_account_lists_read_as_karmada_reads_them(
    chain: interpreter.Interpreter, desired: Doc, observed: Doc, match: str
) -> None:
    # Karmada reads each list with NestedSlice and each entry's name by a type assertion
    with pytest.raises(errors.InterpretError, match=match):
        chain.retain(desired, observed)


@pytest.mark.parametrize(
    ("desired", "observed", "match"),
    [
        pytest.param(
            workload("Job"),
            {"spec": {"template": {"metadata": {"labels": None}}}},
            r"spec\.template\.metadata\.labels: expected an object, got null",
            id="null job labels",
        ),
        pytest.param(
            obj("PersistentVolumeClaim", spec={}),
            {"spec": {"volumeName": None}},
            r"spec\.volumeName: expected a string, got null",
            id="null volume name",
        ),
        pytest.param(
            obj("Service", spec={}),
            {"spec": {"healthCheckNodePort": 30001.0}},
            r"spec\.healthCheckNodePort: expected an integer, got",
            id="port written as a float",
        ),
        pytest.param(
            obj("Service", spec=None),
            {"spec": {"clusterIP": "10.0.0.1"}},
            r"spec: expected an object to set a field in, got null",
            id="null desired spec",
        ),
    ],
)
def test_member_fields_read_as_karmada_reads_them(
    chain: interpreter.Interpreter, desired: Doc, observed: Doc, match: str
) -> None:
    # NestedString, NestedInt64 and NestedStringMap refuse a null value; SetNestedField will
    # not write below a null
    with pytest.raises(errors.InterpretError, match=match):
        chain.retain(desired, {**desired, **observed})


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        pytest.param({"volumes": [1]}, r"spec\.volumes\[0\]: expected an object", id="volume"),
        pytest.param(
            {"containers": [{"name": "app", "volumeMounts": ["/data"]}]},
            r"spec\.containers\[0\]\.volumeMounts\[0\]: expected an object",
            id="volume mount",
        ),
    ],
)
def test_pod_volumes_must_be_objects(chain: interpreter.Interpreter, spec: Doc, match: str) -> None:
    desired = obj("Pod", spec=pod_spec(container("app")))
    with pytest.raises(errors.InterpretError, match=match):
        chain.retain(desired, {**desired, "spec": spec})


def test_null_member_spec_retains_nothing(chain: interpreter.Interpreter) -> None:
    # a null object on the way to a field is no field, for Karmada's accessors
    desired = obj("PersistentVolumeClaim", spec={"volumeName": "mine"})
    assert chain.retain(desired, {**desired, "spec": None}) == desired
