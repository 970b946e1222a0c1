"""Pods of a Deployment that its cluster cannot run, as Karmada's scheduler estimator finds them
(pkg/estimator/server/replica/replica.go GetUnschedulablePodsOfWorkload, podUnschedulable;
pkg/util/lifted/deployment.go GetNewReplicaSet, ListPodsByRS).

A Deployment's pods are those of its *new* ReplicaSet: among the ReplicaSets it controls, the
oldest (creation time, then name) whose pod template equals the Deployment's, the
`pod-template-hash` label aside; a pod belongs to it when that ReplicaSet is its controller.
Only pods not finished (phase neither Succeeded nor Failed) count, as the estimator's informer
lists them. A pod is unschedulable while its PodScheduled condition is False with reason
Unschedulable; the report keeps since when (the condition's lastTransitionTime), and the
descheduler decides which have waited longer than its threshold (`gitfleet.descheduler`).

Only Deployments with fewer ready replicas than desired are looked at: Karmada's descheduler
asks only about clusters where that is so. Other kinds are never counted (the estimator
refuses them).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from gitfleet import errors
from gitfleet.agent import kube
from gitfleet.model import labelquery, replicas

log = logging.getLogger(__name__)

Obj = dict[str, Any]
DEPLOYMENT = ("apps/v1", "Deployment")
HASH_LABEL = "pod-template-hash"
FINISHED = ("Succeeded", "Failed")
_EPOCH = "1970-01-01T00:00:00Z"
"""The transition time of a condition that has none (Go's zero time is older still)."""


def _at(obj: Any, *path: str) -> Any:
    for step in path:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(step)
    return obj


def _controlled_by(obj: Obj, uid: str) -> bool:
    owners = _at(obj, "metadata", "ownerReferences") or []
    return any(
        isinstance(o, Mapping) and o.get("controller") is True and o.get("uid") == uid
        for o in owners
    )


def _pruned(value: Any) -> Any:
    """`value` with empty maps and lists left out: Kubernetes' semantic equality takes an
    empty one for an absent one."""
    if isinstance(value, Mapping):
        kept = {k: _pruned(v) for k, v in value.items()}
        return {k: v for k, v in kept.items() if v not in ({}, [], None)}
    if isinstance(value, list):
        return [_pruned(v) for v in value]
    return value


def _template(obj: Obj) -> Any:
    template = dict(_at(obj, "spec", "template") or {})
    metadata = dict(template.get("metadata") or {})
    labels = {k: v for k, v in (metadata.get("labels") or {}).items() if k != HASH_LABEL}
    template["metadata"] = {**metadata, "labels": labels}
    return _pruned(template)


def new_replica_set(deployment: Obj, replica_sets: Sequence[Obj]) -> Obj | None:
    """The Deployment's new ReplicaSet among `replica_sets`, None when it has none yet."""
    uid = _at(deployment, "metadata", "uid") or ""
    owned = [rs for rs in replica_sets if _controlled_by(rs, uid)]
    owned.sort(
        key=lambda rs: (_at(rs, "metadata", "creationTimestamp") or "", rs["metadata"]["name"])
    )
    wanted = _template(deployment)
    return next((rs for rs in owned if _template(rs) == wanted), None)


def unschedulable_since(pod: Obj) -> str | None:
    """Since when the pod is unschedulable, None when it is not."""
    if _at(pod, "status", "phase") in FINISHED:
        return None
    for condition in _at(pod, "status", "conditions") or []:
        if not isinstance(condition, Mapping) or condition.get("type") != "PodScheduled":
            continue
        if condition.get("status") == "False" and condition.get("reason") == "Unschedulable":
            since = condition.get("lastTransitionTime")
            return since if isinstance(since, str) and since else _EPOCH
    return None


def pending(
    deployment: Obj, replica_sets: Sequence[Obj], pods: Sequence[Obj]
) -> tuple[replicas.Pending, ...]:
    """The Deployment's unschedulable pods among `pods`, grouped by since when."""
    new = new_replica_set(deployment, replica_sets)
    if new is None:
        return ()
    uid = _at(new, "metadata", "uid") or ""
    times = [
        since
        for pod in pods
        if _controlled_by(pod, uid) and (since := unschedulable_since(pod)) is not None
    ]
    return replicas.bounded(times)


def short_of_ready(deployment: Obj) -> bool:
    """Fewer replicas ready than desired."""
    desired = _at(deployment, "spec", "replicas")
    ready = _at(deployment, "status", "readyReplicas") or 0
    return (1 if desired is None else desired) > ready


def _selector(deployment: Obj) -> str:
    """The Deployment's selector as a label selector (the controller check does the rest)."""
    selector = _at(deployment, "spec", "selector")
    return labelquery.text(selector) if isinstance(selector, dict) else ""


def find(client: kube.KubeClient, deployment: Obj) -> tuple[replicas.Pending, ...]:
    """The unschedulable pods of a live Deployment; none when it has all its replicas ready, or
    when the cluster cannot be asked (logged)."""
    if not short_of_ready(deployment):
        return ()
    namespace = _at(deployment, "metadata", "namespace") or ""
    selector = _selector(deployment)
    try:
        rs_type = client.resource_type("apps/v1", "ReplicaSet")
        pod_type = client.resource_type("v1", "Pod")
        replica_sets = client.list_objects(rs_type, selector, namespace=namespace)
        pods = client.list_objects(pod_type, selector, namespace=namespace)
    except errors.ClusterAPIError as exc:
        log.warning("counting unschedulable pods of %s: %s", kube.describe(deployment), exc)
        return ()
    return pending(deployment, replica_sets, pods)
