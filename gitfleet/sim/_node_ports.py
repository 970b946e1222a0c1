"""Node ports of Services, as the API server's service registry allocates them: a NodePort or
LoadBalancer Service gets a free port of 30000-32767 on each port that names none (an update
keeps the one the port had), a port already held by another Service is refused, and a type
that needs none drops the node ports it kept from before and refuses new ones.
"""

from __future__ import annotations

import random

from gitfleet.sim import _errors, _json, _store

LOW, HIGH = 30000, 32767
_NEEDING = ("NodePort", "LoadBalancer")


def _key(port: _json.Obj) -> tuple[object, object]:
    return port.get("port"), port.get("protocol") or "TCP"


def _held(store: _store.Store, obj: _json.Obj) -> set[int]:
    """The node ports every other Service holds."""
    metadata = obj["metadata"]
    return {
        int(port["nodePort"])
        for service in store.list("", "services")
        if (service["metadata"].get("namespace"), service["metadata"]["name"])
        != (metadata.get("namespace"), metadata["name"])
        for port in _json.dig(service, "spec", "ports") or []
        if isinstance(port, dict) and port.get("nodePort")
    }


def allocate(
    store: _store.Store, rng: random.Random, obj: _json.Obj, live: _json.Obj | None
) -> None:
    """Give `obj` (a Service being created, or replacing `live`) its node ports, in place;
    422 Invalid for a port another Service holds or a node port its type may not have."""
    spec = _json.ensure(obj, "spec")
    kind = spec.get("type") or "ClusterIP"
    ports = [p for p in spec.get("ports") or [] if isinstance(p, dict)]
    before = {
        _key(p): p["nodePort"]
        for p in _json.dig(live or {}, "spec", "ports") or []
        if isinstance(p, dict) and p.get("nodePort")
    }
    name = obj["metadata"]["name"]
    if kind not in _NEEDING:
        for port in ports:
            if port.get("nodePort") and before.get(_key(port)) == port["nodePort"]:
                del port["nodePort"]  # the type changed: what was allocated goes
        refused = [
            (f"spec.ports[{i}].nodePort", f"Forbidden: may not be used when `type` is '{kind}'")
            for i, port in enumerate(ports)
            if port.get("nodePort")
        ]
        if refused:
            raise _errors.invalid("", "Service", name, refused)
        return
    held = _held(store, obj)
    for index, port in enumerate(ports):
        wanted = port.get("nodePort") or before.get(_key(port))
        if wanted and int(wanted) in held:
            raise _errors.invalid(
                "",
                "Service",
                name,
                [
                    (
                        f"spec.ports[{index}].nodePort",
                        f"Invalid value: {wanted}: provided port is already allocated",
                    )
                ],
            )
        if not wanted:
            free = [n for n in range(LOW, HIGH + 1) if n not in held]
            wanted = rng.choice(free)
        port["nodePort"] = int(wanted)
        held.add(int(wanted))
