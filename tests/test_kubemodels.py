"""The kubernetes package's models, read as data.

Aspects covered:
- list and map types in the spelling of both package generations, and what is neither;
- the model of a kind: by version, and by group where two groups share a kind's name; none
  for a kind or version the package has no model for;
- a model's fields by JSON name (`$ref`, `x-kubernetes-*` keep their spelling), with types.
"""

from __future__ import annotations

import pytest

from gitfleet import kubemodels


@pytest.mark.parametrize(
    ("text", "item", "value"),
    [
        pytest.param("List[V1Container]", "V1Container", None, id="pydantic list"),
        pytest.param("list[V1Container]", "V1Container", None, id="older list"),
        pytest.param("Dict[str, str]", None, "str", id="pydantic map"),
        pytest.param("dict(str, list[str])", None, "list[str]", id="older map of lists"),
        pytest.param("V1ObjectMeta", None, None, id="a model"),
        pytest.param("object", None, None, id="free-form"),
    ],
)
def test_list_and_map_types(text: str, item: str | None, value: str | None) -> None:
    assert (kubemodels.listed(text), kubemodels.mapped(text)) == (item, value)


@pytest.mark.parametrize(
    ("group", "version", "kind", "expected"),
    [
        pytest.param("apps", "v1", "Deployment", "V1Deployment", id="by version"),
        pytest.param("autoscaling", "v2", "HorizontalPodAutoscaler", "V2HorizontalPodAutoscaler",
                     id="a second version"),
        pytest.param("", "v1", "Event", "CoreV1Event", id="core Event"),
        pytest.param("events.k8s.io", "v1", "Event", "EventsV1Event", id="events Event"),
        pytest.param("example.io", "v1", "Widget", None, id="no such model"),
        pytest.param("apps", "v1beta1", "Deployment", None, id="a version gone"),
    ],
)  # fmt: skip
def test_the_model_of_a_kind(group: str, version: str, kind: str, expected: str | None) -> None:
    assert kubemodels.kind_model(group, version, kind) == expected


def test_fields_by_json_name() -> None:
    deployment = kubemodels.model("V1DeploymentSpec")
    assert deployment is not None
    fields = {json_name: text for _, json_name, text in kubemodels.fields(deployment)}
    assert fields["replicas"] == "int"
    assert fields["template"] == "V1PodTemplateSpec"
    schema = kubemodels.model("V1JSONSchemaProps")
    assert schema is not None
    names = {json_name for _, json_name, _ in kubemodels.fields(schema)}
    assert {"$ref", "x-kubernetes-preserve-unknown-fields", "properties", "not"} <= names
