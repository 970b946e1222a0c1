"""Checks across objects.

Aspects covered:
- duplicates: an error at the later definition naming the first, for templates and Karmada
  objects; a namespaced policy without a namespace is the one in `default`;
- a policy that selects no template is a warning (name, label selector, kind, namespace);
  an override policy without selectors selects every template;
- a cluster name that no Cluster defines is a warning, wherever it is written.
"""

from __future__ import annotations

from collections.abc import Callable

from validation.documents import CONFIG_MAP, FLEET, PROPAGATION, variant

Check = Callable[[dict[str, str]], list[str]]


def test_duplicate_templates_and_policies(check: Check) -> None:
    found = check(
        {
            **FLEET,
            "apps/copy.yaml": CONFIG_MAP,
            "policies/web-copy.yaml": PROPAGATION,
        }
    )
    assert found == [
        "apps/web.yaml:19:1: error: duplicate ConfigMap shop/web-config: "
        "first defined at apps/copy.yaml:1:1",
        "policies/web.yaml:1:1: error: duplicate PropagationPolicy shop/web: "
        "first defined at policies/web-copy.yaml:1:1",  # the first by path
    ]


def test_missing_namespace_is_default(check: Check) -> None:
    in_default = PROPAGATION.replace("namespace: shop\n", "namespace: default\n", 1)
    without = PROPAGATION.replace("  namespace: shop\n", "", 1)
    found = check({"a.yaml": in_default, "b.yaml": without})
    duplicate = "duplicate PropagationPolicy default/web: first defined at a.yaml:1:1"
    assert f"b.yaml:1:1: error: {duplicate}" in found


def test_policies_that_select_nothing(check: Check) -> None:
    renamed = variant("policies/web.yaml", "      name: web\n", "      name: website\n")
    relabelled = {
        **renamed,
        "policies/web.yaml": renamed["policies/web.yaml"].replace(
            "matchLabels: {app: web}", "matchLabels: {app: shop}"
        ),
    }
    assert check(relabelled) == [
        "policies/web.yaml:7:3: warning: PropagationPolicy shop/web: "
        "spec.resourceSelectors: selects no resource template",
    ]


def test_a_policy_selects_only_in_its_namespace(check: Check) -> None:
    moved = CONFIG_MAP.replace("namespace: shop", "namespace: other")
    deployment_gone = {**FLEET, "apps/web.yaml": moved}
    warnings = [line for line in check(deployment_gone) if "selects no" in line]
    assert [w.split(":")[0] for w in warnings] == [
        "policies/web-override.yaml",
        "policies/web.yaml",
    ]


def test_unknown_cluster_names(check: Check) -> None:
    names = "clusterNames: [member1, member2]"
    found = check(variant("policies/web.yaml", names, names.replace("member2", "member3")))
    assert found == [
        "policies/web.yaml:21:31: warning: PropagationPolicy shop/web: "
        "spec.placement.clusterAffinity.clusterNames.1: no Cluster named 'member3'",
    ]
