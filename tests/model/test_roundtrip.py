"""The model round-trips documents: decoding then encoding gives back what the user wrote,
and unknown or mistyped fields are reported by name at their line; documents decoded together
with a shared memo decode a JSON object they share once, into the value each gets alone."""

import pytest

from gitfleet.errors import SchemaError
from gitfleet.model import cluster, meta, policy
from gitfleet.model.origin import Origin

PP = {
    "apiVersion": "policy.karmada.io/v1alpha1",
    "kind": "PropagationPolicy",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {
        "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}],
        "priority": 0,
        "placement": {
            "clusterAffinity": {"clusterNames": ["m1", "m2"]},
            "replicaScheduling": {
                "replicaSchedulingType": "Divided",
                "replicaDivisionPreference": "Weighted",
                "weightPreference": {
                    "staticWeightList": [
                        {"targetCluster": {"clusterNames": ["m1"]}, "weight": 1},
                    ]
                },
            },
        },
    },
}


def test_propagation_policy_round_trips() -> None:
    pp = policy.PropagationPolicy.from_doc(PP, Origin("a.yaml", 1, 1))
    assert pp.to_doc() == PP
    assert pp.spec.priority == 0
    assert pp.origin == Origin("a.yaml", 1, 1)


def test_documents_decoded_together_share_what_they_share() -> None:
    other = {**PP, "metadata": {"name": "api", "namespace": "default"}}
    shared: meta.Shared = {}
    web = policy.PropagationPolicy.from_doc(PP, shared=shared)
    api = policy.PropagationPolicy.from_doc(other, shared=shared)
    assert web.spec.placement is api.spec.placement, "one JSON object, decoded once"
    assert web == policy.PropagationPolicy.from_doc(PP)
    assert api == policy.PropagationPolicy.from_doc(other)
    assert api.metadata.name == "api"


def test_cluster_keeps_go_json_names() -> None:
    doc = {
        "apiVersion": "cluster.karmada.io/v1alpha1",
        "kind": "Cluster",
        "metadata": {"name": "m1"},
        "spec": {"syncMode": "Pull", "proxyURL": "http://p", "insecureSkipTLSVerification": True},
    }
    assert cluster.Cluster.from_doc(doc).to_doc() == doc


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        pytest.param({"resourceSelector": []}, "unknown field 'resourceSelector'", id="typo"),
        pytest.param({}, "spec.resourceSelectors: required field is missing", id="missing"),
        pytest.param(
            {"resourceSelectors": [{"apiVersion": "v1", "kind": "ConfigMap"}], "priority": "high"},
            "spec.priority: expected integer, got string",
            id="mistyped",
        ),
        pytest.param(
            {
                "resourceSelectors": [{"apiVersion": "v1", "kind": "ConfigMap"}],
                "placement": {"replicaScheduling": {"replicaSchedulingType": "Split"}},
            },
            "unsupported value 'Split'",
            id="bad enum",
        ),
    ],
)
def test_bad_fields_are_named(spec: dict[str, object], message: str) -> None:
    with pytest.raises(SchemaError) as info:
        policy.PropagationPolicy.from_doc({**PP, "spec": spec}, Origin("a.yaml", 3, 1))
    assert message in str(info.value)
    assert str(info.value).startswith("a.yaml:3:1: ")
