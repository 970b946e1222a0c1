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
refuses them). `find_all` reads a namespace holding several such Deployments with one list of
its ReplicaSets and one of its pods, each Deployment then taking those its selector matches,
as the estimator reads them from its informer's cache: a sync of thousands of Deployments
that are not ready makes a few requests, not two per Deployment (and each Deployment looks only
at the objects its ReplicaSets control, not at every pod of the namespace).
"""

from __future__ import annotations

import logging
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, TypeVar

from gitfleet import errors
from gitfleet.agent import kube
from gitfleet.model import labelquery, replicas, selectors

log = logging.getLogger(__name__)

Obj = dict[str, Any]
DEPLOYMENT = ("apps/v1", "Deployment")
HASH_LABEL = "pod-template-hash"
FINISHED = ("Succeeded", "Failed")
_SHARED_LIST_AT = 2
"""From this many Deployments short of ready in one namespace on, list the namespace's
ReplicaSets and pods once for all of them."""
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


Key = TypeVar("Key", bound=Hashable)


def _matching(selector: str, objects: Sequence[Obj]) -> list[Obj]:
    """The objects whose labels `selector` (a label selector's text) matches, as the server
    filters a list by it."""
    wanted = labelquery.parse(selector)
    return [
        obj
        for obj in objects
        if selectors.label_selector_matches(wanted, _at(obj, "metadata", "labels") or {})
    ]


def find_all(
    client: kube.KubeClient, deployments: Mapping[Key, Obj]
) -> dict[Key, tuple[replicas.Pending, ...]]:
    """`find` of each live Deployment, by its key; a namespace holding `_SHARED_LIST_AT` or
    more of them short of ready is listed once for them all (see the module)."""
    by_namespace: dict[str, list[Key]] = {}
    for key, deployment in deployments.items():
        if short_of_ready(deployment):
            namespace = _at(deployment, "metadata", "namespace") or ""
            by_namespace.setdefault(namespace, []).append(key)
    found: dict[Key, tuple[replicas.Pending, ...]] = {}
    for namespace, keys in sorted(by_namespace.items()):
        if len(keys) < _SHARED_LIST_AT:
            found.update((key, find(client, deployments[key])) for key in keys)
            continue
        try:
            rs_type = client.resource_type("apps/v1", "ReplicaSet")
            pod_type = client.resource_type("v1", "Pod")
            replica_sets = client.list_objects(rs_type, namespace=namespace)
            pods = client.list_objects(pod_type, namespace=namespace)
        except errors.ClusterAPIError as exc:
            log.warning("counting unschedulable pods in namespace %s: %s", namespace, exc)
            continue
        sets_of, pods_of = _by_controller(replica_sets), _by_controller(pods)
        for key in keys:
            deployment = deployments[key]
            selector = _selector(deployment)
            owned = _matching(selector, sets_of.get(_at(deployment, "metadata", "uid") or "", []))
            theirs = {
                id(pod): pod
                for rs in owned
                for pod in pods_of.get(_at(rs, "metadata", "uid") or "", [])
            }
            found[key] = pending(deployment, owned, _matching(selector, list(theirs.values())))
    return found


def _by_controller(objects: Sequence[Obj]) -> dict[str, list[Obj]]:
    """The objects by the uid of their controller (`pending` looks at no others)."""
    found: dict[str, list[Obj]] = {}
    for obj in objects:
        for owner in _at(obj, "metadata", "ownerReferences") or []:
            if isinstance(owner, Mapping) and owner.get("controller") is True:
                uid = owner.get("uid")
                if isinstance(uid, str):
                    found.setdefault(uid, []).append(obj)
    return found
