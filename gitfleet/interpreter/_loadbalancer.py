"""Load balancer ingress entries of Services and Ingresses: read, merged across clusters.

A Service or Ingress propagated to several clusters gets an address in each; the template shows
all of them, once each, in a stable order: entries with a hostname first (by hostname), then by
IP (then by Service `ipMode`, set ones first); each entry's ports are merged and sorted by port,
protocol and error. Karmada: pkg/util/helper/service.go
(DedupeAndSortServiceLoadBalancerIngress), pkg/util/helper/ingress.go
(DedupeAndSortIngressLoadBalancerIngress).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from gitfleet.interpreter import _fields
from gitfleet.interpreter._fields import Path

Entry = dict[str, Any]


def entries(
    status: dict[str, Any], path: Path, *, ip_mode: bool, from_json: bool = False
) -> list[Entry]:
    """The `loadBalancer.ingress` entries of a status, reduced to the fields of their Go type
    (`ip_mode`: the Service variant, which has `ipMode`; `from_json`: a member's reported
    status, which Karmada decodes from JSON text, where a port written `80.0` is an error)."""
    key = (*path, "loadBalancer", "ingress")
    raw = _fields.array(_fields.at(status, ("loadBalancer", "ingress"), path), key)
    integer = _fields.json_integer if from_json else _fields.integer
    return [_entry(item, (*key, i), ip_mode, integer) for i, item in enumerate(raw)]


def _entry(raw: Any, path: Path, ip_mode: bool, integer: Callable[[Any, Path], int]) -> Entry:
    raw = _fields.mapping(raw, path)
    out: Entry = {
        "ip": _fields.string(raw.get("ip"), (*path, "ip")),
        "hostname": _fields.string(raw.get("hostname"), (*path, "hostname")),
    }
    if ip_mode and raw.get("ipMode") is not None:
        out["ipMode"] = _fields.string(raw["ipMode"], (*path, "ipMode"))
    key = (*path, "ports")
    ports = [
        _port(p, (*key, i), integer) for i, p in enumerate(_fields.array(raw.get("ports"), key))
    ]
    out["ports"] = ports
    # what Go's JSON leaves out; an `ipMode` is a pointer, there even when empty
    return {k: v for k, v in out.items() if k == "ipMode" or v not in ("", [])}


def _port(raw: Any, path: Path, integer: Callable[[Any, Path], int]) -> Entry:
    raw = _fields.mapping(raw, path)
    port: Entry = {
        "port": integer(raw.get("port"), (*path, "port")),
        "protocol": _fields.string(raw.get("protocol"), (*path, "protocol")),
    }
    if raw.get("error") is not None:
        port["error"] = _fields.string(raw["error"], (*path, "error"))
    return port


def merge(found: Iterable[Entry]) -> list[Entry]:
    """Entries deduplicated by (hostname, ip, ipMode) with their ports merged, sorted."""
    by_key: dict[tuple[str, str, str | None], Entry] = {}
    ports: dict[tuple[str, str, str | None], dict[tuple[int, str, str | None], Entry]] = {}
    for entry in found:
        key = (entry.get("hostname", ""), entry.get("ip", ""), entry.get("ipMode"))
        by_key[key] = {k: v for k, v in entry.items() if k != "ports"}
        merged = ports.setdefault(key, {})
        for port in entry.get("ports", ()):
            merged[(port["port"], port["protocol"], port.get("error"))] = port
    out = []
    for key in sorted(by_key, key=_entry_order):
        entry = by_key[key]
        if ports[key]:
            entry["ports"] = [ports[key][p] for p in sorted(ports[key], key=_port_order)]
        out.append(entry)
    return out


def _entry_order(key: tuple[str, str, str | None]) -> tuple[bool, str, str, bool, str]:
    hostname, ip, ip_mode = key
    return hostname == "", hostname, ip, ip_mode is None, ip_mode or ""


def _port_order(key: tuple[int, str, str | None]) -> tuple[int, str, bool, str]:
    port, protocol, error = key
    return port, protocol, error is not None, error or ""
