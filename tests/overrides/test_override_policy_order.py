"""Which rules apply and in which order: ClusterOverridePolicies before OverridePolicies,
OverridePolicies only from the manifest's namespace and never for cluster-scoped manifests,
selectors filtering, ascending implicit priority then name (later wins), rules in declaration
order filtered by targetCluster, and the deprecated targetCluster + overriders form;
OverridePolicies selected (and ranked) against the manifest the ClusterOverridePolicies left,
ClusterOverridePolicies all selected against the manifest as given; labels that an override
made other than a map of strings select as no labels."""

from __future__ import annotations

from typing import Any

import pytest

from gitfleet import overrides

MANIFEST: Any = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "test", "namespace": "default", "labels": {"tier": "web"}},
}
BY_NAME = [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "test"}]
BY_LABEL = [
    {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "labelSelector": {"matchLabels": {"tier": "web"}},
    }
]
BY_KIND = [{"apiVersion": "apps/v1", "kind": "Deployment"}]
OTHER = [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "other"}]


def _tag(name: str) -> dict[str, Any]:
    return {"annotationsOverrider": [{"operator": "add", "value": {"order": name}}]}


def _rules(*rules: tuple[list[str] | None, str]) -> list[dict[str, Any]]:
    return [
        {"overriders": _tag(tag), **({"targetCluster": {"clusterNames": names}} if names else {})}
        for names, tag in rules
    ]


def _order(result: overrides.Overridden) -> list[list[str]]:
    applied = [*result.applied_cluster_overrides, *result.applied_overrides]
    return [
        [a.policy_name, (a.overriders.annotations_overrider[0].value or {})["order"]]
        for a in applied
    ]


@pytest.mark.parametrize(
    ("cluster_name", "policies", "expected"),
    [
        # ported from Karmada's overridemanager tests
        pytest.param(
            "cluster1",
            [
                (
                    "overridePolicy1",
                    BY_NAME,
                    _rules((["cluster1", "cluster2"], "o1"), (["cluster2"], "o2")),
                ),
                ("overridePolicy2", None, _rules((["cluster1", "cluster2"], "o3"))),
            ],
            [["overridePolicy2", "o3"], ["overridePolicy1", "o1"]],
            id="no selectors before a name match",
        ),
        pytest.param(
            "cluster2",
            [
                (
                    "overridePolicy1",
                    BY_NAME,
                    _rules((["cluster1", "cluster2"], "o1"), (["cluster2"], "o2")),
                ),
                ("overridePolicy2", None, _rules((["cluster1", "cluster2"], "o3"))),
            ],
            [["overridePolicy2", "o3"], ["overridePolicy1", "o1"], ["overridePolicy1", "o2"]],
            id="rules keep declaration order",
        ),
        # gitfleet's own cases
        pytest.param(
            "c",
            [
                ("z-name", BY_NAME, _rules((None, "n"))),
                ("y-label", BY_LABEL, _rules((None, "l"))),
                ("x-kind", BY_KIND, _rules((None, "k"))),
            ],
            [["x-kind", "k"], ["y-label", "l"], ["z-name", "n"]],
            id="kind match < label match < name match",
        ),
        pytest.param(
            "c",
            [("b", None, _rules((None, "b"))), ("a", BY_KIND, _rules((None, "a")))],
            [["a", "a"], ["b", "b"]],
            id="same priority sorted by name",
        ),
        pytest.param(
            "c",
            [("a", OTHER, _rules((None, "a"))), ("b", [*OTHER, *BY_LABEL], _rules((None, "b")))],
            [["b", "b"]],
            id="a policy needs one matching selector",
        ),
        pytest.param(
            "c",
            [("a", BY_KIND, [{"targetCluster": {"exclude": ["c"]}, "overriders": _tag("x")}])],
            [],
            id="excluded cluster",
        ),
    ],
)
def test_order(
    cluster_name: str,
    policies: list[tuple[str, Any, list[dict[str, Any]]]],
    expected: list[list[str]],
    make_cluster: Any,
    make_policy: Any,
) -> None:
    ops = [
        make_policy(name, {"overrideRules": rules, **({"resourceSelectors": sel} if sel else {})})
        for name, sel, rules in policies
    ]
    assert _order(overrides.apply(MANIFEST, make_cluster(cluster_name), ops, [])) == expected


def test_deprecated_form_is_one_rule(make_cluster: Any, make_policy: Any) -> None:
    """Ported: spec.targetCluster + spec.overriders."""
    old = make_policy(
        "oldOverridePolicy",
        {"targetCluster": {"clusterNames": ["cluster1"]}, "overriders": _tag("o3")},
    )
    assert _order(overrides.apply(MANIFEST, make_cluster("cluster1"), [old], [])) == [
        ["oldOverridePolicy", "o3"]
    ]
    assert _order(overrides.apply(MANIFEST, make_cluster("cluster2"), [old], [])) == []


def test_cluster_policies_first_then_later_wins(make_cluster: Any, make_policy: Any) -> None:
    cop = make_policy("zzz", {"overrideRules": _rules((None, "cluster"))}, namespace=None)
    op = make_policy("aaa", {"overrideRules": _rules((None, "namespaced"))})
    result = overrides.apply(MANIFEST, make_cluster("c"), [op], [cop])
    assert _order(result) == [["zzz", "cluster"], ["aaa", "namespaced"]]
    assert result.manifest["metadata"]["annotations"] == {"order": "namespaced"}


def test_override_policies_only_from_the_manifest_namespace(
    make_cluster: Any, make_policy: Any
) -> None:
    elsewhere = make_policy("p", {"overrideRules": _rules((None, "x"))}, namespace="other")
    assert _order(overrides.apply(MANIFEST, make_cluster("c"), [elsewhere], [])) == []


@pytest.mark.parametrize(
    "manifest",
    [
        pytest.param(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}},
            id="namespace",
        ),
        pytest.param(
            {
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "ClusterRole",
                "metadata": {"name": "r"},
            },
            id="cluster role",
        ),
    ],
)
def test_cluster_scoped_get_only_cluster_policies(
    manifest: Any, make_cluster: Any, make_policy: Any
) -> None:
    op = make_policy("op", {"overrideRules": _rules((None, "namespaced"))})
    cop = make_policy("cop", {"overrideRules": _rules((None, "cluster"))}, namespace=None)
    assert _order(overrides.apply(manifest, make_cluster("c"), [op], [cop])) == [["cop", "cluster"]]


def test_target_cluster_by_labels_and_fields(make_cluster: Any, make_policy: Any) -> None:
    rules = [
        {
            "targetCluster": {"labelSelector": {"matchLabels": {"env": "prod"}}},
            "overriders": _tag("prod"),
        },
        {
            "targetCluster": {
                "fieldSelector": {
                    "matchExpressions": [{"key": "region", "operator": "In", "values": ["eu"]}]
                }
            },
            "overriders": _tag("eu"),
        },
    ]
    op = make_policy("p", {"overrideRules": rules})
    prod_eu = make_cluster("a", {"env": "prod"}, region="eu")
    dev_us = make_cluster("b", {"env": "dev"}, region="us")
    assert _order(overrides.apply(MANIFEST, prod_eu, [op], [])) == [["p", "prod"], ["p", "eu"]]
    assert _order(overrides.apply(MANIFEST, dev_us, [op], [])) == []


def _labels(operator: str, **labels: str) -> list[dict[str, Any]]:
    return [{"overriders": {"labelsOverrider": [{"operator": operator, "value": labels}]}}]


def _plain(operator: str, path: str, value: Any) -> list[dict[str, Any]]:
    return [{"overriders": {"plaintext": [{"operator": operator, "path": path, "value": value}]}}]


UNLABELLED = [
    {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "labelSelector": {"matchExpressions": [{"key": "tier", "operator": "DoesNotExist"}]},
    }
]
TIER_API = [
    {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "labelSelector": {"matchLabels": {"tier": "api"}},
    }
]


@pytest.mark.parametrize(
    ("cluster_policies", "policies", "expected"),
    [
        pytest.param(
            [("strip", None, _labels("remove", tier=""))],
            [("by-label", BY_LABEL, _rules((None, "l")))],
            ["strip"],
            id="a cluster policy removes the label an OverridePolicy selects on",
        ),
        pytest.param(
            [("retier", None, _labels("replace", tier="api"))],
            [("web", BY_LABEL, _rules((None, "w"))), ("api", TIER_API, _rules((None, "a")))],
            ["retier", "api"],
            id="a cluster policy changes the label: the policy for the new value applies",
        ),
        pytest.param(
            [("tag", None, _labels("add", tier="api"))],
            [("b-kind", BY_KIND, _rules((None, "k"))), ("a-api", TIER_API, _rules((None, "a")))],
            ["tag", "b-kind", "a-api"],
            id="implicit priority is that of the overridden manifest",
        ),
        pytest.param(
            [("a-tag", None, _labels("add", tier="api")), ("b-api", TIER_API, _rules((None, "c")))],
            [],
            ["a-tag"],
            id="cluster policies are all matched against the manifest as given",
        ),
        # Karmada's answers (its override manager run on these policies): a label map that is
        # not a map of strings reads as no labels at all (unstructured GetLabels)
        pytest.param(
            [("number", None, _plain("add", "/metadata/labels/n", 3))],
            [("by-label", BY_LABEL, _rules((None, "l"))), ("unlabelled", UNLABELLED, _rules())],
            ["number", "unlabelled"],
            id="a label that is not a string hides every label from the selectors",
        ),
        pytest.param(
            [("text", None, _plain("replace", "/metadata/labels", "x"))],
            [("by-label", BY_LABEL, _rules((None, "l"))), ("unlabelled", UNLABELLED, _rules())],
            ["text", "unlabelled"],
            id="labels that are not a map read as none",
        ),
    ],
)
def test_override_policies_match_what_cluster_policies_left(
    cluster_policies: list[tuple[str, Any, list[dict[str, Any]]]],
    policies: list[tuple[str, Any, list[dict[str, Any]]]],
    expected: list[str],
    make_cluster: Any,
    make_policy: Any,
) -> None:
    """Karmada's ApplyOverridePolicies: OverridePolicies are selected against the manifest
    after every ClusterOverridePolicy (applyNamespacedOverrides on the modified object), and
    ClusterOverridePolicies are all selected once, before any of them applies."""

    def made(items: list[tuple[str, Any, list[dict[str, Any]]]], namespace: Any) -> list[Any]:
        return [
            make_policy(
                name,
                {"overrideRules": rules, **({"resourceSelectors": sel} if sel else {})},
                namespace=namespace,
            )
            for name, sel, rules in items
        ]

    result = overrides.apply(
        MANIFEST, make_cluster("c"), made(policies, "default"), made(cluster_policies, None)
    )
    applied = [*result.applied_cluster_overrides, *result.applied_overrides]
    assert [a.policy_name for a in applied] == expected
