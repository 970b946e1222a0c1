"""What a fresh cluster holds before anybody writes: its nodes (with the configured
allocatable capacity) and their Leases, the system namespaces, the `kubernetes` Service and
the component statuses."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gitfleet.sim import _json, _managed, _metrics, _registry

DEFAULT_NODE_ALLOCATABLE: Mapping[str, str] = {
    "cpu": "4",
    "memory": "16Gi",
    "pods": "110",
    "ephemeral-storage": "100Gi",
}
SYSTEM_NAMESPACES = ("default", "kube-node-lease", "kube-public", "kube-system")


def node_names(cluster: str, count: int) -> list[str]:
    return [f"{cluster}-node-{index}" for index in range(1, count + 1)]


def node(
    name: str,
    index: int,
    allocatable: Mapping[str, str],
    labels: Mapping[str, str],
    kubernetes_version: str,
) -> _json.Obj:
    address = _registry.ipv4((172 << 24) | (18 << 16) | index + 1)
    condition = {"lastHeartbeatTime": "", "lastTransitionTime": ""}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {
                "kubernetes.io/arch": "amd64",
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "node.kubernetes.io/instance-type": "sim",
                **labels,
            },
        },
        "spec": {"podCIDR": f"10.244.{index}.0/24", "providerID": f"sim://{name}"},
        "status": {
            "capacity": dict(allocatable),
            "allocatable": dict(allocatable),
            "conditions": [
                {**condition, "type": kind, "status": status, "reason": reason, "message": ""}
                for kind, status, reason in (
                    ("MemoryPressure", "False", "KubeletHasSufficientMemory"),
                    ("DiskPressure", "False", "KubeletHasNoDiskPressure"),
                    ("PIDPressure", "False", "KubeletHasSufficientPID"),
                    ("Ready", "True", "KubeletReady"),
                )
            ],
            "addresses": [
                {"type": "InternalIP", "address": address},
                {"type": "Hostname", "address": name},
            ],
            "nodeInfo": {
                "machineID": f"{index:032x}",
                "systemUUID": f"00000000-0000-0000-0000-{index:012x}",
                "bootID": f"00000000-0000-0000-0001-{index:012x}",
                "architecture": "amd64",
                "operatingSystem": "linux",
                "osImage": "gitfleet simulated node",
                "kernelVersion": "6.0.0",
                "containerRuntimeVersion": "containerd://1.7.0",
                "kubeletVersion": kubernetes_version,
                "kubeProxyVersion": kubernetes_version,
            },
        },
    }


def populate(
    registry: _registry.Registry,
    *,
    cluster: str,
    allocatable: Sequence[Mapping[str, str]],
    labels: Mapping[str, str],
    kubernetes_version: str,
) -> None:
    """Create the objects every cluster starts with (through the registry, as a real
    cluster's components would): one node per entry of `allocatable`."""
    catalog = registry.store.catalog
    write = _managed.Write(manager="kube-apiserver", api_version="v1", time=registry.now())
    namespaces = catalog.by_plural("", "namespaces")
    node_type = catalog.by_plural("", "nodes")
    services = catalog.by_plural("", "services")
    assert namespaces is not None and node_type is not None and services is not None
    for name in SYSTEM_NAMESPACES:
        body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
        registry.create(namespaces, body, write=write)
    names = node_names(cluster, len(allocatable))
    for index, (name, share) in enumerate(zip(names, allocatable, strict=True), start=1):
        obj = node(name, index, share, labels, kubernetes_version)
        now = registry.now()
        for condition in obj["status"]["conditions"]:
            condition.update(lastHeartbeatTime=now, lastTransitionTime=now)
        status = obj.pop("status")
        created = registry.create(node_type, obj, write=write)
        registry.save(node_type, {**_json.clone(created), "status": status})
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": "kubernetes",
            "namespace": "default",
            "labels": {"component": "apiserver", "provider": "kubernetes"},
        },
        "spec": {"ports": [{"name": "https", "port": 443, "targetPort": 6443}]},
    }
    registry.create(services, service, write=write)
    _node_leases(registry, names)
    _component_statuses(registry)
    _metrics_service(registry)


def _node_leases(registry: _registry.Registry, names: Sequence[str]) -> None:
    """The Lease each node's kubelet holds in kube-node-lease (`kubectl describe node`
    shows it), owned by its Node."""
    kind = registry.store.catalog.by_plural("coordination.k8s.io", "leases")
    assert kind is not None
    write = _managed.Write(
        manager="kubelet", api_version="coordination.k8s.io/v1", time=registry.now()
    )
    renewed = registry.clock().strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    for name in names:
        node = registry.store.get("", "nodes", "", name)
        assert node is not None
        owner = {"apiVersion": "v1", "kind": "Node", "name": name, "uid": node["metadata"]["uid"]}
        body = {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {"name": name, "namespace": "kube-node-lease", "ownerReferences": [owner]},
            "spec": {"holderIdentity": name, "leaseDurationSeconds": 40, "renewTime": renewed},
        }
        registry.create(kind, body, write=write)


def _component_statuses(registry: _registry.Registry) -> None:
    """What `kubectl get componentstatuses` lists: the scheduler, the controller manager
    and etcd, healthy."""
    kind = registry.store.catalog.by_plural("", "componentstatuses")
    assert kind is not None
    write = _managed.Write(manager="kube-apiserver", api_version="v1", time=registry.now())
    for name, message in (
        ("scheduler", "ok"),
        ("controller-manager", "ok"),
        ("etcd-0", '{"health":"true","reason":""}'),
    ):
        body = {
            "apiVersion": "v1",
            "kind": "ComponentStatus",
            "metadata": {"name": name},
            "conditions": [{"type": "Healthy", "status": "True", "message": message}],
        }
        registry.create(kind, body, write=write)


def _metrics_service(registry: _registry.Registry) -> None:
    """The APIService a metrics-server registers, which announces metrics.k8s.io."""
    kind = registry.store.catalog.by_plural("apiregistration.k8s.io", "apiservices")
    assert kind is not None
    write = _managed.Write(
        manager="kube-apiserver", api_version="apiregistration.k8s.io/v1", time=registry.now()
    )
    body = _metrics.api_service(registry.now())
    status = body.pop("status")
    created = registry.create(kind, body, write=write)
    registry.save(kind, {**_json.clone(created), "status": status})
