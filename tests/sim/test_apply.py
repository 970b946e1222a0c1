"""Server-side apply (`application/apply-patch+yaml`) and managed fields.

Covers: apply creates (201) and records an Apply entry whose fieldsV1 lists exactly the
applied fields; re-applying the same configuration changes nothing (same resourceVersion);
a changed value updates; a field the manager stops applying is removed, unless another
manager also owns it; a different value for another manager's field is a 409 Conflict
naming the manager (with the API version it wrote through when it updated, not applied)
and the field, and `force=true` takes the field over; two managers each own their own
container of one list (keyed by name); a YAML body; missing fieldManager is a 422 on
PatchOptions; a create without apply records an Update entry for its manager; apply to the
status subresource; a port without `protocol` is refused as the claimed Kubernetes version
refuses it (container ports before 1.20, Service ports before 1.21); a quantity written as a
number is refused on 1.20 with every such field listed (the only one alone), taken on 1.21;
a Deployment applied with a Recreate strategy is created, but one changed to it keeps the
defaulted rollingUpdate and is refused; the manager `kubectl`
takes over without conflict the fields client-side apply set, as its last-applied annotation
says, and the annotation is rewritten; fields changed since still conflict.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from simfixture import (
    RunningSim,
    SimFactory,
    claim,
    config_map,
    deployment,
    failure,
    raw,
    status_of,
)

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def _apply(sim: RunningSim, body: dict[str, Any], manager: str, force: bool = False) -> Any:
    resource = sim.resource(body["apiVersion"], body["kind"])
    return resource.server_side_apply(
        body=body, field_manager=manager, force_conflicts=force or None
    )


def _entries(obj: Any) -> dict[tuple[str, str], dict[str, Any]]:
    return {
        (entry["manager"], entry["operation"]): entry
        for entry in obj.to_dict()["metadata"].get("managedFields", [])
    }


def test_apply_creates_and_records_owned_fields(sim_cluster: RunningSim) -> None:
    applied = _apply(sim_cluster, config_map("cfg", a="1"), "gitfleet")
    entry = _entries(applied)[("gitfleet", "Apply")]
    assert applied.data.a == "1"
    assert entry["apiVersion"] == "v1"
    assert entry["fieldsType"] == "FieldsV1"
    assert entry["fieldsV1"] == {"f:data": {"f:a": {}}}


def test_reapplying_the_same_configuration_is_a_no_op(sim_cluster: RunningSim) -> None:
    _apply(sim_cluster, deployment(), "gitfleet")
    before = sim_cluster.objects.get("apps/v1", "Deployment", "web", "default")
    again = _apply(sim_cluster, deployment(), "gitfleet")
    assert before is not None
    assert again.metadata.resourceVersion == before["metadata"]["resourceVersion"]


def test_apply_updates_a_value(sim_cluster: RunningSim) -> None:
    _apply(sim_cluster, deployment(replicas=2), "gitfleet")
    updated = _apply(sim_cluster, deployment(replicas=4), "gitfleet")
    assert updated.spec.replicas == 4
    assert updated.metadata.generation == 2


def test_field_no_longer_applied_is_removed(sim_cluster: RunningSim) -> None:
    _apply(sim_cluster, config_map("cfg", a="1", b="2"), "gitfleet")
    applied = _apply(sim_cluster, config_map("cfg", a="1"), "gitfleet")
    assert applied.data.to_dict() == {"a": "1"}
    assert _entries(applied)[("gitfleet", "Apply")]["fieldsV1"] == {"f:data": {"f:a": {}}}


def test_field_another_manager_owns_survives(sim_cluster: RunningSim) -> None:
    _apply(sim_cluster, config_map("cfg", a="1", b="2"), "gitfleet")
    _apply(sim_cluster, config_map("cfg", b="2"), "other")
    applied = _apply(sim_cluster, config_map("cfg", a="1"), "gitfleet")
    assert applied.data.to_dict() == {"a": "1", "b": "2"}


def test_conflicting_value_is_a_conflict_naming_manager_and_field(
    sim_cluster: RunningSim,
) -> None:
    _apply(sim_cluster, deployment(replicas=2), "gitfleet")
    body = deployment(replicas=5)
    error = failure(lambda: _apply(sim_cluster, body, "autoscaler"))
    status = status_of(error)
    assert (error.status, status["reason"]) == (409, "Conflict")
    assert status["details"] == {
        "causes": [
            {
                "reason": "FieldManagerConflict",
                "message": 'conflict with "gitfleet"',
                "field": ".spec.replicas",
            }
        ]
    }
    assert (
        status["message"]
        == 'Apply failed with 1 conflict: conflict with "gitfleet": .spec.replicas'
    )
    assert (
        sim_cluster.objects.get("apps/v1", "Deployment", "web", "default")["spec"]["replicas"] == 2
    )


def test_a_conflict_with_an_updater_names_its_api_version(sim_cluster: RunningSim) -> None:
    sim_cluster.resource("v1", "ConfigMap").create(
        body=config_map("cfg", a="1"), namespace="default"
    )
    error = failure(lambda: _apply(sim_cluster, config_map("cfg", a="2"), "gitfleet"))
    (cause,) = status_of(error)["details"]["causes"]
    assert cause["message"].endswith('" using v1')


def test_same_value_is_shared_without_conflict(sim_cluster: RunningSim) -> None:
    _apply(sim_cluster, deployment(replicas=2), "gitfleet")
    shared = _apply(sim_cluster, deployment(replicas=2), "other")
    entries = _entries(shared)
    assert "f:replicas" in entries[("gitfleet", "Apply")]["fieldsV1"]["f:spec"]
    assert "f:replicas" in entries[("other", "Apply")]["fieldsV1"]["f:spec"]
    before = sim_cluster.objects.get("apps/v1", "Deployment", "web", "default")
    again = _apply(sim_cluster, deployment(replicas=2), "gitfleet")
    assert before is not None
    assert again.metadata.resourceVersion == before["metadata"]["resourceVersion"]


def test_force_takes_the_field_over(sim_cluster: RunningSim) -> None:
    _apply(sim_cluster, deployment(replicas=2), "gitfleet")
    forced = _apply(sim_cluster, deployment(replicas=5), "autoscaler", force=True)
    entries = _entries(forced)
    assert forced.spec.replicas == 5
    assert "f:replicas" in entries[("autoscaler", "Apply")]["fieldsV1"]["f:spec"]
    assert "f:replicas" not in entries[("gitfleet", "Apply")]["fieldsV1"]["f:spec"]
    back = failure(lambda: _apply(sim_cluster, deployment(replicas=2), "gitfleet"))
    assert 'conflict with "autoscaler"' in status_of(back)["message"]


def test_each_manager_owns_its_own_container(sim_cluster: RunningSim) -> None:
    app = deployment()
    _apply(sim_cluster, app, "gitfleet")
    sidecar = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"template": {"spec": {"containers": [{"name": "proxy", "image": "envoy"}]}}},
    }
    merged = _apply(sim_cluster, sidecar, "mesh")
    assert [c.name for c in merged.spec.template.spec.containers] == ["web", "proxy"]
    mesh = _entries(merged)[("mesh", "Apply")]["fieldsV1"]
    containers = mesh["f:spec"]["f:template"]["f:spec"]["f:containers"]
    assert containers == {'k:{"name":"proxy"}': {".": {}, "f:image": {}, "f:name": {}}}
    app["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:2"
    updated = _apply(sim_cluster, app, "gitfleet")
    assert [(c.name, c.image) for c in updated.spec.template.spec.containers] == [
        ("web", "nginx:2"),
        ("proxy", "envoy"),
    ]


def test_container_no_longer_applied_is_removed(sim_cluster: RunningSim) -> None:
    body = deployment()
    containers = body["spec"]["template"]["spec"]["containers"]
    containers.append({"name": "extra", "image": "busybox"})
    _apply(sim_cluster, body, "gitfleet")
    containers.pop()
    applied = _apply(sim_cluster, body, "gitfleet")
    assert [c.name for c in applied.spec.template.spec.containers] == ["web"]


def test_apply_accepts_yaml(sim_cluster: RunningSim) -> None:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\ndata:\n  k: v\n"
    status, body = raw(
        sim_cluster,
        "PATCH",
        "/api/v1/namespaces/default/configmaps/y?fieldManager=gitfleet",
        body=text.encode(),
        headers={"Content-Type": "application/apply-patch+yaml"},
    )
    assert (status, body["data"]) == (201, {"k": "v"})


def test_apply_needs_a_field_manager(sim_cluster: RunningSim) -> None:
    status, body = raw(
        sim_cluster,
        "PATCH",
        "/api/v1/namespaces/default/configmaps/y",
        body=config_map("y"),
        headers={"Content-Type": "application/apply-patch+yaml"},
    )
    assert (status, body["reason"]) == (422, "Invalid")
    assert body["message"] == (
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for'
        " apply patch"
    )


def test_plain_writes_record_update_entries(sim_cluster: RunningSim) -> None:
    maps = sim_cluster.resource("v1", "ConfigMap")
    created = maps.create(
        body=config_map("u", a="1"), namespace="default", field_manager="kubectl-create"
    )
    entry = _entries(created)[("kubectl-create", "Update")]
    assert entry["fieldsV1"] == {"f:data": {"f:a": {}}}
    patched = maps.patch(
        name="u",
        namespace="default",
        body={"data": {"a": "2"}},
        content_type="application/merge-patch+json",
        field_manager="editor",
    )
    entries = _entries(patched)
    assert entries[("editor", "Update")]["fieldsV1"] == {"f:data": {"f:a": {}}}
    assert ("kubectl-create", "Update") not in entries


def test_apply_over_an_updated_field_conflicts(sim_cluster: RunningSim) -> None:
    maps = sim_cluster.resource("v1", "ConfigMap")
    maps.create(body=config_map("u", a="1"), namespace="default", field_manager="kubectl-edit")
    error = failure(lambda: _apply(sim_cluster, config_map("u", a="2"), "gitfleet"))
    assert error.status == 409
    assert "kubectl-edit" in status_of(error)["message"]


def test_apply_to_status_changes_only_status(sim_cluster: RunningSim) -> None:
    _apply(sim_cluster, deployment(replicas=1), "gitfleet")
    status_body = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 9},
        "status": {"replicas": 7},
    }
    status, body = raw(
        sim_cluster,
        "PATCH",
        "/apis/apps/v1/namespaces/default/deployments/web/status?fieldManager=probe&force=true",
        body=status_body,
        headers={"Content-Type": "application/apply-patch+yaml"},
    )
    assert status == 200
    assert body["status"]["replicas"] == 7
    assert body["spec"]["replicas"] == 1


def test_apply_into_missing_namespace_is_not_found(sim_cluster: RunningSim) -> None:
    error = failure(lambda: _apply(sim_cluster, config_map("x", "nowhere"), "gitfleet"))
    assert error.status == 404


OMITS = 'element 0: associative list with keys has an element that omits key field "protocol"'


@pytest.mark.parametrize(
    ("version", "kind", "refused"),
    [
        pytest.param(
            "v1.19.16",
            "Deployment",
            f'.spec.template.spec.containers[name="web"].ports: {OMITS}',
            id="1.19 container port",
        ),
        pytest.param("v1.20.2", "Deployment", None, id="1.20 container port"),
        pytest.param(
            "v1.20.2",
            "Service",
            f".spec.ports: {OMITS} (and doesn't have default value)",
            id="1.20 service port",
        ),
        pytest.param("v1.21.0", "Service", None, id="1.21 service port"),
    ],
)
def test_apply_of_a_port_without_protocol_follows_the_claimed_version(
    make_sim_cluster: SimFactory, version: str, kind: str, refused: str | None
) -> None:
    running = make_sim_cluster("old", kubernetes_version=version)
    body = deployment() if kind == "Deployment" else {
        "apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default"},
        "spec": {"ports": [{"port": 80}]},
    }  # fmt: skip
    if kind == "Deployment":
        body["spec"]["template"]["spec"]["containers"][0]["ports"] = [{"containerPort": 80}]
    _applies_or_refuses(running, body, refused and TYPED + refused)


TYPED = "failed to create typed patch object: "


def _applies_or_refuses(running: RunningSim, body: dict[str, Any], refused: str | None) -> None:
    """`body` (named web) applies, or is refused with a 500 saying `refused`, and no reason."""
    if refused is None:
        assert _apply(running, body, "gitfleet").metadata.name == "web"
        return
    status = status_of(failure(lambda: _apply(running, body, "gitfleet")))
    assert (status["code"], status["message"], "reason" in status) == (500, refused, False)


@pytest.mark.parametrize(
    ("version", "kind", "refused"),
    [
        pytest.param(
            "v1.20.2",
            "Deployment",
            TYPED + "errors:\n"
            '  .spec.template.spec.containers[name="web"].resources.limits.cpu: expected string,'
            " got &value.valueUnstructured{Value:0.5}\n"
            '  .spec.template.spec.containers[name="web"].resources.requests.memory: expected'
            " string, got &value.valueUnstructured{Value:134217728}",
            id="1.20 container",
        ),
        pytest.param(
            "v1.20.2",
            "PersistentVolumeClaim",
            TYPED + ".spec.resources.requests.storage: expected string, got"
            " &value.valueUnstructured{Value:1073741824}",
            id="1.20 claim",
        ),
        pytest.param("v1.21.0", "Deployment", None, id="1.21 container"),
    ],
)
def test_apply_of_a_quantity_written_as_a_number_follows_the_claimed_version(
    make_sim_cluster: SimFactory, version: str, kind: str, refused: str | None
) -> None:
    running = make_sim_cluster("old", kubernetes_version=version)
    if kind == "Deployment":
        body = deployment()
        resources = {"limits": {"cpu": 0.5}, "requests": {"memory": 134217728}}
        body["spec"]["template"]["spec"]["containers"][0]["resources"] = resources
    else:
        body = claim("web")
        body["spec"]["resources"]["requests"]["storage"] = 1073741824
    _applies_or_refuses(running, body, refused)


def test_apply_of_a_recreate_strategy(sim_cluster: RunningSim) -> None:
    created = deployment("fresh")
    created["spec"]["strategy"] = {"type": "Recreate"}
    assert _apply(sim_cluster, created, "gitfleet").spec.strategy.to_dict() == {"type": "Recreate"}
    _apply(sim_cluster, deployment(), "gitfleet")
    changed = deployment()
    changed["spec"]["strategy"] = {"type": "Recreate"}
    status = status_of(failure(lambda: _apply(sim_cluster, changed, "gitfleet")))
    assert (status["code"], status["message"]) == (
        422,
        'Deployment.apps "web" is invalid: spec.strategy.rollingUpdate: Forbidden: may not be'
        " specified when strategy `type` is 'Recreate'",
    )


def test_apply_of_an_on_delete_strategy(sim_cluster: RunningSim) -> None:
    stateful = {**deployment(), "kind": "StatefulSet"}
    stateful["spec"] = {**stateful["spec"], "serviceName": "web"}
    _apply(sim_cluster, stateful, "gitfleet")
    changed = {**stateful, "spec": {**stateful["spec"], "updateStrategy": {"type": "OnDelete"}}}
    status = status_of(failure(lambda: _apply(sim_cluster, changed, "gitfleet")))
    assert (status["code"], status["message"]) == (
        422,
        'StatefulSet.apps "web" is invalid: spec.updateStrategy.rollingUpdate: Invalid value:'
        " apps.RollingUpdateStatefulSetStrategy{Partition:0}: only allowed for updateStrategy"
        " 'RollingUpdate'",
    )


def _client_side_applied(sim: RunningSim, replicas: int) -> None:
    """A Deployment as client-side `kubectl apply` leaves it: written by an Update of
    kubectl-client-side-apply, with the configuration in the last-applied annotation."""
    body = deployment(replicas=replicas)
    last = json.dumps(body)
    body["metadata"]["annotations"] = {LAST_APPLIED: last}
    sim.resource("apps/v1", "Deployment").create(
        body=body, namespace="default", field_manager="kubectl-client-side-apply"
    )


def test_kubectl_apply_takes_over_what_client_side_apply_set(sim_cluster: RunningSim) -> None:
    """The API server lets the manager `kubectl` take over, without conflict, fields that
    the last-applied annotation set and that still have that value; and rewrites the
    annotation to the configuration it applied."""
    _client_side_applied(sim_cluster, replicas=1)
    other = failure(lambda: _apply(sim_cluster, deployment(replicas=2), "other"))
    applied = _apply(sim_cluster, deployment(replicas=2), "kubectl")
    annotation = applied.metadata.annotations[LAST_APPLIED]
    assert other.status == 409
    assert applied.spec.replicas == 2
    assert ("kubectl", "Apply") in _entries(applied)
    assert annotation.endswith("\n")
    assert json.loads(annotation)["spec"]["replicas"] == 2


def test_kubectl_apply_conflicts_on_fields_changed_since_client_side_apply(
    sim_cluster: RunningSim,
) -> None:
    _client_side_applied(sim_cluster, replicas=1)
    sim_cluster.resource("apps/v1", "Deployment").patch(
        name="web",
        namespace="default",
        body={"spec": {"replicas": 3}},
        content_type="application/merge-patch+json",
        field_manager="scaler",
    )
    error = failure(lambda: _apply(sim_cluster, deployment(replicas=2), "kubectl"))
    assert error.status == 409
    assert 'conflict with "scaler"' in status_of(error)["message"]
