"""The resource metrics API a metrics-server adds to a cluster (metrics.k8s.io/v1beta1,
announced by the APIService `v1beta1.metrics.k8s.io`): PodMetrics of every running pod and
NodeMetrics of every node, computed when asked, never stored.

What a pod uses is what a test says (`Usage`): a value set for the pod itself, else the last
value set for pods whose labels include given ones (so pods a Deployment creates later get
it too), else nothing: a pod nobody set a usage for has no metrics, as a pod the
metrics-server has not scraped yet. Each container gets an equal share of its pod's usage.
A node uses the sum of its pods'.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Mapping
from fractions import Fraction

from gitfleet.sim import _json, _pods, _quantity

GROUP = "metrics.k8s.io"
VERSION = "v1beta1"
API_SERVICE = f"{VERSION}.{GROUP}"
WINDOW = "30s"


@dataclasses.dataclass(frozen=True, slots=True)
class _Rule:
    namespace: str
    labels: tuple[tuple[str, str], ...]
    pod: str
    usage: tuple[tuple[str, str], ...]


def _scope(rule: _Rule) -> tuple[str, tuple[tuple[str, str], ...], str]:
    return rule.namespace, rule.labels, rule.pod


class Usage:
    """The usage tests set, by pod or by labels (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rules: list[_Rule] = []

    def set(
        self,
        namespace: str,
        usage: Mapping[str, str],
        *,
        labels: Mapping[str, str] | None = None,
        pod: str = "",
    ) -> None:
        """Pods of `namespace` named `pod`, or whose labels include `labels`, use `usage`
        (quantities by resource name, e.g. {"cpu": "250m", "memory": "64Mi"}) from now on."""
        for text in usage.values():
            _quantity.parse(text)
        rule = _Rule(namespace, tuple(sorted((labels or {}).items())), pod, tuple(usage.items()))
        with self._lock:
            kept = [r for r in self._rules if (r.namespace, r.labels, r.pod) != _scope(rule)]
            self._rules = [*kept, rule]

    def of(self, pod: _json.Obj) -> dict[str, str] | None:
        metadata = pod.get("metadata") or {}
        labels = metadata.get("labels") or {}
        with self._lock:
            rules = list(self._rules)
        for rule in reversed(rules):
            if rule.namespace != metadata.get("namespace"):
                continue
            if rule.pod and rule.pod == metadata.get("name"):
                return dict(rule.usage)
        for rule in reversed(rules):
            if rule.namespace != metadata.get("namespace") or rule.pod:
                continue
            if all(labels.get(k) == v for k, v in rule.labels):
                return dict(rule.usage)
        return None


def _share(text: str, parts: int) -> str:
    amount = _quantity.parse(text) / parts
    return f"{int(amount * 1000)}m" if amount.denominator != 1 else str(int(amount))


def pod_metrics(pod: _json.Obj, usage: Mapping[str, str], now: str) -> _json.Obj:
    metadata = pod["metadata"]
    containers = (pod.get("spec") or {}).get("containers") or [{"name": "main"}]
    return {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": "PodMetrics",
        "metadata": {
            "name": metadata["name"],
            "namespace": metadata.get("namespace", ""),
            "labels": dict(metadata.get("labels") or {}),
            "creationTimestamp": now,
        },
        "timestamp": now,
        "window": WINDOW,
        "containers": [
            {
                "name": c.get("name", ""),
                "usage": {k: _share(v, len(containers)) for k, v in usage.items()},
            }
            for c in containers
        ],
    }


def node_metrics(node: _json.Obj, pods: list[_json.Obj], usage: Usage, now: str) -> _json.Obj:
    total: dict[str, Fraction] = {}
    name = node["metadata"]["name"]
    for pod in pods:
        found = usage.of(pod) if (pod.get("spec") or {}).get("nodeName") == name else None
        for key, text in (found or {}).items():
            total[key] = total.get(key, Fraction(0)) + _quantity.parse(text)
    return {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": "NodeMetrics",
        "metadata": {"name": name, "creationTimestamp": now},
        "timestamp": now,
        "window": WINDOW,
        "usage": {k: f"{int(v * 1000)}m" for k, v in sorted(total.items())},
    }


def measured(pod: _json.Obj) -> bool:
    """Whether the metrics-server would report the pod: running on a node."""
    return _json.dig(pod, "status", "phase") == "Running" and _pods.is_active(pod)


def api_service(now: str) -> _json.Obj:
    return {
        "apiVersion": "apiregistration.k8s.io/v1",
        "kind": "APIService",
        "metadata": {"name": API_SERVICE, "creationTimestamp": now},
        "spec": {
            "group": GROUP,
            "version": VERSION,
            "groupPriorityMinimum": 100,
            "versionPriority": 100,
            "insecureSkipTLSVerify": True,
            "service": {"name": "metrics-server", "namespace": "kube-system", "port": 443},
        },
        "status": {
            "conditions": [
                {
                    "type": "Available",
                    "status": "True",
                    "reason": "Passed",
                    "message": "all checks passed",
                    "lastTransitionTime": now,
                }
            ]
        },
    }
