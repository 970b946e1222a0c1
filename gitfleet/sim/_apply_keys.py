"""Key fields server-side apply requires before the API server learned their defaults.

Apply builds a typed object from the configuration before anything is defaulted, and a list
merged by keys (`listType=map`) needs every key of every element. `protocol` is a key of
container ports and of Service ports, and users leave it out (it defaults to TCP). Kubernetes
1.20 declared the default of container ports' `protocol` (structured-merge-diff 4.0.2 fills
key defaults; its message gained "(and doesn't have default value)" then), Kubernetes 1.21 that
of Service ports (kubernetes/kubernetes#98576). Before that the apply fails with 500 and the
error of the first element found, as a real server of the version the cluster claims answers.

Resource quantities are strings to apply's typed objects on a 1.20 server: a number in a
container's or a claim's `requests` or `limits` fails the apply with 500, every such field
listed ("expected string, got &value.valueUnstructured{Value:0.5}"), where an update takes it.
Checked against a real 1.20 server; that 1.21 takes them (`QUANTITIES_UNTYPED`) is assumed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from gitfleet.sim import _errors, _gofmt, _json

CONTAINER_PORTS_DEFAULTED = (1, 20)
SERVICE_PORTS_DEFAULTED = (1, 21)
QUANTITIES_UNTYPED = (1, 21)

_POD_SPECS: dict[tuple[str, str], tuple[str, ...]] = {
    ("v1", "Pod"): ("spec",),
    ("v1", "PodTemplate"): ("template", "spec"),
    ("v1", "ReplicationController"): ("spec", "template", "spec"),
    ("apps/v1", "Deployment"): ("spec", "template", "spec"),
    ("apps/v1", "StatefulSet"): ("spec", "template", "spec"),
    ("apps/v1", "DaemonSet"): ("spec", "template", "spec"),
    ("apps/v1", "ReplicaSet"): ("spec", "template", "spec"),
    ("batch/v1", "Job"): ("spec", "template", "spec"),
    ("batch/v1", "CronJob"): ("spec", "jobTemplate", "spec", "template", "spec"),
    ("batch/v1beta1", "CronJob"): ("spec", "jobTemplate", "spec", "template", "spec"),
}
"""Where each built-in kind that runs pods keeps its pod spec (the agent's native defaults
keep the same table: the simulator imports nothing else of gitfleet)."""

_VERSION = re.compile(r"v?(\d+)\.(\d+)")


def release(kubernetes_version: str) -> tuple[int, int] | None:
    """(major, minor) of a version such as `v1.20.2` (None: not a version, taken as current)."""
    found = _VERSION.match(kubernetes_version)
    return (int(found.group(1)), int(found.group(2))) if found else None


def _containers(obj: _json.Obj) -> Iterator[tuple[str, _json.Obj]]:
    """(path, container) of each init container and container of a kind that runs pods."""
    path = _POD_SPECS.get((obj.get("apiVersion", ""), obj.get("kind", "")))
    spec = _json.dig(obj, *path) if path else None
    if not isinstance(spec, dict):
        return
    where = "." + ".".join(path or ())
    for field in ("initContainers", "containers"):
        for container in spec.get(field) or []:
            if isinstance(container, dict):
                name = container.get("name", "")
                yield f'{where}.{field}[name="{name}"]', container


def _ports(obj: _json.Obj, before: tuple[int, int]) -> Iterator[tuple[str, Any]]:
    """(path, ports) of each keyed list of ports the release `before` cannot default."""
    key = (obj.get("apiVersion", ""), obj.get("kind", ""))
    if key == ("v1", "Service") and before < SERVICE_PORTS_DEFAULTED:
        yield ".spec.ports", _json.dig(obj, "spec", "ports")
    if before < CONTAINER_PORTS_DEFAULTED:
        for at, container in _containers(obj):
            yield f"{at}.ports", container.get("ports")


_INT64 = 2**63


def _go_number(value: float) -> str:
    """A number of an apply configuration as the typed patch's error prints it. The server
    reads the configuration as YAML, turns it into JSON and decodes that, so a number that is
    a whole int64 (`1e6`, `1.0`, `-0.0`) is an int64 there, and any other (`0.5`, `1e20`, an
    integer past int64) the nearest float64, which Go's `%#v` prints as `%v` does."""
    if isinstance(value, int) and -_INT64 <= value < _INT64:
        return str(value)
    number = float(value)
    if number.is_integer() and -_INT64 <= number < _INT64:
        return str(int(number))
    return _gofmt.float64(number)


def _numeric_quantities(obj: _json.Obj) -> Iterator[str]:
    """The typed-patch error of each quantity `obj` writes as a number."""
    holders = [
        (f"{at}.resources", container.get("resources")) for at, container in _containers(obj)
    ]
    if (obj.get("apiVersion", ""), obj.get("kind", "")) == ("v1", "PersistentVolumeClaim"):
        holders.append((".spec.resources", _json.dig(obj, "spec", "resources")))
    for at, resources in holders:
        for part in ("limits", "requests"):
            values = resources.get(part) if isinstance(resources, dict) else None
            for name, value in (values or {}).items() if isinstance(values, dict) else ():
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    yield (
                        f"{at}.{part}.{name}: expected string, got"
                        f" &value.valueUnstructured{{Value:{_go_number(value)}}}"
                    )


def check(config: _json.Obj, kubernetes_version: str) -> None:
    """Refuse an apply configuration as the API server of `kubernetes_version` does."""
    found = release(kubernetes_version)
    if found is None:
        return
    suffix = " (and doesn't have default value)" if found >= CONTAINER_PORTS_DEFAULTED else ""
    for path, ports in _ports(config, found):
        for index, port in enumerate(ports if isinstance(ports, list) else []):
            if isinstance(port, dict) and port.get("protocol") is None:
                raise _errors.ApiError(
                    500,
                    f"failed to create typed patch object: {path}: element {index}: associative"
                    f' list with keys has an element that omits key field "protocol"{suffix}',
                    reason="",
                )
    numbers = list(_numeric_quantities(config)) if found < QUANTITIES_UNTYPED else []
    if numbers:
        listed = numbers[0] if len(numbers) == 1 else "errors:\n  " + "\n  ".join(numbers)
        raise _errors.ApiError(500, f"failed to create typed patch object: {listed}", reason="")
