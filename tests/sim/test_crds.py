"""CustomResourceDefinitions: a new kind appears, is served and goes away with its objects.

Covers: a created CRD becomes Established (conditions, acceptedNames, storedVersions); its
kind appears in discovery with shortNames and a status subresource, every served version
preferred by Kubernetes' ordering; custom resources of a namespaced and a cluster-scoped CRD
round-trip, read through either served version; a status write leaves the spec alone and does
not bump generation; deleting the CRD deletes its objects and the kind leaves discovery; an
invalid CRD is 422; a custom resource is checked against its CRD's schema (a wrong type is
422, worded as apiextensions-apiserver words it) and its unknown fields are pruned (refused
under fieldValidation=Strict, warned about by default), but kept where the schema preserves
them.
"""

from __future__ import annotations

from typing import Any

import pytest
from simfixture import (
    GADGETS_CRD,
    WIDGETS_CRD,
    RunningSim,
    crd,
    exchange,
    failure,
    raw,
    status_of,
)

CRD_API = "apiextensions.k8s.io/v1"


def _widget(name: str, size: int = 1, version: str = "v1") -> dict[str, Any]:
    return {
        "apiVersion": f"example.com/{version}",
        "kind": "Widget",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"size": size},
    }


def test_crd_becomes_established(sim_cluster: RunningSim, widget_crd: dict[str, Any]) -> None:
    crd = sim_cluster.resource(CRD_API, "CustomResourceDefinition").get(name="widgets.example.com")
    conditions = {c.type: c.status for c in crd.status.conditions}
    assert conditions == {"NamesAccepted": "True", "Established": "True"}
    assert crd.status.acceptedNames.kind == "Widget"
    assert crd.status.storedVersions == ["v1"]


def test_crd_kind_appears_in_discovery(sim_cluster: RunningSim, widget_crd: dict[str, Any]) -> None:
    _, group = raw(sim_cluster, "GET", "/apis/example.com")
    _, resources = raw(sim_cluster, "GET", "/apis/example.com/v1")
    by_name = {r["name"]: r for r in resources["resources"]}
    assert [v["version"] for v in group["versions"]] == ["v1", "v1beta1"]
    assert group["preferredVersion"]["version"] == "v1"
    assert by_name["widgets"]["shortNames"] == ["wd"]
    assert by_name["widgets"]["namespaced"] is True
    assert "widgets/status" in by_name


def test_custom_resources_round_trip_in_every_served_version(
    sim_cluster: RunningSim, widget_crd: dict[str, Any]
) -> None:
    widgets = sim_cluster.resource("example.com/v1", "Widget")
    created = widgets.create(body=_widget("w1", 3), namespace="default")
    older = sim_cluster.resource("example.com/v1beta1", "Widget").get(
        name="w1", namespace="default"
    )
    assert created.spec.size == 3
    assert older.apiVersion == "example.com/v1beta1"
    assert older.metadata.uid == created.metadata.uid
    assert [w.metadata.name for w in widgets.get(namespace="default").items] == ["w1"]
    widgets.delete(name="w1", namespace="default")
    assert failure(lambda: widgets.get(name="w1", namespace="default")).status == 404


def test_cluster_scoped_custom_resources(sim_cluster: RunningSim) -> None:
    definition = crd("regions.geo.example.com", "geo.example.com", "Region", scope="Cluster")
    sim_cluster.resource(CRD_API, "CustomResourceDefinition").create(body=definition)
    regions = sim_cluster.resource("geo.example.com/v1", "Region")
    regions.create(
        body={
            "apiVersion": "geo.example.com/v1",
            "kind": "Region",
            "metadata": {"name": "eu"},
        }
    )
    assert regions.namespaced is False
    assert regions.get(name="eu").metadata.name == "eu"


def test_status_subresource_of_custom_resource(
    sim_cluster: RunningSim, widget_crd: dict[str, Any]
) -> None:
    widgets = sim_cluster.resource("example.com/v1", "Widget")
    created = widgets.create(body=_widget("w1", 1), namespace="default")
    body = dict(created.to_dict(), status={"ready": True}, spec={"size": 5})
    status, updated = raw(
        sim_cluster, "PUT", "/apis/example.com/v1/namespaces/default/widgets/w1/status", body=body
    )
    assert status == 200
    assert (updated["status"], updated["spec"]) == ({"ready": True}, {"size": 1})
    assert updated["metadata"]["generation"] == 1
    main = dict(updated, status={"ready": False})
    status, replaced = raw(
        sim_cluster, "PUT", "/apis/example.com/v1/namespaces/default/widgets/w1", body=main
    )
    assert replaced["status"] == {"ready": True}


def test_deleting_the_crd_deletes_its_objects(
    sim_cluster: RunningSim, widget_crd: dict[str, Any]
) -> None:
    sim_cluster.resource("example.com/v1", "Widget").create(body=_widget("w1"), namespace="default")
    sim_cluster.resource(CRD_API, "CustomResourceDefinition").delete(name="widgets.example.com")
    assert (
        sim_cluster.objects.get(CRD_API, "CustomResourceDefinition", "widgets.example.com") is None
    )
    status, _ = raw(sim_cluster, "GET", "/apis/example.com/v1/namespaces/default/widgets")
    assert status == 404
    with pytest.raises(KeyError):
        sim_cluster.objects.list("example.com/v1", "Widget")


def test_recreated_crd_starts_empty(sim_cluster: RunningSim, widget_crd: dict[str, Any]) -> None:
    definitions = sim_cluster.resource(CRD_API, "CustomResourceDefinition")
    sim_cluster.resource("example.com/v1", "Widget").create(body=_widget("w1"), namespace="default")
    definitions.delete(name="widgets.example.com")
    definitions.create(body=WIDGETS_CRD)
    assert sim_cluster.objects.list("example.com/v1", "Widget") == []


def test_invalid_crd_is_refused(sim_cluster: RunningSim) -> None:
    definition = crd("wrong.example.com", "example.com", "Thing")
    error = failure(
        lambda: sim_cluster.resource(CRD_API, "CustomResourceDefinition").create(body=definition)
    )
    fields = [c["field"] for c in status_of(error)["details"]["causes"]]
    assert (error.status, fields) == (422, ["metadata.name"])


GADGETS = "/apis/example.com/v1/namespaces/default/gadgets"


def _gadget(spec: dict[str, Any], name: str = "g") -> dict[str, Any]:
    return {
        "apiVersion": "example.com/v1",
        "kind": "Gadget",
        "metadata": {"name": name},
        "spec": spec,
    }


def test_custom_resources_are_checked_against_their_schema(sim_cluster: RunningSim) -> None:
    sim_cluster.objects.put(GADGETS_CRD)
    status, body = raw(sim_cluster, "POST", GADGETS, body=_gadget({"count": "two"}))
    assert (status, body["reason"]) == (422, "Invalid")
    assert body["message"] == (
        'Gadget.example.com "g" is invalid: spec.count: Invalid value: "string": spec.count in '
        'body must be of type integer: "string"'
    )


def test_unknown_fields_of_custom_resources_are_pruned(sim_cluster: RunningSim) -> None:
    sim_cluster.objects.put(GADGETS_CRD)
    sim_cluster.objects.put(WIDGETS_CRD)
    strict, refused = raw(
        sim_cluster, "POST", f"{GADGETS}?fieldValidation=Strict", body=_gadget({"extra": 1})
    )
    created, headers, _ = exchange(
        sim_cluster, "POST", GADGETS, body=_gadget({"count": 1, "extra": 1}, "kept")
    )
    widget = _widget("free")
    widget["spec"]["anything"] = True
    raw(sim_cluster, "POST", "/apis/example.com/v1/namespaces/default/widgets", body=widget)
    assert (strict, refused["reason"]) == (400, "BadRequest")
    assert refused["message"].endswith('strict decoding error: unknown field "spec.extra"')
    assert created == 201
    assert ("Warning", '299 - "unknown field \\"spec.extra\\""') in headers
    stored = sim_cluster.objects.get("example.com/v1", "Gadget", "kept", "default")
    assert stored is not None and stored["spec"] == {"count": 1}
    free = sim_cluster.objects.get("example.com/v1", "Widget", "free", "default")
    assert free is not None and free["spec"]["anything"] is True
