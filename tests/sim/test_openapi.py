"""The OpenAPI documents kubectl reads to validate and to explain.

Covers: /openapi/v3 lists one document per served group version, each at a URL with a hash of
its content; a group version's document has every kind's operations (PATCH taking
fieldValidation, each naming its group, version and kind, the scale subresource as
autoscaling/v1 Scale) and schemas (built-in kinds down to every field, with the descriptions,
types and required fields of the kubernetes package's models, ObjectMeta by reference); a CRD
adds its group version with its own schema, and changing the CRD changes the hash; /openapi/v2
is one Swagger 2.0 document in JSON, with references and keywords 2.0 takes, and 406 for a
client that takes only protobuf; unknown documents are 404.
"""

from __future__ import annotations

from typing import Any

import yaml
from simfixture import GADGETS_CRD, RunningSim, raw

PROTOBUF = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"


def _get(sim: RunningSim, path: str, accept: str = "application/json") -> Any:
    status, body = raw(sim, "GET", path, headers={"Accept": accept})
    assert status == 200, body
    return body


def _by_gvk(document: Any, schemas: str, group: str, kind: str) -> Any:
    found = [
        schema
        for schema in document[schemas].values()
        if {"group": group, "version": "v1", "kind": kind}
        in schema.get("x-kubernetes-group-version-kind", [])
    ]
    assert len(found) == 1
    return found[0]


def test_v3_index_points_at_each_group_version(sim_cluster: RunningSim) -> None:
    index = _get(sim_cluster, "/openapi/v3")["paths"]
    url = index["apis/apps/v1"]["serverRelativeURL"]
    assert {"api/v1", "apis/apps/v1", "apis/batch/v1", "apis/apiextensions.k8s.io/v1"} <= set(index)
    assert url.startswith("/openapi/v3/apis/apps/v1?hash=")
    assert _get(sim_cluster, url)["openapi"] == "3.0.0"


def test_group_version_document_describes_operations(sim_cluster: RunningSim) -> None:
    document = _get(sim_cluster, "/openapi/v3/apis/apps/v1")
    item = document["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]
    scale = document["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"]
    listing = document["paths"]["/apis/apps/v1/deployments"]["get"]
    assert {p["name"] for p in item["patch"]["parameters"]} >= {"fieldValidation", "fieldManager"}
    assert item["patch"]["x-kubernetes-group-version-kind"] == {
        "group": "apps",
        "version": "v1",
        "kind": "Deployment",
    }
    assert {p["name"] for p in item["parameters"]} == {"namespace", "name"}
    assert scale["put"]["x-kubernetes-group-version-kind"]["kind"] == "Scale"
    assert listing["x-kubernetes-action"] == "list"


def test_builtin_kinds_and_their_top_level_fields(sim_cluster: RunningSim) -> None:
    schemas = _get(sim_cluster, "/openapi/v3/api/v1")["components"]["schemas"]
    config_map = schemas["io.k8s.api.core.v1.ConfigMap"]
    apps = _get(sim_cluster, "/openapi/v3/apis/apps/v1")["components"]
    deployment = _by_gvk(apps, "schemas", "apps", "Deployment")
    assert config_map["x-kubernetes-group-version-kind"] == [
        {"group": "", "version": "v1", "kind": "ConfigMap"}
    ]
    assert set(config_map["properties"]) == {
        "apiVersion",
        "kind",
        "metadata",
        "data",
        "binaryData",
        "immutable",
    }
    assert config_map["properties"]["data"]["additionalProperties"] == {"type": "string"}
    assert config_map["properties"]["metadata"]["allOf"] == [
        {"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}
    ]
    assert "labels" in schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]["properties"]
    assert set(deployment["properties"]) == {"apiVersion", "kind", "metadata", "spec", "status"}


def test_builtin_schemas_describe_every_field(sim_cluster: RunningSim) -> None:
    """Below the top level too, from the kubernetes package's models: types, descriptions,
    required fields and references, down to the pod's containers."""
    schemas = _get(sim_cluster, "/openapi/v3/apis/apps/v1")["components"]["schemas"]
    ref = "#/components/schemas/"
    deployment = schemas["io.k8s.api.apps.v1.Deployment"]
    spec_ref = deployment["properties"]["spec"]["allOf"][0]["$ref"].removeprefix(ref)
    spec = schemas[spec_ref]
    template = schemas[spec["properties"]["template"]["allOf"][0]["$ref"].removeprefix(ref)]
    pod = schemas[template["properties"]["spec"]["allOf"][0]["$ref"].removeprefix(ref)]
    container = schemas[pod["properties"]["containers"]["items"]["$ref"].removeprefix(ref)]
    assert spec_ref == "io.k8s.api.apps.v1.DeploymentSpec"
    assert spec["properties"]["replicas"]["type"] == "integer"
    assert spec["properties"]["replicas"]["description"].startswith("Number of desired pods.")
    assert {"selector", "template"} <= set(spec["required"])
    assert "containers" in pod["required"]
    assert container["properties"]["image"]["type"] == "string"
    assert container["properties"]["env"]["type"] == "array"
    assert schemas["io.k8s.api.autoscaling.v1.Scale"]["x-kubernetes-group-version-kind"] == [
        {"group": "autoscaling", "version": "v1", "kind": "Scale"}
    ]


def test_crd_adds_its_schema_and_changes_the_hash(sim_cluster: RunningSim) -> None:
    sim_cluster.objects.put(GADGETS_CRD)
    before = _get(sim_cluster, "/openapi/v3")["paths"]["apis/example.com/v1"]
    changed: dict[str, Any] = {**GADGETS_CRD, "spec": {**GADGETS_CRD["spec"]}}
    version = {**changed["spec"]["versions"][0]}
    version["schema"] = {"openAPIV3Schema": {"type": "object", "description": "Changed."}}
    changed["spec"]["versions"] = [version]
    document = _get(sim_cluster, "/openapi/v3/apis/example.com/v1")
    gadget = document["components"]["schemas"]["com.example.v1.Gadget"]
    sim_cluster.objects.put(changed)
    after = _get(sim_cluster, "/openapi/v3")["paths"]["apis/example.com/v1"]
    assert gadget["properties"]["spec"]["properties"]["count"]["description"] == "How many."
    assert gadget["x-kubernetes-group-version-kind"] == [
        {"group": "example.com", "version": "v1", "kind": "Gadget"}
    ]
    assert before != after


def test_v2_is_one_json_swagger_document(sim_cluster: RunningSim) -> None:
    sim_cluster.objects.put(GADGETS_CRD)
    document = _get(sim_cluster, "/openapi/v2")
    gadget = _by_gvk(document, "definitions", "example.com", "Gadget")
    patch = document["paths"]["/apis/example.com/v1/namespaces/{namespace}/gadgets/{name}"]["patch"]
    assert document["swagger"] == "2.0"
    assert gadget["properties"]["metadata"]["$ref"] == (
        "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    ), "a real server's v2 references without allOf, which kubectl's v2 reader does not follow"
    assert "allOf" not in gadget["properties"]["metadata"]
    assert "nullable" not in gadget["properties"]["spec"]["properties"]["colour"]
    assert {"name": "fieldValidation", "in": "query", "type": "string"} in patch["parameters"]
    assert "io.k8s.api.apps.v1.Deployment" in document["definitions"]


def _wire(data: bytes) -> list[tuple[int, Any]]:
    """The fields of a protocol buffer message, in order: (number, int or bytes)."""

    def varint(at: int) -> tuple[int, int]:
        value = shift = 0
        while True:
            byte = data[at]
            value |= (byte & 0x7F) << shift
            at, shift = at + 1, shift + 7
            if not byte & 0x80:
                return value, at

    found: list[tuple[int, Any]] = []
    at = 0
    while at < len(data):
        key, at = varint(at)
        wire = key & 7
        if wire == 0:
            value, at = varint(at)
        elif wire == 1:
            value, at = data[at : at + 8], at + 8
        else:
            assert wire == 2, wire
            size, at = varint(at)
            value, at = data[at : at + size], at + size
        found.append((key >> 3, value))
    return found


def _one(message: bytes, number: int) -> Any:
    values = [value for field, value in _wire(message) if field == number]
    assert len(values) == 1, (number, values)
    return values[0]


def _named(message: bytes, number: int) -> dict[str, bytes]:
    """A gnostic map: the (name, value) messages at `number`, by name, in order."""
    return {
        _one(entry, 1).decode(): _one(entry, 2)
        for field, entry in _wire(message)
        if field == number
    }


def test_v2_in_protobuf_is_the_json_document_for_kubectl(sim_cluster: RunningSim) -> None:
    """kubectl reads /openapi/v2 only in protocol buffers (gnostic's openapi.v2.Document):
    the same document as the JSON one, field by field as gnostic numbers them."""
    sim_cluster.objects.put(GADGETS_CRD)
    document = _get(sim_cluster, "/openapi/v2")
    client = sim_cluster.api_client
    method, url, headers, _, _ = client.param_serialize(
        "GET", "/openapi/v2", header_params={"Accept": PROTOBUF}, auth_settings=["BearerToken"]
    )
    answer = client.call_api(method, url, header_params=headers)
    answer.read()
    assert answer.status == 200
    assert answer.getheader("Content-Type") == (
        "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
    )
    body = answer.data
    assert _one(body, 1) == b"2.0"
    assert _one(_one(body, 2), 1) == b"Kubernetes"
    definitions = _named(_one(body, 9), 1)
    assert list(definitions) == list(document["definitions"])
    name = next(
        n
        for n, s in document["definitions"].items()
        if s is _by_gvk(document, "definitions", "example.com", "Gadget")
    )
    gadget = definitions[name]
    assert _one(gadget, 4) == b"A gadget that scales."
    extensions = _named(gadget, 31)
    assert yaml.safe_load(_one(extensions["x-kubernetes-group-version-kind"], 2)) == [
        {"group": "example.com", "version": "v1", "kind": "Gadget"}
    ]
    properties = _named(_one(gadget, 25), 1)
    assert list(properties) == list(document["definitions"][name]["properties"])
    count = _named(_one(properties["spec"], 25), 1)["count"]
    assert _one(_one(count, 22), 1) == b"integer"
    assert _one(count, 4) == b"How many."
    paths = _named(_one(body, 8), 2)
    assert list(paths) == list(document["paths"])


def test_unknown_documents_are_404(sim_cluster: RunningSim) -> None:
    for path in ("/openapi/v3/apis/example.com/v1", "/openapi/v3/apis/apps", "/openapi/v4"):
        assert raw(sim_cluster, "GET", path)[0] == 404
