"""Checks across objects.

Aspects covered:
- duplicates: an error at the later definition naming the first, for templates and Karmada
  objects; a namespaced policy without a namespace is the one in `default`; one kind and name
  in two versions of its group is one object;
- a policy that selects no template is a warning (name, label selector, kind, namespace);
  an override policy without selectors selects every template;
- a cluster name that no Cluster defines is a warning, wherever it is written;
- a schedulePriority naming no PriorityClass of the source is an error when the policy selects
  a namespaced template (its binding cannot be built), else a warning; a PriorityClass whose
  value is no integer is none; a source other than KubePriorityClass is refused, as the CRD
  refuses it.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
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


def test_one_object_in_two_versions_of_its_group_is_a_duplicate(check: Check) -> None:
    """The API server holds one object whatever version it is written in: two templates of
    one group, kind and name would be applied over each other."""
    hpa = (
        "apiVersion: autoscaling/{}\nkind: HorizontalPodAutoscaler\nmetadata: {{name: web}}\n"
        "spec: {{scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}},"
        " maxReplicas: 3}}\n"
    )
    other_group = hpa.format("v1").replace("autoscaling/v1", "example.com/v1")
    found = check({"a.yaml": hpa.format("v1"), "b.yaml": hpa.format("v2"), "c.yaml": other_group})
    assert [d for d in found if ": error: " in d] == [
        "b.yaml:1:1: error: duplicate HorizontalPodAutoscaler default/web (autoscaling/v2 and "
        "autoscaling/v1 are versions of one object): first defined at a.yaml:1:1"
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


PRIORITY = """\
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: critical
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
      name: {name}
  schedulePriority:
    priorityClassSource: {source}
    priorityClassName: high-priority-example
  placement:
    clusterAffinity:
      clusterNames: [member1]
"""
CRITICAL = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: critical-nginx
spec:
  template:
    spec:
      containers: [{name: nginx, image: nginx}]
"""
CLASS = """\
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: high-priority-example
value: {value}
"""
MISSING = "no PriorityClass named 'high-priority-example' in the source"


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param(
            {"class.yaml": CLASS.format(value=1000000)}, [], id="the PriorityClass is there"
        ),
        pytest.param(
            {},
            [
                "policy.yaml:12:5: error: PropagationPolicy default/critical: "
                f"spec.schedulePriority.priorityClassName: {MISSING} (scheduling.k8s.io/v1, "
                "with an integer value): the templates the policy claims get no binding"
            ],
            id="missing: an error",
        ),
        pytest.param(
            {"class.yaml": CLASS.format(value='"high"')},
            [
                "class.yaml:5:1: error: PriorityClass high-priority-example: value: must be an "
                "integer, not 'high'",
                "policy.yaml:12:5: error: PropagationPolicy default/critical: "
                f"spec.schedulePriority.priorityClassName: {MISSING} (scheduling.k8s.io/v1, "
                "with an integer value): the templates the policy claims get no binding",
            ],
            id="a value that is no integer: none",
        ),
    ],
)
def test_schedule_priority_names_a_priority_class(
    check: Check, files: dict[str, str], expected: list[str]
) -> None:
    policy = PRIORITY.format(name="critical-nginx", source="KubePriorityClass")
    found = check({"policy.yaml": policy, "deploy.yaml": CRITICAL, **files})
    assert [f for f in found if "PriorityClass" in f or "priorityClass" in f] == expected


def test_schedule_priority_of_a_policy_that_selects_nothing_is_a_warning(check: Check) -> None:
    policy = PRIORITY.format(name="other", source="KubePriorityClass")
    found = check({"policy.yaml": policy, "deploy.yaml": CRITICAL})
    assert (
        "policy.yaml:12:5: warning: PropagationPolicy default/critical: "
        f"spec.schedulePriority.priorityClassName: {MISSING}"
    ) in found


def test_only_kube_priority_classes(check: Check) -> None:
    policy = PRIORITY.format(name="critical-nginx", source="PodPriorityClass")
    found = check({"policy.yaml": policy, "deploy.yaml": CRITICAL})
    assert found == [
        "policy.yaml:11:5: error: PropagationPolicy default/critical: "
        "spec.schedulePriority.priorityClassSource: unsupported value 'PodPriorityClass': "
        "expected one of 'KubePriorityClass'"
    ]
