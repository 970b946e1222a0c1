"""The controllers of a simulated cluster, in one loop: workload controllers (a ReplicaSet per pod
template for Deployments, the newest scaled to the Deployment's replicas and the older ones to
zero; pods for StatefulSets, ReplicaSets, DaemonSets and Jobs; and their status), a scheduler
binding pods to nodes by requests (a pod that fits no node stays Pending with PodScheduled
False, reason Unschedulable, since the first time it did not fit), a kubelet that starts pods
after `ready_delay` seconds (and finishes Job pods after as long again), the namespace
controller (a deleted namespace stays Terminating while its contents are deleted, which
starts `namespace_cleanup_delay` seconds later, then goes), the CRD controller
(Established; deleting a CRD deletes its objects), the garbage collector (owner references),
service load balancers, the endpoints and EndpointSlice controllers (`_endpoints`), volume
binding, and the per-namespace `default` ServiceAccount.

`step()` runs after every write, in the writing request (so with `ready_delay=0` a client
reading after its write sees the outcome), and from a thread for timers. The caller holds
the store lock.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable

from gitfleet.sim import (
    _endpoints,
    _errors,
    _json,
    _managed,
    _placement,
    _pods,
    _registry,
    _resources,
    _store,
    _workloads,
)

log = logging.getLogger(__name__)

MANAGER = "kube-controller-manager"
NAMESPACE_CLEANUP_SECONDS = 1.0
"""How long after its deletion a namespace's contents start to go. A real namespace controller
takes seconds, so a client deleting a namespace and then the objects in it (`kubectl delete -k`
of a folder holding both) finds them still there; not at once in the deleting request."""
_MAX_ROUNDS = 200
_POD_NETWORK = (10 << 24) | (244 << 16)
_LOAD_BALANCER_NETWORK = (172 << 24) | (18 << 16) | (200 << 8)
_CRDS = ("apiextensions.k8s.io", "customresourcedefinitions")
_PODS = ("", "pods")
_SERVICES = ("", "services")
_ENDPOINTS = ("", "endpoints")
_ENDPOINT_SLICES = ("discovery.k8s.io", "endpointslices")
_NAMESPACES = ("", "namespaces")


class Controller:
    """All controllers of one cluster."""

    def __init__(
        self,
        registry: _registry.Registry,
        *,
        ready_delay: float,
        namespace_cleanup_delay: float = NAMESPACE_CLEANUP_SECONDS,
    ) -> None:
        self.registry = registry
        self.store = registry.store
        self.ready_delay = ready_delay
        self.namespace_cleanup_delay = namespace_cleanup_delay
        self._timers: dict[_store.Key, float] = {}
        """When something is due: a pod to advance, or a terminating namespace to empty."""
        self._emptying: set[str] = set()
        """Terminating namespaces whose contents the namespace controller is deleting."""
        self._next_pod_ip = 2
        self._next_balancer_ip = 1
        self._placement = _placement.Placement()
        self.store.add_index(self._placement)

    def pending(self) -> bool:
        """Whether anything is still to happen (unprocessed writes, pods due to start,
        namespaces due to be emptied)."""
        return bool(self._timers) or self.store.has_changes()

    def next_due(self) -> float | None:
        return min(self._timers.values(), default=None)

    def _type(self, group: str, plural: str) -> _resources.ResourceType | None:
        return self.store.catalog.by_plural(group, plural)

    def _builtin(self, group: str, plural: str) -> _resources.ResourceType:
        found = self.store.catalog.by_plural(group, plural)
        assert found is not None, f"{plural} is a built-in resource"
        return found

    def _write(self, api_version: str) -> _managed.Write:
        return _managed.Write(manager=MANAGER, api_version=api_version, time=self.registry.now())

    def step(self) -> None:
        """React to every write since the last step and fire due timers, until quiet."""
        for _ in range(_MAX_ROUNDS):
            events = self.store.drain_changes()
            now = time.monotonic()
            due = sorted(key for key, at in self._timers.items() if at <= now)
            if not events and not due:
                return
            for key in due:
                del self._timers[key]
                if key[:2] == _NAMESPACES:
                    self._emptying.add(key[3])
                    self._namespace(key[3])
                else:
                    self._advance_pod(key)
            self._react(events)
        log.warning("simulated controllers did not settle after %d rounds", _MAX_ROUNDS)

    # ---- dispatch ----------------------------------------------------------------------

    def _react(self, events: list[_store.Event]) -> None:
        workloads: dict[_store.Key, None] = {}
        namespaces: dict[str, None] = {}
        crds: dict[str, None] = {}
        gone: set[str] = set()
        routed: dict[str, set[str]] = {}  # namespaces whose endpoints change: Services gone
        schedule = False
        for event in events:
            metadata = event.obj["metadata"]
            namespace, name = metadata.get("namespace", ""), metadata["name"]
            kind = (event.group, event.plural)
            if event.type == _store.DELETED:
                gone.add(metadata.get("uid", ""))
            if kind in (_PODS, _SERVICES):
                deleted = routed.setdefault(namespace, set())
                if kind == _SERVICES and event.type == _store.DELETED:
                    deleted.add(name)
            if kind in _workloads.HASH_LABEL or kind == _PODS:
                if kind in _workloads.HASH_LABEL:
                    workloads[(event.group, event.plural, namespace, name)] = None
                schedule = schedule or kind == _PODS
                owner = _controller_owner(event.obj)
                if owner is not None:
                    workloads[(owner[0], owner[1], namespace, owner[2])] = None
            elif kind == ("", "nodes"):
                schedule = True
            elif kind == _NAMESPACES:
                namespaces[name] = None
            elif kind == _CRDS:
                crds[name] = None
            elif event.type != _store.DELETED:
                self._after_change(kind, namespace, name)
            if namespace and event.type == _store.DELETED:
                namespaces[namespace] = None
            resource = self.store.catalog.by_plural(*kind)
            if event.type == _store.DELETED and (resource is None or not resource.builtin):
                crds[f"{event.plural}.{event.group}"] = None
        for name in namespaces:
            self._namespace(name)
        for name in crds:
            self._crd(name)
        if gone:
            self._collect_garbage(gone)
        for group, plural, namespace, name in sorted(workloads):
            self._workload(group, plural, namespace, name)
        if schedule:
            self._schedule()
        for namespace, deleted in sorted(routed.items()):
            self._endpoints(namespace, deleted)

    def _after_change(self, kind: tuple[str, str], namespace: str, name: str) -> None:
        obj = self.store.get(*kind, namespace, name)
        resource = self._type(*kind)
        if obj is None or resource is None:
            return
        if kind == ("", "services"):
            self._load_balancer(resource, obj)
        elif kind in (("", "persistentvolumeclaims"), ("", "persistentvolumes")):
            self._volume(resource, obj)

    # ---- namespaces, CRDs, garbage collection ------------------------------------------

    def _namespace(self, name: str) -> None:
        namespace = self.store.get(*_NAMESPACES, "", name)
        if namespace is None:
            self._emptying.discard(name)
            return
        resource = self._builtin(*_NAMESPACES)
        if not _json.dig(namespace, "metadata", "deletionTimestamp"):
            self._namespace_defaults(name)
            return
        if name not in self._emptying:
            self._timers.setdefault(
                (*_NAMESPACES, "", name), time.monotonic() + self.namespace_cleanup_delay
            )
            return
        remaining = False
        for group, plural in list(self.store.resources()):
            found = self._type(group, plural)
            if found is None or not found.namespaced:
                continue
            for obj in list(self.store.list(group, plural, name)):
                if not _json.dig(obj, "metadata", "deletionTimestamp"):
                    self.registry.delete(found, name, obj["metadata"]["name"])
            remaining = remaining or bool(self.store.list(group, plural, name))
        if not remaining and _json.dig(namespace, "spec", "finalizers"):
            released: _json.Obj = _json.clone(namespace)
            released["spec"]["finalizers"] = []
            self.registry.save(resource, released)

    def _namespace_defaults(self, name: str) -> None:
        """Every namespace gets a `default` ServiceAccount and the root CA ConfigMap."""
        defaults: list[tuple[str, _json.Obj]] = [
            (
                "serviceaccounts",
                {
                    "apiVersion": "v1",
                    "kind": "ServiceAccount",
                    "metadata": {"name": "default", "namespace": name},
                },
            ),
            (
                "configmaps",
                {
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {"name": "kube-root-ca.crt", "namespace": name},
                    "data": {"ca.crt": "simulated cluster: no certificate\n"},
                },
            ),
        ]
        for plural, obj in defaults:
            if self.store.get("", plural, name, obj["metadata"]["name"]) is None:
                self._create(self._builtin("", plural), obj)

    def _crd(self, name: str) -> None:
        crd = self.store.get(*_CRDS, "", name)
        if crd is None:
            return
        crd_type = self._builtin(*_CRDS)
        served = _resources.from_crd(crd)
        if _json.dig(crd, "metadata", "deletionTimestamp"):
            if served is not None:
                for obj in list(self.store.list(served.group, served.plural)):
                    if not _json.dig(obj, "metadata", "deletionTimestamp"):
                        self.registry.delete(
                            served, obj["metadata"].get("namespace", ""), obj["metadata"]["name"]
                        )
                if self.store.list(served.group, served.plural):
                    return
            released: _json.Obj = _json.clone(crd)
            released["metadata"]["finalizers"] = [
                f
                for f in released["metadata"].get("finalizers", [])
                if f != _registry.CRD_CLEANUP_FINALIZER
            ]
            self.registry.save(crd_type, released)
            return
        spec = crd.get("spec") or {}
        storage = [v["name"] for v in spec.get("versions") or [] if v.get("storage")]
        existing = _json.dig(crd, "status", "conditions") or []
        now = self.registry.now()
        established: _json.Obj = _json.clone(crd)
        conflict = self._names_conflict(crd)
        if conflict is None:
            accepted = _json.clone(spec.get("names") or {})
            names = ("True", "NoConflicts", "no conflicts found")
            ready = ("True", "InitialNamesAccepted", "the initial names have been accepted")
        else:
            accepted = _json.clone(_json.dig(crd, "status", "acceptedNames") or {})
            names = ("False", *conflict)
            ready = ("False", "NotAccepted", "not all names are accepted")
        established["status"] = {
            "acceptedNames": accepted,
            "conditions": [
                _workloads.condition(existing, "NamesAccepted", *names, now),
                _workloads.condition(existing, "Established", *ready, now),
            ],
            "storedVersions": sorted(
                set(_json.dig(crd, "status", "storedVersions") or []) | set(storage)
            ),
        }
        self.registry.save(crd_type, established)

    def _names_conflict(self, crd: _json.Obj) -> tuple[str, str] | None:
        """(reason, message) when a name of `crd` is one another CRD of its group was given
        (its accepted names; singular and listKind defaulted from the kind), as the API
        server's naming controller says it: each name checked in turn, the last conflict found
        the one said; None when there is none."""
        spec = crd.get("spec") or {}
        names = spec.get("names") or {}
        kind = str(names.get("kind") or "")
        wanted = {
            "PluralConflict": [names.get("plural")],
            "SingularConflict": [names.get("singular") or kind.lower()],
            "ShortNamesConflict": list(names.get("shortNames") or []),
            "KindConflict": [kind],
            "ListKindConflict": [names.get("listKind") or kind + "List"],
        }
        resources: set[object] = set()
        kinds: set[object] = set()
        for other in self.store.list(*_CRDS):
            if other is crd or other["metadata"]["name"] == crd["metadata"]["name"]:
                continue
            if (other.get("spec") or {}).get("group") != spec.get("group"):
                continue
            taken = _json.dig(other, "status", "acceptedNames") or {}
            taken_kind = str(taken.get("kind") or "")
            singular = taken.get("singular") or taken_kind.lower()
            resources |= {taken.get("plural"), singular, *taken.get("shortNames", [])}
            kinds |= {taken_kind, taken.get("listKind") or taken_kind + "List"}
        found = None
        for reason, values in wanted.items():
            used = kinds if reason in ("KindConflict", "ListKindConflict") else resources
            clash = next((v for v in values if v and v in used), None)
            if clash is not None:
                found = (reason, f'"{clash}" is already in use')
        return found

    def _collect_garbage(self, gone: set[str]) -> None:
        """Delete objects whose owners are all gone, one of them just now (background
        propagation, as the garbage collector does)."""
        dependents = sorted({key for uid in gone for key in self.store.dependents(uid)})
        for key in dependents:
            obj = self.store.get(*key)
            resource = self._type(*key[:2])
            if obj is None or resource is None:
                continue
            owners = _json.dig(obj, "metadata", "ownerReferences") or []
            orphaned = all(self.store.by_uid(o.get("uid") or "") is None for o in owners)
            if orphaned and not _json.dig(obj, "metadata", "deletionTimestamp"):
                self.registry.delete(resource, key[2], key[3])

    # ---- workloads ---------------------------------------------------------------------

    def _workload(self, group: str, plural: str, namespace: str, name: str) -> None:
        obj = self.store.get(group, plural, namespace, name)
        resource = self._type(group, plural)
        if obj is None or resource is None or _json.dig(obj, "metadata", "deletionTimestamp"):
            return
        key = (group, plural)
        revision = _revision(key, obj)
        changed: _json.Obj = _json.clone(obj)
        if key == _workloads.DEPLOYMENTS:
            desired, number = self._replica_sets(obj, revision)
            _json.ensure(changed, "metadata", "annotations")[_workloads.REVISION] = number
        else:
            desired = self._reconcile_pods(key, obj, self._pods_of(key, obj), revision)
        owned = self._pods_of(key, obj)
        changed["status"] = _workloads.status(
            key, obj, owned, revision, self.registry.now(), desired=desired
        )
        self.registry.save(resource, changed)

    def _pods_of(self, key: tuple[str, str], obj: _json.Obj) -> list[_json.Obj]:
        """The workload's pods: those it controls, or for a Deployment, those its ReplicaSets
        control."""
        owners = [obj]
        if key == _workloads.DEPLOYMENTS:
            owners = self._replica_sets_of(obj)
        return self._controlled_by(_PODS, owners)

    def _replica_sets_of(self, deployment: _json.Obj) -> list[_json.Obj]:
        return self._controlled_by(_workloads.REPLICASETS, [deployment])

    def _controlled_by(self, kind: tuple[str, str], owners: list[_json.Obj]) -> list[_json.Obj]:
        """The objects of `kind` in the owners' namespace whose controller is one of
        `owners`, by name."""
        if not owners:
            return []
        namespace = owners[0]["metadata"]["namespace"]
        uids = {owner["metadata"]["uid"] for owner in owners}
        keys = {
            key
            for uid in uids
            for key in self.store.dependents(uid)
            if key[:3] == (*kind, namespace)
        }
        found = (self.store.get(*key) for key in sorted(keys))
        return [obj for obj in found if obj is not None and _owner_uid(obj) in uids]

    def _replica_sets(self, deployment: _json.Obj, revision: str) -> tuple[int, str]:
        """The Deployment controller's part (a rollout done at once): the ReplicaSet of the
        current pod template runs the Deployment's replicas, older ones none. Each template
        the Deployment takes (again) gets the next revision number, which `kubectl rollout
        history` and `undo` read. The desired count, and the current revision number."""
        desired = _workloads.replicas(deployment)
        resource = self._builtin(*_workloads.REPLICASETS)
        current = f"{deployment['metadata']['name']}-{revision}"
        owned = self._replica_sets_of(deployment)
        numbers = {rs["metadata"]["name"]: _workloads.revision_number(rs) for rs in owned}
        latest = max(numbers.values(), default=0)
        number = numbers.get(current, latest + 1)
        if number < latest:  # back to an older template: it becomes the newest revision
            number = latest + 1
        for rs in owned:
            name = rs["metadata"]["name"]
            wanted = desired if name == current else 0
            changed = _json.clone(rs)
            changed["spec"]["replicas"] = wanted
            if name == current:
                _workloads.set_revision(changed, deployment, number)
            if changed != rs:
                self.registry.save(resource, changed)
        if current not in numbers:
            created = _workloads.replica_set(deployment, current, revision)
            _workloads.set_revision(created, deployment, number)
            self._create(resource, created)
        return desired, str(number)

    def _reconcile_pods(
        self, key: tuple[str, str], obj: _json.Obj, owned: list[_json.Obj], revision: str
    ) -> int:
        """Delete outdated and surplus pods, create missing ones; the desired count."""
        label = _workloads.HASH_LABEL[key]
        active = [p for p in owned if _pods.is_active(p)]
        current = [p for p in active if _json.dig(p, "metadata", "labels", label) == revision]
        self._delete_pods(p for p in active if p not in current)
        name = obj["metadata"]["name"]
        if key == _workloads.DAEMONSETS:
            nodes = self._nodes_for(obj)
            placed = {_json.dig(p, "spec", "nodeName") for p in current}
            self._delete_pods(p for p in current if _json.dig(p, "spec", "nodeName") not in nodes)
            for node in nodes:
                if node not in placed:
                    self._create_pod(
                        key, obj, revision, f"{name}-{self.registry.random_suffix()}", node
                    )
            return len(nodes)
        if key == _workloads.JOBS:
            succeeded = sum(1 for p in owned if _json.dig(p, "status", "phase") == "Succeeded")
            desired = _workloads.job_wanted_active(obj, succeeded)
        else:
            desired = _workloads.replicas(obj)
        if key == _workloads.STATEFULSETS:
            wanted = [f"{name}-{ordinal}" for ordinal in range(desired)]
            self._delete_pods(p for p in current if p["metadata"]["name"] not in wanted)
            existing = {p["metadata"]["name"] for p in active}
            for pod_name in wanted:
                if pod_name not in existing:
                    self._create_pod(key, obj, revision, pod_name, None)
            return desired
        surplus = len(current) - desired
        if surplus > 0:
            self._delete_pods(sorted(current, key=lambda p: p["metadata"]["name"])[-surplus:])
        prefix = f"{name}-{revision}-" if key == _workloads.DEPLOYMENTS else f"{name}-"
        for _ in range(-surplus):
            self._create_pod(key, obj, revision, prefix + self.registry.random_suffix(), None)
        return (
            desired if key != _workloads.JOBS else int(_json.dig(obj, "spec", "completions") or 1)
        )

    def _nodes_for(self, obj: _json.Obj) -> list[str]:
        selector = _json.dig(obj, "spec", "template", "spec", "nodeSelector") or {}
        return [
            node["metadata"]["name"]
            for node in self.store.list("", "nodes")
            if all(_json.dig(node, "metadata", "labels", k) == v for k, v in selector.items())
        ]

    def _create(self, resource: _resources.ResourceType, obj: _json.Obj) -> None:
        try:
            self.registry.create(resource, obj, write=self._write(resource.api_version()))
        except _errors.ApiError as error:  # e.g. the namespace is being deleted
            log.debug("simulated controller could not create %s: %s", resource.plural, error)

    def _create_pod(
        self, key: tuple[str, str], obj: _json.Obj, revision: str, name: str, node: str | None
    ) -> None:
        template = _json.dig(obj, "spec", "template") or {}
        metadata = template.get("metadata") or {}
        group, _ = key
        labels = {**(metadata.get("labels") or {}), _workloads.HASH_LABEL[key]: revision}
        if key == _workloads.JOBS:
            labels["job-name"] = obj["metadata"]["name"]
        pod: _json.Obj = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": name,
                "namespace": obj["metadata"]["namespace"],
                "labels": labels,
                "ownerReferences": [
                    {
                        "apiVersion": f"{group}/v1",
                        "kind": obj["kind"],
                        "name": obj["metadata"]["name"],
                        "uid": obj["metadata"]["uid"],
                        "controller": True,
                        "blockOwnerDeletion": True,
                    }
                ],
            },
            "spec": _json.clone(template.get("spec") or {}),
        }
        if metadata.get("annotations"):
            pod["metadata"]["annotations"] = _json.clone(metadata["annotations"])
        if node is not None:
            pod["spec"]["nodeName"] = node
        resource = self._builtin(*_PODS)
        self._create(resource, pod)

    def _delete_pods(self, pods: Iterable[_json.Obj]) -> None:
        resource = self._builtin(*_PODS)
        for pod in list(pods):
            metadata = pod["metadata"]
            if self.store.get(*_PODS, metadata["namespace"], metadata["name"]) is not None:
                self.registry.delete(resource, metadata["namespace"], metadata["name"])

    # ---- scheduler and kubelet ---------------------------------------------------------

    def _schedule(self) -> None:
        """Bind each pod due a try to the node it fits best (the node's usage grows as the
        binding is stored), else say why it fits none; then start the kubelet's timer of
        each pod newly bound."""
        resource = self._builtin(*_PODS)
        nodes = [
            n
            for n in self.store.list("", "nodes")
            if not _json.dig(n, "metadata", "deletionTimestamp")
        ]
        for key in self._placement.due():
            pod = self.store.get(*key)
            assert pod is not None, "the placement index holds stored pods only"
            chosen, why = _pods.choose_node(pod, nodes, self._placement.used)
            changed: _json.Obj = _json.clone(pod)
            existing = _json.dig(pod, "status", "conditions") or []
            now = self.registry.now()
            if chosen is None:
                changed["status"]["conditions"] = [
                    _workloads.condition(
                        existing, "PodScheduled", "False", "Unschedulable", why, now
                    )
                ]
                self.registry.save(resource, changed)
                self._placement.tried(key)
                continue
            changed["spec"]["nodeName"] = chosen
            changed["status"]["conditions"] = [
                _workloads.condition(existing, "PodScheduled", "True", "", "", now)
            ]
            self.registry.save(resource, changed)
            self._timers[key] = time.monotonic() + self.ready_delay
        for key in self._placement.newly_bound():
            self._timers.setdefault(key, time.monotonic() + self.ready_delay)

    def _advance_pod(self, key: _store.Key) -> None:
        """The kubelet's part: a bound pod starts; a Job's running pod then succeeds."""
        pod = self.store.get(*key)
        resource = self._builtin(*_PODS)
        if pod is None or not _pods.is_active(pod) or not _json.dig(pod, "spec", "nodeName"):
            return
        changed: _json.Obj = _json.clone(pod)
        now = self.registry.now()
        phase = _json.dig(pod, "status", "phase")
        is_job = (_controller_owner(pod) or ("", ""))[:2] == _workloads.JOBS
        if phase == "Pending":
            changed["status"] = self._running_status(pod, now)
            if is_job:
                self._timers[key] = time.monotonic() + self.ready_delay
        elif phase == "Running" and is_job:
            changed["status"] = self._succeeded_status(pod, now)
        self.registry.save(resource, changed)

    def _running_status(self, pod: _json.Obj, now: str) -> _json.Obj:
        node = self.store.get("", "nodes", "", pod["spec"]["nodeName"])
        addresses = _json.dig(node or {}, "status", "addresses") or []
        host_ip = next((a["address"] for a in addresses if a.get("type") == "InternalIP"), "")
        pod_ip = _registry.ipv4(_POD_NETWORK + self._next_pod_ip)
        self._next_pod_ip += 1
        existing = _json.dig(pod, "status", "conditions") or []
        return {
            "phase": "Running",
            "conditions": [
                _workloads.condition(existing, kind, "True", "", "", now)
                for kind in (
                    "PodReadyToStartContainers",
                    "Initialized",
                    "Ready",
                    "ContainersReady",
                    "PodScheduled",
                )
            ],
            "hostIP": host_ip,
            "hostIPs": [{"ip": host_ip}],
            "podIP": pod_ip,
            "podIPs": [{"ip": pod_ip}],
            "startTime": now,
            "qosClass": _pods.qos_class(pod["spec"]),
            "containerStatuses": [
                {
                    "name": container.get("name", ""),
                    "image": container.get("image", ""),
                    "imageID": "",
                    "containerID": f"containerd://{container.get('name', '')}",
                    "ready": True,
                    "started": True,
                    "restartCount": 0,
                    "state": {"running": {"startedAt": now}},
                }
                for container in pod["spec"].get("containers") or []
            ],
        }

    def _succeeded_status(self, pod: _json.Obj, now: str) -> _json.Obj:
        status: _json.Obj = _json.clone(pod["status"])
        status["phase"] = "Succeeded"
        status["conditions"] = [
            {**c, "status": "False", "reason": "PodCompleted", "lastTransitionTime": now}
            if c.get("type") in ("Ready", "ContainersReady")
            else c
            for c in status.get("conditions") or []
        ]
        for container in status.get("containerStatuses") or []:
            container.update(
                ready=False,
                started=False,
                state={
                    "terminated": {
                        "exitCode": 0,
                        "reason": "Completed",
                        "startedAt": status.get("startTime", now),
                        "finishedAt": now,
                    }
                },
            )
        return status

    # ---- services and volumes ----------------------------------------------------------

    def _load_balancer(self, resource: _resources.ResourceType, service: _json.Obj) -> None:
        if _json.dig(service, "spec", "type") != "LoadBalancer" or _json.dig(
            service, "status", "loadBalancer", "ingress"
        ):
            return
        changed: _json.Obj = _json.clone(service)
        address = _registry.ipv4(_LOAD_BALANCER_NETWORK + self._next_balancer_ip)
        self._next_balancer_ip += 1
        changed["status"] = {"loadBalancer": {"ingress": [{"ip": address, "ipMode": "VIP"}]}}
        self.registry.save(resource, changed)

    def _endpoints(self, namespace: str, deleted: set[str]) -> None:
        """Each Service's Endpoints and EndpointSlice in `namespace` as its pods are now;
        the Endpoints of a deleted Service go (its slice goes with it: the Service owns it)."""
        for name in sorted(deleted):
            if self.store.get(*_ENDPOINTS, namespace, name) is not None:
                self.registry.delete(self._builtin(*_ENDPOINTS), namespace, name)
        services = [s for s in self.store.list(*_SERVICES, namespace) if _endpoints.served(s)]
        if not services:
            return
        pods = self.store.list(*_PODS, namespace)
        slices = self.store.list(*_ENDPOINT_SLICES, namespace)
        for service in services:
            name = service["metadata"]["name"]
            chosen = _endpoints.selected(service, pods)
            self._controlled(self._builtin(*_ENDPOINTS), _endpoints.endpoints(service, chosen))
            owned = [
                s["metadata"]["name"]
                for s in slices
                if _json.dig(s, "metadata", "labels", _endpoints.SERVICE_NAME_LABEL) == name
                and _json.dig(s, "metadata", "labels", _endpoints.MANAGED_BY_LABEL)
                == _endpoints.MANAGED_BY
            ]
            slice_name = owned[0] if owned else f"{name}-{self.registry.random_suffix()}"
            doc = _endpoints.endpoint_slice(service, chosen, slice_name)
            self._controlled(self._builtin(*_ENDPOINT_SLICES), doc)

    def _controlled(self, resource: _resources.ResourceType, doc: _json.Obj) -> None:
        """Create `doc`, or make the stored object say what it says (its metadata kept but for
        labels, every other field as `doc` has it)."""
        metadata = doc["metadata"]
        live = self.store.get(
            resource.group, resource.plural, metadata["namespace"], metadata["name"]
        )
        if live is None:
            self._create(resource, doc)
            return
        changed: _json.Obj = {"metadata": _json.clone(live["metadata"])}
        changed.update({k: _json.clone(v) for k, v in doc.items() if k != "metadata"})
        changed["metadata"].pop("labels", None)
        if metadata.get("labels"):
            changed["metadata"]["labels"] = dict(metadata["labels"])
        self.registry.save(resource, changed)

    def _volume(self, resource: _resources.ResourceType, volume: _json.Obj) -> None:
        """Binds a claim, and makes a volume available, that is still in the `Pending` phase
        the server's defaults give it."""
        if _json.dig(volume, "status", "phase") not in (None, "", "Pending"):
            return
        changed: _json.Obj = _json.clone(volume)
        if resource.plural == "persistentvolumes":
            changed["status"] = {"phase": "Available"}
        else:
            spec = volume.get("spec") or {}
            changed["status"] = {
                "phase": "Bound",
                "accessModes": _json.clone(spec.get("accessModes") or []),
                "capacity": _json.clone(_json.dig(spec, "resources", "requests") or {}),
            }
        self.registry.save(resource, changed)


def _controller_owner(obj: _json.Obj) -> tuple[str, str, str] | None:
    """(group, plural, name) of the workload controlling `obj`, if it is one we simulate."""
    for owner in _json.dig(obj, "metadata", "ownerReferences") or []:
        kind = _workloads.KINDS.get(owner.get("kind", ""))
        if owner.get("controller") and kind is not None:
            return (*kind, owner.get("name", ""))
    return None


def _revision(key: tuple[str, str], obj: _json.Obj) -> str:
    """What labels the workload's current pods: a Job's uid; a ReplicaSet's template hash label
    when its Deployment set one; else a hash of the pod template."""
    if key == _workloads.JOBS:
        return str(obj["metadata"]["uid"])
    template = _json.dig(obj, "spec", "template") or {}
    label = _json.dig(template, "metadata", "labels", _workloads.HASH_LABEL[key])
    if key == _workloads.REPLICASETS and label:
        return str(label)
    return _pods.template_hash(template)


def _owner_uid(obj: _json.Obj) -> str | None:
    for owner in _json.dig(obj, "metadata", "ownerReferences") or []:
        if owner.get("controller"):
            return str(owner.get("uid"))
    return None
