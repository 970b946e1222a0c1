"""kubectl's table for a kind, as `karmadactl get` prints it across clusters.

The columns and cells follow kube-apiserver's printers (pkg/printers/internalversion/
printers.go) for the kinds whose fields a report keeps: Deployment, StatefulSet, ReplicaSet,
DaemonSet, Job, CronJob, Service, Ingress and Namespace; `-o wide` adds their priority-1
columns. Every other kind prints NAME and AGE. karmadactl puts CLUSTER after NAME and ADOPTION
last (wide only for pods); `--all-namespaces` puts NAMESPACE first. Columns are laid out as
kubectl's tab writer does: at least three spaces between them, at least six characters wide.
AGE, a Job's DURATION and a CronJob's LAST SCHEDULE are counted from `now`.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gitfleet import search
from gitfleet.model import times
from gitfleet.model.origin import shown

NONE = "<none>"
UNKNOWN = "<unknown>"
PADDING = 3
MIN_WIDTH = 6
LOAD_BALANCER_WIDTH = 16
HOSTS_SHOWN = 3

Cells = Callable[[Mapping[str, Any], datetime.datetime], list[str]]
"""A printer's cells of one object; `now` for the cells that print a time since."""


def _dig(obj: Any, *path: str) -> Any:
    for step in path:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(step)
    return obj


def _count(obj: Mapping[str, Any], *path: str) -> str:
    value = _dig(obj, *path)
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else "0"


def _desired(obj: Mapping[str, Any]) -> str:
    """`spec.replicas`; an old report without it falls back on the observed count."""
    value = _dig(obj, "spec", "replicas")
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return _count(obj, "status", "replicas")


def _containers(obj: Mapping[str, Any], *pod_template: str) -> list[str]:
    """CONTAINERS and IMAGES of the pod template at `pod_template` (a workload's own)."""
    found = _dig(obj, *(pod_template or ("spec", "template")), "spec", "containers")
    containers = [c for c in found if isinstance(c, Mapping)] if isinstance(found, list) else []
    return [
        ",".join(str(c.get("name", "")) for c in containers),
        ",".join(str(c.get("image", "")) for c in containers),
    ]


def _selector(obj: Mapping[str, Any], *spec: str) -> str:
    """metav1.FormatLabelSelector of the selector in `spec` (the object's own): requirements
    sorted by key, `<none>` when empty."""
    selector = _dig(obj, *(spec or ("spec",)), "selector")
    if not isinstance(selector, Mapping):
        return NONE
    parts: list[tuple[str, str]] = []
    labels = selector.get("matchLabels")
    if isinstance(labels, Mapping):
        parts += [(str(k), f"{k}={v}") for k, v in labels.items()]
    expressions = selector.get("matchExpressions")
    for expr in expressions if isinstance(expressions, list) else []:
        if not isinstance(expr, Mapping):
            continue
        key, op = str(expr.get("key", "")), str(expr.get("operator", ""))
        values = ",".join(sorted(str(v) for v in expr.get("values") or []))
        spelled = {"In": f"{key} in ({values})", "NotIn": f"{key} notin ({values})"}
        parts.append((key, spelled.get(op, key if op == "Exists" else f"!{key}")))
    return ",".join(text for _, text in sorted(parts)) or NONE


def _map_selector(value: Any) -> str:
    """A plain key=value selector (a Service's, a node selector), sorted."""
    if not isinstance(value, Mapping) or not value:
        return NONE
    return ",".join(f"{k}={value[k]}" for k in sorted(value))


def _deployment(obj: Mapping[str, Any], now: datetime.datetime) -> list[str]:
    return [
        f"{_count(obj, 'status', 'readyReplicas')}/{_desired(obj)}",
        _count(obj, "status", "updatedReplicas"),
        _count(obj, "status", "availableReplicas"),
    ]


def _stateful_set(obj: Mapping[str, Any], now: datetime.datetime) -> list[str]:
    return [f"{_count(obj, 'status', 'readyReplicas')}/{_desired(obj)}"]


def _replica_set(obj: Mapping[str, Any], now: datetime.datetime) -> list[str]:
    return [
        _desired(obj),
        _count(obj, "status", "replicas"),
        _count(obj, "status", "readyReplicas"),
    ]


def _daemon_set(obj: Mapping[str, Any], now: datetime.datetime) -> list[str]:
    fields = (
        "desiredNumberScheduled",
        "currentNumberScheduled",
        "numberReady",
        "updatedNumberScheduled",
        "numberAvailable",
    )
    node_selector = _map_selector(_dig(obj, "spec", "template", "spec", "nodeSelector"))
    return [*(_count(obj, "status", f) for f in fields), node_selector]


def _int(obj: Mapping[str, Any], *path: str) -> int | None:
    value = _dig(obj, *path)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _time(obj: Mapping[str, Any], *path: str) -> datetime.datetime | None:
    value = _dig(obj, *path)
    return times.parse(value) if isinstance(value, str) else None


def _since(obj: Mapping[str, Any], now: datetime.datetime, *path: str) -> str | None:
    """The time since the timestamp at `path` as kubectl prints it; None without one."""
    moment = _time(obj, *path)
    return None if moment is None else times.human_duration((now - moment).total_seconds())


def _job(obj: Mapping[str, Any], now: datetime.datetime) -> list[str]:
    """COMPLETIONS (succeeded of completions, or of one with parallel workers) and DURATION
    (start to completion, or to now while it runs)."""
    succeeded = _count(obj, "status", "succeeded")
    completions, parallelism = _int(obj, "spec", "completions"), _int(obj, "spec", "parallelism")
    if completions is not None:
        done = f"{succeeded}/{completions}"
    elif parallelism is not None and parallelism > 1:
        done = f"{succeeded}/1 of {parallelism}"
    else:
        done = f"{succeeded}/1"
    started = _time(obj, "status", "startTime")
    finished = _time(obj, "status", "completionTime")
    if started is None:
        duration = ""
    else:
        duration = times.human_duration(((finished or now) - started).total_seconds())
    return [done, duration]


def _cron_job(obj: Mapping[str, Any], now: datetime.datetime) -> list[str]:
    suspend = _dig(obj, "spec", "suspend")
    active = _dig(obj, "status", "active")
    return [
        str(_dig(obj, "spec", "schedule") or ""),
        "<unset>" if not isinstance(suspend, bool) else str(suspend),
        str(len(active) if isinstance(active, list) else 0),
        _since(obj, now, "status", "lastScheduleTime") or NONE,
    ]


def _load_balancer(obj: Mapping[str, Any], *, wide: bool) -> str:
    """The ingress points of a load balancer status, sorted, clipped to 16 characters unless
    wide (kubectl's loadBalancerStatusStringer)."""
    ingress = _dig(obj, "status", "loadBalancer", "ingress")
    points = {
        str(i.get("ip") or i.get("hostname"))
        for i in (ingress if isinstance(ingress, list) else [])
        if isinstance(i, Mapping) and (i.get("ip") or i.get("hostname"))
    }
    text = ",".join(sorted(points))
    return (
        text
        if wide or len(text) <= LOAD_BALANCER_WIDTH
        else text[: LOAD_BALANCER_WIDTH - 3] + "..."
    )


def _hosts(obj: Mapping[str, Any]) -> str:
    """The first three hosts of the rules, `*` when none; once three are found, any rule after
    them adds `+ N more...` (N: the rules past the third, with or without a host)."""
    rules = _dig(obj, "spec", "rules")
    rules = [r for r in rules if isinstance(r, Mapping)] if isinstance(rules, list) else []
    hosts: list[str] = []
    more = False
    for rule in rules:
        if len(hosts) == HOSTS_SHOWN:
            more = True
            break
        if rule.get("host"):
            hosts.append(str(rule["host"]))
    if not hosts:
        return "*"
    return ",".join(hosts) + (f" + {len(rules) - HOSTS_SHOWN} more..." if more else "")


def _ingress(obj: Mapping[str, Any], now: datetime.datetime) -> list[str]:
    return [
        str(_dig(obj, "spec", "ingressClassName") or NONE),
        _hosts(obj),
        _load_balancer(obj, wide=False),
        "80, 443" if _dig(obj, "spec", "tls") else "80",
    ]


def _namespace(obj: Mapping[str, Any], now: datetime.datetime) -> list[str]:
    return [str(_dig(obj, "status", "phase") or "")]


def _external_ip(obj: Mapping[str, Any]) -> str:
    kind = _dig(obj, "spec", "type") or "ClusterIP"
    external = [str(ip) for ip in _dig(obj, "spec", "externalIPs") or []]
    if kind == "ExternalName":
        return str(_dig(obj, "spec", "externalName") or NONE)
    if kind == "LoadBalancer":
        ingress = _dig(obj, "status", "loadBalancer", "ingress") or []
        found = [
            str(i.get("ip") or i.get("hostname")) for i in ingress if isinstance(i, Mapping)
        ] + external
        return ",".join(found) if found else "<pending>"
    return ",".join(external) if external else NONE


def _ports(obj: Mapping[str, Any]) -> str:
    ports = _dig(obj, "spec", "ports")
    spelled = [
        f"{p.get('port')}:{p['nodePort']}/{p.get('protocol', 'TCP')}"
        if p.get("nodePort")
        else f"{p.get('port')}/{p.get('protocol', 'TCP')}"
        for p in (ports if isinstance(ports, list) else [])
        if isinstance(p, Mapping)
    ]
    return ",".join(spelled) if spelled else NONE


def _service(obj: Mapping[str, Any], now: datetime.datetime) -> list[str]:
    cluster_ip = _dig(obj, "spec", "clusterIP")
    return [
        str(_dig(obj, "spec", "type") or "ClusterIP"),
        str(cluster_ip) if cluster_ip else NONE,
        _external_ip(obj),
        _ports(obj),
    ]


Printer = tuple[tuple[str, ...], Cells, tuple[str, ...], Cells]
"""(columns between NAME and AGE, their cells, wide columns after AGE, their cells)."""


def _no_cells(obj: Mapping[str, Any], now: datetime.datetime) -> list[str]:
    return []


def _pods_wide(obj: Mapping[str, Any], now: datetime.datetime) -> list[str]:
    """CONTAINERS, IMAGES and SELECTOR of a workload."""
    return [*_containers(obj), _selector(obj)]


def _jobs_wide(obj: Mapping[str, Any], now: datetime.datetime) -> list[str]:
    """A CronJob's: those of its Job template."""
    template = ("spec", "jobTemplate", "spec")
    return [*_containers(obj, *template, "template"), _selector(obj, *template)]


WORKLOAD_WIDE = ("CONTAINERS", "IMAGES", "SELECTOR")
PRINTERS: Mapping[tuple[str, str], Printer] = {
    ("apps", "Deployment"): (
        ("READY", "UP-TO-DATE", "AVAILABLE"),
        _deployment,
        WORKLOAD_WIDE,
        _pods_wide,
    ),
    ("apps", "StatefulSet"): (
        ("READY",),
        _stateful_set,
        ("CONTAINERS", "IMAGES"),
        lambda obj, now: _containers(obj),
    ),
    ("apps", "ReplicaSet"): (
        ("DESIRED", "CURRENT", "READY"),
        _replica_set,
        WORKLOAD_WIDE,
        _pods_wide,
    ),
    ("apps", "DaemonSet"): (
        ("DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE SELECTOR"),
        _daemon_set,
        WORKLOAD_WIDE,
        _pods_wide,
    ),
    ("batch", "Job"): (("COMPLETIONS", "DURATION"), _job, WORKLOAD_WIDE, _pods_wide),
    ("batch", "CronJob"): (
        ("SCHEDULE", "SUSPEND", "ACTIVE", "LAST SCHEDULE"),
        _cron_job,
        WORKLOAD_WIDE,
        _jobs_wide,
    ),
    ("", "Service"): (
        ("TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)"),
        _service,
        ("SELECTOR",),
        lambda obj, now: [_map_selector(_dig(obj, "spec", "selector"))],
    ),
    ("networking.k8s.io", "Ingress"): (
        ("CLASS", "HOSTS", "ADDRESS", "PORTS"),
        _ingress,
        (),
        _no_cells,
    ),
    ("", "Namespace"): (("STATUS",), _namespace, (), _no_cells),
}
DEFAULT: Printer = ((), _no_cells, (), _no_cells)


def age(obj: Mapping[str, Any], now: datetime.datetime) -> str:
    return _since(obj, now, "metadata", "creationTimestamp") or UNKNOWN


def labels(obj: Mapping[str, Any]) -> str:
    """LABELS as kubectl prints them: `key=value` sorted by key, `<none>` without any."""
    return _map_selector(_dig(obj, "metadata", "labels"))


def rows(
    found: Sequence[search.Found],
    group: str,
    kind: str,
    *,
    now: datetime.datetime,
    wide: bool = False,
    all_namespaces: bool = False,
    prefix: str = "",
    show_labels: bool = False,
) -> list[list[str]]:
    """The header, then a row per object; `prefix` before each name (kubectl's `deployment.apps/`
    when several kinds were asked for), LABELS last with `show_labels`."""
    middle, cells, extra, extra_cells = PRINTERS.get((group, kind), DEFAULT)
    adoption = wide or (group, kind) != ("", "Pod")
    header = ["NAME", "CLUSTER", *middle, "AGE", *(extra if wide else ())]
    header += ["ADOPTION"] if adoption else []
    header += ["LABELS"] if show_labels else []
    table = [(["NAMESPACE"] if all_namespaces else []) + header]
    for f in found:
        metadata = f.obj.get("metadata") or {}
        name = prefix + str(metadata.get("name", ""))
        row = [name, f.cluster, *cells(f.obj, now), age(f.obj, now)]
        row += extra_cells(f.obj, now) if wide else []
        row += ["Y" if f.adopted else "N"] if adoption else []
        row += [labels(f.obj)] if show_labels else []
        table.append(([str(metadata.get("namespace") or "")] if all_namespaces else []) + row)
    return table


def layout(table: Sequence[Sequence[str]]) -> str:
    """kubectl's tab writer: each column but the last padded to its widest cell plus three.
    Cells are what agents reported, so their control characters are escaped (`shown`): a
    name or an image holding a new line would print a row of its own."""
    if not table:
        return ""
    table = [[shown(cell) for cell in r] for r in table]
    last = len(table[0]) - 1
    widths = [max(MIN_WIDTH, max(len(r[i]) for r in table) + PADDING) for i in range(len(table[0]))]
    return "".join(
        "".join(cell if i == last else cell.ljust(widths[i]) for i, cell in enumerate(r)) + "\n"
        for r in table
    )
