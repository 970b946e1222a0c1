"""Selector matching as Karmada's pkg/util/selector.go: label selectors (nil vs empty, invalid
requirements match nothing), cluster affinity (exclude wins, zones, a lone deprecated `zone`
among them, provider/region NotIn on unset fields, a label selector
metav1.LabelSelectorAsSelector refuses matches nothing) and resource selector implicit
priority (such a selector is a mismatch unless a name decides)."""

from typing import Any

import pytest

from gitfleet.model import cluster, policy, selectors
from gitfleet.model._codec import decode
from gitfleet.model.meta import LabelSelector
from gitfleet.model.origin import UNKNOWN
from gitfleet.model.template import ResourceTemplate


def make_cluster(name: str, labels: dict[str, str] | None = None, **spec: Any) -> cluster.Cluster:
    return cluster.Cluster.from_doc(
        {
            "apiVersion": "cluster.karmada.io/v1alpha1",
            "kind": "Cluster",
            "metadata": {"name": name, "labels": labels or {}},
            "spec": {"syncMode": "Push", **spec},
        }
    )


def affinity(doc: dict[str, Any]) -> policy.ClusterAffinity:
    result: policy.ClusterAffinity = decode(policy.ClusterAffinity, doc, UNKNOWN)
    return result


def selector(doc: dict[str, Any]) -> LabelSelector:
    result: LabelSelector = decode(LabelSelector, doc, UNKNOWN)
    return result


@pytest.mark.parametrize(
    ("doc", "labels", "expected"),
    [
        pytest.param({}, {}, True, id="empty selector matches everything"),
        pytest.param({"matchLabels": {"a": "1"}}, {"a": "1", "b": "2"}, True, id="matchLabels"),
        pytest.param({"matchLabels": {"a": "1"}}, {"a": "2"}, False, id="matchLabels differs"),
        pytest.param(
            {"matchExpressions": [{"key": "a", "operator": "NotIn", "values": ["1"]}]},
            {},
            True,
            id="NotIn matches an absent label",
        ),
        pytest.param(
            {"matchExpressions": [{"key": "a", "operator": "In", "values": []}]},
            {"a": "1"},
            False,
            id="In without values is invalid and matches nothing",
        ),
        pytest.param(
            {"matchExpressions": [{"key": "a", "operator": "Exists"}]}, {"a": ""}, True, id="Exists"
        ),
        pytest.param(
            {"matchExpressions": [{"key": "a", "operator": "DoesNotExist"}]},
            {"a": "x"},
            False,
            id="DoesNotExist",
        ),
    ],
)
def test_label_selector(doc: dict[str, Any], labels: dict[str, str], expected: bool) -> None:
    assert selectors.label_selector_matches(selector(doc), labels) is expected


def test_nil_label_selector_matches_nothing() -> None:
    assert selectors.label_selector_matches(None, {}) is False


EAST = make_cluster("east", {"env": "prod"}, provider="aws", region="us-east-1", zones=["a", "b"])
BARE = make_cluster("bare")


@pytest.mark.parametrize(
    ("c", "doc", "expected"),
    [
        pytest.param(EAST, {}, True, id="empty affinity matches all"),
        pytest.param(
            EAST, {"exclude": ["east"], "clusterNames": ["east"]}, False, id="exclude wins"
        ),
        pytest.param(EAST, {"clusterNames": ["west"]}, False, id="names"),
        pytest.param(EAST, {"labelSelector": {"matchLabels": {"env": "dev"}}}, False, id="labels"),
        pytest.param(
            EAST,
            {
                "labelSelector": {
                    "matchExpressions": [{"key": "env", "operator": "in", "values": ["prod"]}]
                }
            },
            False,
            id="an operator LabelSelectorAsSelector refuses matches nothing",
        ),
        pytest.param(
            EAST,
            {
                "labelSelector": {
                    "matchExpressions": [{"key": "bad key", "operator": "DoesNotExist"}]
                }
            },
            False,
            id="a key that is no label key matches nothing",
        ),
        pytest.param(
            EAST,
            {
                "labelSelector": {
                    "matchLabels": {"env": "prod"},
                    "matchExpressions": [
                        {"key": "tier", "operator": "NotIn", "values": ["no/slash"]}
                    ],
                }
            },
            False,
            id="a value that is no label value matches nothing",
        ),
        pytest.param(
            EAST,
            {
                "fieldSelector": {
                    "matchExpressions": [{"key": "zone", "operator": "In", "values": ["b", "c"]}]
                }
            },
            True,
            id="zone In overlaps",
        ),
        pytest.param(
            BARE,
            {
                "fieldSelector": {
                    "matchExpressions": [{"key": "zone", "operator": "NotIn", "values": ["b"]}]
                }
            },
            True,
            id="zone NotIn on no zones",
        ),
        pytest.param(
            BARE,
            {
                "fieldSelector": {
                    "matchExpressions": [
                        {"key": "provider", "operator": "NotIn", "values": ["aws"]}
                    ]
                }
            },
            True,
            id="provider NotIn matches unset provider",
        ),
        pytest.param(
            EAST,
            {
                "fieldSelector": {
                    "matchExpressions": [
                        {"key": "region", "operator": "In", "values": ["us-west-1"]}
                    ]
                }
            },
            False,
            id="region In",
        ),
        pytest.param(
            EAST,
            {
                "fieldSelector": {
                    "matchExpressions": [
                        {"key": "region", "operator": "NotIn", "values": ["us west"]}
                    ]
                }
            },
            False,
            id="a region value that is no label value matches no cluster",
        ),
        pytest.param(
            make_cluster("z", zones=["a b"]),
            {
                "fieldSelector": {
                    "matchExpressions": [{"key": "zone", "operator": "In", "values": ["a b"]}]
                }
            },
            True,
            id="zones are compared as written",
        ),
    ],
)
def test_cluster_matches(c: cluster.Cluster, doc: dict[str, Any], expected: bool) -> None:
    assert selectors.cluster_matches(c, affinity(doc)) is expected


@pytest.mark.parametrize(("operator", "expected"), [("In", True), ("NotIn", False)])
def test_a_lone_deprecated_zone_is_one_of_the_zones(operator: str, expected: bool) -> None:
    """Karmada's API server moves a `zone` written without `zones` into `zones`."""
    expression = {"key": "zone", "operator": operator, "values": ["b"]}
    doc = {"fieldSelector": {"matchExpressions": [expression]}}
    assert selectors.cluster_matches(make_cluster("z", zone="b"), affinity(doc)) is expected


def test_resource_selector_priority() -> None:
    t = ResourceTemplate(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "a", "labels": {"app": "web"}},
        },
        UNKNOWN,
    )
    rs = [
        policy.ResourceSelector(api_version="apps/v1", kind="Deployment"),
        policy.ResourceSelector(
            api_version="apps/v1", kind="Deployment", label_selector=LabelSelector()
        ),
        policy.ResourceSelector(
            api_version="apps/v1",
            kind="Deployment",
            name="web",
            label_selector=LabelSelector(match_labels={"x": "y"}),
        ),
        policy.ResourceSelector(api_version="apps/v1", kind="Deployment", namespace="b"),
        policy.ResourceSelector(
            api_version="apps/v1",
            kind="Deployment",
            label_selector=LabelSelector(match_labels={"app": "web", "bad key": ""}),
        ),
        policy.ResourceSelector(
            api_version="apps/v1",
            kind="Deployment",
            name="web",
            label_selector=LabelSelector(match_labels={"bad key": ""}),
        ),
    ]
    got = [selectors.resource_selector_priority(t, s) for s in rs]
    assert got == [1, 2, 3, 0, 0, 3]
    assert selectors.selectors_priority(t, rs) == selectors.ImplicitPriority.MATCH_NAME
