"""What the simulated scheduler and kubelet read of the pods, kept up to date on every write
(a store `Index`) instead of found by walking every pod after each write: each node's usage
(the requests and the number of active pods bound to it, as `_pods.choose_node` takes it),
the pods waiting for a node that are due a try, and the pods bound but not started that
appeared since last asked. So scheduling costs what changed, not the cluster's size, as the
kube-scheduler's queue and node cache make it.

A waiting pod is due a try when it is new or written, or when room on the nodes may have
changed since its last try (a node written, a pod's usage of a node changed): trying it
again with nothing changed would find what its last try found, and write nothing.
"""

from __future__ import annotations

from fractions import Fraction

from gitfleet.sim import _json, _pods, _store

_PODS = ("", "pods")
_NODES = ("", "nodes")

Usage = tuple[str, tuple[tuple[str, Fraction], ...]]
"""What one pod uses: (node, ((resource, amount), ...))."""


def _waiting(pod: _json.Obj | None) -> bool:
    """Active and Pending: the scheduler's (unbound) or the kubelet's (bound) to act on."""
    return (
        pod is not None and _pods.is_active(pod) and _json.dig(pod, "status", "phase") == "Pending"
    )


def _bound(pod: _json.Obj | None) -> bool:
    return bool(_json.dig(pod or {}, "spec", "nodeName"))


def _usage(pod: _json.Obj | None) -> Usage | None:
    """What an active bound pod uses of its node; None for any other."""
    if pod is None or not _bound(pod) or not _pods.is_active(pod):
        return None
    wanted = _pods.requests(pod.get("spec") or {})
    wanted["pods"] = wanted.get("pods", Fraction(0)) + 1
    return (pod["spec"]["nodeName"], tuple(sorted(wanted.items())))


class Placement:
    """Pods by what the scheduler and kubelet do next, and the usage of each node."""

    def __init__(self) -> None:
        self._unbound: set[_store.Key] = set()
        self._due: set[_store.Key] = set()
        self._bound: dict[_store.Key, None] = {}
        self.used: dict[str, dict[str, Fraction]] = {}
        """Per node: the summed requests and the number of active pods bound to it."""

    def due(self) -> list[_store.Key]:
        """The pods waiting for a node that are due a try, in (namespace, name) order."""
        return sorted(self._due)

    def tried(self, key: _store.Key) -> None:
        """The scheduler tried the pod `key` (and stored what it found)."""
        self._due.discard(key)

    def newly_bound(self) -> list[_store.Key]:
        """The pods bound and Pending since the last call, in (namespace, name) order."""
        found, self._bound = sorted(self._bound), {}
        return found

    def changed(
        self, group: str, plural: str, old: _json.Obj | None, new: _json.Obj | None
    ) -> None:
        if (group, plural) == _NODES:
            self._due |= self._unbound
        if (group, plural) != _PODS:
            return
        key = _store.key_of(group, plural, old or new or {})
        before, after = _usage(old), _usage(new)
        if before != after:
            self._count(before, -1)
            self._count(after, 1)
            self._due |= self._unbound
        if _waiting(new) and not _bound(new):
            self._unbound.add(key)
            self._due.add(key)
        else:
            self._unbound.discard(key)
            self._due.discard(key)
        if _waiting(new) and _bound(new) and not (_waiting(old) and _bound(old)):
            self._bound[key] = None

    def _count(self, usage: Usage | None, sign: int) -> None:
        """Add (sign 1) or take away (-1) what a pod uses of its node."""
        if usage is None:
            return
        node, amounts = usage
        placed = self.used.setdefault(node, {})
        for resource, amount in amounts:
            placed[resource] = placed.get(resource, Fraction(0)) + sign * amount
        if not placed["pods"]:
            del self.used[node]
