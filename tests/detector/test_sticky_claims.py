"""Claims across renders (Karmada pkg/detector/policy.go propagateResource, getAndApplyPolicy,
HandlePropagationPolicyCreationOrUpdate, handlePolicyDeletion; claim.go; preemption.go with the
PolicyPreemption gate off).

Aspects: a claim recorded on the previous binding keeps its policy against better newcomers (PP
and CPP, explicit and implicit priority, preemption: Always without the gate); a claim on the
template itself; the claiming policy disappearing (re-match, or orphaned binding kept with its
placement), stopping to match, or being deleted; a PP claim replacing a CPP one; lazy activation;
dependent overrides.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from builders import make_cluster_policy, make_deployment, make_policy, selector
from detector.detector_checks import Detect, binding_of, decision_of, winner_of

from gitfleet.detector import _claim, detection
from gitfleet.model import work

WEB = make_deployment("web", labels={"app": "web"})
BY_NAME = selector(name="web")
ALL = selector()
PLACE_A: dict[str, Any] = {"placement": {"clusterAffinity": {"clusterNames": ["a"]}}}
PLACE_B: dict[str, Any] = {"placement": {"clusterAffinity": {"clusterNames": ["b"]}}}


def scheduled(result: detection.Detection, *clusters: str) -> list[detection.Binding]:
    """The bindings of `result` as if the scheduler had placed each on `clusters`."""
    targets = tuple(work.TargetCluster(name=c, replicas=1) for c in clusters)
    return [
        dataclasses.replace(b, spec=dataclasses.replace(b.spec, clusters=targets))
        for b in result.bindings
    ]


@pytest.mark.parametrize(
    ("first", "newcomer", "expected"),
    [
        pytest.param(
            make_policy("old", ALL),
            make_policy("new", BY_NAME, priority=10),
            "PropagationPolicy/old",
            id="policy.go: a PP claim survives a higher-priority PP",
        ),
        pytest.param(
            make_cluster_policy("old", ALL),
            make_policy("new", BY_NAME),
            "ClusterPropagationPolicy/old",
            id="policy.go: a CPP claim survives a namespace PP",
        ),
        pytest.param(
            make_cluster_policy("old", ALL),
            make_cluster_policy("new", BY_NAME, priority=5),
            "ClusterPropagationPolicy/old",
            id="policy.go: a CPP claim survives a higher-priority CPP",
        ),
        pytest.param(
            make_policy("old", ALL),
            make_policy("new", BY_NAME, priority=10, preemption="Always"),
            "PropagationPolicy/old",
            id="preemption.go: preemption Always needs the PolicyPreemption gate (off)",
        ),
        pytest.param(
            make_cluster_policy("old", ALL),
            make_policy("new", BY_NAME, preemption="Always"),
            "ClusterPropagationPolicy/old",
            id="preemption.go: a PP does not take over a CPP claim without the gate",
        ),
    ],
)
def test_claims_are_sticky(
    detect: Detect, first: dict[str, Any], newcomer: dict[str, Any], expected: str
) -> None:
    before = detect([WEB, first])
    after = detect([WEB, first, newcomer], previous=before)
    assert winner_of(after) == expected
    decision = decision_of(after)
    assert decision.claim is not None and f"{decision.claim.kind}/{decision.claim.name}" == expected
    lost = [c for c in decision.candidates if c.policy.name == "new"]
    assert "keeps it while it exists and selects the template" in lost[0].reason
    without_history = detect([WEB, first, newcomer])
    assert winner_of(without_history) == f"{newcomer['kind']}/new"


def test_claim_written_on_the_template_is_honoured(detect: Detect) -> None:
    """policy.go: the template's own claim annotations and label are read first."""
    web = make_deployment(
        "web",
        labels={"propagationpolicy.karmada.io/permanent-id": "from-karmada"},
        annotations={
            "propagationpolicy.karmada.io/namespace": "shop",
            "propagationpolicy.karmada.io/name": "old",
        },
    )
    result = detect([web, make_policy("old", ALL), make_policy("new", BY_NAME, priority=3)])
    assert winner_of(result) == "PropagationPolicy/old"


def test_incomplete_claim_is_no_claim(detect: Detect) -> None:
    """policy.go: a PP claim needs namespace, name and permanent-id together."""
    web = make_deployment("web", annotations={"propagationpolicy.karmada.io/name": "old"})
    result = detect([web, make_policy("old", ALL), make_policy("new", BY_NAME, priority=3)])
    assert winner_of(result) == "PropagationPolicy/new"


def test_a_stale_claim_label_is_gone_when_the_template_is_matched_again(detect: Detect) -> None:
    """Karmada's answer: `b`. propagateResource finds the claiming PropagationPolicy gone and
    cleans its claim (CleanupPPClaimMetadata) before matching afresh, so a selector naming the
    stale permanent-id label no longer matches (it would win by name order otherwise)."""
    web = make_deployment(
        "web",
        labels={"app": "web", "propagationpolicy.karmada.io/permanent-id": "old-id"},
        annotations={
            "propagationpolicy.karmada.io/namespace": "shop",
            "propagationpolicy.karmada.io/name": "old",
        },
    )
    on_id = selector(
        labelSelector={"matchLabels": {"propagationpolicy.karmada.io/permanent-id": "old-id"}}
    )
    on_app = selector(labelSelector={"matchLabels": {"app": "web"}})
    result = detect([web, make_policy("a-b", on_id), make_policy("b", on_app)])
    assert winner_of(result) == "PropagationPolicy/b"


@pytest.mark.parametrize(
    "pp_claimer",
    [
        pytest.param(None, id="policy.go: the PP claim's policy is gone"),
        pytest.param(
            make_policy("old", selector(kind="ConfigMap", api_version="v1")),
            id="policy.go: the PP claim's policy no longer selects the template",
        ),
    ],
)
def test_cluster_claim_under_a_stale_pp_claim_holds(
    detect: Detect, pp_claimer: dict[str, Any] | None
) -> None:
    """propagateResource reads a PP claim first; cleaning a stale one (CleanupPPClaimMetadata)
    leaves the template's CPP claim, which the next reconcile reads and honours."""
    web = make_deployment(
        "web",
        labels={
            "propagationpolicy.karmada.io/permanent-id": "pp-id",
            "clusterpropagationpolicy.karmada.io/permanent-id": "cpp-id",
        },
        annotations={
            "propagationpolicy.karmada.io/namespace": "shop",
            "propagationpolicy.karmada.io/name": "old",
            "clusterpropagationpolicy.karmada.io/name": "held",
        },
    )
    docs = [web, make_cluster_policy("held", ALL), make_policy("new", BY_NAME, priority=3)]
    result = detect([*docs, pp_claimer] if pp_claimer else docs)
    assert winner_of(result) == "ClusterPropagationPolicy/held"
    decision = decision_of(result)
    assert decision.outcome == detection.Outcome.APPLIED
    assert decision.message.startswith("its claiming PropagationPolicy shop/old no longer")
    assert decision.message.endswith("; ClusterPropagationPolicy held claims it")


def test_deleted_claimer_lets_another_policy_claim(detect: Detect) -> None:
    """handlePolicyDeletion removes the claim; the template is matched again."""
    before = detect([WEB, make_policy("old", ALL, **PLACE_A), make_cluster_policy("c", ALL)])
    after = detect([WEB, make_cluster_policy("c", ALL, **PLACE_B)], previous=scheduled(before, "a"))
    assert winner_of(after) == "ClusterPropagationPolicy/c"
    b = binding_of(after)
    labels = b.metadata.labels or {}
    assert "propagationpolicy.karmada.io/permanent-id" not in labels
    assert "clusterpropagationpolicy.karmada.io/permanent-id" in labels
    assert b.spec.placement is not None and b.spec.placement.cluster_affinity is not None
    assert b.spec.placement.cluster_affinity.cluster_names == ("b",)
    assert [c.name for c in b.spec.clusters] == ["a"], "the schedule result is the scheduler's"


def test_deleted_claimer_with_no_successor_keeps_the_binding(detect: Detect) -> None:
    """handlePolicyDeletion: the binding and the propagated resources stay, unclaimed."""
    before = scheduled(detect([WEB, make_policy("old", ALL, **PLACE_A)]), "a")
    after = detect([WEB], previous=before)
    decision = decision_of(after)
    assert decision.outcome == detection.Outcome.ORPHANED
    assert "no longer exists" in decision.message
    b = binding_of(after)
    assert [c.name for c in b.spec.clusters] == ["a"]
    assert b.spec.placement == before[0].spec.placement
    assert not any("propagationpolicy" in k for k in b.metadata.labels or {})
    assert not any("propagationpolicy" in k for k in b.metadata.annotations or {})
    assert [d.key.name for d in after.unmatched] == ["web"]


def test_skipped_template_keeps_its_binding(detect: Detect) -> None:
    """Reconcile: a template another controller claims is left alone, binding included."""
    before = scheduled(detect([WEB, make_policy("old", ALL)]), "a")
    taken = make_deployment(
        "web", labels={"app": "web", "resourcetemplate.karmada.io/claimed-by": "mcs"}
    )
    after = detect([taken, make_policy("old", ALL)], previous=before)
    assert decision_of(after).outcome == detection.Outcome.SKIPPED
    assert binding_of(after) == before[0]


def test_waiting_winner_leaves_the_previous_binding_unclaimed(detect: Detect) -> None:
    """A dropped claim is cleaned from the binding even while the next policy waits."""
    before = scheduled(detect([WEB, make_policy("old", ALL)]), "a")
    waiting = make_policy("new", ALL, dependentOverrides=["missing"])
    after = detect([WEB, waiting], previous=before)
    assert decision_of(after).outcome == detection.Outcome.WAITING
    b = binding_of(after)
    assert [c.name for c in b.spec.clusters] == ["a"]
    assert "propagationpolicy.karmada.io/name" not in (b.metadata.annotations or {})


def test_orphaned_binding_goes_with_its_template(detect: Detect) -> None:
    """The binding is owned by its template (owner reference): no template, no binding."""
    before = scheduled(detect([WEB, make_policy("old", ALL)]), "a")
    after = detect([make_policy("old", ALL)], previous=before)
    assert after.bindings == ()


def test_claimer_that_stops_matching_releases_the_template(detect: Detect) -> None:
    """HandlePropagationPolicyCreationOrUpdate: cleanPPUnmatchedRBs drops the claim."""
    before = detect([WEB, make_policy("old", BY_NAME), make_policy("other", ALL, priority=-1)])
    changed = make_policy("old", selector(name="api"))
    after = detect([WEB, changed, make_policy("other", ALL, priority=-1)], previous=before)
    assert winner_of(after) == "PropagationPolicy/other"
    assert decision_of(after).message == (
        "its claiming PropagationPolicy shop/old no longer selects it; "
        "PropagationPolicy shop/other selects it"
    )
    alone = detect([WEB, changed], previous=scheduled(before, "a"))
    assert decision_of(alone).outcome == detection.Outcome.ORPHANED
    assert "no longer selects it" in decision_of(alone).message


def test_a_claim_kept_on_the_binding_counts_as_a_template_label(detect: Detect) -> None:
    """Karmada's answer: `p` keeps the template. Karmada writes the claim's permanent-id label
    on the template too (AddPPClaimMetadata), so a policy selecting by its own id still
    selects it (getAndApplyPolicy) and keeps it against a better match; gitfleet keeps that
    label on the binding, and reads it back as the template's."""
    before = detect([WEB, make_policy("p", ALL)])
    own_id = _claim.permanent_id("PropagationPolicy", "shop", "p")
    by_id = selector(
        labelSelector={"matchLabels": {"propagationpolicy.karmada.io/permanent-id": own_id}}
    )
    after = detect([WEB, make_policy("p", by_id), make_policy("a", BY_NAME, priority=5)], before)
    assert winner_of(after) == "PropagationPolicy/p"


def test_claiming_policy_being_deleted_counts_as_gone(detect: Detect) -> None:
    before = detect([WEB, make_policy("old", ALL), make_policy("next", ALL, priority=-5)])
    dying = make_policy("old", ALL)
    dying["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    after = detect([WEB, dying, make_policy("next", ALL, priority=-5)], previous=before)
    assert winner_of(after) == "PropagationPolicy/next"


def test_policy_edits_reach_the_claimed_binding(detect: Detect) -> None:
    """HandlePropagationPolicyCreationOrUpdate re-enqueues the templates a policy claims."""
    before = detect([WEB, make_policy("p", ALL, **PLACE_A)])
    after = detect([WEB, make_policy("p", ALL, **PLACE_B)], previous=before)
    b = binding_of(after)
    assert b.spec.placement is not None and b.spec.placement.cluster_affinity is not None
    assert b.spec.placement.cluster_affinity.cluster_names == ("b",)
    assert b.metadata.generation == 2


def test_lazy_policy_edits_wait_for_a_template_change(detect: Detect) -> None:
    """ApplyPolicy with activationPreference Lazy skips changes not made by the user."""
    lazy_a = make_policy("p", ALL, activationPreference="Lazy", **PLACE_A)
    lazy_b = make_policy("p", ALL, activationPreference="Lazy", **PLACE_B)
    before = detect([WEB, lazy_a])
    kept = detect([WEB, lazy_b], previous=before)
    assert decision_of(kept).outcome == detection.Outcome.LAZY
    assert binding_of(kept) == binding_of(before)
    touched = detect([make_deployment("web", replicas=5, labels={"app": "web"}), lazy_b], kept)
    b = binding_of(touched)
    assert decision_of(touched).outcome == detection.Outcome.APPLIED
    assert b.spec.replicas == 5
    assert b.spec.placement is not None and b.spec.placement.cluster_affinity is not None
    assert b.spec.placement.cluster_affinity.cluster_names == ("b",)


LAZY_B = make_policy("lazy", ALL, activationPreference="Lazy", **PLACE_B)
WEB_EDITED = make_deployment("web", replicas=5, labels={"app": "web"})


def test_a_lazy_policy_after_its_template_claims_it_and_waits_for_a_change(
    detect: Detect,
) -> None:
    """HandlePropagationPolicyCreationOrUpdate enqueues the waiting template as a change by
    Karmada; ApplyPolicy claims it and builds no binding (Karmada's e2e: a Lazy policy created
    after its resource propagates nothing until the resource is updated)."""
    before = detect([WEB])
    assert [(s.key.name, s.claim) for s in before.seen] == [("web", None)]
    claimed = detect([WEB, LAZY_B], before)
    decision = decision_of(claimed)
    assert decision.outcome == detection.Outcome.LAZY
    assert decision.binding is None and claimed.bindings == ()
    assert [str(s.claim) for s in claimed.seen] == ["PropagationPolicy shop/lazy"]
    still = detect([WEB, LAZY_B, make_policy("better", BY_NAME, priority=9)], claimed)
    assert decision_of(still).outcome == detection.Outcome.LAZY
    assert str(decision_of(still).claim) == "PropagationPolicy shop/lazy", "the claim sticks"
    edited = detect([WEB_EDITED, LAZY_B], still)
    assert decision_of(edited).outcome == detection.Outcome.APPLIED
    assert binding_of(edited).spec.replicas == 5
    assert edited.seen == ()


def test_a_template_new_with_or_after_its_lazy_policy_propagates_at_once(detect: Detect) -> None:
    """OnAdd enqueues a new template as its user's change: ApplyPolicy builds the binding."""
    assert decision_of(detect([WEB, LAZY_B])).outcome == detection.Outcome.APPLIED
    before = detect([LAZY_B])
    assert decision_of(detect([WEB, LAZY_B], before)).outcome == detection.Outcome.APPLIED


def test_a_template_new_while_its_lazy_policy_waits_propagates_once_it_may(
    detect: Detect,
) -> None:
    """propagateResource returns an error while the dependentOverrides are missing, and the
    template's own event is retried until they exist: as its user's change."""
    waiting = make_policy("lazy", ALL, activationPreference="Lazy", dependentOverrides=["tune"])
    held = detect([WEB, waiting])
    assert decision_of(held).outcome == detection.Outcome.WAITING
    tune = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "metadata": {"name": "tune", "namespace": "shop"},
        "spec": {"resourceSelectors": [ALL]},
    }
    assert decision_of(detect([WEB, waiting, tune], held)).outcome == detection.Outcome.APPLIED
    seen_first = detect([WEB])
    held_after = detect([WEB, waiting], seen_first)
    later = detect([WEB, waiting, tune], held_after)
    assert decision_of(later).outcome == detection.Outcome.LAZY, "the policy's retry is Karmada's"


def test_a_lazy_policy_taking_an_orphan_leaves_its_binding(detect: Detect) -> None:
    """The orphan waits after its claimer's deletion; the Lazy policy's creation claims it as a
    change by Karmada, and its binding (placement and schedule) stays as it was, even for a
    template edited while orphaned, until the next edit."""
    placed = scheduled(detect([WEB, make_policy("old", ALL, **PLACE_A)]), "a")
    orphaned = detect([WEB_EDITED], previous=placed)
    assert decision_of(orphaned).outcome == detection.Outcome.ORPHANED
    taken = detect([WEB_EDITED, LAZY_B], orphaned)
    decision = decision_of(taken)
    assert decision.outcome == detection.Outcome.LAZY
    assert binding_of(taken) == binding_of(orphaned)
    assert binding_of(taken).spec.replicas != 5, "built before the edit, and left so"
    assert [str(s.claim) for s in taken.seen] == ["PropagationPolicy shop/lazy"]


def test_a_lazy_successor_of_a_deleted_claimer_applies_at_once(detect: Detect) -> None:
    """handlePolicyDeletion removes the claim from the template: an update that leaves it
    unclaimed, which OnUpdate enqueues as a change by its user, so the Lazy policy that matches
    next builds its binding."""
    before = detect([WEB, make_policy("old", ALL, priority=5, **PLACE_A), LAZY_B])
    assert winner_of(before) == "PropagationPolicy/old"
    after = detect([WEB, LAZY_B], before)
    assert decision_of(after).outcome == detection.Outcome.APPLIED
    b = binding_of(after)
    assert b.spec.placement is not None and b.spec.placement.cluster_affinity is not None
    assert b.spec.placement.cluster_affinity.cluster_names == ("b",)


def test_missing_dependent_overrides_hold_the_policy_back(detect: Detect) -> None:
    """propagateResource: IsDependentOverridesPresent must hold before applying."""
    waiting = make_policy("p", ALL, dependentOverrides=["tune"])
    result = detect([WEB, waiting])
    decision = decision_of(result)
    assert decision.outcome == detection.Outcome.WAITING
    assert decision.binding is None
    assert "OverridePolicy shop/tune missing" in decision.message
    assert result.diagnostics and result.diagnostics[0].origin.line == 2
    override = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "metadata": {"name": "tune", "namespace": "shop"},
        "spec": {},
    }
    assert decision_of(detect([WEB, waiting, override])).outcome == detection.Outcome.APPLIED


def test_pp_claim_replaces_a_cpp_claim(detect: Detect) -> None:
    """excludeClusterPolicy: once a PP claims, the CPP claim metadata goes."""
    before = detect([WEB, make_cluster_policy("c", ALL)])
    after = detect([WEB, make_policy("p", ALL)], previous=before)
    labels = binding_of(after).metadata.labels or {}
    annotations = binding_of(after).metadata.annotations or {}
    assert "clusterpropagationpolicy.karmada.io/permanent-id" not in labels
    assert "clusterpropagationpolicy.karmada.io/name" not in annotations
    assert annotations["propagationpolicy.karmada.io/name"] == "p"
