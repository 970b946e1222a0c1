"""Which policy claims a fresh template (Karmada pkg/detector/compare.go, policy.go
propagateResource, pkg/util/selector.go), and what explain learns about the losers.

Aspects: explicit priority (nil is 0, negative values), implicit priority (name > label selector
> match-all, `{}` selector counts as label), name order, PropagationPolicy over any
ClusterPropagationPolicy, PropagationPolicies of other namespaces, selector namespaces,
apiVersion must match exactly, policies being deleted, templates nothing selects, and the
reasons recorded for every candidate.
"""

from __future__ import annotations

from typing import Any

import pytest
from builders import (
    make_cluster_policy,
    make_configmap,
    make_deployment,
    make_object,
    make_policy,
    selector,
)
from detector.detector_checks import Detect, decision_of, winner_of

from gitfleet.detector import detection

WEB = make_deployment("web", labels={"app": "web", "tier": "front"})
BY_NAME = selector(name="web")
BY_LABEL = selector(labelSelector={"matchLabels": {"app": "web"}})
BY_OTHER_LABEL = selector(labelSelector={"matchLabels": {"app": "db"}})
ALL = selector()


def deleting(doc: dict[str, Any]) -> dict[str, Any]:
    doc["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return doc


@pytest.mark.parametrize(
    ("docs", "expected"),
    [
        pytest.param(
            [WEB, make_policy("a", ALL, priority=1), make_policy("b", ALL, priority=2)],
            "PropagationPolicy/b",
            id="compare.go: higher explicit priority wins",
        ),
        pytest.param(
            [WEB, make_policy("a", BY_NAME, priority=1), make_policy("b", ALL, priority=2)],
            "PropagationPolicy/b",
            id="compare.go: explicit priority beats a more specific selector",
        ),
        pytest.param(
            [WEB, make_policy("a", BY_NAME, priority=-1), make_policy("b", BY_LABEL)],
            "PropagationPolicy/b",
            id="compare.go: nil priority (0) beats explicit -1",
        ),
        pytest.param(
            [WEB, make_policy("a", ALL), make_policy("b", BY_LABEL)],
            "PropagationPolicy/b",
            id="compare.go: same priority, label selector beats match-all",
        ),
        pytest.param(
            [WEB, make_policy("a", BY_LABEL), make_policy("b", BY_NAME)],
            "PropagationPolicy/b",
            id="compare.go: same priority, name beats label selector",
        ),
        pytest.param(
            [WEB, make_policy("a", ALL), make_policy("b", selector(labelSelector={}))],
            "PropagationPolicy/b",
            id="selector.go: an empty labelSelector matches all and counts as label",
        ),
        pytest.param(
            [WEB, make_policy("a", ALL, BY_NAME), make_policy("b", BY_LABEL)],
            "PropagationPolicy/a",
            id="selector.go: implicit priority is the best of a policy's selectors",
        ),
        pytest.param(
            [WEB, make_policy("zeta", BY_NAME), make_policy("alpha", BY_NAME)],
            "PropagationPolicy/alpha",
            id="compare.go: full tie goes to the smaller name",
        ),
        pytest.param(
            [WEB, make_policy("b", BY_NAME, priority=1), make_policy("ab", BY_NAME, priority=1)],
            "PropagationPolicy/ab",
            id="compare.go: names compare lexicographically, not by length",
        ),
        pytest.param(
            [WEB, make_cluster_policy("c", BY_NAME, priority=100), make_policy("p", ALL)],
            "PropagationPolicy/p",
            id="policy.go: a namespace PropagationPolicy beats a higher ClusterPropagationPolicy",
        ),
        pytest.param(
            [WEB, make_cluster_policy("c1", ALL, priority=1), make_cluster_policy("c2", BY_NAME)],
            "ClusterPropagationPolicy/c1",
            id="compare.go: ClusterPropagationPolicies ranked by explicit priority",
        ),
        pytest.param(
            [WEB, make_cluster_policy("c1", ALL), make_cluster_policy("c2", BY_LABEL)],
            "ClusterPropagationPolicy/c2",
            id="compare.go: ClusterPropagationPolicies ranked by implicit priority",
        ),
        pytest.param(
            [WEB, make_policy("other", ALL, namespace="billing"), make_cluster_policy("c", ALL)],
            "ClusterPropagationPolicy/c",
            id="detector.go LookForMatchedPolicy: only PropagationPolicies of the namespace",
        ),
        pytest.param(
            [WEB, make_cluster_policy("c", selector(namespace="billing")), make_policy("p", ALL)],
            "PropagationPolicy/p",
            id="selector.go: a selector namespace must equal the template's",
        ),
        pytest.param(
            [WEB, make_cluster_policy("c", selector(namespace="shop", name="web"))],
            "ClusterPropagationPolicy/c",
            id="selector.go: a ClusterPropagationPolicy may name a namespace",
        ),
        pytest.param(
            [WEB, make_policy("p", selector(api_version="apps/v1beta1"))],
            "",
            id="selector.go: apiVersion must be equal, not just the group",
        ),
        pytest.param(
            [WEB, make_policy("p", selector(name="web", labelSelector={"matchLabels": {"x": ""}}))],
            "PropagationPolicy/p",
            id="selector.go: with a name the labelSelector is ignored",
        ),
        pytest.param(
            [WEB, make_policy("p", BY_OTHER_LABEL), make_cluster_policy("c", BY_LABEL)],
            "ClusterPropagationPolicy/c",
            id="selector.go: a label selector that does not match leaves the CPP",
        ),
        pytest.param(
            [WEB, deleting(make_policy("p", BY_NAME, priority=9)), make_policy("q", ALL)],
            "PropagationPolicy/q",
            id="detector.go: a policy being deleted matches nothing",
        ),
        pytest.param(
            [WEB, deleting(make_cluster_policy("c", ALL))],
            "",
            id="detector.go: a cluster policy being deleted matches nothing",
        ),
        pytest.param(
            [WEB, make_policy("p", selector("ConfigMap", "v1"))],
            "",
            id="selector.go: kind must match",
        ),
    ],
)
def test_winner(detect: Detect, docs: list[dict[str, Any]], expected: str) -> None:
    assert winner_of(detect(docs)) == expected


@pytest.mark.parametrize(
    "label_selector",
    [
        pytest.param(
            {"matchExpressions": [{"key": "bad key", "operator": "DoesNotExist"}]},
            id="a key with a space",
        ),
        pytest.param(
            {"matchExpressions": [{"key": "x" * 64, "operator": "DoesNotExist"}]},
            id="a key name over 63 characters",
        ),
        pytest.param(
            {"matchExpressions": [{"key": "", "operator": "DoesNotExist"}]}, id="an empty key"
        ),
        pytest.param(
            {"matchExpressions": [{"key": "a/b/c", "operator": "DoesNotExist"}]},
            id="a key with two slashes",
        ),
        pytest.param(
            {"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["a b"]}]},
            id="a value with a space",
        ),
        pytest.param({"matchLabels": {"app": "web", "-tier": "front"}}, id="a matchLabels key"),
        pytest.param(
            {"matchExpressions": [{"key": "app", "operator": "in", "values": ["web"]}]},
            id="a lower-case operator",
        ),
        pytest.param(
            {"matchExpressions": [{"key": "version", "operator": "Gt", "values": ["1"]}]},
            id="Gt, which only node selectors have",
        ),
    ],
)
def test_label_selector_kubernetes_cannot_convert_matches_nothing(
    detect: Detect, label_selector: dict[str, Any]
) -> None:
    """selector.go ResourceSelectorPriority: metav1.LabelSelectorAsSelector refuses the selector,
    and the refused selector is a mismatch; the labelSelector of a named selector is never
    converted."""
    web = make_deployment("web", labels={"app": "web", "tier": "front", "version": "2"})
    broken = selector(labelSelector=label_selector)
    result = detect([web, make_policy("p", broken, priority=5), make_policy("q", ALL)])
    assert winner_of(result) == "PropagationPolicy/q"
    (lost,) = [c for c in decision_of(result).candidates if c.policy.name == "p"]
    assert "labelSelector is no valid Kubernetes label selector" in lost.reason
    named = selector(name="web", labelSelector=label_selector)
    assert winner_of(detect([web, make_policy("p", named)])) == "PropagationPolicy/p"


def test_cluster_scoped_templates_ignore_propagation_policies(detect: Detect) -> None:
    """detector.go LookForMatchedPolicy returns nothing for an object without namespace."""
    role = make_object("rbac.authorization.k8s.io/v1", "ClusterRole", "reader")
    sel = selector("ClusterRole", "rbac.authorization.k8s.io/v1")
    result = detect([role, make_policy("p", sel), make_cluster_policy("c", sel)])
    assert winner_of(result, "reader") == "ClusterPropagationPolicy/c"
    assert [c.policy.kind for c in decision_of(result, "reader").candidates] == [
        "ClusterPropagationPolicy"
    ]


def test_unmatched_template_is_reported_not_propagated(detect: Detect) -> None:
    result = detect([WEB, make_configmap(), make_policy("p", selector("ConfigMap", "v1"))])
    unmatched = [d.key.name for d in result.unmatched]
    assert unmatched == ["web"]
    web = decision_of(result)
    assert web.outcome == detection.Outcome.UNMATCHED
    assert web.binding is None
    assert "no PropagationPolicy in namespace shop" in web.message
    assert [b.name for b in result.bindings] == ["settings-configmap"]


def test_candidates_say_why_they_lost(detect: Detect) -> None:
    docs = [
        WEB,
        make_policy("exact", BY_NAME, priority=5),
        make_policy("low", BY_NAME, priority=1),
        make_policy("labels", BY_LABEL, priority=5),
        make_policy("twin", BY_NAME, priority=5, preemption="Always"),
        make_policy("miss", selector(name="api")),
        make_cluster_policy("everything", ALL, priority=50),
    ]
    by_name = {c.policy.name: c for c in decision_of(detect(docs)).candidates}
    assert by_name["exact"].verdict == detection.Verdict.WON
    assert "explicit priority 1 is lower than exact's 5" in by_name["low"].reason
    assert "selects by label selector, exact by name" in by_name["labels"].reason
    assert "'twin' sorts after 'exact'" in by_name["twin"].reason
    assert "PolicyPreemption feature gate is off" in by_name["twin"].reason
    assert by_name["miss"].verdict == detection.Verdict.NO_MATCH
    assert "resourceSelectors[0] wants name api" in by_name["miss"].reason
    assert "chosen before any ClusterPropagationPolicy" in by_name["everything"].reason
    order = [c.policy.name for c in decision_of(detect(docs)).candidates]
    assert order[0] == "exact"
    assert order[-1] == "miss"


def test_decisions_are_deterministic_and_sorted(detect: Detect) -> None:
    docs = [
        make_deployment("b"),
        make_deployment("a"),
        make_configmap("z"),
        make_cluster_policy("c", ALL),
        make_cluster_policy("cm", selector("ConfigMap", "v1")),
    ]
    first, second = detect(docs), detect(list(reversed(docs)))
    assert [d.key for d in first.decisions] == sorted(d.key for d in first.decisions)
    assert [b.name for b in first.bindings] == ["a-deployment", "b-deployment", "z-configmap"]
    assert [b.to_doc() for b in first.bindings] == [b.to_doc() for b in second.bindings]
