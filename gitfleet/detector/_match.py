"""Which policy claims a template, and why every other candidate lost
(pkg/detector/compare.go, pkg/detector/policy.go `propagateResource`, pkg/util/selector.go).

Among policies of one kind the best is: the highest explicit priority (`spec.priority`, nil is
0), then the highest implicit priority (the most specific matching selector: name, then label
selector, then match-all), then the lexicographically smallest name. A PropagationPolicy of the
template's own namespace that matches beats every ClusterPropagationPolicy, whatever their
priorities. A policy being deleted takes part in nothing.

A claim is sticky: while the claiming policy exists and still selects the template, it keeps it,
even against a policy that would win a fresh match. Taking a template away from its claimer is
preemption, which Karmada only does behind the PolicyPreemption feature gate. That gate is off
by default, and gitfleet follows the default: `preemption: Always` changes nothing, and
`explain` says so.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from gitfleet.detector import detection
from gitfleet.model import policy, selectors
from gitfleet.model.template import ResourceTemplate

Policy = policy.PropagationPolicy | policy.ClusterPropagationPolicy
Priority = selectors.ImplicitPriority

_IMPLICIT_WORDS = {
    Priority.MATCH_NAME: "name",
    Priority.MATCH_LABEL_SELECTOR: "label selector",
    Priority.MATCH_ALL: "kind (match-all)",
    Priority.MISMATCH: "nothing",
}
PREEMPTION_OFF = "preemption: Always has no effect, the PolicyPreemption feature gate is off"


def explicit_priority(obj: Policy) -> int:
    return obj.spec.priority or 0


def being_deleted(obj: Policy) -> bool:
    return obj.metadata.deletion_timestamp is not None


def selects(template: ResourceTemplate, obj: Policy) -> bool:
    """Whether any of the policy's selectors matches (util.ResourceMatchSelectors)."""
    return selectors.selectors_priority(template, obj.spec.resource_selectors) > Priority.MISMATCH


@dataclasses.dataclass(frozen=True, slots=True)
class _Ranked:
    obj: Policy
    explicit: int
    implicit: Priority

    @property
    def rank(self) -> tuple[int, int, str]:
        """Smaller is better: Karmada's getHighestPriority(Cluster)PropagationPolicy order."""
        return (-self.explicit, -self.implicit, self.obj.name)

    def candidate(self, verdict: detection.Verdict, reason: str) -> detection.Candidate:
        return detection.Candidate(
            policy=detection.PolicyRef.of(self.obj),
            explicit_priority=self.explicit,
            implicit_priority=self.implicit,
            verdict=verdict,
            reason=reason,
        )


def _mismatch_reason(template: ResourceTemplate, obj: Policy) -> str:
    parts = []
    for index, s in enumerate(obj.spec.resource_selectors):
        if s.kind != template.kind:
            continue
        where = f"resourceSelectors[{index}]"
        if s.api_version != template.api_version:
            parts.append(f"{where} wants apiVersion {s.api_version}")
        elif s.namespace and s.namespace != template.namespace:
            parts.append(f"{where} wants namespace {s.namespace}")
        elif s.name:
            parts.append(f"{where} wants name {s.name}")
        elif s.label_selector is not None and not s.label_selector.convertible:
            parts.append(f"{where}: labelSelector is no valid Kubernetes label selector")
        else:
            parts.append(f"{where}: labelSelector does not match the template's labels")
    return "; ".join(parts)


def _concerns(template: ResourceTemplate, obj: Policy) -> bool:
    """Whether a policy has a selector for the template's kind (worth showing in explain)."""
    return any(s.kind == template.kind for s in obj.spec.resource_selectors)


def _lost_to(loser: _Ranked, winner: _Ranked) -> str:
    if loser.obj.KIND != winner.obj.KIND:
        return (
            f"{detection.PolicyRef.of(winner.obj)} matches, and a PropagationPolicy of the "
            "template's namespace is chosen before any ClusterPropagationPolicy"
        )
    if loser.explicit < winner.explicit:
        return (
            f"explicit priority {loser.explicit} is lower than "
            f"{winner.obj.name}'s {winner.explicit}"
        )
    if loser.implicit < winner.implicit:
        return (
            f"same explicit priority {loser.explicit}; it selects by "
            f"{_IMPLICIT_WORDS[loser.implicit]}, {winner.obj.name} by "
            f"{_IMPLICIT_WORDS[winner.implicit]}"
        )
    return (
        f"same explicit and implicit priority; name {loser.obj.name!r} sorts after "
        f"{winner.obj.name!r}"
    )


def _with_preemption_note(reason: str, obj: Policy) -> str:
    if obj.spec.preemption == policy.PreemptionBehavior.ALWAYS:
        return f"{reason} ({PREEMPTION_OFF})"
    return reason


def _order(c: detection.Candidate) -> tuple[int, int, int, str, str]:
    verdicts = list(detection.Verdict)
    return (
        verdicts.index(c.verdict),
        -c.explicit_priority,
        -c.implicit_priority,
        c.policy.kind,
        c.policy.name,
    )


def choose(
    template: ResourceTemplate,
    namespace_policies: Sequence[policy.PropagationPolicy],
    cluster_policies: Sequence[policy.ClusterPropagationPolicy],
    claimer: Policy | None = None,
) -> tuple[Policy | None, tuple[detection.Candidate, ...]]:
    """The winning policy for a template and every candidate's verdict.

    `namespace_policies` are the PropagationPolicies of the template's namespace (none for a
    cluster-scoped template); `claimer` is the policy holding a still-valid claim, if any.
    """
    ranked: list[_Ranked] = []
    out: list[detection.Candidate] = []
    considered: list[Policy] = [*namespace_policies, *cluster_policies]
    for obj in considered:
        if not _concerns(template, obj):
            continue
        entry = _Ranked(
            obj,
            explicit_priority(obj),
            selectors.selectors_priority(template, obj.spec.resource_selectors),
        )
        if being_deleted(obj):
            out.append(entry.candidate(detection.Verdict.IGNORED, "being deleted"))
        elif entry.implicit == Priority.MISMATCH:
            reason = _mismatch_reason(template, obj)
            out.append(entry.candidate(detection.Verdict.NO_MATCH, reason))
        else:
            ranked.append(entry)
    pps = sorted(
        (r for r in ranked if r.obj.KIND == policy.PropagationPolicy.KIND), key=lambda r: r.rank
    )
    cpps = sorted(
        (r for r in ranked if r.obj.KIND != policy.PropagationPolicy.KIND), key=lambda r: r.rank
    )
    best = pps or cpps
    if claimer is not None:
        winner = next((r for r in ranked if r.obj is claimer), None)
    else:
        winner = best[0] if best else None
    for entry in ranked:
        if entry is winner:
            reason = "claims the template" if claimer else "best match"
            out.append(entry.candidate(detection.Verdict.WON, reason))
            continue
        assert winner is not None
        if claimer is not None:
            reason = (
                f"the template is claimed by {detection.PolicyRef.of(claimer)}, which keeps it "
                "while it exists and selects the template"
            )
        else:
            reason = _lost_to(entry, winner)
        out.append(
            entry.candidate(detection.Verdict.LOST, _with_preemption_note(reason, entry.obj))
        )
    return (winner.obj if winner else None), tuple(sorted(out, key=_order))
