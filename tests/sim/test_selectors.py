"""Label and field selectors on list (and deletecollection), as the API server parses them.

Covers: =, ==, !=, in, notin, exists, !exists and combinations; field selectors on
metadata.name and metadata.namespace, on a kind's own indexed fields (pods by status.phase),
400 for a field the kind does not index (worded as the kind's real server words it) and for a
malformed selector; deletecollection by label; an unparsable set is worded as the server words
it.
"""

from __future__ import annotations

import pytest
from simfixture import RunningSim, config_map, failure, raw

LABELS = {
    "red": {"color": "red", "size": "s"},
    "blue": {"color": "blue", "size": "m"},
    "green": {"color": "green"},
}


@pytest.fixture(name="labelled")
def labelled_fixture(sim_cluster: RunningSim) -> RunningSim:
    for name, labels in LABELS.items():
        sim_cluster.objects.put(config_map(name, labels=labels))
    sim_cluster.objects.put(config_map("elsewhere", "kube-public", labels={"color": "red"}))
    return sim_cluster


def _names(sim: RunningSim, **query: str) -> list[str]:
    found = sim.resource("v1", "ConfigMap").get(**query).items
    return sorted(
        item.metadata.name
        for item in found
        if item.metadata.name in LABELS or item.metadata.name == "elsewhere"
    )


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        pytest.param("color=red", ["red"], id="equals"),
        pytest.param("color==blue", ["blue"], id="double equals"),
        pytest.param("color!=red", ["blue", "green"], id="not equals"),
        pytest.param("color in (red, green)", ["green", "red"], id="in"),
        pytest.param("color notin (red)", ["blue", "green"], id="notin"),
        pytest.param("size", ["blue", "red"], id="exists"),
        pytest.param("!size", ["green"], id="does not exist"),
        pytest.param("size,color!=blue", ["red"], id="combined"),
    ],
)
def test_label_selectors(labelled: RunningSim, selector: str, expected: list[str]) -> None:
    assert _names(labelled, namespace="default", label_selector=selector) == expected


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        pytest.param("metadata.name=blue", ["blue"], id="name"),
        pytest.param("metadata.name!=blue", ["elsewhere", "green", "red"], id="not name"),
        pytest.param("metadata.namespace=kube-public", ["elsewhere"], id="namespace"),
    ],
)
def test_field_selectors(labelled: RunningSim, selector: str, expected: list[str]) -> None:
    assert _names(labelled, field_selector=selector) == expected


def test_pods_select_by_phase(sim_cluster: RunningSim) -> None:
    sim_cluster.objects.put(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "solo", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]},
        }
    )
    pods = sim_cluster.resource("v1", "Pod")
    running = pods.get(namespace="default", field_selector="status.phase=Running").items
    pending = pods.get(namespace="default", field_selector="status.phase=Pending").items
    assert [p.metadata.name for p in running] == ["solo"]
    assert pending == []


@pytest.mark.parametrize(
    "query",
    [
        pytest.param({"field_selector": "spec.color=red"}, id="field not indexed"),
        pytest.param({"label_selector": "color in red"}, id="set without parentheses"),
        pytest.param({"label_selector": "=red"}, id="no key"),
    ],
)
def test_bad_selectors_are_bad_requests(labelled: RunningSim, query: dict[str, str]) -> None:
    maps = labelled.resource("v1", "ConfigMap")
    assert failure(lambda: maps.get(namespace="default", **query)).status == 400


@pytest.mark.parametrize(
    ("path", "message"),
    [
        pytest.param(
            "/api/v1/namespaces/default/configmaps",
            '"spec.x" is not a known field selector: only "metadata.name", "metadata.namespace"',
            id="configmaps",
        ),
        pytest.param(
            "/apis/apps/v1/namespaces/default/deployments",
            '"spec.x" is not a known field selector: only "metadata.name", "metadata.namespace"',
            id="deployments",
        ),
        pytest.param(
            "/api/v1/namespaces/default/pods", "field label not supported: spec.x", id="pods"
        ),
        pytest.param(
            "/apis/batch/v1/namespaces/default/jobs",
            'field label "spec.x" not supported for batchv1.Job',
            id="jobs",
        ),
    ],
)
def test_unknown_field_selector_messages(sim_cluster: RunningSim, path: str, message: str) -> None:
    """Worded as a real API server words them, kind by kind (kubectl prints the message)."""
    code, status = raw(sim_cluster, "GET", f"{path}?fieldSelector=spec.x%3D1")
    assert (code, status["message"]) == (400, message)


def test_delete_collection_by_label(labelled: RunningSim) -> None:
    maps = labelled.resource("v1", "ConfigMap")
    maps.delete(namespace="default", label_selector="size")
    assert _names(labelled, namespace="default") == ["green"]


def test_unparsable_set_is_worded_as_the_server_does(sim_cluster: RunningSim) -> None:
    status, body = raw(
        sim_cluster, "GET", "/api/v1/namespaces/default/configmaps?labelSelector=a%20in"
    )
    assert (status, body["message"]) == (400, "unable to parse requirement: found '' expected: '('")
