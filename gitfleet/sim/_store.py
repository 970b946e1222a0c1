"""The object store of one simulated cluster: objects by resource, the cluster-wide
resourceVersion counter, and the event log that watches read.

One re-entrant lock guards everything; the condition `changed` wakes watches and the
controller after each write. Objects are kept as private dicts: the store hands out
references only to code in this package that holds the lock and copies before exposing, and
an object is never changed once stored (a write stores a new one). So the event log shares
the stored objects: each version is held once, however many events name it (a cluster of
thousands of pods otherwise holds every version twice over, up to the log's length).
Versions of a group share storage: an object is kept once per (group, plural) and served
with the apiVersion the client asked for (no conversion, like a CRD with `strategy: None`).

Objects are kept by namespace, and the objects naming each owner uid in their
ownerReferences are indexed, so that reading one namespace or one owner's dependents costs
what it holds, not what the cluster holds; other indexes (`Index`) are kept up to date on
every write for the same reason.
"""

from __future__ import annotations

import builtins
import collections
import dataclasses
import itertools
import threading
from collections.abc import Iterator
from typing import Protocol

from gitfleet.sim import _json, _resources

ADDED, MODIFIED, DELETED = "ADDED", "MODIFIED", "DELETED"
EVENT_LOG_SIZE = 20_000

Key = tuple[str, str, str, str]
"""(group, plural, namespace, name); namespace is "" for cluster-scoped objects."""


@dataclasses.dataclass(frozen=True, slots=True)
class Event:
    """One change, as watches replay it. `old` is the object before a MODIFIED change."""

    resource_version: int
    type: str
    group: str
    plural: str
    obj: _json.Obj
    old: _json.Obj | None


class Index(Protocol):
    """A view of the store kept up to date on every write (`Store.add_index`)."""

    def changed(
        self, group: str, plural: str, old: _json.Obj | None, new: _json.Obj | None
    ) -> None:
        """`old` (None: created) became `new` (None: removed)."""


def key_of(group: str, plural: str, obj: _json.Obj) -> Key:
    metadata = obj.get("metadata") or {}
    return (group, plural, metadata.get("namespace", ""), metadata["name"])


class Store:
    """Objects, resourceVersions and events of one cluster. Hold `lock` around every call."""

    def __init__(self, *, history: int = EVENT_LOG_SIZE) -> None:
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)
        self.catalog = _resources.catalog()
        self._objects: dict[tuple[str, str], dict[str, dict[str, _json.Obj]]] = {}
        """Objects by (group, plural), then namespace, then name."""
        self._uids: dict[str, Key] = {}
        self._dependents: dict[str, dict[Key, None]] = {}
        """Keys of the objects naming each uid in their ownerReferences."""
        self._indexes: list[Index] = []
        self._version = 0
        self._events: collections.deque[Event] = collections.deque(maxlen=history)
        self._changes: list[Event] = []

    @property
    def resource_version(self) -> int:
        return self._version

    def add_index(self, index: Index) -> None:
        """Keep `index` up to date from now on, starting with every object stored."""
        for (group, plural), namespaces in sorted(self._objects.items()):
            for _, objects in sorted(namespaces.items()):
                for _, obj in sorted(objects.items()):
                    index.changed(group, plural, None, obj)
        self._indexes.append(index)

    def get(self, group: str, plural: str, namespace: str, name: str) -> _json.Obj | None:
        return self._objects.get((group, plural), {}).get(namespace, {}).get(name)

    def by_uid(self, uid: str) -> _json.Obj | None:
        key = self._uids.get(uid)
        return None if key is None else self.get(*key)

    def list(self, group: str, plural: str, namespace: str | None = None) -> list[_json.Obj]:
        """Objects of a resource in etcd order (namespace, then name); one namespace if given."""
        found = self._objects.get((group, plural), {})
        chosen = sorted(found) if namespace is None else [namespace]
        return [
            objects[name]
            for ns in chosen
            for objects in (found.get(ns, {}),)
            for name in sorted(objects)
        ]

    def dependents(self, uid: str) -> builtins.list[Key]:
        """Keys of the objects naming `uid` as an owner, in (group, plural, namespace, name)
        order."""
        return sorted(self._dependents.get(uid, {}))

    def resources(self) -> Iterator[tuple[str, str]]:
        """(group, plural) of every resource holding objects."""
        return iter(sorted(group_plural for group_plural, objs in self._objects.items() if objs))

    def put(self, group: str, plural: str, obj: _json.Obj) -> _json.Obj:
        """Store `obj` (taken over, not copied) under a new resourceVersion; returns it."""
        key = key_of(group, plural, obj)
        objects = self._objects.setdefault((group, plural), {}).setdefault(key[2], {})
        old = objects.get(key[3])
        self._version += 1
        obj["metadata"]["resourceVersion"] = str(self._version)
        objects[key[3]] = obj
        uid = obj["metadata"].get("uid")
        if uid:
            self._uids[uid] = key
        self._index(key, old, obj)
        self._record(Event(self._version, MODIFIED if old else ADDED, group, plural, obj, old))
        return obj

    def remove(self, group: str, plural: str, namespace: str, name: str) -> _json.Obj | None:
        """Drop an object; the DELETED event carries a new resourceVersion, as etcd's does."""
        namespaces = self._objects.get((group, plural), {})
        obj = namespaces.get(namespace, {}).pop(name, None)
        if obj is None:
            return None
        if not namespaces[namespace]:
            del namespaces[namespace]
        self._uids.pop(obj["metadata"].get("uid", ""), None)
        self._index((group, plural, namespace, name), obj, None)
        self._version += 1
        gone = {**obj, "metadata": {**obj["metadata"], "resourceVersion": str(self._version)}}
        self._record(Event(self._version, DELETED, group, plural, gone, None))
        return gone

    def _index(self, key: Key, old: _json.Obj | None, new: _json.Obj | None) -> None:
        before, after = _owner_uids(old), _owner_uids(new)
        for uid in before - after:
            dependents = self._dependents[uid]
            del dependents[key]
            if not dependents:
                del self._dependents[uid]
        for uid in after - before:
            self._dependents.setdefault(uid, {})[key] = None
        for index in self._indexes:
            index.changed(key[0], key[1], old, new)

    def _record(self, event: Event) -> None:
        self._events.append(event)
        self._changes.append(event)
        if (event.group, event.plural) == ("apiextensions.k8s.io", "customresourcedefinitions"):
            self._refresh_catalog()
        self.changed.notify_all()

    def _refresh_catalog(self) -> None:
        custom = []
        for crd in self.list("apiextensions.k8s.io", "customresourcedefinitions"):
            conditions = _json.dig(crd, "status", "conditions") or []
            if any(
                c.get("type") == "Established" and c.get("status") == "True" for c in conditions
            ):
                found = _resources.from_crd(crd)
                if found is not None:
                    custom.append(found)
        self.catalog = _resources.catalog(custom)

    def events_after(self, resource_version: int) -> builtins.list[Event] | None:
        """Events newer than `resource_version`, or None if the log no longer reaches back
        that far (the watch must then fail with 410 Gone)."""
        if resource_version >= self._version:
            return []
        first = self._events[0].resource_version if self._events else self._version + 1
        if first > resource_version + 1:
            return None
        # resourceVersions are contiguous: each one is exactly one event.
        start = resource_version + 1 - first
        return list(itertools.islice(self._events, start, None))

    def drain_changes(self) -> builtins.list[Event]:
        """Events since the last call (for the controller), oldest first."""
        changes, self._changes = self._changes, []
        return changes

    def has_changes(self) -> bool:
        return bool(self._changes)


def _owner_uids(obj: _json.Obj | None) -> set[str]:
    references = _json.dig(obj or {}, "metadata", "ownerReferences") or []
    return {r["uid"] for r in references if isinstance(r, dict) and isinstance(r.get("uid"), str)}
