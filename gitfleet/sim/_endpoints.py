"""What the endpoints and EndpointSlice controllers write for a Service with a selector: an
Endpoints object of the Service's name, and one EndpointSlice (`<service>-<suffix>`, owned by
the Service, labelled `kubernetes.io/service-name`), listing the addresses of the running pods
the selector matches with the ports the Service's target ports resolve to in each pod.

As in Kubernetes' controllers: a pod without an IP (not started) or being deleted is left out;
one not Ready is in `notReadyAddresses` (and a slice endpoint with `ready: false`); a named
target port is looked up in each pod's containers, and pods that resolve the ports alike share
a subset; a Service without a selector (whose endpoints its owner writes) or of type
ExternalName gets none. `kubectl get endpoints`, `kubectl describe service` and
`kubectl get endpointslices` then show what a real cluster shows.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gitfleet.sim import _json, _pods

SERVICE_NAME_LABEL = "kubernetes.io/service-name"
MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by"
MANAGED_BY = "endpointslice-controller.k8s.io"

Port = tuple[str, int, str]
"""A resolved port: (name, number, protocol)."""


def served(service: _json.Obj) -> bool:
    """Whether the controllers keep endpoints for `service`."""
    spec = service.get("spec") or {}
    return bool(spec.get("selector")) and spec.get("type") != "ExternalName"


def selected(service: _json.Obj, pods: Iterable[_json.Obj]) -> list[_json.Obj]:
    """The pods with an address the Service sends to, by name."""
    selector = _json.dig(service, "spec", "selector") or {}
    return [
        pod
        for pod in pods
        if _json.dig(pod, "status", "podIP")
        and not _json.dig(pod, "metadata", "deletionTimestamp")
        and all(_json.dig(pod, "metadata", "labels", k) == v for k, v in selector.items())
    ]


def _ports(service: _json.Obj, pod: _json.Obj) -> tuple[Port, ...]:
    """The Service's ports as `pod` serves them; a named target port the pod does not name is
    left out."""
    named = {
        port.get("name"): port.get("containerPort")
        for container in _json.dig(pod, "spec", "containers") or []
        for port in container.get("ports") or []
        if port.get("name")
    }
    found = []
    for port in _json.dig(service, "spec", "ports") or []:
        target = port.get("targetPort", port.get("port"))
        number = named.get(target) if isinstance(target, str) else target
        if isinstance(number, int):
            found.append((port.get("name") or "", number, port.get("protocol") or "TCP"))
    return tuple(found)


def _port_doc(port: Port, *, unnamed: bool = False) -> dict[str, Any]:
    """A port as Endpoints list it (no name when it has none), or with `unnamed`, as
    EndpointSlices do (an empty name)."""
    name, number, protocol = port
    named = {"name": name} if name or unnamed else {}
    return {**named, "port": number, "protocol": protocol}


def _address(pod: _json.Obj) -> dict[str, Any]:
    metadata = pod["metadata"]
    found: dict[str, Any] = {"ip": pod["status"]["podIP"]}
    node = _json.dig(pod, "spec", "nodeName")
    if node:
        found["nodeName"] = node
    found["targetRef"] = {
        "kind": "Pod",
        "name": metadata["name"],
        "namespace": metadata.get("namespace", ""),
        "uid": metadata.get("uid", ""),
    }
    return found


def _labels(service: _json.Obj) -> dict[str, Any]:
    return dict(_json.dig(service, "metadata", "labels") or {})


def endpoints(service: _json.Obj, pods: list[_json.Obj]) -> _json.Obj:
    """The Endpoints object of `service` for its `selected` pods."""
    groups: dict[tuple[Port, ...], list[_json.Obj]] = {}
    for pod in pods:
        ports = _ports(service, pod)
        if ports:
            groups.setdefault(ports, []).append(pod)
    subsets = []
    for ports, members in sorted(groups.items()):
        subset: dict[str, Any] = {}
        for key, ready in (("addresses", True), ("notReadyAddresses", False)):
            chosen = [_address(p) for p in members if _pods.is_ready(p) is ready]
            if chosen:
                subset[key] = sorted(chosen, key=lambda a: (a["ip"], a["targetRef"]["name"]))
        subset["ports"] = [_port_doc(p) for p in ports]
        subsets.append(subset)
    metadata = service["metadata"]
    doc: _json.Obj = {
        "apiVersion": "v1",
        "kind": "Endpoints",
        "metadata": {"name": metadata["name"], "namespace": metadata.get("namespace", "")},
    }
    if _labels(service):
        doc["metadata"]["labels"] = _labels(service)
    if subsets:
        doc["subsets"] = subsets
    return doc


def endpoint_slice(service: _json.Obj, pods: list[_json.Obj], name: str) -> _json.Obj:
    """The EndpointSlice `name` of `service` for its `selected` pods."""
    metadata = service["metadata"]
    ports = sorted({port for pod in pods for port in _ports(service, pod)})
    listed = []
    for pod in sorted(pods, key=lambda p: (p["status"]["podIP"], p["metadata"]["name"])):
        address = _address(pod)
        ready = _pods.is_ready(pod)
        entry: dict[str, Any] = {
            "addresses": [address["ip"]],
            "conditions": {"ready": ready, "serving": ready, "terminating": False},
            "targetRef": address["targetRef"],
        }
        if "nodeName" in address:
            entry["nodeName"] = address["nodeName"]
        listed.append(entry)
    return {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": {
            "name": name,
            "namespace": metadata.get("namespace", ""),
            "generateName": f"{metadata['name']}-",
            "labels": {
                **_labels(service),
                SERVICE_NAME_LABEL: metadata["name"],
                MANAGED_BY_LABEL: MANAGED_BY,
            },
            "ownerReferences": [
                {
                    "apiVersion": "v1",
                    "kind": "Service",
                    "name": metadata["name"],
                    "uid": metadata.get("uid", ""),
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "addressType": "IPv4",
        "endpoints": listed,
        "ports": [_port_doc(p, unnamed=True) for p in ports],
    }
