"""Create, read, update and delete through the DynamicClient, and the metadata the server
keeps.

Covers: namespaced and cluster-scoped create/get/list/replace/delete; uid, creationTimestamp
and a cluster-wide resourceVersion that grows on every write; generation bumped by spec
changes only; generateName; server defaults (Deployment strategy, Service clusterIP, Secret
stringData folded into base64 data, pod templates' null creationTimestamp and empty
resources, a claim's volumeMode, the status structs of Ingresses and VolumeAttachments);
error Statuses: 404 (object, namespace), 409 AlreadyExists and Conflict, 422
Invalid (missing or illegal names, selector mismatch, labels, pods without containers,
Services without ports, worded and classified as a real server words them), 415 for an unknown
patch type, 405 for a verb a resource does not allow, 400 for a namespace mismatch; dryRun
leaves nothing behind; list pagination with limit/continue, and 400 for a limit that is no
number; a Service comes back with an empty load balancer status; generic 404 and 405 Statuses
carry empty details.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest
from simfixture import (
    RunningSim,
    claim,
    config_map,
    deployment,
    failure,
    raw,
    service,
    status_of,
)


def test_namespaced_object_round_trip(sim_cluster: RunningSim) -> None:
    maps = sim_cluster.resource("v1", "ConfigMap")
    created = maps.create(body=config_map("settings", color="blue"), namespace="default")
    fetched = maps.get(name="settings", namespace="default")
    assert fetched.data.color == "blue"
    assert fetched.metadata.uid == created.metadata.uid
    assert fetched.metadata.creationTimestamp.endswith("Z")
    changed = fetched.to_dict()
    changed["data"]["color"] = "green"
    replaced = maps.replace(body=changed)
    assert replaced.data.color == "green"
    assert int(replaced.metadata.resourceVersion) > int(created.metadata.resourceVersion)
    maps.delete(name="settings", namespace="default")
    assert failure(lambda: maps.get(name="settings", namespace="default")).status == 404


def test_cluster_scoped_object_round_trip(sim_cluster: RunningSim) -> None:
    roles = sim_cluster.resource("rbac.authorization.k8s.io/v1", "ClusterRole")
    body = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": "system:reader"},
        "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}],
    }
    roles.create(body=body)
    names = [item.metadata.name for item in roles.get().items]
    assert "system:reader" in names
    assert "namespace" not in roles.get(name="system:reader").metadata
    roles.delete(name="system:reader")
    assert "system:reader" not in [item.metadata.name for item in roles.get().items]


def test_resource_version_grows_across_the_cluster(sim_cluster: RunningSim) -> None:
    maps = sim_cluster.resource("v1", "ConfigMap")
    first = maps.create(body=config_map("a"), namespace="default")
    second = maps.create(body=config_map("b"), namespace="default")
    listed = maps.get(namespace="default")
    assert int(second.metadata.resourceVersion) > int(first.metadata.resourceVersion)
    assert int(listed.metadata.resourceVersion) >= int(second.metadata.resourceVersion)


def test_generation_counts_spec_changes_only(sim_cluster: RunningSim) -> None:
    deployments = sim_cluster.resource("apps/v1", "Deployment")
    created = deployments.create(body=deployment(), namespace="default")
    assert created.metadata.generation == 1
    labelled = deployments.patch(
        name="web",
        namespace="default",
        body={"metadata": {"labels": {"team": "a"}}},
        content_type="application/merge-patch+json",
    )
    assert labelled.metadata.generation == 1
    scaled = deployments.patch(
        name="web",
        namespace="default",
        body={"spec": {"replicas": 3}},
        content_type="application/merge-patch+json",
    )
    assert scaled.metadata.generation == 2
    status_only = deployments.get(name="web", namespace="default")
    assert status_only.status.observedGeneration == 2


def test_generate_name_gives_a_unique_name(sim_cluster: RunningSim) -> None:
    maps = sim_cluster.resource("v1", "ConfigMap")
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "run-"}}
    first = maps.create(body=body, namespace="default")
    second = maps.create(body=body, namespace="default")
    assert first.metadata.name.startswith("run-")
    assert first.metadata.name != second.metadata.name


def test_server_fills_defaults(sim_cluster: RunningSim) -> None:
    created = sim_cluster.resource("apps/v1", "Deployment").create(
        body=deployment(), namespace="default"
    )
    container = created.spec.template.spec.containers[0]
    assert created.spec.strategy.type == "RollingUpdate"
    assert created.spec.template.spec.restartPolicy == "Always"
    assert container.imagePullPolicy == "IfNotPresent"
    web = sim_cluster.resource("v1", "Service").create(
        namespace="default", body=service("web", selector={"app": "web"})
    )
    assert web.spec.clusterIP.startswith("10.96.")
    assert web.spec.ports[0].targetPort == 80
    assert web.spec.ports[0].protocol == "TCP"


def test_claims_ingresses_and_attachments_get_their_defaults(sim_cluster: RunningSim) -> None:
    put = sim_cluster.objects.put
    claimed = put(claim("data"))
    ingress = put(
        {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "Ingress",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"rules": [{"host": "a.example.com"}]},
        }
    )
    attachment = put(
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "VolumeAttachment",
            "metadata": {"name": "va"},
            "spec": {"attacher": "x", "nodeName": "n", "source": {"persistentVolumeName": "p"}},
        }
    )
    assert claimed["spec"]["volumeMode"] == "Filesystem"
    assert ingress["status"] == {"loadBalancer": {}}
    assert attachment["status"] == {"attached": False}


def test_templates_come_back_as_a_real_server_writes_them(sim_cluster: RunningSim) -> None:
    """Every embedded ObjectMeta with `creationTimestamp: null` and every container with
    `resources: {}` (empty structs Go writes out), and no field owned for the null."""
    body = deployment()
    del body["spec"]["template"]["spec"]["containers"][0]["resources"]
    _, created = raw(sim_cluster, "POST", "/apis/apps/v1/namespaces/default/deployments", body=body)
    template = created["spec"]["template"]
    owned = created["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"]["f:template"]
    assert template["metadata"] == {"creationTimestamp": None, "labels": {"app": "web"}}
    assert template["spec"]["containers"][0]["resources"] == {}
    assert owned["f:metadata"] == {"f:labels": {"f:app": {}}}


def test_secret_string_data_becomes_data(sim_cluster: RunningSim) -> None:
    secret = sim_cluster.resource("v1", "Secret").create(
        namespace="default",
        body={
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "token"},
            "stringData": {"token": "s3cret"},
        },
    )
    assert base64.b64decode(secret.data.token) == b"s3cret"
    assert secret.type == "Opaque"
    assert "stringData" not in secret.to_dict()


def test_headless_service_keeps_no_cluster_ip(sim_cluster: RunningSim) -> None:
    headless = sim_cluster.resource("v1", "Service").create(
        namespace="default", body=service("db", 5432, clusterIP="None")
    )
    assert headless.spec.clusterIP == "None"


def test_service_keeps_its_cluster_ip_when_replaced_without_it(sim_cluster: RunningSim) -> None:
    services = sim_cluster.resource("v1", "Service")
    body = service("web")
    created = services.create(namespace="default", body=body)
    replaced = services.replace(namespace="default", body=body)
    assert replaced.spec.clusterIP == created.spec.clusterIP


def _create_cm(sim: RunningSim, body: dict[str, Any], namespace: str = "default") -> Any:
    return sim.resource("v1", "ConfigMap").create(body=body, namespace=namespace)


@pytest.mark.parametrize(
    ("body", "namespace", "code", "reason"),
    [
        pytest.param(
            config_map("x", "missing"), "missing", 404, "NotFound", id="namespace does not exist"
        ),
        pytest.param(
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}},
            "default",
            422,
            "Invalid",
            id="no name",
        ),
        pytest.param(config_map("Not_A_Name"), "default", 422, "Invalid", id="illegal name"),
        pytest.param(
            config_map("x", labels={"app": "not valid!"}),
            "default",
            422,
            "Invalid",
            id="illegal label value",
        ),
        pytest.param(
            config_map("x", "other"), "default", 400, "BadRequest", id="namespace mismatch"
        ),
        pytest.param(
            {**config_map("x"), "kind": "Secret"}, "default", 400, "BadRequest", id="kind mismatch"
        ),
    ],
)
def test_create_refusals(
    sim_cluster: RunningSim, body: dict[str, Any], namespace: str, code: int, reason: str
) -> None:
    error = failure(lambda: _create_cm(sim_cluster, body, namespace))
    status = status_of(error)
    assert (error.status, status["reason"], status["kind"]) == (code, reason, "Status")


def test_invalid_names_the_field(sim_cluster: RunningSim) -> None:
    status = status_of(failure(lambda: _create_cm(sim_cluster, config_map("Bad_Name"))))
    assert status["details"]["causes"][0]["field"] == "metadata.name"
    assert status["details"]["kind"] == "ConfigMap"


def _named(kind: str, name: str, **fields: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": kind, "metadata": {"name": name}, **fields}


@pytest.mark.parametrize(
    ("path", "body", "message", "reason"),
    [
        pytest.param(
            "/api/v1/namespaces",
            _named("Namespace", "Bad.ns"),
            'Namespace "Bad.ns" is invalid: metadata.name: Invalid value: "Bad.ns": a lowercase'
            " RFC 1123 label must consist of lower case alphanumeric characters or '-', and must"
            " start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex"
            " used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
            "FieldValueInvalid",
            id="namespace name",
        ),
        pytest.param(
            "/api/v1/namespaces/default/services",
            _named("Service", "1svc", spec={"ports": [{"port": 80}]}),
            'Service "1svc" is invalid: metadata.name: Invalid value: "1svc": a DNS-1035 label'
            " must consist of lower case alphanumeric characters or '-', start with an alphabetic"
            " character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123',"
            " regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
            "FieldValueInvalid",
            id="service name",
        ),
        pytest.param(
            "/api/v1/namespaces/default/services",
            _named("Service", "svc", spec={}),
            'Service "svc" is invalid: spec.ports: Required value',
            "FieldValueRequired",
            id="service without ports",
        ),
        pytest.param(
            "/api/v1/namespaces/default/pods",
            _named("Pod", "p", spec={"containers": []}),
            'Pod "p" is invalid: spec.containers: Required value',
            "FieldValueRequired",
            id="pod without containers",
        ),
        pytest.param(
            "/apis/apps/v1/namespaces/default/deployments",
            {
                **deployment("web"),
                "spec": {
                    **deployment("web")["spec"],
                    "template": {
                        "metadata": {"labels": {"app": "other"}},
                        "spec": {"containers": [{"name": "c", "image": "x"}]},
                    },
                },
            },
            'Deployment.apps "web" is invalid: spec.template.metadata.labels: Invalid value: '
            'map[string]string{"app":"other"}: `selector` does not match template `labels`',
            "FieldValueInvalid",
            id="selector mismatch",
        ),
    ],
)
def test_invalid_objects_as_a_real_server_words_them(
    sim_cluster: RunningSim, path: str, body: dict[str, Any], message: str, reason: str
) -> None:
    status, answer = raw(sim_cluster, "POST", path, body=body)
    assert (status, answer["message"]) == (422, message)
    assert answer["details"]["causes"][0]["reason"] == reason


def test_headless_and_external_services_need_no_ports(sim_cluster: RunningSim) -> None:
    headless = _named("Service", "headless", spec={"clusterIP": "None"})
    external = _named("Service", "external", spec={"type": "ExternalName", "externalName": "a.b"})
    for body in (headless, external):
        status, _ = raw(sim_cluster, "POST", "/api/v1/namespaces/default/services", body=body)
        assert status == 201


def test_a_nameless_object_is_required_a_name(sim_cluster: RunningSim) -> None:
    status = status_of(
        failure(lambda: _create_cm(sim_cluster, {"apiVersion": "v1", "kind": "ConfigMap"}))
    )
    assert status["details"]["causes"][0]["reason"] == "FieldValueRequired"
    assert "name" not in status["details"]


def test_create_twice_is_already_exists(sim_cluster: RunningSim) -> None:
    _create_cm(sim_cluster, config_map("twice"))
    error = failure(lambda: _create_cm(sim_cluster, config_map("twice")))
    status = status_of(error)
    assert (error.status, status["reason"]) == (409, "AlreadyExists")
    assert status["details"] == {"name": "twice", "kind": "configmaps"}


def test_stale_resource_version_is_a_conflict(sim_cluster: RunningSim) -> None:
    maps = sim_cluster.resource("v1", "ConfigMap")
    stale = _create_cm(sim_cluster, config_map("cas", value="1")).to_dict()
    fresh = dict(stale, data={"value": "2"})
    maps.replace(body=fresh)
    stale["data"] = {"value": "3"}
    error = failure(lambda: maps.replace(body=stale))
    assert (error.status, status_of(error)["reason"]) == (409, "Conflict")
    assert maps.get(name="cas", namespace="default").data.value == "2"


def test_workload_selector_must_match_template(sim_cluster: RunningSim) -> None:
    body = deployment()
    body["spec"]["selector"] = {"matchLabels": {"app": "other"}}
    error = failure(
        lambda: sim_cluster.resource("apps/v1", "Deployment").create(body=body, namespace="default")
    )
    assert error.status == 422
    assert status_of(error)["details"]["causes"][0]["field"] == "spec.template.metadata.labels"


def test_unknown_patch_type_is_unsupported(sim_cluster: RunningSim) -> None:
    _create_cm(sim_cluster, config_map("p"))
    status, body = raw(
        sim_cluster,
        "PATCH",
        "/api/v1/namespaces/default/configmaps/p",
        body={"data": {"a": "b"}},
        headers={"Content-Type": "application/x-unknown"},
    )
    assert (status, body["reason"]) == (415, "UnsupportedMediaType")


@pytest.mark.parametrize(
    ("method", "path"),
    [
        pytest.param("POST", "/api/v1/namespaces/default/configmaps/p", id="create on a name"),
        pytest.param("PUT", "/api/v1/namespaces/default/configmaps", id="update a collection"),
        pytest.param("POST", "/api/v1/componentstatuses", id="verb the resource lacks"),
        pytest.param("DELETE", "/api/v1/nodes/member1-node-1/status", id="delete a status"),
    ],
)
def test_verbs_not_allowed(sim_cluster: RunningSim, method: str, path: str) -> None:
    status, body = raw(sim_cluster, method, path, body={})
    assert (status, body["reason"]) == (405, "MethodNotAllowed")


def test_dry_run_stores_nothing(sim_cluster: RunningSim) -> None:
    maps = sim_cluster.resource("v1", "ConfigMap")
    shown = maps.create(body=config_map("dry"), namespace="default", dry_run="All")
    assert shown.metadata.name == "dry"
    assert sim_cluster.objects.get("v1", "ConfigMap", "dry", "default") is None


def test_list_pages_with_limit_and_continue(sim_cluster: RunningSim) -> None:
    maps = sim_cluster.resource("v1", "ConfigMap")
    for name in ("p1", "p2", "p3", "p4", "p5"):
        _create_cm(sim_cluster, config_map(name, labels={"page": "yes"}))
    seen: list[str] = []
    token = None
    while True:
        page = maps.get(namespace="default", label_selector="page=yes", limit=2, _continue=token)
        seen += [item.metadata.name for item in page.items]
        token = page.metadata["continue"]
        if not token:
            break
    assert seen == ["p1", "p2", "p3", "p4", "p5"]


def test_list_items_of_builtin_kinds_carry_no_kind(sim_cluster: RunningSim) -> None:
    _create_cm(sim_cluster, config_map("k"))
    status, body = raw(sim_cluster, "GET", "/api/v1/namespaces/default/configmaps")
    item = next(i for i in body["items"] if i["metadata"]["name"] == "k")
    assert (status, body["kind"], body["apiVersion"]) == (200, "ConfigMapList", "v1")
    assert "kind" not in item


def test_a_limit_that_is_no_number_is_a_bad_request(sim_cluster: RunningSim) -> None:
    status, body = raw(sim_cluster, "GET", "/api/v1/namespaces/default/configmaps?limit=x")
    assert (status, body["message"]) == (400, 'strconv.ParseInt: parsing "x": invalid syntax')


def test_a_service_has_an_empty_load_balancer_status(sim_cluster: RunningSim) -> None:
    _, created = raw(
        sim_cluster, "POST", "/api/v1/namespaces/default/services", body=service("web")
    )
    assert created["status"] == {"loadBalancer": {}}


def test_generic_refusals_carry_empty_details(sim_cluster: RunningSim) -> None:
    unknown, missing = raw(sim_cluster, "GET", "/api/v1/namespaces/default/nodes")
    wrong, not_allowed = raw(sim_cluster, "PUT", "/api/v1/namespaces/default/configmaps")
    assert (unknown, missing["details"]) == (404, {})
    assert (wrong, not_allowed["details"]) == (405, {})
