"""Request bodies in protocol buffers, as client-go's typed clients send built-in objects
(kubectl's `create rolebinding`; from kubectl 1.32 every `create`).

Covers: kubectl creates a role binding and a cluster role binding with their subjects; a
Deployment sent in protocol buffers keeps a pointer's zero (`replicas: 0`) and drops the
zeros of plain fields, gives an inline message's fields (a volume's source) to the object
holding it, and reads maps, quantities and int-or-strings as JSON has them; a body that is
not protocol buffers is 400.
"""

from __future__ import annotations

import json
from typing import Any

from simfixture import Kubectl, RunningSim, exchange, needs_kubectl, raw

PROTOBUF = {"Content-Type": "application/vnd.kubernetes.protobuf"}


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _field(number: int, value: Any) -> bytes:
    """One field: an int as a varint, anything else (str, bytes, a list of fields) as bytes."""
    if isinstance(value, int):
        return _varint(number << 3) + _varint(value)
    data = (
        value.encode()
        if isinstance(value, str)
        else b"".join(value)
        if isinstance(value, list)
        else value
    )
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def _unknown(api_version: str, kind: str, message: list[bytes]) -> bytes:
    type_meta = [_field(1, api_version), _field(2, kind)]
    return b"k8s\x00" + _field(1, type_meta) + _field(2, message)


@needs_kubectl
def test_kubectl_creates_bindings(sim_cluster: RunningSim, kubectl: Kubectl) -> None:
    kubectl(
        "create",
        "rolebinding",
        "readers",
        "--role=reader",
        "--user=alice",
        "--serviceaccount=default:bot",
    )
    kubectl("create", "clusterrolebinding", "viewers", "--clusterrole=view", "--group=devs")
    readers = sim_cluster.objects.get(
        "rbac.authorization.k8s.io/v1", "RoleBinding", "readers", "default"
    )
    viewers = sim_cluster.objects.get(
        "rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "viewers"
    )
    assert readers is not None and viewers is not None
    assert readers["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "Role",
        "name": "reader",
    }
    assert readers["subjects"] == [
        {"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice"},
        {"kind": "ServiceAccount", "name": "bot", "namespace": "default"},
    ]
    assert viewers["subjects"] == [
        {"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "devs"}
    ]


def test_a_deployment_in_protocol_buffers(sim_cluster: RunningSim) -> None:
    labels = [_field(1, "app"), _field(2, "web")]
    metadata = [_field(1, "web"), _field(2, ""), _field(3, "default"), _field(11, [*labels])]
    container = [
        _field(1, "web"),
        _field(2, "nginx:1.27"),
        _field(8, [_field(2, [_field(1, "cpu"), _field(2, [_field(1, "100m")])])]),  # requests
        _field(6, [_field(3, 8080), _field(4, "TCP")]),  # ports: containerPort, protocol
    ]
    empty_dir = [_field(1, "")]  # medium "", a plain field: left out
    volume = [_field(1, "cache"), _field(2, [_field(2, empty_dir)])]  # volumeSource, inline
    pod_spec = [_field(1, [*volume]), _field(2, container)]
    template = [_field(1, [_field(11, [*labels])]), _field(2, pod_spec)]
    selector = [_field(1, [*labels])]
    strategy = [
        _field(1, "RollingUpdate"),
        _field(2, [_field(1, [_field(1, 1), _field(3, "25%")])]),  # maxUnavailable: str
    ]
    spec = [
        _field(1, 0),
        _field(2, selector),
        _field(3, template),
        _field(4, strategy),
        _field(5, 0),
    ]
    body = _unknown("apps/v1", "Deployment", [_field(1, metadata), _field(2, spec)])
    status, created = raw(
        sim_cluster,
        "POST",
        "/apis/apps/v1/namespaces/default/deployments",
        body=body,
        headers=PROTOBUF,
    )
    assert status == 201, created["message"]
    pod = created["spec"]["template"]["spec"]
    assert created["spec"]["replicas"] == 0
    assert "minReadySeconds" not in created["spec"]
    assert "generateName" not in created["metadata"]
    assert created["metadata"]["labels"] == {"app": "web"}
    assert created["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == "25%"
    assert pod["volumes"] == [{"name": "cache", "emptyDir": {}}]
    assert pod["containers"][0]["resources"] == {"requests": {"cpu": "100m"}}
    assert pod["containers"][0]["ports"] == [{"containerPort": 8080, "protocol": "TCP"}]


def test_a_body_that_is_not_protocol_buffers(sim_cluster: RunningSim) -> None:
    status, _, answer = exchange(
        sim_cluster,
        "POST",
        "/api/v1/namespaces/default/configmaps",
        body=json.dumps({"metadata": {"name": "x"}}).encode(),
        headers=PROTOBUF,
    )
    assert status == 400
    assert answer["reason"] == "BadRequest"
