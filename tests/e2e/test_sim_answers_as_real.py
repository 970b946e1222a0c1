"""The simulated member answers as a real kube-apiserver of the version it claims, request by
request, with the same assertions on both (the real one from the tier of real API servers).

Aspects covered:
- server-side apply of a Service port without `protocol`: before Kubernetes 1.21 a 500 with the
  server's own message and no reason; from 1.21 it applies; a container port without it
  applies from 1.20;
- the agent's apply (native defaults first) applies that Service on both;
- resource quantities written as YAML numbers: before Kubernetes 1.21 server-side apply
  refuses them (a 500, "expected string"); the agent's apply writes them as strings first;
  the refusal quotes the number as Go prints what the server decoded: a whole number within
  int64 as an integer (`1e6`, `1.0`), any other as a float64 (`1e+20`, `1.5e-07`,
  `1.23456789125e+08`, an integer past int64 rounded);
- quantities are stored as apimachinery prints them: canonical (`0.5` as `500m`, `1000m` as
  `1`, `0.1Gi` as `107374182400m`) unless the text is already canonical enough to keep
  (`2.048`, `1e3`); a container's are rounded up to thousandths (`100u` as `1m`), an
  emptyDir's `sizeLimit` is not; text that is no quantity is 400;
- an apply of `cpu: 0.5`, `memory: 0.5Gi`, `cpu: 1000m` applied again changes nothing;
- a Deployment's and a StatefulSet's update strategy defaulted field by field (an empty one,
  one naming only some of its parts);
- a Secret's `stringData`: folded into `data` and not stored, yet the applier's field set owns
  it as written, so it reads as drifted on every sync unless the agent folds it first;
- `kubectl scale` (a merge patch of the scale subresource) on 1.20: the replicas change and
  managedFields do not, gitfleet still owning the field; the agent's drift sees it all the same;
- an apply conflict with another applier: 409, the manager named without an API version, the
  causes under `reason`, no object in the details;
- an apply without fieldManager: 422 on PatchOptions;
- a change refused for several causes (an immutable ConfigMap's data and `immutable`): the
  causes listed in the details, the message `... is invalid: [cause1, cause2]`;
- a CRD naming a kind another CRD of its group has: NamesAccepted False with the last
  conflict found (its list kind), Established False, NotAccepted;
- a ConfigMap's values weigh at most 1 MiB together (`data` and decoded `binaryData`, keys
  not counted): one byte more is 422 Invalid on the field `[]`;
- a PersistentVolumeClaim's spec changed: refused with go-cmp's report of the two specs
  over many lines (the new value `-`, the old `+`), a changed volume mode also on its own;
- a patch whose result has a value of the wrong type: 422 Invalid on the field `patch`, no
  kind or name; for a strategic merge patch the patch as Go prints a map and the converter's
  words;
- a group version the server does not serve: 404 with a plain-text page; a resource a served
  group version lacks: 404 Status with empty details;
- a custom resource's `type: number` fields, as the body's text writes them on create, get,
  list and watch: as Go writes a float64 (`1000000`, `100000000000000000000`, `0.00001`,
  `1.5e-7`, `1e+21`), a negative zero `0` (read back from storage as an integer);
- `kubectl get` Tables (columns: name, type, format, priority, and the description where the
  printer's own; cells but the age) of StorageClasses (the default one marked in its name,
  unset policies shown as defaulted), IngressClasses (parameters as Kind[.group]/name),
  Endpoints (three at most, then `+ N more...`, `<none>`) and a ResourceQuota (Request and
  Limit from its status).
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import realk8s_session
import yaml

from gitfleet import errors
from gitfleet.agent import drift, kube, native_defaults
from gitfleet.sim import _quantity

NAMESPACE = "answers"
APPLY = "application/apply-patch+yaml"
SERVICE = kube.ResourceType("v1", "Service", "services", namespaced=True)


@pytest.fixture(name="member_kubeconfig", params=realk8s_session.SERVER_KINDS)
def member_kubeconfig_fixture(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """An administrator's kubeconfig of a member: a simulated cluster claiming the real tier's
    version, or a server of the tier."""
    return realk8s_session.member_kubeconfig(request, tmp_path, realk8s_session.CLUSTERS[0])


@pytest.fixture(name="member")
def member_fixture(member_kubeconfig: Path) -> Iterator[kube.KubeClient]:
    """An administrator's client of the member, with namespace `answers`."""
    client = kube.KubeClient(member_kubeconfig, retry=kube.NO_WAIT)
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
    client.apply(kube.ResourceType("v1", "Namespace", "namespaces", False), namespace, manager="t")
    yield client
    client.close()


def _minor(client: kube.KubeClient) -> int:
    return int(str(client.get_path("/version")["minor"]).rstrip("+"))


def _answer(client: kube.KubeClient, method: str, path: str, **options: Any) -> tuple[int, Any]:
    """(HTTP status, body) of one request, errors included."""
    try:
        return client.request(method, path, "request", **options)
    except errors.ClusterAPIError as error:
        return error.code, error.status


def _apply(
    client: kube.KubeClient, path: str, body: dict[str, Any], manager: str | None = "first"
) -> tuple[int, Any]:
    query = {"fieldManager": manager} if manager else None
    return _answer(
        client, "PATCH", path, body=yaml.safe_dump(body), content_type=APPLY, query=query
    )


def _service(name: str, port: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {
            "selector": {"app": name},
            "ports": [{"name": "a", "port": 80, **port}, {"name": "b", "port": 81}],
        },
    }


def _failure(code: int, message: str, **fields: Any) -> dict[str, Any]:
    """The Status body of a refusal: its code and message, and `reason`, `details` if given."""
    status = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure"}
    return {**status, "message": message, **fields, "code": code}


def _services(name: str = "") -> str:
    return f"/api/v1/namespaces/{NAMESPACE}/services" + (f"/{name}" if name else "")


def test_a_service_port_without_protocol(member: kube.KubeClient) -> None:
    code, body = _apply(member, _services("web"), _service("web", {"protocol": "TCP"}))
    if _minor(member) >= 21:
        assert code in (200, 201)
        return
    assert code == 500
    assert body == _failure(
        500,
        "failed to create typed patch object: .spec.ports: element 1: associative list with"
        ' keys has an element that omits key field "protocol" (and doesn\'t have default value)',
    )


def test_a_container_port_without_protocol(member: kube.KubeClient) -> None:
    labels = {"app": "web"}
    pod = {"metadata": {"labels": labels}, "spec": {"containers": [
        {"name": "web", "image": "nginx", "ports": [{"containerPort": 80}]}
    ]}}  # fmt: skip
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": NAMESPACE},
        "spec": {"selector": {"matchLabels": labels}, "template": pod},
    }
    path = f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments/web"
    assert _apply(member, path, deployment)[0] in (200, 201)


def test_quantities_written_as_numbers(member: kube.KubeClient) -> None:
    resource = kube.ResourceType("apps/v1", "Deployment", "deployments", namespaced=True)
    deployment = _workload("Deployment", "numbers", {})
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    container["resources"] = {"limits": {"cpu": 0.5, "memory": 134217728}}
    path = f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments/numbers"
    code, body = _apply(member, path, deployment)
    if _minor(member) < 21:
        assert code == 500
        assert "resources.limits.cpu: expected string" in body["message"]
    applied, _ = member.apply(resource, native_defaults.fill(deployment), manager="gitfleet")
    limits = applied["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]
    amounts = {name: _quantity.parse(value) for name, value in limits.items()}
    assert amounts == {"cpu": Fraction(1, 2), "memory": 134217728}


@pytest.mark.parametrize(
    ("sent", "quoted"),
    [
        ("0.1", "0.1"),
        ("1e6", "1000000"),
        ("1000000.0", "1000000"),
        ("1234567.0", "1234567"),
        ("-0.0", "0"),
        ("9223372036854775807", "9223372036854775807"),
        ("9223372036854775808", "9.223372036854776e+18"),
        ("12345678901234567890", "1.2345678901234567e+19"),
        ("1e20", "1e+20"),
        ("1e21", "1e+21"),
        ("-2.5e+30", "-2.5e+30"),
        ("123456789.125", "1.23456789125e+08"),
        ("0.0001", "0.0001"),
        ("2.5e-5", "2.5e-05"),
        ("1.5e-7", "1.5e-07"),
    ],
)
def test_a_number_refused_as_a_quantity_is_quoted_as_go_prints_it(
    member: kube.KubeClient, sent: str, quoted: str
) -> None:
    if _minor(member) >= 21:
        pytest.skip("Kubernetes 1.21 takes numbers for quantities")
    deployment = _workload("Deployment", "quoted", {})
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    container["resources"] = {"limits": {"cpu": "CPU"}}
    body = json.dumps(deployment).replace('"CPU"', sent)  # the number's text as it is
    path = f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments/quoted"
    query = {"fieldManager": "first"}
    code, status = _answer(member, "PATCH", path, body=body, content_type=APPLY, query=query)
    assert (code, status["message"]) == (
        500,
        'failed to create typed patch object: .spec.template.spec.containers[name="c"]'
        f".resources.limits.cpu: expected string, got &value.valueUnstructured{{Value:{quoted}}}",
    )


QUANTITIES = [
    # (sent, stored in a container's resources, stored as an emptyDir's sizeLimit)
    ("0.5", "500m", "500m"),
    ("1000m", "1", "1"),
    ("0.1Gi", "107374182400m", "107374182400m"),
    ("0.5Gi", "512Mi", "512Mi"),
    ("1.5Gi", "1536Mi", "1536Mi"),
    ("1024Mi", "1Gi", "1Gi"),
    ("0.5Ki", "512", "512"),
    ("1e3", "1e3", "1e3"),
    ("5e1", "50", "50"),
    ("1.5", "1500m", "1500m"),
    ("2.048", "2.048", "2.048"),
    ("1000", "1k", "1k"),
    ("010m", "010m", "010m"),
    ("+1Gi", "+1Gi", "+1Gi"),
    ("100u", "1m", "100u"),
    ("0.0001", "1m", "100u"),
    ("1.5e-9", "1e-3", "2e-9"),
    ("16Ei", "9223372036854775807", "9223372036854775807"),
    ("1000E", "1", "1"),
    ("123456789012345678901", "123456789012345678901", "123456789012345678901"),
]


def test_quantities_are_stored_as_apimachinery_prints_them(member: kube.KubeClient) -> None:
    containers = [
        {"name": f"c{n}", "image": "x", "resources": {"limits": {"cpu": sent, "memory": sent}}}
        for n, (sent, _, _) in enumerate(QUANTITIES)
    ]
    volumes = [
        {"name": f"v{n}", "emptyDir": {"sizeLimit": sent}}
        for n, (sent, _, _) in enumerate(QUANTITIES)
    ]
    template = {
        "apiVersion": "v1",
        "kind": "PodTemplate",
        "metadata": {"name": "quantities"},
        "template": {"spec": {"containers": containers, "volumes": volumes}},
    }
    path = f"/api/v1/namespaces/{NAMESPACE}/podtemplates"
    code, body = _answer(member, "POST", path, body=template)
    assert code == 201, body
    spec = body["template"]["spec"]
    stored = [
        (c["resources"]["limits"]["cpu"], c["resources"]["limits"]["memory"], v["emptyDir"])
        for c, v in zip(spec["containers"], spec["volumes"], strict=True)
    ]
    assert stored == [(limit, limit, {"sizeLimit": size}) for _, limit, size in QUANTITIES]


@pytest.mark.parametrize(
    ("sent", "problem"),
    [
        pytest.param(
            "abc",
            "quantities must match the regular expression"
            " '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
            id="no number",
        ),
        pytest.param("1ki", "unable to parse quantity's suffix", id="unknown suffix"),
    ],
)
def test_text_that_is_no_quantity(member: kube.KubeClient, sent: str, problem: str) -> None:
    quota = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "bad"},
        "spec": {"hard": {"cpu": sent}},
    }
    path = f"/api/v1/namespaces/{NAMESPACE}/resourcequotas"
    code, body = _answer(member, "POST", path, body=quota)
    assert (code, body["reason"]) == (400, "BadRequest")
    assert body["message"].startswith(
        'ResourceQuota in version "v1" cannot be handled as a ResourceQuota: '
    )
    assert problem in body["message"]


def test_quantities_applied_again_change_nothing(member: kube.KubeClient) -> None:
    resource = kube.ResourceType("apps/v1", "Deployment", "deployments", namespaced=True)
    deployment = _workload("Deployment", "sized", {})
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    container["resources"] = {
        "requests": {"cpu": "0.5", "memory": "0.5Gi"},
        "limits": {"cpu": "1000m", "memory": "0.5Gi"},
    }
    first, _ = member.apply(resource, deployment, manager="gitfleet")
    again, _ = member.apply(resource, deployment, manager="gitfleet")
    resources = again["spec"]["template"]["spec"]["containers"][0]["resources"]
    assert resources == {
        "requests": {"cpu": "500m", "memory": "512Mi"},
        "limits": {"cpu": "1", "memory": "512Mi"},
    }
    assert again["metadata"]["generation"] == first["metadata"]["generation"] == 1
    assert drift.changes(deployment, again) == []


def _workload(kind: str, name: str, spec: dict[str, Any]) -> dict[str, Any]:
    labels = {"app": name}
    pod = {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": "x"}]}}
    body = {"selector": {"matchLabels": labels}, "template": pod, **spec}
    metadata = {"name": name, "namespace": NAMESPACE}
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": metadata, "spec": body}


ROLLING_25 = {"maxSurge": "25%", "maxUnavailable": "25%"}


@pytest.mark.parametrize(
    ("name", "kind", "spec", "field", "expected"),
    [
        pytest.param(
            "d1", "Deployment", {"strategy": {}}, "strategy",
            {"type": "RollingUpdate", "rollingUpdate": ROLLING_25},
            id="deployment, empty strategy",
        ),
        pytest.param(
            "d2", "Deployment", {"strategy": {"rollingUpdate": {"maxSurge": 1}}}, "strategy",
            {"type": "RollingUpdate", "rollingUpdate": {**ROLLING_25, "maxSurge": 1}},
            id="deployment, one limit given",
        ),
        pytest.param(
            "s1", "StatefulSet", {"serviceName": "s", "updateStrategy": {}}, "updateStrategy",
            {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
            id="statefulset, empty strategy",
        ),
        pytest.param(
            "s2", "StatefulSet", {"serviceName": "s", "updateStrategy": {"type": "RollingUpdate"}},
            "updateStrategy", {"type": "RollingUpdate"},
            id="statefulset, type alone stays alone",
        ),
    ],
)  # fmt: skip
def test_a_workload_strategy_is_defaulted_field_by_field(
    member: kube.KubeClient, name: str, kind: str, spec: dict[str, Any], field: str, expected: Any
) -> None:
    resource = kube.ResourceType("apps/v1", kind, kind.lower() + "s", namespaced=True)
    applied, _ = member.apply(resource, _workload(kind, name, spec), manager="t")
    assert applied["spec"][field] == expected


def test_the_agent_applies_a_service_without_protocol(member: kube.KubeClient) -> None:
    manifest = _service("agent", {})
    applied, _ = member.apply(SERVICE, native_defaults.fill(manifest), manager="gitfleet")
    assert [p["protocol"] for p in applied["spec"]["ports"]] == ["TCP", "TCP"]


SECRET = kube.ResourceType("v1", "Secret", "secrets", namespaced=True)


def test_a_secret_with_string_data(member: kube.KubeClient) -> None:
    metadata = {"name": "plain", "namespace": NAMESPACE}
    manifest = {"apiVersion": "v1", "kind": "Secret", "metadata": metadata,
                "data": {"user": "YWRh"}, "stringData": {"password": "hunter2"}}  # fmt: skip
    applied, _ = member.apply(SECRET, manifest, manager="gitfleet")
    assert "stringData" not in applied
    assert applied["data"] == {"user": "YWRh", "password": "aHVudGVyMg=="}
    assert drift.changes(manifest, applied) == ["stringData"]
    folded = native_defaults.fill(manifest)
    applied, _ = member.apply(SECRET, folded, manager="gitfleet")
    assert drift.changes(folded, applied) == []
    assert applied["data"] == {"user": "YWRh", "password": "aHVudGVyMg=="}


def test_a_scale_through_the_subresource(member: kube.KubeClient) -> None:
    resource = kube.ResourceType("apps/v1", "Deployment", "deployments", namespaced=True)
    config = _workload("Deployment", "scaled", {"replicas": 2})
    applied, _ = member.apply(resource, config, manager="gitfleet")
    path = f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments/scaled"
    merge = "application/merge-patch+json"
    body = {"spec": {"replicas": 5}}
    code, _ = _answer(member, "PATCH", f"{path}/scale", body=body, content_type=merge)
    live = _answer(member, "GET", path)[1]
    assert (code, live["spec"]["replicas"]) == (200, 5)
    if _minor(member) < 21:
        assert live["metadata"]["managedFields"] == applied["metadata"]["managedFields"]
    assert drift.changes(config, live) == ["spec.replicas"]


def test_an_apply_conflict(member: kube.KubeClient) -> None:
    path = f"/api/v1/namespaces/{NAMESPACE}/configmaps/settings"
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}}
    assert _apply(member, path, {**config, "data": {"a": "1"}})[0] in (200, 201)
    code, body = _apply(member, path, {**config, "data": {"a": "2"}}, manager="second")
    assert code == 409
    assert body == _failure(
        409,
        'Apply failed with 1 conflict: conflict with "first": .data.a',
        reason="Conflict",
        details={
            "causes": [
                {
                    "reason": "FieldManagerConflict",
                    "message": 'conflict with "first"',
                    "field": ".data.a",
                }
            ]
        },
    )


def test_an_apply_without_field_manager(member: kube.KubeClient) -> None:
    code, body = _apply(member, _services("nameless"), _service("nameless", {}), manager=None)
    assert (code, body["reason"]) == (422, "Invalid")
    assert body["message"] == (
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for'
        " apply patch"
    )
    assert body["details"]["causes"] == [
        {
            "reason": "FieldValueRequired",
            "message": "Required value: is required for apply patch",
            "field": "fieldManager",
        }
    ]


def test_a_change_refused_for_several_causes(member: kube.KubeClient) -> None:
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "fixed", "namespace": NAMESPACE},
        "data": {"a": "1"},
        "immutable": True,
    }
    path = f"/api/v1/namespaces/{NAMESPACE}/configmaps"
    assert _answer(member, "POST", path, body=config)[0] == 201
    patch = {"data": {"a": "2"}, "immutable": False}
    code, body = _answer(
        member, "PATCH", f"{path}/fixed", body=patch, content_type="application/merge-patch+json"
    )
    forbidden = "Forbidden: field is immutable when `immutable` is set"
    assert code == 422
    assert body == _failure(
        422,
        f'ConfigMap "fixed" is invalid: [immutable: {forbidden}, data: {forbidden}]',
        reason="Invalid",
        details={
            "name": "fixed",
            "kind": "ConfigMap",
            "causes": [
                {"reason": "FieldValueForbidden", "message": forbidden, "field": "immutable"},
                {"reason": "FieldValueForbidden", "message": forbidden, "field": "data"},
            ],
        },
    )


def test_a_crd_whose_names_are_in_use(member: kube.KubeClient) -> None:
    crds = kube.ResourceType(
        "apiextensions.k8s.io/v1", "CustomResourceDefinition", "customresourcedefinitions", False
    )

    def crd(plural: str) -> dict[str, Any]:
        return {
            "apiVersion": crds.api_version,
            "kind": crds.kind,
            "metadata": {"name": f"{plural}.names.answers.example.com"},
            "spec": {
                "group": "names.answers.example.com",
                "scope": "Namespaced",
                "names": {"kind": "Gizmo", "plural": plural},
                "versions": [
                    {"name": "v1", "served": True, "storage": True,
                     "schema": {"openAPIV3Schema": {"type": "object"}}}
                ],
            },
        }  # fmt: skip

    member.apply(crds, crd("gizmos"), manager="first")
    _conditions(member, crds, "gizmos.names.answers.example.com")
    member.apply(crds, crd("gadgets"), manager="first")
    assert _conditions(member, crds, "gadgets.names.answers.example.com") == [
        ("NamesAccepted", "False", "ListKindConflict", '"GizmoList" is already in use'),
        ("Established", "False", "NotAccepted", "not all names are accepted"),
    ]


def _conditions(
    client: kube.KubeClient, crds: kube.ResourceType, name: str
) -> list[tuple[str, str, str, str]]:
    """A CRD's conditions once the server judged its names (type, status, reason, message)."""
    deadline = time.monotonic() + 10
    while True:
        found = (client.get(crds, "", name) or {}).get("status", {}).get("conditions") or []
        judged = any(c["type"] == "NamesAccepted" for c in found)
        if judged or time.monotonic() > deadline:
            return [(c["type"], c["status"], c["reason"], c["message"]) for c in found]
        time.sleep(0.1)


def test_a_configmap_over_one_mib(member: kube.KubeClient) -> None:
    path = f"/api/v1/namespaces/{NAMESPACE}/configmaps"
    half = 512 * 1024
    binary = base64.b64encode(b"b" * half).decode()

    def create(name: str, text: int) -> tuple[int, Any]:
        config = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": NAMESPACE},
            "data": {"text": "a" * text},
            "binaryData": {"bytes": binary},
        }
        return _answer(member, "POST", path, body=config)

    assert create("full", half)[0] == 201
    code, body = create("over", half + 1)
    too_long = "Too long: must have at most 1048576 bytes"
    assert code == 422
    assert body == _failure(
        422,
        f'ConfigMap "over" is invalid: []: {too_long}',
        reason="Invalid",
        details={
            "name": "over",
            "kind": "ConfigMap",
            "causes": [{"reason": "FieldValueTooLong", "message": too_long, "field": "[]"}],
        },
    )


QUANTITY_1GI = '{s"storage": {i: {...}, s: "1Gi", Format: "BinarySI"}}'
CLAIM_CHANGES = [
    pytest.param(
        {"accessModes": ["ReadWriteMany"]},
        [
            '- \tAccessModes: []core.PersistentVolumeAccessMode{"ReadWriteMany"},',
            '+ \tAccessModes: []core.PersistentVolumeAccessMode{"ReadWriteOnce"},',
            "  \tSelector:    nil,",
            f"  \tResources:   {{Requests: {QUANTITY_1GI}}},",
            "  \t... // 4 identical fields",
        ],
        id="access modes",
    ),
    pytest.param(
        {"accessModes": ["ReadWriteOnce", "ReadOnlyMany"]},
        [
            "  \tAccessModes: []core.PersistentVolumeAccessMode{",
            '  \t\t"ReadWriteOnce",',
            '- \t\t"ReadOnlyMany",',
            "  \t},",
            "  \tSelector:  nil,",
            f"  \tResources: {{Requests: {QUANTITY_1GI}}},",
            "  \t... // 4 identical fields",
        ],
        id="an access mode added",
    ),
    pytest.param(
        {"storageClassName": "fast"},
        [
            "  \t... // 2 identical fields",
            f"  \tResources:        {{Requests: {QUANTITY_1GI}}},",
            '  \tVolumeName:       "",',
            '- \tStorageClassName: &"fast",',
            "+ \tStorageClassName: nil,",
            '  \tVolumeMode:       &"Filesystem",',
            "  \tDataSource:       nil,",
        ],
        id="storage class",
    ),
    pytest.param(
        {"resources": {"limits": {"storage": "3Gi"}}},
        [
            '  \tAccessModes: {"ReadWriteOnce"},',
            "  \tSelector:    nil,",
            "  \tResources: core.ResourceRequirements{",
            "- \t\tLimits: core.ResourceList{",
            '- \t\t\ts"storage": {i: resource.int64Amount{value: 3221225472}, s: "3Gi", Format:'
            ' "BinarySI"},',
            "- \t\t},",
            "+ \t\tLimits:   nil,",
            f"  \t\tRequests: {QUANTITY_1GI},",
            "  \t},",
            '  \tVolumeName:       "",',
            "  \tStorageClassName: nil,",
            "  \t... // 2 identical fields",
        ],
        id="a limit",
    ),
    pytest.param(
        {"selector": {"matchLabels": {"a": "b"}, "matchExpressions": [
            {"key": "k", "operator": "In", "values": ["x", "y"]}
        ]}},
        [
            '  \tAccessModes: {"ReadWriteOnce"},',
            '- \tSelector:    s"&LabelSelector{MatchLabels:map[string]string{a: b,},'
            'MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:k,'
            'Operator:In,Values:[x y],},},}",',
            "+ \tSelector:    nil,",
            f"  \tResources:   {{Requests: {QUANTITY_1GI}}},",
            '  \tVolumeName:  "",',
            "  \t... // 3 identical fields",
        ],
        id="selector",
    ),
    pytest.param(
        {"dataSource": {"kind": "PersistentVolumeClaim", "name": "src"}},
        [
            "  \t... // 4 identical fields",
            "  \tStorageClassName: nil,",
            '  \tVolumeMode:       &"Filesystem",',
            '- \tDataSource:       &core.TypedLocalObjectReference{Kind: "PersistentVolumeClaim",'
            ' Name: "src"},',
            "+ \tDataSource:       nil,",
        ],
        id="data source",
    ),
    pytest.param(
        {"volumeMode": "Block"},
        [
            "  \t... // 3 identical fields",
            '  \tVolumeName:       "",',
            "  \tStorageClassName: nil,",
            '- \tVolumeMode:       &"Block",',
            '+ \tVolumeMode:       &"Filesystem",',
            "  \tDataSource:       nil,",
        ],
        id="volume mode",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("spec", "report"), CLAIM_CHANGES)
def test_a_claim_spec_change_is_refused_with_a_report(
    member: kube.KubeClient, request: pytest.FixtureRequest, spec: dict[str, Any], report: list[str]
) -> None:
    """go-cmp puts spaces or no-break spaces after its markers, chosen per process."""
    name = "claim-" + request.node.callspec.id.split("-")[-1].replace(" ", "-")
    claim = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }
    path = f"/api/v1/namespaces/{NAMESPACE}/persistentvolumeclaims"
    assert _answer(member, "POST", path, body=claim)[0] == 201
    merge = "application/merge-patch+json"
    code, body = _answer(member, "PATCH", f"{path}/{name}", body={"spec": spec}, content_type=merge)
    refusal = (
        "Forbidden: spec is immutable after creation except resources.requests for bound claims\n"
        + "\n".join(["  core.PersistentVolumeClaimSpec{", *report, "  }"])
        + "\n"
    )
    causes = [{"reason": "FieldValueForbidden", "message": refusal, "field": "spec"}]
    if "volumeMode" in spec:
        changed = 'Invalid value: "Block": field is immutable'
        causes.append({"reason": "FieldValueInvalid", "message": changed, "field": "volumeMode"})
    listed = [f"{cause['field']}: {cause['message']}" for cause in causes]
    text = listed[0] if len(listed) == 1 else f"[{', '.join(listed)}]"
    assert code == 422
    assert json.loads(json.dumps(body).replace("\\u00a0", " ")) == _failure(
        422,
        f'PersistentVolumeClaim "{name}" is invalid: {text}',
        reason="Invalid",
        details={"name": name, "kind": "PersistentVolumeClaim", "causes": causes},
    )


@pytest.mark.parametrize(
    ("patch", "problem"),
    [
        pytest.param(
            {"metadata": {"labels": {"x": 1}}},
            '"map[metadata:map[labels:map[x:1]]]": cannot convert int64 to string',
            id="number for a string",
        ),
        pytest.param(
            {"spec": {"paused": "yes"}},
            '"map[spec:map[paused:yes]]": unrecognized type: bool',
            id="string for a bool",
        ),
        pytest.param(
            {"spec": {"template": {"spec": {"containers": {"a": 1.5}}}}},
            '"map[spec:map[template:map[spec:map[containers:map[a:1.5]]]]]": cannot restore'
            " slice from map",
            id="object for a list",
        ),
        pytest.param(
            {"spec": {"selector": [1, 2]}},
            '"map[spec:map[selector:[1 2]]]": cannot restore struct from: slice',
            id="list for an object",
        ),
    ],
)
def test_a_wrongly_typed_strategic_merge_patch(
    member: kube.KubeClient, patch: dict[str, Any], problem: str
) -> None:
    resource = kube.ResourceType("apps/v1", "Deployment", "deployments", namespaced=True)
    member.apply(resource, _workload("Deployment", "typed", {}), manager="first")
    path = f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments/typed"
    strategic = "application/strategic-merge-patch+json"
    code, body = _answer(member, "PATCH", path, body=patch, content_type=strategic)
    cause = {
        "reason": "FieldValueInvalid",
        "message": f"Invalid value: {problem}",
        "field": "patch",
    }
    assert (code, body) == (
        422,
        _failure(
            422,
            f' "" is invalid: patch: Invalid value: {problem}',
            reason="Invalid",
            details={"causes": [cause]},
        ),
    )


def test_a_wrongly_typed_merge_patch(member: kube.KubeClient) -> None:
    """The value is the patched object as JSON and the problem the decoder's, in words that
    differ between releases (1.20's decoder names `v1.DeploymentSpec.Replicas`)."""
    resource = kube.ResourceType("apps/v1", "Deployment", "deployments", namespaced=True)
    member.apply(resource, _workload("Deployment", "merged", {}), manager="first")
    path = f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments/merged"
    merge = "application/merge-patch+json"
    code, body = _answer(
        member, "PATCH", path, body={"spec": {"replicas": "two"}}, content_type=merge
    )
    assert (code, body["reason"]) == (422, "Invalid")
    [cause] = body["details"]["causes"]
    assert body["details"] == {"causes": [cause]}
    assert (cause["field"], cause["reason"]) == ("patch", "FieldValueInvalid")
    assert body["message"] == f' "" is invalid: patch: {cause["message"]}'
    assert cause["message"].startswith('Invalid value: "{\\"apiVersion\\":\\"apps/v1\\",')
    assert '\\"replicas\\":\\"two\\"' in cause["message"]


def test_what_is_not_served(member: kube.KubeClient) -> None:
    unknown_group = _answer(member, "GET", f"/apis/example.com/v1/namespaces/{NAMESPACE}/gizmos/x")
    assert unknown_group == (404, {"message": "404 page not found"})
    code, body = _answer(member, "GET", f"/api/v1/namespaces/{NAMESPACE}/gizmos/x")
    assert (code, body["message"], body["details"]) == (
        404,
        "the server could not find the requested resource",
        {},
    )


GAUGES_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "gauges.answers.example.io"},
    "spec": {
        "group": "answers.example.io",
        "scope": "Namespaced",
        "names": {"plural": "gauges", "singular": "gauge", "kind": "Gauge"},
        "versions": [{"name": "v1", "served": True, "storage": True, "schema": {
            "openAPIV3Schema": {"type": "object", "properties": {"spec": {
                "type": "object", "properties": {
                    "one": {"type": "number"},
                    "values": {"type": "array", "items": {"type": "number"}},
                },
            }}},
        }}],
    },
}  # fmt: skip
CRD = kube.ResourceType(
    "apiextensions.k8s.io/v1", "CustomResourceDefinition", "customresourcedefinitions", False
)
GAUGES = f"/apis/answers.example.io/v1/namespaces/{NAMESPACE}/gauges"
NUMBERS = [
    # (a float the client sends, as Python's JSON writes it; as the server writes it back)
    (1000000.0, "1000000"),
    (1.0, "1"),
    (-0.0, "0"),
    (1e16, "10000000000000000"),
    (1e20, "100000000000000000000"),
    (1.2345678901234567e19, "12345678901234567000"),
    (1e21, "1e+21"),
    (1e22, "1e+22"),
    (123456789.125, "123456789.125"),
    (0.0001, "0.0001"),
    (1e-5, "0.00001"),
    (2.5e-5, "0.000025"),
    (1e-6, "0.000001"),
    (1.5e-7, "1.5e-7"),
    (-1e-7, "-1e-7"),
    (1e-10, "1e-10"),
    (5e-324, "5e-324"),
]


def test_number_fields_are_written_as_go_writes_them(
    member: kube.KubeClient, member_kubeconfig: Path
) -> None:
    member.apply(CRD, GAUGES_CRD, manager="t")
    _wait_served(member, GAUGES)
    listed = _answer(member, "GET", GAUGES)[1]["metadata"]["resourceVersion"]
    gauge = {
        "apiVersion": "answers.example.io/v1",
        "kind": "Gauge",
        "metadata": {"name": "g", "namespace": NAMESPACE},
        "spec": {"one": 1e6, "values": [sent for sent, _ in NUMBERS]},
    }
    written = "[" + ",".join(text for _, text in NUMBERS) + "]"
    created = _text(member_kubeconfig, "POST", GAUGES, gauge)
    watched = _text(member_kubeconfig, "GET", GAUGES, query=(
        ("watch", "1"), ("resourceVersion", listed), ("timeoutSeconds", "1")
    ))  # fmt: skip
    for text in (created, _text(member_kubeconfig, "GET", f"{GAUGES}/g"), watched):
        assert f'"values":{written}' in text and '"one":1000000' in text, text
    listed_text = _text(member_kubeconfig, "GET", GAUGES)
    assert f'"values":{written}' in listed_text, listed_text


def _wait_served(client: kube.KubeClient, path: str) -> None:
    """A real server serves a new CRD's resource once it is established."""
    deadline = time.monotonic() + 60
    while _answer(client, "GET", path)[0] != 200:
        assert time.monotonic() < deadline, f"{path} is not served"
        time.sleep(0.2)


def _text(
    kubeconfig: Path,
    method: str,
    path: str,
    body: Any = None,
    query: tuple[tuple[str, str], ...] = (),
) -> str:
    """The body of one request as the server wrote it (the client libraries decode it)."""
    from kubernetes import config

    api = config.new_client_from_config(config_file=str(kubeconfig))
    try:
        request = api.param_serialize(
            method, path, query_params=list(query), body=body, auth_settings=["BearerToken"],
            header_params={"Content-Type": "application/json"},
        )  # fmt: skip
        response = api.call_api(*request)
        response.read()
        return bytes(response.data).decode()
    finally:
        api.close()


TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
STORAGE_CLASS = kube.ResourceType("storage.k8s.io/v1", "StorageClass", "storageclasses", False)
INGRESS_CLASS = kube.ResourceType(
    "networking.k8s.io/v1", "IngressClass", "ingressclasses", namespaced=False
)


def _table(kubeconfig: Path, path: str, names: set[str]) -> tuple[list[Any], list[Any]]:
    """The columns (name, type, format, priority, description, the Name's and Age's left
    out) and the rows of `names` without their age, of the Table `kubectl get` reads."""
    from kubernetes import config

    api = config.new_client_from_config(config_file=str(kubeconfig))
    try:
        request = api.param_serialize(
            "GET", path, auth_settings=["BearerToken"], header_params={"Accept": TABLE}
        )
        response = api.call_api(*request)
        response.read()
        table = json.loads(response.data)
    finally:
        api.close()
    definitions = table["columnDefinitions"]
    columns = [
        (c["name"], c["type"], c["format"], c["priority"])
        + (() if c["name"] in ("Name", "Age") else (c["description"],))
        for c in definitions
    ]
    age = [c["name"] for c in definitions].index("Age")
    rows = [
        row["cells"][:age] + row["cells"][age + 1 :]
        for row in table["rows"]
        if row["object"]["metadata"]["name"] in names
    ]
    return columns, sorted(rows)


def test_storage_class_table(member: kube.KubeClient, member_kubeconfig: Path) -> None:
    plain = {"metadata": {"name": "answers-plain"}, "provisioner": "example.com/a"}
    default = {
        "metadata": {
            "name": "answers-fast",
            "annotations": {"storageclass.kubernetes.io/is-default-class": "true"},
        },
        "provisioner": "example.com/b",
        "reclaimPolicy": "Retain",
        "volumeBindingMode": "WaitForFirstConsumer",
        "allowVolumeExpansion": True,
    }
    for body in (plain, default):
        member.apply(
            STORAGE_CLASS,
            {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", **body},
            manager="t",
        )
    columns, rows = _table(
        member_kubeconfig,
        "/apis/storage.k8s.io/v1/storageclasses",
        {"answers-plain", "answers-fast"},
    )
    assert columns == [
        ("Name", "string", "name", 0),
        ("Provisioner", "string", "", 0, "Provisioner indicates the type of the provisioner."),
        (
            "ReclaimPolicy", "string", "", 0,
            "Dynamically provisioned PersistentVolumes of this storage class are created with"
            " this reclaimPolicy. Defaults to Delete.",
        ),
        (
            "VolumeBindingMode", "string", "", 0,
            "VolumeBindingMode indicates how PersistentVolumeClaims should be provisioned and"
            " bound.  When unset, VolumeBindingImmediate is used. This field is only honored by"
            " servers that enable the VolumeScheduling feature.",
        ),
        (
            "AllowVolumeExpansion", "string", "", 0,
            "AllowVolumeExpansion shows whether the storage class allow volume expand",
        ),
        ("Age", "string", "", 0),
    ]  # fmt: skip
    assert rows == [
        ["answers-fast (default)", "example.com/b", "Retain", "WaitForFirstConsumer", True],
        ["answers-plain", "example.com/a", "Delete", "Immediate", False],
    ]


def test_ingress_class_table(member: kube.KubeClient, member_kubeconfig: Path) -> None:
    parameters = {"apiGroup": "k8s.example.com", "kind": "Params", "name": "lb"}
    for name, spec in (
        ("answers-plain", {"controller": "example.com/ingress"}),
        ("answers-params", {"controller": "example.com/ingress", "parameters": parameters}),
        (
            "answers-core",
            {"controller": "example.com/ingress", "parameters": {"kind": "Map", "name": "c"}},
        ),
    ):
        body = {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "IngressClass",
            "metadata": {"name": name},
            "spec": spec,
        }
        member.apply(INGRESS_CLASS, body, manager="t")
    columns, rows = _table(
        member_kubeconfig,
        "/apis/networking.k8s.io/v1/ingressclasses",
        {"answers-plain", "answers-params", "answers-core"},
    )
    assert columns == [
        ("Name", "string", "name", 0),
        ("Controller", "string", "", 0, "Controller that is responsible for handling this class"),
        ("Parameters", "string", "", 0, "A reference to a resource with additional parameters"),
        ("Age", "string", "", 0),
    ]
    assert rows == [
        ["answers-core", "example.com/ingress", "Map/c"],
        ["answers-params", "example.com/ingress", "Params.k8s.example.com/lb"],
        ["answers-plain", "example.com/ingress", "<none>"],
    ]


def test_endpoints_and_resource_quota_tables(
    member: kube.KubeClient, member_kubeconfig: Path
) -> None:
    endpoints = kube.ResourceType("v1", "Endpoints", "endpoints", namespaced=True)
    addresses = [{"ip": "10.0.0.1"}, {"ip": "10.0.0.2"}]
    ports = [{"name": "a", "port": 80}, {"name": "b", "port": 81}]
    for name, subsets in (
        ("many", [{"addresses": addresses, "ports": ports}]),
        ("empty", []),
        ("headless", [{"addresses": [{"ip": "10.0.0.3"}]}]),
    ):
        body = {"apiVersion": "v1", "kind": "Endpoints", "subsets": subsets}
        member.apply(
            endpoints, {**body, "metadata": {"name": name, "namespace": NAMESPACE}}, manager="t"
        )
    hard = {"pods": "10", "requests.cpu": "1", "limits.memory": "1Gi"}
    quota = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "q", "namespace": NAMESPACE},
        "spec": {"hard": hard},
    }
    path = f"/api/v1/namespaces/{NAMESPACE}/resourcequotas"
    _answer(member, "POST", path, body=quota)
    current = member.get_path(f"{path}/q")
    current["status"] = {"hard": hard, "used": {"pods": "2", "limits.memory": "512Mi"}}
    assert _answer(member, "PUT", f"{path}/q/status", body=current)[0] == 200
    columns, rows = _table(
        member_kubeconfig,
        f"/api/v1/namespaces/{NAMESPACE}/endpoints",
        {"many", "empty", "headless"},
    )
    assert [column[:4] for column in columns] == [
        ("Name", "string", "name", 0),
        ("Endpoints", "string", "", 0),
        ("Age", "string", "", 0),
    ]
    assert rows == [
        ["empty", "<none>"],
        ["headless", "10.0.0.3"],
        ["many", "10.0.0.1:80,10.0.0.2:80,10.0.0.1:81 + 1 more..."],
    ]
    columns, rows = _table(member_kubeconfig, path, {"q"})
    assert columns == [
        ("Name", "string", "name", 0),
        ("Age", "string", "", 0),
        (
            "Request", "string", "", 0,
            "Request represents a minimum amount of cpu/memory that a container may consume.",
        ),
        (
            "Limit", "string", "", 0,
            "Limits control the maximum amount of cpu/memory that a container may use"
            " independent of contention on the node.",
        ),
    ]  # fmt: skip
    assert rows == [["q", "pods: 2/10, requests.cpu: 0/1", "limits.memory: 512Mi/1Gi"]]
