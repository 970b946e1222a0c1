"""Watches through the kubernetes client's Watch over the DynamicClient.

Covers: events after a resourceVersion (ADDED, MODIFIED, DELETED, in order, with growing
resourceVersions), each replayed with the object as that change left it, whatever came
after (merge patch, server-side apply, replace, label change, delete); synthetic ADDED
events for existing objects when no resourceVersion is given; timeoutSeconds ends the
stream; a label-selected watch sees an object leave the selection as DELETED; a
resourceVersion older than the kept history is 410 Expired; bookmarks carry the latest
resourceVersion.
"""

from __future__ import annotations

from typing import Any

import pytest
from simfixture import RunningSim, config_map


def _events(sim: RunningSim, count: int, **options: Any) -> list[tuple[str, str, int]]:
    """The first `count` events of a watch on ConfigMaps in `default` (fewer if the server
    ends the watch first: it gives up after 5 seconds)."""
    from kubernetes import watch

    maps = sim.resource("v1", "ConfigMap")
    watcher = watch.Watch()
    found = []
    for event in maps.watch(namespace="default", timeout=5, watcher=watcher, **options):
        metadata = event["object"].metadata
        found.append((event["type"], metadata.name, int(metadata.resourceVersion)))
        if len(found) == count:
            watcher.stop()
    return found


def test_watch_from_resource_version_replays_changes(sim_cluster: RunningSim) -> None:
    maps = sim_cluster.resource("v1", "ConfigMap")
    start = maps.get(namespace="default").metadata.resourceVersion
    maps.create(body=config_map("w", value="1"), namespace="default")
    maps.patch(
        name="w",
        namespace="default",
        body={"data": {"value": "2"}},
        content_type="application/merge-patch+json",
    )
    maps.delete(name="w", namespace="default")
    events = _events(sim_cluster, 3, resource_version=start)
    assert [(kind, name) for kind, name, _ in events] == [
        ("ADDED", "w"),
        ("MODIFIED", "w"),
        ("DELETED", "w"),
    ]
    versions = [version for _, _, version in events]
    assert versions == sorted(versions) and len(set(versions)) == 3


def test_replayed_events_show_each_version_as_it_was(sim_cluster: RunningSim) -> None:
    from kubernetes import watch

    maps = sim_cluster.resource("v1", "ConfigMap")
    start = maps.get(namespace="default").metadata.resourceVersion
    written = [maps.create(body=config_map("v", value="1"), namespace="default")]
    written.append(
        maps.patch(
            name="v",
            namespace="default",
            body={"data": {"value": "2"}},
            content_type="application/merge-patch+json",
        )
    )
    written.append(
        maps.server_side_apply(
            body=config_map("v", value="3"),
            namespace="default",
            field_manager="test",
            force_conflicts=True,
        )
    )
    replaced = config_map("v", labels={"step": "four"}, value="4")
    replaced["metadata"]["resourceVersion"] = written[-1].metadata.resourceVersion
    written.append(maps.replace(body=replaced, namespace="default"))
    maps.delete(name="v", namespace="default")
    seen = []
    watcher = watch.Watch()
    for event in maps.watch(
        namespace="default", timeout=5, watcher=watcher, resource_version=start
    ):
        shown = event["raw_object"]
        seen.append(
            (
                event["type"],
                shown["data"]["value"],
                shown["metadata"].get("labels"),
                shown["metadata"]["resourceVersion"],
            )
        )
        if len(seen) == 5:
            watcher.stop()
    versions = [w.metadata.resourceVersion for w in written]
    assert seen[:4] == [
        ("ADDED", "1", None, versions[0]),
        ("MODIFIED", "2", None, versions[1]),
        ("MODIFIED", "3", None, versions[2]),
        ("MODIFIED", "4", {"step": "four"}, versions[3]),
    ]
    kind, value, _, gone = seen[4]
    assert (kind, value) == ("DELETED", "4") and int(gone) > int(versions[3])


def test_watch_without_version_starts_with_existing_objects(sim_cluster: RunningSim) -> None:
    sim_cluster.objects.put(config_map("present"))
    existing = len(sim_cluster.objects.list("v1", "ConfigMap", "default"))
    events = _events(sim_cluster, existing)
    assert ("ADDED", "present") in [(kind, name) for kind, name, _ in events]
    assert {kind for kind, _, _ in events} == {"ADDED"}


def test_watch_sees_object_leave_its_selection(sim_cluster: RunningSim) -> None:
    maps = sim_cluster.resource("v1", "ConfigMap")
    start = maps.get(namespace="default").metadata.resourceVersion
    maps.create(body=config_map("sel", labels={"watched": "yes"}), namespace="default")
    maps.patch(
        name="sel",
        namespace="default",
        body={"metadata": {"labels": {"watched": "no"}}},
        content_type="application/merge-patch+json",
    )
    events = _events(sim_cluster, 2, resource_version=start, label_selector="watched=yes")
    assert [(kind, name) for kind, name, _ in events] == [("ADDED", "sel"), ("DELETED", "sel")]


def test_watch_from_forgotten_version_is_expired(make_sim_cluster: Any) -> None:
    from kubernetes.client import exceptions

    sim = make_sim_cluster(event_history=5)
    for index in range(10):
        sim.objects.put(config_map(f"c{index}"))
    with pytest.raises(exceptions.ApiException) as raised:
        _events(sim, 1, resource_version="1")
    assert raised.value.status == 410


def test_watch_ends_at_its_timeout_with_a_bookmark(sim_cluster: RunningSim) -> None:
    maps = sim_cluster.resource("v1", "ConfigMap")
    start = maps.get(namespace="default").metadata.resourceVersion
    sim_cluster.objects.put(config_map("unwatched", "kube-public"))
    latest = sim_cluster.resource("v1", "ConfigMap").get().metadata.resourceVersion
    events = list(
        maps.watch(
            namespace="default", timeout=1, resource_version=start, allow_watch_bookmarks=True
        )
    )
    assert [event["type"] for event in events] == ["BOOKMARK"]
    assert events[0]["object"].metadata.resourceVersion == latest
