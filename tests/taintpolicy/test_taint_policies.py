"""ClusterTaintPolicies tainting clusters (gitfleet.taintpolicy), the rules of Karmada's
clustertaintpolicy controller.

Aspects: taints added when every add condition matches, dated by the render; kept while
neither the add nor the remove conditions match, with their first date; removed when the
remove conditions match; a cluster outside `targetClusters` keeps what it has; policies taken
by name, the first to add a key and effect wins; a taint the cluster declares is neither added
again nor removed; how match conditions read several conditions of one type, a missing type
and an unknown operator; render.yaml's section read back as written.
"""

from __future__ import annotations

from collections.abc import Sequence

from builders import make_cluster, make_taint_policy, object_set, ready_is

from gitfleet import taintpolicy
from gitfleet.model import cluster, meta, policy

NOT_READY = ready_is("NotIn", "True")
READY = ready_is("In", "True")
T1, T2 = "2026-05-01T10:00:00Z", "2026-05-01T11:00:00Z"


def _clusters(ready: dict[str, str], **spec: object) -> tuple[cluster.Cluster, ...]:
    """Clusters named after `ready`'s keys, each with that Ready status."""
    found = []
    for name, status in ready.items():
        doc = make_cluster(name, labels={"tier": "edge" if name.startswith("e") else "core"})
        doc["spec"].update(spec)
        doc["status"]["conditions"][0]["status"] = status
        found.append(doc)
    return object_set(found).clusters


def _policies(*docs: dict[str, object]) -> tuple[policy.ClusterTaintPolicy, ...]:
    return object_set(docs).cluster_taint_policies


def _taints(result: taintpolicy.Tainted, name: str) -> list[tuple[str, str, str | None]]:
    member = next(c for c in result.clusters if c.name == name)
    return [(t.key, t.effect, t.time_added) for t in member.spec.taints]


NOT_READY_POLICY = make_taint_policy(
    "not-ready", ("not-ready", "NoSchedule"), add_on=NOT_READY, remove_on=READY
)


def test_taints_come_with_the_condition_and_go_with_its_recovery() -> None:
    policies = _policies(NOT_READY_POLICY)
    failing = taintpolicy.apply(_clusters({"m1": "False", "m2": "True"}), policies, {}, T1)
    assert _taints(failing, "m1") == [("not-ready", "NoSchedule", T1)]
    assert _taints(failing, "m2") == []
    assert set(failing.managed) == {"m1"}

    unknown = taintpolicy.apply(_clusters({"m1": "Unknown"}), policies, failing.managed, T2)
    assert _taints(unknown, "m1") == [("not-ready", "NoSchedule", T1)], "added once, dated once"

    recovered = taintpolicy.apply(_clusters({"m1": "True"}), policies, unknown.managed, T2)
    assert _taints(recovered, "m1") == []
    assert recovered.managed == {}


def test_a_taint_stays_while_neither_condition_matches() -> None:
    only_add = make_taint_policy("flag", ("flag", "NoSchedule"), add_on=NOT_READY)
    policies = _policies(only_add)
    added = taintpolicy.apply(_clusters({"m1": "False"}), policies, {}, T1)
    kept = taintpolicy.apply(_clusters({"m1": "True"}), policies, added.managed, T2)
    assert _taints(kept, "m1") == [("flag", "NoSchedule", T1)], "no remove conditions: stays"


def test_a_cluster_the_policy_no_longer_targets_keeps_its_taints() -> None:
    edge_only = make_taint_policy(
        "edge",
        ("edge-down", "NoSchedule"),
        add_on=NOT_READY,
        remove_on=READY,
        targetClusters={"labelSelector": {"matchLabels": {"tier": "edge"}}},
    )
    policies = _policies(edge_only)
    first = taintpolicy.apply(_clusters({"e1": "False", "m1": "False"}), policies, {}, T1)
    assert _taints(first, "e1") == [("edge-down", "NoSchedule", T1)]
    assert _taints(first, "m1") == [], "m1 is not an edge cluster"
    moved = {"m1": first.managed["e1"]}
    kept = taintpolicy.apply(_clusters({"m1": "True"}), policies, moved, T2)
    assert _taints(kept, "m1") == [("edge-down", "NoSchedule", T1)]


def test_policies_are_taken_by_name_and_the_first_to_add_a_taint_wins() -> None:
    later = make_taint_policy("b-later", ("down", "NoSchedule"), add_on=NOT_READY)
    later["spec"]["taints"][0]["value"] = "b"
    first = make_taint_policy("a-first", ("down", "NoSchedule"), add_on=NOT_READY)
    first["spec"]["taints"][0]["value"] = "a"
    result = taintpolicy.apply(_clusters({"m1": "False"}), _policies(later, first), {}, T1)
    (taint,) = result.managed["m1"]
    assert taint.value == "a"


def test_a_later_policy_removes_what_an_earlier_one_added_in_the_same_pass() -> None:
    adds = make_taint_policy("a", ("down", "NoSchedule"), add_on=NOT_READY)
    removes = make_taint_policy("b", ("down", "NoSchedule"), remove_on=ready_is("In", "False"))
    result = taintpolicy.apply(_clusters({"m1": "False"}), _policies(adds, removes), {}, T1)
    assert _taints(result, "m1") == []


def test_a_declared_taint_is_neither_added_again_nor_removed() -> None:
    declared = [{"key": "not-ready", "effect": "NoSchedule", "value": "declared"}]
    policies = _policies(NOT_READY_POLICY)
    failing = taintpolicy.apply(_clusters({"m1": "False"}, taints=declared), policies, {}, T1)
    member = failing.clusters[0]
    assert [(t.key, t.value) for t in member.spec.taints] == [("not-ready", "declared")]
    assert failing.managed == {}
    recovered = taintpolicy.apply(_clusters({"m1": "True"}, taints=declared), policies, {}, T2)
    assert [t.value for t in recovered.clusters[0].spec.taints] == ["declared"]


def _conditions(*pairs: tuple[str, str]) -> tuple[meta.Condition, ...]:
    return tuple(meta.Condition(type=t, status=s) for t, s in pairs)


def _match(operator: str, values: Sequence[str], kind: str = "Ready") -> policy.MatchCondition:
    return policy.MatchCondition(
        condition_type=kind, operator=operator, status_values=tuple(values)
    )


def test_match_conditions_read_conditions_as_karmada_does() -> None:
    both = _conditions(("Ready", "False"), ("Ready", "True"))
    assert taintpolicy.condition_matches(both, [_match("In", ["False"])]), "In: any listed"
    assert taintpolicy.condition_matches(both, [_match("NotIn", ["False"])]), "NotIn: the last"
    assert not taintpolicy.condition_matches(both, [_match("NotIn", ["True"])])
    ready = _conditions(("Ready", "True"))
    assert not taintpolicy.condition_matches(ready, [_match("NotIn", ["False"], "Degraded")]), (
        "a type the cluster has no condition of never matches, even with NotIn"
    )
    assert not taintpolicy.condition_matches(ready, [_match("Equals", ["True"])])
    assert not taintpolicy.condition_matches(ready, []), "no match conditions: never"
    two = [_match("In", ["True"]), _match("In", ["False"], "Degraded")]
    assert not taintpolicy.condition_matches(ready, two), "all must match"


def test_the_section_reads_back_as_written_and_skips_what_is_not_a_taint() -> None:
    policies = _policies(NOT_READY_POLICY)
    result = taintpolicy.apply(_clusters({"m1": "False", "m2": "False"}), policies, {}, T1)
    written = taintpolicy.to_json(result.managed)
    assert written == {
        "m1": [{"key": "not-ready", "effect": "NoSchedule", "timeAdded": T1}],
        "m2": [{"key": "not-ready", "effect": "NoSchedule", "timeAdded": T1}],
    }
    assert taintpolicy.from_json(written) == result.managed
    damaged = {"m1": [{"effect": "NoSchedule"}, "x", written["m1"][0]], "m2": "no", 3: []}
    assert taintpolicy.from_json(damaged) == {"m1": result.managed["m1"]}
    assert taintpolicy.from_json(None) == {}


def test_carried_taints_are_what_apply_leaves_when_nothing_changes() -> None:
    policies = _policies(NOT_READY_POLICY)
    clusters = _clusters({"m1": "False", "m2": "True"})
    first = taintpolicy.apply(clusters, policies, {}, T1)
    again = taintpolicy.apply(clusters, policies, first.managed, T2)
    assert taintpolicy.carried(clusters, first.managed) == again.clusters
    assert again.managed == first.managed
