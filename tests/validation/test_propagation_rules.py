"""Karmada's webhook rules for (Cluster)PropagationPolicies, each as one table case.

Aspects covered (pkg/util/validation/validation.go, after the webhook's defaults):
- resource selectors: at least one; a PropagationPolicy's selectors stay in its namespace
  (empty is fine); names required with preemption; a label selector Kubernetes cannot convert
  is a warning (Karmada takes it, and it matches nothing); one next to a name is a warning
  that it is ignored;
- placement: clusterAffinity XOR clusterAffinities; field selector keys and operators (In
  or NotIn without values a warning saying what the affinity then matches);
  affinity names (label keys of 1..32 characters, unique); overflow affinities only with
  dynamic weight or Aggregated, only after a non-empty affinity, with unique names;
- spread constraints: field XOR label, non-negative, max >= min (min defaults to 1), one
  constraint per field, a cluster constraint whenever a field is used (the default counts);
  spreadByLabel a warning (Karmada's scheduler ignores it next to a cluster or region
  constraint and fails without one), spreadByField zone or provider a warning (only a filter),
  unless static weights ignore every constraint;
- static weights >= 1; toleration operators (Lt, Gt refused, other unknown ones a warning:
  they tolerate no taint); workload affinity keys;
- failover: application needs propagateDeps, toleration and grace period rules, alias label
  names, cluster purgeMode; 32-bit priority; suspension dispatching XOR clusters.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from validation.documents import FLEET, variant

from gitfleet.model import cluster, meta, policy, selectors

Check = Callable[[dict[str, str]], list[str]]
WEB = "policies/web.yaml"
CRDS = "policies/crds.yaml"
PLACEMENT = "  placement:\n"
PREFIX = "error: PropagationPolicy shop/web: "


def test_the_fleet_is_valid(check: Check) -> None:
    assert check(FLEET) == []


CASES = [
    pytest.param(
        WEB, "      name: web\n", "      name: web\n      namespace: other\n",
        "11:7", "spec.resourceSelectors.0.namespace: must be the policy's own namespace 'shop'",
        id="selector in another namespace",
    ),
    pytest.param(
        WEB, "  priority: 10\n", "  priority: 10\n  preemption: Always\n",
        "11:7", "spec.resourceSelectors.1.name: a name is required when preemption is Always",
        id="preemption needs names",
    ),
    pytest.param(
        WEB, "  priority: 10\n", "  priority: 3000000000\n",
        "17:3", "spec.priority: 3000000000 does not fit in a 32-bit integer", id="int32 priority",
    ),
    pytest.param(
        WEB, PLACEMENT, PLACEMENT + "    clusterAffinities:\n      - {affinityName: a}\n",
        "19:3", "spec.placement: clusterAffinities cannot be used together with clusterAffinity",
        id="affinity and affinities",
    ),
    pytest.param(
        WEB, "{key: region, operator: In, values: [us-east-1]}",
        "{key: city, operator: In, values: [x]}",
        "24:14", "matchExpressions.0.key: unsupported key 'city': must be provider, region",
        id="field selector key",
    ),
    pytest.param(
        WEB, "{key: region, operator: In, values: [us-east-1]}",
        "{key: zone, operator: Exists}",
        "24:25", "matchExpressions.0.operator: unsupported operator 'Exists': must be In or NotIn",
        id="field selector operator",
    ),
    pytest.param(
        WEB, "{spreadByField: cluster, maxGroups: 2, minGroups: 1}",
        "{spreadByField: cluster, spreadByLabel: rack, maxGroups: 2}",
        "28:9", "spec.placement.spreadConstraints.0: spreadByLabel cannot be used together",
        id="spread field and label",
    ),
    pytest.param(
        WEB, "{spreadByField: cluster, maxGroups: 2, minGroups: 1}",
        "{spreadByField: cluster, maxGroups: 2, minGroups: 3}",
        "28:34", "spreadConstraints.0.maxGroups: must not be lower than minGroups 3",
        id="max below min",
    ),
    pytest.param(
        WEB, "{spreadByField: cluster, maxGroups: 2, minGroups: 1}",
        "{spreadByField: cluster, minGroups: -1}",
        "28:34", "spreadConstraints.0.minGroups: must be at least 0, got -1", id="negative min",
    ),
    pytest.param(
        WEB, "{spreadByField: cluster, maxGroups: 2, minGroups: 1}",
        "{spreadByField: region, maxGroups: 2}",
        "27:5", "spec.placement.spreadConstraints: spreading by a field needs a cluster spread",
        id="field without cluster",
    ),
    pytest.param(
        WEB, "{spreadByField: cluster, maxGroups: 2, minGroups: 1}",
        "{maxGroups: 2}\n      - {spreadByField: cluster}",
        "29:9", "spreadConstraints.1: more than one cluster spread constraint",
        id="default cluster constraint counts",
    ),
    pytest.param(
        WEB, "            weight: 2\n", "            weight: 0\n",
        "35:13", "staticWeightList.0.weight: must be at least 1", id="weight zero",
    ),
    pytest.param(
        WEB, "{key: dedicated, operator: Equal, value: gpu, effect: NoSchedule}",
        "{key: cpu, operator: Gt, value: '4'}",
        "26:20", "clusterTolerations.0.operator: unsupported operator 'Gt'", id="toleration Gt",
    ),
    pytest.param(
        WEB, "  propagateDeps: true\n",
        "  propagateDeps: true\n  failover:\n    cluster: {purgeMode: Never}\n",
        "20:15", "spec.failover.cluster.purgeMode: unsupported value 'Never'",
        id="cluster failover never",
    ),
    pytest.param(
        WEB, "  propagateDeps: true\n",
        "  suspension:\n    dispatching: true\n"
        "    dispatchingOnClusters: {clusterNames: [member1]}\n",
        "18:3", "spec.suspension: dispatching cannot be used together", id="suspension",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("path", "old", "new", "where", "message"), CASES)
def test_propagation_rule(
    check: Check, path: str, old: str, new: str, where: str, message: str
) -> None:
    found = [line for line in check(variant(path, old, new)) if "error" in line]
    assert len(found) == 1, found
    assert found[0].startswith(f"{path}:{where}: {PREFIX}"), found[0]
    assert message in found[0]


SELECTOR_CASES = [
    pytest.param(
        WEB, "{key: region, operator: In, values: [us-east-1]}",
        "{key: region, operator: NotIn, values: [us east]}",
        "24:53", "fieldSelector.matchExpressions.0.values.0: 'us east' must be empty or consist",
        id="field selector value",
    ),
    pytest.param(
        WEB, "{key: tier, operator: In, values: [frontend]}", "{key: tier, operator: In}",
        "16:13", "spec.resourceSelectors.1.labelSelector.matchExpressions.0.values: "
        "operator In needs at least one value", id="In without values",
    ),
    pytest.param(
        WEB, "{key: tier, operator: In, values: [frontend]}",
        "{key: tier, operator: Exists, values: [x]}",
        "16:43", "matchExpressions.0.values: operator Exists takes no values",
        id="Exists with values",
    ),
    pytest.param(
        WEB, "{key: tier, operator: In, values: [frontend]}", "{key: tier, operator: Is}",
        "16:25", "matchExpressions.0.operator: unsupported operator 'Is'",
        id="unknown operator",
    ),
    pytest.param(
        WEB, "matchLabels: {app: web}", "matchLabels: {app: 'web site'}",
        "14:23", "matchLabels.app: 'web site' must be empty or consist of", id="label value",
    ),
    pytest.param(
        WEB, "matchLabels: {app: web}", "matchLabels: {-app: web}",
        "14:23", "matchLabels.-app: '-app': name part must consist of", id="label key",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("path", "old", "new", "where", "message"), SELECTOR_CASES)
def test_a_selector_kubernetes_cannot_convert_is_a_warning(
    check: Check, path: str, old: str, new: str, where: str, message: str
) -> None:
    """Karmada takes the policy, and the selector matches nothing."""
    found = check(variant(path, old, new))
    assert not [line for line in found if ": error: " in line], found
    warned = [line for line in found if line.startswith(f"{path}:{where}: warning: ")]
    assert len(warned) == 1, found
    assert message in warned[0]
    assert warned[0].endswith("Kubernetes cannot convert the selector, which matches nothing")


def test_an_unknown_toleration_operator_is_a_warning(check: Check) -> None:
    """Karmada's webhook refuses only Lt and Gt; Kubernetes' ToleratesTaint tolerates no taint
    with any other unknown operator, and neither does the scheduler's."""
    toleration = "{key: dedicated, operator: Equal, value: gpu, effect: NoSchedule}"
    found = check(variant(WEB, toleration, "{key: dedicated, operator: exists}"))
    assert found == [
        f"{WEB}:26:26: warning: PropagationPolicy shop/web: spec.placement.clusterTolerations.0."
        "operator: unknown operator 'exists' (not Exists or Equal): it tolerates no taint"
    ]
    taint = meta.Taint(key="dedicated", effect="NoSchedule")
    assert not selectors.tolerates(meta.Toleration(key="dedicated", operator="exists"), taint)


REGION_IN = "{key: region, operator: In, values: [us-east-1]}"

NO_VALUES = [
    pytest.param("zone", "In", "operator In without values: the affinity matches no cluster"),
    pytest.param("region", "In", "operator In without values: the affinity matches no cluster"),
    pytest.param(
        "provider", "NotIn", "operator NotIn without values: the affinity matches no cluster"
    ),
    pytest.param("zone", "NotIn", "operator NotIn without values excludes no zone"),
]


@pytest.mark.parametrize(("key", "operator", "message"), NO_VALUES)
def test_a_field_selector_without_values_is_a_warning(
    check: Check, key: str, operator: str, message: str
) -> None:
    """Karmada's webhook takes In and NotIn without values; its ClusterMatches then matches
    zones as written and cannot convert the other fields' expressions. So do the selectors."""
    found = check(variant(WEB, REGION_IN, f"{{key: {key}, operator: {operator}}}"))
    assert found == [
        f"{WEB}:24:13: warning: PropagationPolicy shop/web: spec.placement.clusterAffinity."
        f"fieldSelector.matchExpressions.0.values: {message}"
    ]
    expression = {"key": key, "operator": operator}
    chosen = policy.ClusterAffinity(
        field_selector=policy.FieldSelector(
            match_expressions=(meta.NodeSelectorRequirement(**expression),)
        )
    )
    member = cluster.Cluster.from_doc(
        {
            "apiVersion": "cluster.karmada.io/v1alpha1",
            "kind": "Cluster",
            "metadata": {"name": "member1"},
            "spec": {"syncMode": "Push", "provider": "aws", "region": "eu", "zones": ["eu-1"]},
        }
    )
    assert selectors.cluster_matches(member, chosen) is message.endswith("excludes no zone")


AFFINITIES = "    clusterAffinities:\n"
CRDS_PREFIX = "error: ClusterPropagationPolicy crds: spec.placement.clusterAffinities."

TERM_CASES = [
    pytest.param(
        "affinityName: backup", "affinityName: primary",
        "13:9", "1.affinityName: affinityName 'primary' is used by an earlier term",
        id="duplicate name",
    ),
    pytest.param(
        "affinityName: backup", "affinityName: " + "b" * 33,
        "13:9", "1.affinityName: must be 1 to 32 characters", id="long name",
    ),
    pytest.param(
        "affinityName: backup", "affinityName: 'not valid'",
        "13:9", "1.affinityName: 'not valid': name part must consist", id="name syntax",
    ),
    pytest.param(
        "        clusterNames: [member1]\n",
        "        clusterNames: [member1]\n        overflowAffinities:\n"
        "          - {affinityName: spill, clusterNames: [member2]}\n",
        "13:9", "0.overflowAffinities: needs Divided scheduling with dynamic weight",
        id="overflow with Duplicated",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new", "where", "message"), TERM_CASES)
def test_cluster_affinity_terms(check: Check, old: str, new: str, where: str, message: str) -> None:
    [found] = [line for line in check(variant(CRDS, old, new)) if "error" in line]
    assert found.startswith(f"{CRDS}:{where}: {CRDS_PREFIX}{message}"), found


def test_overflow_rules(check: Check) -> None:
    divided = FLEET[CRDS].replace(
        "replicaSchedulingType: Duplicated",
        "replicaSchedulingType: Divided\n      replicaDivisionPreference: Aggregated",
    )
    overflow = divided.replace(
        "      - affinityName: backup\n",
        "      - affinityName: backup\n        overflowAffinities:\n"
        "          - {affinityName: backup, clusterNames: [member2]}\n",
    ).replace("        labelSelector:\n          matchLabels: {env: production}\n", "")
    found = check({**FLEET, CRDS: overflow})
    assert found == [
        f"{CRDS}:14:9: {CRDS_PREFIX}1.overflowAffinities: "
        "needs the term's own cluster affinity to select clusters",
        f"{CRDS}:15:14: {CRDS_PREFIX}1.overflowAffinities.0.affinityName: "
        "'backup' must differ from the term's other names",
    ]
    assert check({**FLEET, CRDS: divided}) == []


def test_application_failover_rules(check: Check) -> None:
    failover = (
        "  failover:\n    application:\n      decisionConditions: {tolerationSeconds: 10}\n"
        "      purgeMode: Directly\n      gracePeriodSeconds: 5\n"
        "      statePreservation:\n        rules:\n"
        "          - {aliasLabelName: 'bad label', jsonPath: '{.status}'}\n"
    )
    found = check(variant(WEB, "  propagateDeps: true\n", failover))
    assert [line.split(": ", 3)[3] for line in found if "error" in line] == [
        "spec.propagateDeps: must be true when application failover is set",
        "spec.failover.application.gracePeriodSeconds: only applies when purgeMode is Gracefully",
        "spec.failover.application.statePreservation.rules.0.aliasLabelName: "
        "'bad label': name part must consist of alphanumeric characters, '-', '_' or '.', "
        "and start and end with an alphanumeric character",
    ]


def test_a_service_import_selector_propagates_dependencies(check: Check) -> None:
    """Karmada's mutating webhook turns propagateDeps on for a policy selecting ServiceImports,
    before its validating webhook asks for it with application failover."""
    failover = (
        "    - {apiVersion: multicluster.x-k8s.io/v1alpha1, kind: ServiceImport, name: web}\n"
        "  failover:\n    application:\n      decisionConditions: {tolerationSeconds: 10}\n"
    )
    policy_text = variant(WEB, "  propagateDeps: true\n", "")[WEB]
    selectors_end = "  priority: 10\n"
    found = check({**FLEET, WEB: policy_text.replace(selectors_end, failover + selectors_end)})
    assert [line for line in found if ": error: " in line] == []


def test_application_failover_bounds(check: Check) -> None:
    """Field rules: every broken one is reported, before Karmada's webhook rules."""
    failover = (
        "  failover:\n    application:\n      decisionConditions: {tolerationSeconds: -1}\n"
        "      gracePeriodSeconds: 0\n"
    )
    found = check(variant(WEB, "  propagateDeps: true\n", failover))
    assert [line.split(": ", 3)[3] for line in found if "error" in line] == [
        "spec.failover.application.decisionConditions.tolerationSeconds: "
        "must be at least 0, got -1",
        "spec.failover.application.gracePeriodSeconds: must be at least 1, got 0",
    ]


LABEL_SPREAD = """\
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: racks
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
  placement:
    replicaScheduling:
      replicaSchedulingType: {type}
    spreadConstraints:
      - spreadByLabel: topology.example.io/rack
        maxGroups: 2
{more}"""
IGNORED = "ignored: Karmada's scheduler spreads by cluster and region only"
FAILS = (
    "Karmada's scheduler spreads by cluster and region only, and fails a placement that has "
    "neither ('just support cluster and region spread constraint'): add a cluster spread "
    "constraint"
)


@pytest.mark.parametrize(
    ("kind", "more", "expected"),
    [
        pytest.param("Duplicated", "", FAILS, id="label alone: the placement fails"),
        pytest.param(
            "Duplicated", "      - spreadByField: cluster\n        maxGroups: 2\n", IGNORED,
            id="next to a cluster constraint: ignored",
        ),
        pytest.param(
            "Duplicated", "      - maxGroups: 2\n", IGNORED,
            id="next to a constraint defaulting to cluster: ignored",
        ),
        pytest.param("Divided", "", None, id="static weights (Weighted, none given) ignore all"),
    ],
)  # fmt: skip
def test_spread_by_label(check: Check, kind: str, more: str, expected: str | None) -> None:
    found = check({"racks.yaml": LABEL_SPREAD.format(type=kind, more=more)})
    label = [f for f in found if "spreadByLabel" in f]
    if expected is None:
        assert label == []
    else:
        assert label == [
            "racks.yaml:13:9: warning: PropagationPolicy default/racks: "
            f"spec.placement.spreadConstraints.0.spreadByLabel: {expected}"
        ]


@pytest.mark.parametrize("field", ["zone", "provider"])
def test_zone_and_provider_spreads_only_filter(check: Check, field: str) -> None:
    more = "      - spreadByField: cluster\n        maxGroups: 2\n"
    doc = LABEL_SPREAD.format(type="Duplicated", more=more).replace(
        "      - spreadByLabel: topology.example.io/rack\n", f"      - spreadByField: {field}\n"
    )
    assert [f for f in check({"racks.yaml": doc}) if "spreadConstraints" in f] == [
        "racks.yaml:13:9: warning: PropagationPolicy default/racks: "
        f"spec.placement.spreadConstraints.0.spreadByField: only a filter: Karmada's scheduler "
        f"keeps the clusters that have a {field} and spreads by cluster and region only"
    ]


@pytest.mark.parametrize(
    "selector",
    [
        pytest.param("{}", id="matching every template"),
        pytest.param("\n        matchLabels: {-app: web}", id="one Kubernetes cannot convert"),
    ],
)
def test_a_label_selector_next_to_a_name_is_ignored(check: Check, selector: str) -> None:
    """Karmada matches a selector with a name by the name alone (ResourceSelectorPriority):
    its label selector, convertible or not, changes nothing, and the warning says so rather
    than that the selector matches nothing."""
    named = "      name: web\n"
    found = check(variant(WEB, named, f"{named}      labelSelector: {selector}\n"))
    assert [line.partition(": warning: ")[2] for line in found] == [
        "PropagationPolicy shop/web: spec.resourceSelectors.0.labelSelector: ignored: a selector "
        "with a name selects the template of that name whatever its labels"
    ], found
