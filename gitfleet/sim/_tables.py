"""Server-side printing: the meta.k8s.io Table `kubectl get` asks for (`Accept:
application/json;as=Table;v=v1;g=meta.k8s.io`), with the columns a real API server gives.

Namespaces, nodes, deployments, pods, configmaps, services, secrets, horizontal pod
autoscalers, storage and ingress classes, endpoints, resource quotas and others have their own
printers (columns and cells as kube-apiserver's `pkg/printers/internalversion/printers.go`
makes them, for the release the server claims where they changed; priority 1 columns are those
`-o wide` adds). Custom resources get their CRD's `additionalPrinterColumns` (JSONPath: fields,
list indexes and `[?(@.field=="value")]` filters), or Age when it has none, as
apiextensions-apiserver's table convertor does. Every other kind gets the default Name and
Created At.

Rows carry the object's metadata as PartialObjectMetadata (`?includeObject=Metadata`, the
default), the whole object (`Object`) or nothing (`None`).
"""

from __future__ import annotations

import dataclasses
import datetime
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from gitfleet.sim import _gojson, _json, _resources, _selectors

TABLE_VERSIONS = ("v1", "v1beta1")
META_GROUP = "meta.k8s.io"
NONE = "<none>"
UNKNOWN = "<unknown>"
_ROLE_PREFIX = "node-role.kubernetes.io/"
_ROLE_LABEL = "kubernetes.io/role"


@dataclasses.dataclass(frozen=True, slots=True)
class Column:
    name: str
    type: str
    description: str
    priority: int = 0
    format: str = ""

    def definition(self) -> _json.Obj:
        return {
            "name": self.name,
            "type": self.type,
            "format": self.format,
            "description": self.description,
            "priority": self.priority,
        }


Cells = Callable[[_json.Obj, datetime.datetime], list[Any]]

NAME = Column("Name", "string", "The name of the object, unique within its namespace.", 0, "name")
AGE = Column("Age", "string", "How long ago the object was created.")
CONTAINERS = Column("Containers", "string", "Names of each container in the template.", 1)
IMAGES = Column("Images", "string", "Images referenced by each container in the template.", 1)
TEMPLATE_COLUMNS = (
    CONTAINERS,
    IMAGES,
    Column("Selector", "string", "Label selector of the pods.", 1),
)
"""The wide columns of a workload, from its pod template (`_template_cells`)."""


def requested_version(accept: str) -> str | None:
    """The meta.k8s.io version of Table an Accept header asks for first, or None if it
    prefers the object itself (media ranges are taken in the order given)."""
    for media_range in accept.split(","):
        kind, *parameters = (part.strip() for part in media_range.split(";"))
        if kind not in ("application/json", "*/*", "application/*"):
            continue
        options = dict(p.partition("=")[::2] for p in parameters)
        if options.get("as") != "Table":
            return None
        if options.get("g") == META_GROUP and options.get("v") in TABLE_VERSIONS:
            return options["v"]
    return None


def human_duration(seconds: float) -> str:
    """A duration as kubectl shows ages (apimachinery's `duration.HumanDuration`)."""
    whole = int(seconds)
    if whole < -1:
        return "<invalid>"
    if whole < 0:
        return "0s"
    if whole < 120:
        return f"{whole}s"
    minutes, hours, days = whole // 60, whole // 3600, whole // 86400
    if minutes < 10:
        rest = whole % 60
        return f"{minutes}m{rest}s" if rest else f"{minutes}m"
    if minutes < 180:
        return f"{minutes}m"
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h{rest}m" if rest else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        rest = hours % 24
        return f"{days}d{rest}h" if rest else f"{days}d"
    if hours < 24 * 365 * 2:
        return f"{days}d"
    years, rest = days // 365, days % 365
    if hours < 24 * 365 * 8:
        return f"{years}y{rest}d" if rest else f"{years}y"
    return f"{years}y"


def _timestamp(text: Any) -> datetime.datetime | None:
    try:
        return datetime.datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return None


def _age(text: Any, now: datetime.datetime) -> str:
    created = _timestamp(text) if text else None
    return UNKNOWN if created is None else human_duration((now - created).total_seconds())


def _created(obj: _json.Obj, now: datetime.datetime) -> str:
    return _age(_json.dig(obj, "metadata", "creationTimestamp"), now)


def _template_cells(spec: _json.Obj) -> list[Any]:
    containers = _json.dig(spec, "template", "spec", "containers") or []
    selector = spec.get("selector")
    return [
        ",".join(str(c.get("name", "")) for c in containers),
        ",".join(str(c.get("image", "")) for c in containers),
        _selectors.format_selector(selector) if selector else NONE,
    ]


# ---- the printers of kube-apiserver ----------------------------------------------------


def _namespace(obj: _json.Obj, now: datetime.datetime) -> list[Any]:
    return [_json.dig(obj, "status", "phase") or "", _created(obj, now)]


def _node(obj: _json.Obj, now: datetime.datetime) -> list[Any]:
    conditions = _json.dig(obj, "status", "conditions") or []
    ready = [c for c in conditions if c.get("type") == "Ready"]
    status = ["Ready" if ready[0].get("status") == "True" else "NotReady"] if ready else ["Unknown"]
    if _json.dig(obj, "spec", "unschedulable"):
        status.append("SchedulingDisabled")
    labels = _json.dig(obj, "metadata", "labels") or {}
    roles = {key.removeprefix(_ROLE_PREFIX) for key in labels if key.startswith(_ROLE_PREFIX)}
    roles.add(labels.get(_ROLE_LABEL) or "")
    roles.discard("")
    info = _json.dig(obj, "status", "nodeInfo") or {}
    addresses = _json.dig(obj, "status", "addresses") or []

    def address(kind: str) -> str:
        return next((a.get("address", "") for a in addresses if a.get("type") == kind), NONE)

    return [
        ",".join(status),
        ",".join(sorted(roles)) or NONE,
        _created(obj, now),
        info.get("kubeletVersion", ""),
        address("InternalIP"),
        address("ExternalIP"),
        info.get("osImage") or UNKNOWN,
        info.get("kernelVersion") or UNKNOWN,
        info.get("containerRuntimeVersion") or UNKNOWN,
    ]


def _deployment(obj: _json.Obj, now: datetime.datetime) -> list[Any]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    return [
        f"{int(status.get('readyReplicas') or 0)}/{int(spec.get('replicas') or 0)}",
        int(status.get("updatedReplicas") or 0),
        int(status.get("availableReplicas") or 0),
        _created(obj, now),
        *_template_cells(spec),
    ]


def _replicaset(obj: _json.Obj, now: datetime.datetime) -> list[Any]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    return [
        int(spec.get("replicas") or 0),
        int(status.get("replicas") or 0),
        int(status.get("readyReplicas") or 0),
        _created(obj, now),
        *_template_cells(spec),
    ]


def _statefulset(obj: _json.Obj, now: datetime.datetime) -> list[Any]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    ready = f"{int(status.get('readyReplicas') or 0)}/{int(spec.get('replicas') or 0)}"
    return [ready, _created(obj, now), *_template_cells(spec)[:2]]


def _daemonset(obj: _json.Obj, now: datetime.datetime) -> list[Any]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    chosen = _json.dig(spec, "template", "spec", "nodeSelector") or {}
    return [
        int(status.get("desiredNumberScheduled") or 0),
        int(status.get("currentNumberScheduled") or 0),
        int(status.get("numberReady") or 0),
        int(status.get("updatedNumberScheduled") or 0),
        int(status.get("numberAvailable") or 0),
        ",".join(f"{k}={v}" for k, v in sorted(chosen.items())) or NONE,
        _created(obj, now),
        *_template_cells(spec),
    ]


def _job(obj: _json.Obj, now: datetime.datetime) -> list[Any]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    completions = spec.get("completions")
    succeeded = int(status.get("succeeded") or 0)
    shown = (
        f"{succeeded}/{completions}"
        if completions is not None
        else f"{succeeded}/1 of " + (str(spec.get("parallelism") or 1))
    )
    started = _timestamp(status.get("startTime"))
    finished = _timestamp(status.get("completionTime")) or now
    duration = human_duration((finished - started).total_seconds()) if started else ""
    return [shown, duration, _created(obj, now), *_template_cells(spec)]


def _cronjob(obj: _json.Obj, now: datetime.datetime) -> list[Any]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    last = _timestamp(status.get("lastScheduleTime"))
    jobs = _json.dig(spec, "jobTemplate", "spec") or {}
    return [
        spec.get("schedule") or "",
        spec.get("timeZone") or NONE,
        "True" if spec.get("suspend") else "False",
        len(status.get("active") or []),
        human_duration((now - last).total_seconds()) if last else NONE,
        _created(obj, now),
        *_template_cells(jobs),
    ]


def _pod(obj: _json.Obj, now: datetime.datetime) -> list[Any]:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    reason = status.get("reason") or status.get("phase") or ""
    ready = restarts = 0
    running = False
    for container in reversed(status.get("containerStatuses") or []):
        restarts += int(container.get("restartCount") or 0)
        state = container.get("state") or {}
        waiting, terminated = state.get("waiting"), state.get("terminated")
        if waiting and waiting.get("reason"):
            reason = waiting["reason"]
        elif terminated and terminated.get("reason"):
            reason = terminated["reason"]
        elif terminated:
            signal = terminated.get("signal")
            reason = f"Signal:{signal}" if signal else f"ExitCode:{terminated.get('exitCode', 0)}"
        elif container.get("ready") and "running" in state:
            running = True
            ready += 1
    if reason == "Completed" and running:
        conditions = status.get("conditions") or []
        pod_ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)
        reason = "Running" if pod_ready else "NotReady"
    if _json.dig(obj, "metadata", "deletionTimestamp"):
        reason = "Unknown" if status.get("reason") == "NodeLost" else "Terminating"
    gates = spec.get("readinessGates") or []
    conditions = {c.get("type"): c.get("status") for c in status.get("conditions") or []}
    passed = sum(1 for g in gates if conditions.get(g.get("conditionType")) == "True")
    return [
        f"{ready}/{len(spec.get('containers') or [])}",
        reason,
        str(restarts),
        _created(obj, now),
        status.get("podIP") or NONE,
        spec.get("nodeName") or NONE,
        status.get("nominatedNodeName") or NONE,
        f"{passed}/{len(gates)}" if gates else NONE,
    ]


def _config_map(obj: _json.Obj, now: datetime.datetime) -> list[Any]:
    count = len(obj.get("data") or {}) + len(obj.get("binaryData") or {})
    return [count, _created(obj, now)]


def _service(obj: _json.Obj, now: datetime.datetime) -> list[Any]:
    spec = obj.get("spec") or {}
    kind = spec.get("type") or "ClusterIP"
    external = [str(ip) for ip in spec.get("externalIPs") or []]
    if kind == "LoadBalancer":
        ingress = _json.dig(obj, "status", "loadBalancer", "ingress") or []
        external += [str(i.get("ip") or i.get("hostname") or "") for i in ingress]
        shown_external = ",".join(external) or "<pending>"
    elif kind == "ExternalName":
        shown_external = str(spec.get("externalName") or NONE)
    else:
        shown_external = ",".join(external) or NONE
    ports = [
        f"{p.get('port')}:{p['nodePort']}/{p.get('protocol', 'TCP')}"
        if p.get("nodePort")
        else f"{p.get('port')}/{p.get('protocol', 'TCP')}"
        for p in spec.get("ports") or []
    ]
    selector = spec.get("selector") or {}
    return [
        kind,
        spec.get("clusterIP") or NONE,
        shown_external,
        ",".join(ports) or NONE,
        _created(obj, now),
        ",".join(f"{k}={v}" for k, v in sorted(selector.items())) or NONE,
    ]


def _secret(obj: _json.Obj, now: datetime.datetime) -> list[Any]:
    count = len(obj.get("data") or {}) + len(obj.get("stringData") or {})
    return [obj.get("type") or "Opaque", count, _created(obj, now)]


def _component_status(obj: _json.Obj, now: datetime.datetime) -> list[Any]:
    healthy = next((c for c in obj.get("conditions") or [] if c.get("type") == "Healthy"), None)
    if healthy is None:
        return [UNKNOWN, "", ""]
    status = "Healthy" if healthy.get("status") == "True" else "Unhealthy"
    return [status, healthy.get("message") or "", healthy.get("error") or ""]


def _lease(obj: _json.Obj, now: datetime.datetime) -> list[Any]:
    return [_json.dig(obj, "spec", "holderIdentity") or "", _created(obj, now)]


def _ingress(obj: _json.Obj, now: datetime.datetime) -> list[Any]:
    spec = obj.get("spec") or {}
    rules = spec.get("rules") or []
    hosts = [str(rule["host"]) for rule in rules[:_SHOWN_HOSTS] if rule.get("host")]
    shown = ",".join(hosts) or "*"
    if hosts and len(rules) > _SHOWN_HOSTS:
        shown += f" + {len(rules) - _SHOWN_HOSTS} more..."
    balancers = _json.dig(obj, "status", "loadBalancer", "ingress") or []
    addresses = sorted(
        {
            str(b.get("ip") or b.get("hostname"))
            for b in balancers
            if b.get("ip") or b.get("hostname")
        }
    )
    return [
        spec.get("ingressClassName") or NONE,
        shown,
        ",".join(addresses),
        "80, 443" if spec.get("tls") else "80",
        _created(obj, now),
    ]


def _service_account(obj: _json.Obj, now: datetime.datetime) -> list[Any]:
    return [len(obj.get("secrets") or []), _created(obj, now)]


def _network_policy(obj: _json.Obj, now: datetime.datetime) -> list[Any]:
    selector = _selectors.format_selector(_json.dig(obj, "spec", "podSelector"))
    return [selector or NONE, _created(obj, now)]


def _binding(obj: _json.Obj, now: datetime.datetime) -> list[Any]:
    """A RoleBinding or ClusterRoleBinding: its role, and (wide) its subjects by kind, as
    rbac's SubjectsStrings lists them (service accounts as namespace/name)."""
    role = obj.get("roleRef") or {}
    subjects = obj.get("subjects") or []

    def named(kind: str) -> str:
        return ", ".join(
            f"{s.get('namespace', '')}/{s.get('name', '')}"
            if kind == "ServiceAccount"
            else str(s.get("name", ""))
            for s in subjects
            if s.get("kind") == kind
        )

    return [
        f"{role.get('kind', '')}/{role.get('name', '')}",
        _created(obj, now),
        named("User"),
        named("Group"),
        named("ServiceAccount"),
    ]


def _disruption_budget(obj: _json.Obj, now: datetime.datetime) -> list[Any]:
    spec = obj.get("spec") or {}
    minimum, maximum = spec.get("minAvailable"), spec.get("maxUnavailable")
    return [
        "N/A" if minimum is None else str(minimum),
        "N/A" if maximum is None else str(maximum),
        int(_json.dig(obj, "status", "disruptionsAllowed") or 0),
        _created(obj, now),
    ]


_DEFAULT_CLASS_ANNOTATIONS = (
    "storageclass.kubernetes.io/is-default-class",
    "storageclass.beta.kubernetes.io/is-default-class",
)


def _storage_class_name(obj: _json.Obj) -> str:
    """A StorageClass's name, marked ` (default)` when an annotation makes it the default."""
    annotations = _json.dig(obj, "metadata", "annotations") or {}
    default = any(annotations.get(key) == "true" for key in _DEFAULT_CLASS_ANNOTATIONS)
    return str(obj["metadata"]["name"]) + (" (default)" if default else "")


def _storage_class(obj: _json.Obj, now: datetime.datetime) -> list[Any]:
    """printStorageClass: the policies as the server defaults them where they are unset."""
    expansion = obj.get("allowVolumeExpansion")
    return [
        obj.get("provisioner") or "",
        obj.get("reclaimPolicy") or "Delete",
        obj.get("volumeBindingMode") or "Immediate",
        bool(expansion) if expansion is not None else False,
        _created(obj, now),
    ]


def _ingress_class(obj: _json.Obj, now: datetime.datetime) -> list[Any]:
    """printIngressClass: the parameters as Kind[.apiGroup]/name, or <none>."""
    spec = obj.get("spec") or {}
    parameters = spec.get("parameters")
    shown = NONE
    if parameters is not None:
        shown = str(parameters.get("kind") or "")
        if parameters.get("apiGroup") is not None:
            shown += "." + str(parameters["apiGroup"])
        shown += "/" + str(parameters.get("name") or "")
    return [spec.get("controller") or "", shown, _created(obj, now)]


_SHOWN_ENDPOINTS = 3


def _host_port(ip: str, port: Any) -> str:
    """Go's net.JoinHostPort: an IPv6 address in brackets."""
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"


def _endpoints(obj: _json.Obj, now: datetime.datetime) -> list[Any]:
    """printEndpoints (formatEndpoints): each ready address at each port of its subset (the
    addresses alone where a subset has no ports), three at most and `+ N more...`."""
    subsets = obj.get("subsets") or []
    if not subsets:
        return [NONE, _created(obj, now)]
    shown: list[str] = []
    count = 0
    for subset in subsets:
        addresses = [str(a.get("ip", "")) for a in subset.get("addresses") or []]
        ports = subset.get("ports") or []
        every = (
            addresses
            if not ports
            else [_host_port(ip, p.get("port", 0)) for p in ports for ip in addresses]
        )
        count += len(every)
        shown += every[: max(0, _SHOWN_ENDPOINTS - len(shown))]
    text = ",".join(shown)
    if count > _SHOWN_ENDPOINTS:
        text += f" + {count - _SHOWN_ENDPOINTS} more..."
    return [text, _created(obj, now)]


def _at_most_three(shown: list[str]) -> str:
    """listWithMoreString: three at most, then `+ N more...`; `<unset>` for none."""
    text = ",".join(shown[:_SHOWN_ENDPOINTS])
    if len(shown) > _SHOWN_ENDPOINTS:
        return f"{text} + {len(shown) - _SHOWN_ENDPOINTS} more..."
    return text or "<unset>"


def _slice_port(port: _json.Obj) -> str:
    if port.get("port") is not None:
        return str(port["port"])
    name = port.get("name")
    return "*" if name is None else str(name)


def _endpoint_slice(obj: _json.Obj, now: datetime.datetime) -> list[Any]:
    """printEndpointSlice: its address type, its ports (a port without a number by its name,
    empty or not, else `*`) and its endpoints' addresses."""
    ports = [_slice_port(port) for port in obj.get("ports") or []]
    addresses = [
        str(address)
        for endpoint in obj.get("endpoints") or []
        for address in endpoint.get("addresses") or []
    ]
    return [
        obj.get("addressType", ""),
        _at_most_three(ports),
        _at_most_three(addresses),
        _created(obj, now),
    ]


def _resource_quota(obj: _json.Obj, now: datetime.datetime) -> list[Any]:
    """printResourceQuota: `resource: used/hard` for each resource of status.hard, by name,
    those named `limits.*` in Limit and the others in Request."""
    hard = _json.dig(obj, "status", "hard") or {}
    used = _json.dig(obj, "status", "used") or {}
    request: list[str] = []
    limit: list[str] = []
    for resource in sorted(hard):
        pieces = resource.split(".")
        shown = limit if len(pieces) > 1 and pieces[0] == "limits" else request
        shown.append(f"{resource}: {used.get(resource, '0')}/{hard[resource]}")
    return [_created(obj, now), ", ".join(request), ", ".join(limit)]


_ACCESS_MODES = (
    ("ReadWriteOnce", "RWO"),
    ("ReadOnlyMany", "ROX"),
    ("ReadWriteMany", "RWX"),
    ("ReadWriteOncePod", "RWOP"),
)
VOLUME_ATTRIBUTES_CLASSES = (1, 29)
"""From this release claims print a VolumeAttributesClass column, before their age."""


def _claim_printer(attributes: bool) -> tuple[tuple[Column, ...], Cells]:
    def cells(obj: _json.Obj, now: datetime.datetime) -> list[Any]:
        spec, status = obj.get("spec") or {}, obj.get("status") or {}
        phase = (
            "Terminating"
            if _json.dig(obj, "metadata", "deletionTimestamp")
            else status.get("phase", "")
        )
        modes = capacity = ""
        if spec.get("volumeName"):
            held = status.get("accessModes") or []
            modes = ",".join(short for mode, short in _ACCESS_MODES if mode in held)
            capacity = str((status.get("capacity") or {}).get("storage", ""))
        annotation = _json.dig(
            obj, "metadata", "annotations", "volume.beta.kubernetes.io/storage-class"
        )
        shown = [
            phase,
            spec.get("volumeName", ""),
            capacity,
            modes,
            annotation or spec.get("storageClassName") or "",
        ]
        if attributes:
            shown.append(spec.get("volumeAttributesClassName") or "<unset>")
        return [*shown, _created(obj, now), spec.get("volumeMode") or "<unset>"]

    columns = (
        Column("Status", "string", "The phase of the claim."),
        Column("Volume", "string", "The volume the claim is bound to."),
        Column("Capacity", "string", "The storage of the bound volume."),
        Column("Access Modes", "string", "The access modes of the bound volume."),
        Column("StorageClass", "string", "StorageClass of the pvc"),
        *(
            (Column("VolumeAttributesClass", "string", "VolumeAttributesClass of the pvc"),)
            if attributes
            else ()
        ),
        AGE,
        Column("VolumeMode", "string", "Whether the volume is a filesystem or a block device.", 1),
    )
    return columns, cells


_HPA = ("autoscaling", "horizontalpodautoscalers")
_SHOWN_HOSTS = 3
NAMED_HPA_TARGETS = (1, 30)
"""From this release a Resource metric in the Targets column carries its name (`cpu: 50%/80%`,
kubernetes PR 122804); before, the values alone (`50%/80%`)."""
_HPA_COLUMNS = (
    Column("Reference", "string", "The resource the autoscaler scales."),
    Column("Targets", "string", "The current and target value of each metric."),
    Column("MinPods", "string", "The lower limit of replicas."),
    Column("MaxPods", "string", "The upper limit of replicas."),
    Column("Replicas", "string", "The current number of replicas."),
    AGE,
)
_SHOWN_METRICS = 2


def _average_or_value(target: _json.Obj, current: _json.Obj | None) -> str:
    """An Object or External metric: its average value (marked so) or its value."""
    if target.get("averageValue") is not None:
        now = (current or {}).get("averageValue") or UNKNOWN
        return f"{now}/{target['averageValue']} (avg)"
    now = (current or {}).get("value") if current is not None else None
    return f"{now or UNKNOWN}/{target.get('value')}"


def _resource_target(source: _json.Obj, current: _json.Obj | None, named: bool) -> str:
    """A Resource or ContainerResource metric: average value, or utilization in percent."""
    target = source.get("target") or {}
    if target.get("averageValue") is not None:
        value = f"{(current or {}).get('averageValue') or UNKNOWN}/{target['averageValue']}"
    else:
        utilization = (current or {}).get("averageUtilization")
        now = UNKNOWN if utilization is None else f"{utilization}%"
        wanted = target.get("averageUtilization")
        value = f"{now}/{'<auto>' if wanted is None else f'{wanted}%'}"
    return f"{source.get('name')}: {value}" if named else value


def _hpa_targets(obj: _json.Obj, named: bool) -> str:
    """The Targets column: each metric's current value over its target (printers.go's
    formatHPAMetrics), the current one read at the same index of status.currentMetrics."""
    specs = _json.dig(obj, "spec", "metrics") or []
    statuses = _json.dig(obj, "status", "currentMetrics") or []
    if not specs:
        return NONE
    shown = []
    for index, spec in enumerate(specs):
        kind = spec.get("type", "")
        field = kind[:1].lower() + kind[1:]
        source = spec.get(field) or {}
        status = statuses[index] if index < len(statuses) else {}
        current = (status.get(field) or {}).get("current") if status.get(field) else None
        if kind in ("Resource", "ContainerResource"):
            shown.append(_resource_target(source, current, named))
        elif kind == "Pods":
            average = (source.get("target") or {}).get("averageValue")
            shown.append(f"{(current or {}).get('averageValue') or UNKNOWN}/{average}")
        elif kind in ("Object", "External"):
            shown.append(_average_or_value(source.get("target") or {}, current))
        else:
            shown.append("<unknown type>")
    text = ", ".join(shown[:_SHOWN_METRICS])
    if len(shown) > _SHOWN_METRICS:
        return f"{text} + {len(shown) - _SHOWN_METRICS} more..."
    return text


def _hpa_printer(named: bool) -> Cells:
    def cells(obj: _json.Obj, now: datetime.datetime) -> list[Any]:
        spec = obj.get("spec") or {}
        reference = spec.get("scaleTargetRef") or {}
        minimum = spec.get("minReplicas")
        return [
            f"{reference.get('kind', '')}/{reference.get('name', '')}",
            _hpa_targets(obj, named),
            "<unset>" if minimum is None else str(minimum),
            int(spec.get("maxReplicas") or 0),
            int(_json.dig(obj, "status", "currentReplicas") or 0),
            _created(obj, now),
        ]

    return cells


PRINTERS: dict[tuple[str, str], tuple[tuple[Column, ...], Cells]] = {
    ("", "componentstatuses"): (
        (
            Column("Status", "string", "Status of the component conditions"),
            Column("Message", "string", "Message of the component conditions"),
            Column("Error", "string", "Error of the component conditions"),
        ),
        _component_status,
    ),
    ("coordination.k8s.io", "leases"): (
        (Column("Holder", "string", "Name of the Lease holder"), AGE),
        _lease,
    ),
    ("", "namespaces"): (
        (Column("Status", "string", "The phase of the namespace."), AGE),
        _namespace,
    ),
    ("", "nodes"): (
        (
            Column("Status", "string", "The status of the node."),
            Column("Roles", "string", "The roles of the node."),
            AGE,
            Column("Version", "string", "The kubelet version the node reports."),
            Column("Internal-IP", "string", "The node's internal address.", 1),
            Column("External-IP", "string", "The node's external address.", 1),
            Column("OS-Image", "string", "The operating system image the node reports.", 1),
            Column("Kernel-Version", "string", "The kernel version the node reports.", 1),
            Column("Container-Runtime", "string", "The container runtime and its version.", 1),
        ),
        _node,
    ),
    ("apps", "deployments"): (
        (
            Column("Ready", "string", "Number of the pod with ready state."),
            Column("Up-to-date", "string", "Total number of pods with the newest template."),
            Column("Available", "string", "Total number of available pods."),
            AGE,
            *TEMPLATE_COLUMNS,
        ),
        _deployment,
    ),
    ("apps", "replicasets"): (
        (
            Column("Desired", "integer", "Number of desired pods."),
            Column("Current", "integer", "Number of actual replicas."),
            Column("Ready", "integer", "Number of ready replicas."),
            AGE,
            *TEMPLATE_COLUMNS,
        ),
        _replicaset,
    ),
    ("apps", "statefulsets"): (
        (
            Column("Ready", "string", "Number of the pod with ready state."),
            AGE,
            CONTAINERS,
            IMAGES,
        ),
        _statefulset,
    ),
    ("apps", "daemonsets"): (
        (
            Column("Desired", "integer", "The desired number of daemon pods."),
            Column("Current", "integer", "The current number of daemon pods."),
            Column("Ready", "integer", "The ready number of daemon pods."),
            Column("Up-to-date", "integer", "The updated number of daemon pods."),
            Column("Available", "integer", "The available number of daemon pods."),
            Column("Node Selector", "string", "The nodes the daemon pods may run on."),
            AGE,
            *TEMPLATE_COLUMNS,
        ),
        _daemonset,
    ),
    ("batch", "jobs"): (
        (
            Column("Completions", "string", "The completed pods of the job's wanted ones."),
            Column("Duration", "string", "Time the job took, or has taken so far."),
            AGE,
            *TEMPLATE_COLUMNS,
        ),
        _job,
    ),
    ("batch", "cronjobs"): (
        (
            Column("Schedule", "string", "The schedule in Cron format."),
            Column("Timezone", "string", "The time zone of the schedule."),
            Column("Suspend", "boolean", "Whether the cron job is suspended."),
            Column("Active", "integer", "Number of jobs running."),
            Column("Last Schedule", "string", "When a job was last scheduled."),
            AGE,
            *TEMPLATE_COLUMNS,
        ),
        _cronjob,
    ),
    ("", "pods"): (
        (
            Column("Ready", "string", "The aggregate readiness state of this pod."),
            Column("Status", "string", "The aggregate status of the containers in this pod."),
            Column("Restarts", "string", "The number of times the containers were restarted."),
            AGE,
            Column("IP", "string", "The address of the pod.", 1),
            Column("Node", "string", "The node the pod is scheduled to.", 1),
            Column("Nominated Node", "string", "The node the scheduler nominated.", 1),
            Column("Readiness Gates", "string", "The pod's readiness gates that pass.", 1),
        ),
        _pod,
    ),
    ("", "services"): (
        (
            Column("Type", "string", "How the service is exposed."),
            Column("Cluster-IP", "string", "The address of the service inside the cluster."),
            Column("External-IP", "string", "Addresses the service is reachable at outside."),
            Column("Port(s)", "string", "The ports the service exposes."),
            AGE,
            Column("Selector", "string", "The labels of the pods the service sends to.", 1),
        ),
        _service,
    ),
    ("", "secrets"): (
        (
            Column("Type", "string", "The type of the secret's data."),
            Column("Data", "string", "Number of entries in data."),
            AGE,
        ),
        _secret,
    ),
    ("", "configmaps"): (
        (Column("Data", "string", "Number of entries in data and binaryData."), AGE),
        _config_map,
    ),
    ("", "serviceaccounts"): (
        (Column("Secrets", "string", "Secrets the service account may use."), AGE),
        _service_account,
    ),
    ("networking.k8s.io", "ingresses"): (
        (
            Column("Class", "string", "The IngressClass that should handle the ingress."),
            Column("Hosts", "string", "The hosts the rules match."),
            Column("Address", "string", "The addresses of the load balancer."),
            Column("Ports", "string", "The ports the ingress opens."),
            AGE,
        ),
        _ingress,
    ),
    ("networking.k8s.io", "networkpolicies"): (
        (Column("Pod-Selector", "string", "The pods the policy applies to."), AGE),
        _network_policy,
    ),
    ("policy", "poddisruptionbudgets"): (
        (
            Column("Min Available", "string", "The minimum number of pods that must be available."),
            Column(
                "Max Unavailable", "string", "The maximum number of pods that may be unavailable."
            ),
            Column(
                "Allowed Disruptions",
                "integer",
                "Calculated number of pods that may be disrupted at this time.",
            ),
            AGE,
        ),
        _disruption_budget,
    ),
    ("", "endpoints"): (
        (
            Column(
                "Endpoints",
                "string",
                "The set of all endpoints is the union of all subsets. Addresses are placed into"
                " subsets according to the IPs they share. A single address with multiple ports,"
                " some of which are ready and some of which are not (because they come from"
                " different containers) will result in the address being displayed in different"
                " subsets for the different ports. No address will appear in both Addresses and"
                " NotReadyAddresses in the same subset. Sets of addresses and ports that comprise"
                " a service.",
            ),
            AGE,
        ),
        _endpoints,
    ),
    ("discovery.k8s.io", "endpointslices"): (
        (
            Column(
                "AddressType",
                "string",
                "addressType specifies the type of address carried by this EndpointSlice. All"
                " addresses in this slice must be the same type. This field is immutable after"
                " creation. The following address types are currently supported: * IPv4:"
                " Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN:"
                " Represents a Fully Qualified Domain Name.",
            ),
            Column(
                "Ports",
                "string",
                "ports specifies the list of network ports exposed by each endpoint in this"
                " slice. Each port must have a unique name. When ports is empty, it indicates"
                " that there are no defined ports. When a port is defined with a nil port value,"
                ' it indicates "all ports". Each slice may include a maximum of 100 ports.',
            ),
            Column(
                "Endpoints",
                "string",
                "endpoints is a list of unique endpoints in this slice. Each slice may include"
                " a maximum of 1000 endpoints.",
            ),
            AGE,
        ),
        _endpoint_slice,
    ),
    ("", "resourcequotas"): (
        (
            AGE,
            Column(
                "Request",
                "string",
                "Request represents a minimum amount of cpu/memory that a container may consume.",
            ),
            Column(
                "Limit",
                "string",
                "Limits control the maximum amount of cpu/memory that a container may use"
                " independent of contention on the node.",
            ),
        ),
        _resource_quota,
    ),
    ("storage.k8s.io", "storageclasses"): (
        (
            Column("Provisioner", "string", "Provisioner indicates the type of the provisioner."),
            Column(
                "ReclaimPolicy",
                "string",
                "Dynamically provisioned PersistentVolumes of this storage class are created"
                " with this reclaimPolicy. Defaults to Delete.",
            ),
            Column(
                "VolumeBindingMode",
                "string",
                "VolumeBindingMode indicates how PersistentVolumeClaims should be provisioned"
                " and bound.  When unset, VolumeBindingImmediate is used. This field is only"
                " honored by servers that enable the VolumeScheduling feature.",
            ),
            Column(
                "AllowVolumeExpansion",
                "string",
                "AllowVolumeExpansion shows whether the storage class allow volume expand",
            ),
            AGE,
        ),
        _storage_class,
    ),
    ("networking.k8s.io", "ingressclasses"): (
        (
            Column(
                "Controller", "string", "Controller that is responsible for handling this class"
            ),
            Column("Parameters", "string", "A reference to a resource with additional parameters"),
            AGE,
        ),
        _ingress_class,
    ),
    **{
        ("rbac.authorization.k8s.io", plural): (
            (
                Column("Role", "string", "The role the binding grants."),
                AGE,
                Column("Users", "string", "Users in the binding.", 1),
                Column("Groups", "string", "Groups in the binding.", 1),
                Column("ServiceAccounts", "string", "ServiceAccounts in the binding.", 1),
            ),
            _binding,
        )
        for plural in ("rolebindings", "clusterrolebindings")
    },
}


def _name(obj: _json.Obj) -> str:
    return str(obj["metadata"]["name"])


_NAMES: dict[tuple[str, str], Callable[[_json.Obj], str]] = {
    ("storage.k8s.io", "storageclasses"): _storage_class_name,
}
"""The Name cell of kinds whose printer shows more than the name."""


def _creation_time(obj: _json.Obj, now: datetime.datetime) -> list[Any]:
    return [_json.dig(obj, "metadata", "creationTimestamp") or ""]


_DEFAULT = ((Column("Created At", "date", "When the object was created."),), _creation_time)


# ---- custom resources: additionalPrinterColumns ----------------------------------------

_STEP = re.compile(r'\.([^.\[]+)|\[(\d+)\]|\[\?\(@\.([^=!]+?)\s*==\s*["\']?([^"\')]*)["\']?\)\]')


def _find(obj: Any, path: str) -> Any:
    """The first value a simple JSONPath (`.a.b`, `.a[0]`, `.a[?(@.k=="v")].b`) reaches, or
    None where it reaches nothing."""
    values = [obj]
    position = 0
    path = path.strip().removeprefix("{").removesuffix("}").removeprefix("$")
    while position < len(path):
        step = _STEP.match(path, position)
        if step is None:
            return None
        field, index, key, wanted = step.groups()
        position = step.end()
        found: list[Any] = []
        for value in values:
            if field is not None and isinstance(value, dict) and field in value:
                found.append(value[field])
            elif index is not None and isinstance(value, list) and int(index) < len(value):
                found.append(value[int(index)])
            elif key is not None and isinstance(value, list):
                found.extend(
                    item
                    for item in value
                    if isinstance(item, dict) and str(item.get(key.strip())) == wanted
                )
        values = found
    return values[0] if values else None


def _custom_cell(kind: str, value: Any, now: datetime.datetime) -> Any:
    """A cell of a CRD column: the value, as the column's type shows it (None if it is not
    of that type), as apiextensions-apiserver's `cellForJSONValue` does."""
    if value is None:
        return None
    if kind == "string":
        return value if isinstance(value, str) else _gojson.dumps(value)
    if kind == "integer" and isinstance(value, int | float) and not isinstance(value, bool):
        return int(value)
    if kind == "number" and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if kind == "boolean" and isinstance(value, bool):
        return value
    if kind == "date" and isinstance(value, str):
        return "<invalid>" if _timestamp(value) is None else _age(value, now)
    return None


def _custom_printer(
    resource: _resources.ResourceType, version: str
) -> tuple[tuple[Column, ...], Cells]:
    definitions: Sequence[_json.Obj] = dict(resource.printer_columns).get(version) or (
        {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
    )
    columns = tuple(
        Column(
            str(d.get("name", "")),
            str(d.get("type", "string")),
            str(
                d.get("description")
                or f"Custom resource definition column (in JSONPath format): {d.get('jsonPath')}"
            ),
            int(d.get("priority") or 0),
            str(d.get("format", "")),
        )
        for d in definitions
    )

    def cells(obj: _json.Obj, now: datetime.datetime) -> list[Any]:
        return [
            _custom_cell(column.type, _find(obj, str(d.get("jsonPath", ""))), now)
            for column, d in zip(columns, definitions, strict=True)
        ]

    return columns, cells


# ---- the table ---------------------------------------------------------------------------


def table(
    resource: _resources.ResourceType,
    version: str,
    objects: Iterable[_json.Obj],
    *,
    table_version: str,
    now: datetime.datetime,
    list_metadata: _json.Obj,
    include: str,
    present: Callable[[_json.Obj], _json.Obj],
    release: tuple[int, int] | None = None,
) -> _json.Obj:
    """`objects` as a Table, as the server of `release` prints them (None: the newest).
    `present` shows an object as the client asked for it (`?includeObject=Object`)."""
    if not resource.builtin:
        columns, cells = _custom_printer(resource, version)
    elif (resource.group, resource.plural) == _HPA:
        columns = _HPA_COLUMNS
        cells = _hpa_printer(release is None or release >= NAMED_HPA_TARGETS)
    elif (resource.group, resource.plural) == ("", "persistentvolumeclaims"):
        columns, cells = _claim_printer(release is None or release >= VOLUME_ATTRIBUTES_CLASSES)
    else:
        columns, cells = PRINTERS.get((resource.group, resource.plural), _DEFAULT)
    meta_version = f"{META_GROUP}/{table_version}"
    rows = []
    for obj in objects:
        name = _NAMES.get((resource.group, resource.plural), _name)(obj)
        row: _json.Obj = {"cells": [name, *cells(obj, now)]}
        if include == "Object":
            row["object"] = present(obj)
        elif include != "None":
            row["object"] = {
                "kind": "PartialObjectMetadata",
                "apiVersion": meta_version,
                "metadata": _json.clone(obj["metadata"]),
            }
        rows.append(row)
    return {
        "kind": "Table",
        "apiVersion": meta_version,
        "metadata": list_metadata,
        "columnDefinitions": [column.definition() for column in (NAME, *columns)],
        "rows": rows,
    }
