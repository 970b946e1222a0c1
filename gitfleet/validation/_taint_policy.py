"""What Karmada refuses in a ClusterTaintPolicy (pkg/webhook/clustertaintpolicy/validating.go),
and what it accepts but can never act on.

The webhook refuses two taints with the same key and effect, and a NoExecute taint unless the
administrator allowed it (`--allow-no-execute-taint-policy`; here gitfleet.yaml's
`failover.allowNoExecuteTaintPolicy`): such a taint evicts every workload that does not
tolerate it. The taints end up in the Cluster's `spec.taints`, whose rules (label-key keys,
label-value values) a patch would otherwise break on. An operator other than In or NotIn is
accepted by Karmada and never matches: a warning.
"""

from __future__ import annotations

from gitfleet.model import loaded, policy
from gitfleet.validation import _cluster, _report

NO_EXECUTE = "NoExecute"


def check(
    obj: policy.ClusterTaintPolicy, settings: loaded.FailoverSettings, report: _report.Report
) -> None:
    spec = obj.spec
    _cluster.taints(spec.taints, report)
    if not settings.allow_no_execute_taint_policy:
        for index, taint in enumerate(spec.taints):
            if taint.effect == NO_EXECUTE:
                report.error(
                    ("spec", "taints", index, "effect"),
                    "a NoExecute taint evicts every workload that does not tolerate it; allow"
                    " it with `failover: {allowNoExecuteTaintPolicy: true}` in gitfleet.yaml"
                    " (Karmada: --allow-no-execute-taint-policy)",
                )
    for name, conditions in (
        ("addOnConditions", spec.add_on_conditions),
        ("removeOnConditions", spec.remove_on_conditions),
    ):
        for index, condition in enumerate(conditions):
            if condition.operator not in tuple(policy.MatchConditionOperator):
                report.warning(
                    ("spec", name, index, "operator"),
                    f"operator {condition.operator!r} is neither In nor NotIn: the condition"
                    " never matches",
                )
