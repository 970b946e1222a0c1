"""The entry point: the template is never modified, a failure anywhere leaves nothing applied
and is reported at the failing overrider in the policy's file naming the policy and the
cluster, the applied-overrides record is Karmada's JSON (sorted by policy name, struct field
order, absent when nothing applies), and prepared `Overrides` give the same results."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from gitfleet import overrides
from gitfleet.errors import OverrideError
from gitfleet.model.origin import Origin


def _labels(**values: str) -> dict[str, Any]:
    return {"labelsOverrider": [{"operator": "add", "value": values}]}


def test_template_is_not_modified(workload: Any, make_cluster: Any, make_policy: Any) -> None:
    manifest = workload("Deployment", "nginx:1")
    before = copy.deepcopy(manifest)
    cop = make_policy(
        "cop",
        {
            "overrideRules": [
                {
                    "overriders": {
                        **_labels(a="1"),
                        "imageOverrider": [
                            {"component": "Tag", "operator": "replace", "value": "2"}
                        ],
                        "plaintext": [
                            {"operator": "replace", "path": "/spec/replicas", "value": 1}
                        ],
                    }
                }
            ]
        },
        namespace=None,
    )
    manifest["spec"]["replicas"] = 3
    before["spec"]["replicas"] = 3
    result = overrides.apply(manifest, make_cluster("m"), [], [cop])
    assert manifest == before
    assert result.manifest["spec"]["replicas"] == 1
    assert result.manifest["metadata"]["labels"] == {"a": "1"}


def test_failure_is_all_or_nothing_and_located(
    workload: Any, make_cluster: Any, make_policy: Any
) -> None:
    manifest = workload("Deployment", "nginx:1")
    before = copy.deepcopy(manifest)
    good = make_policy("good", {"overrideRules": [{"overriders": _labels(a="1")}]}, namespace=None)
    bad = make_policy(
        "bad",
        {
            "overrideRules": [
                {"targetCluster": {"clusterNames": ["other"]}, "overriders": _labels(b="2")},
                {
                    "overriders": {
                        "plaintext": [
                            {"operator": "add", "path": "/metadata/labels/c", "value": "3"},
                            {"operator": "replace", "path": "/spec/paused", "value": True},
                        ]
                    }
                },
            ]
        },
        path="overrides/bad.yaml",
    )
    with pytest.raises(OverrideError) as caught:
        overrides.apply(manifest, make_cluster("member1"), [bad], [good])
    error = caught.value
    assert manifest == before
    assert error.origin.path == "overrides/bad.yaml"
    assert error.origin.keys == ("spec", "overrideRules", 1, "overriders", "plaintext", 1, "path")
    assert error.message == (
        "override policy default/bad: spec.overrideRules.1.overriders.plaintext.1.path: "
        'cannot replace "/spec/paused": /spec has no field "paused"'
        " (Deployment/default/web on cluster member1)"
    )


def test_failure_in_the_deprecated_form(workload: Any, make_cluster: Any, make_policy: Any) -> None:
    cop = make_policy(
        "legacy",
        {
            "overriders": {
                "commandOverrider": [{"containerName": "c0", "operator": "add", "value": ["x"]}],
                "plaintext": [{"operator": "remove", "path": "/nope"}],
            }
        },
        namespace=None,
    )
    with pytest.raises(OverrideError) as caught:
        overrides.apply(workload("Deployment"), make_cluster("m"), [], [cop])
    assert caught.value.origin.keys == ("spec", "overriders", "plaintext", 0, "path")
    assert caught.value.message.startswith("cluster override policy legacy: spec.overriders.")


def test_error_points_at_the_line(workload: Any, make_cluster: Any, make_policy: Any) -> None:
    """The origin's locator turns the keys into a line and column of the policy's file."""
    lines: dict[tuple[str | int, ...], tuple[int, int]] = {
        ("spec", "overrideRules", 0, "overriders", "plaintext", 0, "path"): (12, 9)
    }

    def locate(keys: tuple[str | int, ...]) -> tuple[int, int] | None:
        return lines.get(keys)

    cop = make_policy(
        "p",
        {"overrideRules": [{"overriders": {"plaintext": [{"operator": "remove", "path": "/x"}]}}]},
        None,
    )
    located = type(cop)(
        metadata=cop.metadata, spec=cop.spec, origin=Origin("cop.yaml", 1, 1, (), locate)
    )
    with pytest.raises(OverrideError) as caught:
        overrides.apply(workload("Deployment"), make_cluster("m"), [], [located])
    assert str(caught.value).startswith("cop.yaml:12:9: cluster override policy p: ")


def test_record_annotations(workload: Any, make_cluster: Any, make_policy: Any) -> None:
    manifest = workload("Deployment", "nginx:1")
    zeta = make_policy(
        "zeta",
        {
            "overrideRules": [
                {
                    "overriders": {
                        "annotationsOverrider": [
                            {"operator": "add", "value": {"b": "<2>", "a": "1"}}
                        ],
                        "plaintext": [
                            {"operator": "add", "path": "/spec/x", "value": {"z": 1.0, "y": [0.5]}},
                            {"operator": "remove", "path": "/spec/x"},
                        ],
                    }
                },
                {"overriders": {}},
            ]
        },
        namespace=None,
    )
    alpha = make_policy(
        "alpha",
        {
            "overrideRules": [
                {
                    "overriders": {
                        "imageOverrider": [
                            {"component": "Registry", "operator": "remove"},
                            {
                                "predicate": {"path": "/spec/template/spec/containers/0/image"},
                                "component": "Tag",
                                "operator": "replace",
                                "value": "2",
                            },
                        ],
                        "argsOverrider": [
                            {"containerName": "c0", "operator": "add", "value": ["-v"]}
                        ],
                        "labelsOverrider": [{"operator": "remove", "value": {}}],
                        "fieldOverrider": [],
                    }
                }
            ]
        },
        namespace=None,
    )
    result = overrides.apply(manifest, make_cluster("m"), [], [zeta, alpha])
    assert [a.policy_name for a in result.applied_cluster_overrides] == ["alpha", "zeta", "zeta"]
    assert result.applied_overrides == ()
    assert result.annotations == {
        "policy.karmada.io/applied-cluster-overrides": (
            '[{"policyName":"alpha","overriders":{"imageOverrider":['
            '{"component":"Registry","operator":"remove"},'
            '{"predicate":{"path":"/spec/template/spec/containers/0/image"},'
            '"component":"Tag","operator":"replace","value":"2"}],'
            '"argsOverrider":[{"containerName":"c0","operator":"add","value":["-v"]}],'
            '"labelsOverrider":[{"operator":"remove","value":{}}]}},'
            '{"policyName":"zeta","overriders":{"plaintext":['
            '{"path":"/spec/x","operator":"add","value":{"y":[0.5],"z":1}},'
            '{"path":"/spec/x","operator":"remove","value":null}],'
            '"annotationsOverrider":[{"operator":"add","value":{"a":"1","b":"\\u003c2\\u003e"}}]}},'
            '{"policyName":"zeta","overriders":{}}]'
        )
    }
    assert (
        json.loads(result.annotations[overrides.APPLIED_CLUSTER_OVERRIDES])[2]["overriders"] == {}
    )


def test_namespaced_record_and_no_record(
    workload: Any, make_cluster: Any, make_policy: Any
) -> None:
    op = make_policy(
        "op",
        {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}],
            "overrideRules": [
                {
                    "overriders": {
                        "fieldOverrider": [
                            {"fieldPath": "/x", "yaml": [{"subPath": "/a", "operator": "remove"}]}
                        ]
                    }
                }
            ],
        },
    )
    assert overrides.apply(workload("Deployment"), make_cluster("m"), [], []).annotations == {}
    with pytest.raises(OverrideError):
        overrides.apply(workload("Deployment"), make_cluster("m"), [op], [])
    nothing = overrides.apply(workload("Job"), make_cluster("m"), [op], [])
    assert nothing.applied_overrides == () and nothing.annotations == {}
    labelled = make_policy("lab", {"overrideRules": [{"overriders": _labels(a="1")}]})
    result = overrides.apply(workload("Job"), make_cluster("m"), [labelled], [])
    assert result.annotations == {
        "policy.karmada.io/applied-overrides": (
            '[{"policyName":"lab","overriders":{"labelsOverrider":'
            '[{"operator":"add","value":{"a":"1"}}]}}]'
        )
    }


def test_prepared_overrides_match_the_function(
    workload: Any, make_cluster: Any, make_policy: Any
) -> None:
    ops = [
        make_policy(f"p{i}", {"overrideRules": [{"overriders": _labels(**{f"k{i}": str(i)})}]})
        for i in range(3)
    ]
    prepared = overrides.Overrides(ops, [])
    for kind in ("Deployment", "Pod", "Job"):
        manifest = workload(kind)
        assert prepared.apply(manifest, make_cluster("m")) == overrides.apply(
            manifest, make_cluster("m"), ops, []
        )
    changed = [*ops[:2]]
    assert overrides.apply(workload("Pod"), make_cluster("m"), changed, []).manifest["metadata"][
        "labels"
    ] == {"k0": "0", "k1": "1"}
