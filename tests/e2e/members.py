"""Member clusters for the end-to-end scenarios that run on both kinds of member: simulated
(`gitfleet.sim`, in this process) and real (the kube-apiservers of tests/realk8s.py, or
clusters named by `GITFLEET_REALK8S`).

Tests read and change members only through the official kubernetes client over each member's
kubeconfig, so an assertion means the same on both. A real member gets what its simulated twin
starts with and a real server without kubelets lacks: the same Node objects (capacity, region
and zone labels), made by the simulator's own node builder.

The pull agent runs with the credentials its printed manifests give it: on a real member the
printed Namespace, ServiceAccount and RBAC are applied and the agent authenticates as that
service account, so a permission the printed RBAC lacks fails the scenario. The simulator
checks no permissions; there the agent gets the administrator's kubeconfig.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import realk8s_session
import yaml

from gitfleet import sim
from gitfleet.agent import manifests
from gitfleet.demo import simulated
from gitfleet.sim import _bootstrap, _quantity

Ref = tuple[str, str, str, str]
"""apiVersion, kind, namespace, name."""

AGENT_ACCOUNT = realk8s_session.PULL_AGENT

_RBAC_KINDS = frozenset(
    {"Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"}
)


@dataclasses.dataclass
class Members:
    """Started member clusters, one per plan, and how to reach each."""

    kind: str
    """`sim` or `real`."""
    folder: Path
    """`<cluster>.yaml` administrator kubeconfigs: the push agent's --kubeconfig-dir."""
    agent_kubeconfigs: dict[str, Path] = dataclasses.field(default_factory=dict)
    """Per cluster, the kubeconfig its pull agent gets."""
    stops: list[Callable[[], None]] = dataclasses.field(default_factory=list)
    _clients: dict[str, Any] = dataclasses.field(default_factory=dict)

    def kubeconfig(self, cluster: str) -> Path:
        return self.folder / f"{cluster}.yaml"

    def api(self, cluster: str) -> Any:
        """A DynamicClient for `cluster` as its administrator."""
        if cluster not in self._clients:
            from kubernetes import config, dynamic

            client = config.new_client_from_config(config_file=str(self.kubeconfig(cluster)))
            self._clients[cluster] = dynamic.DynamicClient(client)
        return self._clients[cluster]

    def resource(self, cluster: str, api_version: str, kind: str) -> Any:
        return self.api(cluster).resources.get(api_version=api_version, kind=kind)

    def get(self, cluster: str, api_version: str, kind: str, name: str, ns: str = "") -> Any:
        """The live object as a dict, None if absent."""
        from kubernetes.dynamic import exceptions

        try:
            found = self.resource(cluster, api_version, kind).get(name=name, namespace=ns or None)
        except (exceptions.NotFoundError, exceptions.ResourceNotFoundError):
            return None
        return found.to_dict()

    def version(self, cluster: str) -> str:
        """The member's Kubernetes version, as its /version says."""
        from kubernetes import client

        return str(client.VersionApi(self.api(cluster).client).get_code().git_version)

    def resource_versions(self, cluster: str, refs: Iterable[Ref]) -> dict[Ref, str]:
        """The resourceVersion of each object of `refs` that exists."""
        found = {}
        for api_version, kind, namespace, name in refs:
            live = self.get(cluster, api_version, kind, name, namespace)
            if live is not None:
                found[(api_version, kind, namespace, name)] = live["metadata"]["resourceVersion"]
        return found

    def close(self) -> None:
        for client in self._clients.values():
            client.client.close()
        for stop in reversed(self.stops):
            stop()


def simulated_members(folder: Path, plans: Sequence[simulated.ClusterPlan]) -> Members:
    """One simulated cluster per plan, as `gitfleet sim --from-repo` starts them."""
    members = Members("sim", folder)
    for plan in plans:
        cluster = sim.SimCluster(plan.name, **{"ready_delay": 0, **plan.options})
        cluster.start()
        members.stops.append(cluster.stop)
        cluster.kubeconfig(members.kubeconfig(plan.name))
        members.agent_kubeconfigs[plan.name] = members.kubeconfig(plan.name)
    return members


def real_members(
    folder: Path,
    plans: Sequence[simulated.ClusterPlan],
    kubeconfig: Callable[[str, str], Path],
    *,
    add_nodes: bool,
) -> Members:
    """Members already running; `kubeconfig(cluster, user)` writes a kubeconfig for a user
    ("admin", or a service account's user name). Each gets the pull agent's printed RBAC
    (applied, as an operator applies it: the tier's servers are shared, and another test may
    have applied it before) and,
    with `add_nodes` (servers without kubelets), its simulated twin's nodes."""
    members = Members("real", folder)
    folder.mkdir(parents=True, exist_ok=True)
    for plan in plans:
        members.kubeconfig(plan.name).write_bytes(kubeconfig(plan.name, "admin").read_bytes())
        if add_nodes:
            _add_nodes(members, plan)
        for doc in agent_rbac(plan.name):
            namespace = (doc.get("metadata") or {}).get("namespace")
            members.resource(plan.name, doc["apiVersion"], doc["kind"]).server_side_apply(
                body=doc, namespace=namespace, field_manager="operator"
            )
        members.agent_kubeconfigs[plan.name] = kubeconfig(plan.name, AGENT_ACCOUNT.user)
    return members


def agent_rbac(cluster: str) -> list[dict[str, Any]]:
    """What an operator applies from `agent pull --print-manifests` before the Deployment:
    the Namespace, the ServiceAccount and its RBAC."""
    printed = yaml.safe_load_all(manifests.render(cluster=cluster, repo="file:///fleet"))
    return [doc for doc in printed if doc and doc.get("kind") in _RBAC_KINDS]


def _add_nodes(members: Members, plan: simulated.ClusterPlan) -> None:
    """The Node objects the simulator starts `plan`'s cluster with (status written through
    the status subresource, as a kubelet does)."""
    options = plan.options
    count = int(options.get("nodes", 3))
    capacity = options.get("capacity")
    shares = (
        _quantity.split(capacity, count)
        if capacity
        else [dict(_bootstrap.DEFAULT_NODE_ALLOCATABLE)] * count
    )
    nodes = members.resource(plan.name, "v1", "Node")
    names = _bootstrap.node_names(plan.name, count)
    for index, (name, share) in enumerate(zip(names, shares, strict=True), start=1):
        body = _bootstrap.node(
            name, index, share, options.get("node_labels", {}), members.version(plan.name)
        )
        status = body.pop("status")
        for condition in status["conditions"]:
            condition.pop("lastHeartbeatTime")
            condition.pop("lastTransitionTime")
        nodes.create(body=body)
        nodes.status.patch(
            name=name, body={"status": status}, content_type="application/merge-patch+json"
        )
