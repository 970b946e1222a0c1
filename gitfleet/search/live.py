"""`gitfleet get --live`: a kind's objects read now from a Push cluster's API server, through
the kubeconfig the push agent uses from the same folder (`<dir>/<namespace>/<name>.yaml` of
the Cluster's `spec.secretRef` when that file exists, else `<dir>/<cluster>.yaml`:
`fleet.kubeconfig_for`), as karmadactl reads members through
Karmada's cluster proxy. Pull clusters cannot be reached from outside by design, and a Push
cluster that does not answer is no reason to show nothing: both are left to their reports,
with the reason (`Outcome.fallback`).

The kind's version is the group's preferred one, from the cluster's discovery (`/apis/<group>`),
as kubectl picks it. The kubernetes client is imported only when a cluster is asked.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from gitfleet import errors, search
from gitfleet.agent import fleet, kube
from gitfleet.model import cluster as clusters

RETRY = kube.Retry(attempts=2, base=0.2, cap=0.2, timeout=(3.0, 15.0))
"""A command waits for an answer a few seconds, not as patiently as an agent."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    found: tuple[search.Found, ...] = ()
    fallback: str = ""
    """Why the cluster was not read live ("" when it was)."""


def _version(client: kube.KubeClient, group: str) -> str:
    if not group:
        return "v1"
    discovered = client.get_path(f"/apis/{group}")
    preferred = (discovered or {}).get("preferredVersion") or {}
    version = preferred.get("groupVersion")
    if not isinstance(version, str):
        raise kube.NotServedError(f"the cluster does not serve the group {group}", code=404)
    return version


def read(
    cluster: str,
    member: clusters.Cluster | None,
    kubeconfig_dir: Path,
    query: search.Query,
    label_selector: str,
) -> Outcome:
    """The cluster's objects of the kind asked for, annotated with the cluster (`member`: its
    Cluster in the source, None when the source does not declare it)."""
    if member is not None and member.spec.sync_mode == "Pull":
        return Outcome(fallback="a Pull cluster is not reachable from here")
    target = fleet.kubeconfig_for(kubeconfig_dir, member, cluster)
    kubeconfig = target.kubeconfig
    if kubeconfig is None:
        return Outcome(fallback=target.problem)
    client = kube.KubeClient(kubeconfig, name=cluster, retry=RETRY)
    try:
        rtype = client.resource_type(_version(client, query.group), query.kind)
        listed = client.list_objects(rtype, label_selector)
    except (kube.NotServedError, errors.NotFoundError):
        return Outcome()
    except errors.ClusterAPIError as exc:
        return Outcome(fallback=str(exc))
    finally:
        client.close()
    found = (
        search.Found(cluster=cluster, obj=search.annotated(o, cluster), live=True) for o in listed
    )
    return Outcome(found=tuple(f for f in found if query.matches(f.obj)))
