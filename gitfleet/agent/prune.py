"""The prune guard: a sync that would delete much of what gitfleet manages in a cluster stops.

A render that lost a policy, a cluster renamed by mistake or a rendered branch reset to an
empty tree all look like "delete everything". Before any write, the sync compares what it
would delete (objects of the inventory that are no longer desired) with what the inventory
holds; above `max_share` (default one half) it refuses the whole sync, applies nothing and
reports why. An empty desired set with a non-empty inventory is always refused. The rendered
commit, or the source commit it was rendered from, lifts the guard with the trailer
`Gitfleet-Allow-Prune: all` (or a comma-separated list of cluster names) — see
`workdir.allows_prune`.

An inventory entry is named by group, kind, namespace and name, but an API server may serve
one stored object under two groups: Ingress in `extensions/v1beta1` and `networking.k8s.io`
until Kubernetes 1.22, Deployments in `extensions` and `apps` before 1.16, Events in the core
group and `events.k8s.io`. A template moved from one such group to the other leaves an entry
of the old group that names the object just applied under the new one. Its `namesakes`, the
desired objects of the same kind, namespace and name in another group, are what the applier
compares it with by uid (`apply`), rather than a table of such groups that would age with
every release: the same uid is the same object, kept and recorded under the desired group
only, and no deletion for the guard.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from gitfleet.agent import identity, inventory, workdir

DEFAULT_MAX_SHARE = 0.5


def _how(emptied: bool) -> str:
    """How to lift the guard. The trailer counts only on the commit a render of the deletion is
    made from: a later commit that changes nothing for the cluster makes no new render of it.
    A larger share lifts it too, except for an emptied folder (`emptied`), which it never
    lifts: offering it there would send the user round in a circle."""
    share = "" if emptied else "run the agent once with --max-prune-share 1, or "
    return (
        f"to allow it, add the trailer '{workdir.ALLOW_PRUNE_TRAILER}: all' to the source commit"
        " that deletes them (once that commit is rendered, a later commit's trailer no longer"
        f" counts: {share}revert and delete again with the trailer)"
    )


def refusal(
    *,
    cluster: str,
    deleting: int,
    managed: int,
    desired: int,
    max_share: float = DEFAULT_MAX_SHARE,
    allowed: bool = False,
) -> str:
    """Why the sync must not run ("" when it may): the guard's verdict."""
    if allowed or deleting == 0:
        return ""
    if desired == 0:
        return (
            f"refusing to delete all {managed} objects gitfleet manages in cluster {cluster}:"
            f" the rendered commit has no manifests for it; {_how(emptied=True)}"
        )
    if deleting > max_share * managed:
        return (
            f"refusing to delete {deleting} of the {managed} objects gitfleet manages in"
            f" cluster {cluster} (more than {max_share:.0%}); {_how(emptied=False)}"
        )
    return ""


Namesakes = Mapping[identity.ObjectRef, tuple[identity.ObjectRef, ...]]


def namesakes(
    leftovers: Iterable[inventory.Entry], desired: Iterable[identity.ObjectRef]
) -> Namesakes:
    """For each leftover with any, the desired objects of its kind, namespace and name (in
    another group, since the leftover is not desired): the objects a server that serves the
    kind in both groups would hold as the leftover itself. Most syncs have none."""
    by_name: dict[tuple[str, str, str], list[identity.ObjectRef]] = {}
    for ref in desired:
        by_name.setdefault((ref.kind, ref.namespace, ref.name), []).append(ref)
    found = {}
    for entry in leftovers:
        same = by_name.get((entry.ref.kind, entry.ref.namespace, entry.ref.name))
        if same:
            found[entry.ref] = tuple(sorted(same))
    return found
