"""Schema errors of Karmada documents: all of them, each at its field.

Aspects covered:
- a document with several bad fields gets one error per field (unknown field at the key,
  missing field at its parent, wrong type, unsupported enum value, anyOf of quantities),
  replacing the loader's single first error;
- null values count as absent (the API server prunes them); a required field set to null is
  missing;
- documents the model decodes are not reported again.
"""

from __future__ import annotations

from collections.abc import Callable

from validation.documents import CLUSTER, FLEET, PROPAGATION

Check = Callable[[dict[str, str]], list[str]]
POLICY = "error: PropagationPolicy shop/web: "


def test_every_schema_error_is_reported(check: Check) -> None:
    broken = (
        PROPAGATION.replace("  priority: 10\n", "  priority: high\n  prority: 3\n")
        .replace("      kind: Deployment\n", "")
        .replace("replicaSchedulingType: Divided", "replicaSchedulingType: Split")
    )
    found = check({**FLEET, "policies/web.yaml": broken})
    assert found == [
        f"policies/web.yaml:8:7: {POLICY}spec.resourceSelectors.0.kind: required field is missing",
        f"policies/web.yaml:16:3: {POLICY}spec.priority: expected integer, got string",
        f"policies/web.yaml:17:3: {POLICY}spec.prority: unknown field 'prority'",
        f"policies/web.yaml:30:7: {POLICY}spec.placement.replicaScheduling."
        "replicaSchedulingType: unsupported value 'Split': expected one of 'Duplicated', "
        "'Divided'",
    ]


def test_quantities_accept_strings_and_numbers_only(check: Check) -> None:
    broken = CLUSTER.replace('{cpu: "64",', "{cpu: [64],")
    found = check({**FLEET, "clusters/member1.yaml": broken})
    assert [line for line in found if "error" in line] == [
        "clusters/member1.yaml:30:19: error: Cluster member1: status.resourceSummary."
        "allocatable.cpu: expected string or integer or number, got array",
    ]


def test_nulls_are_absent(check: Check) -> None:
    with_nulls = PROPAGATION.replace("  priority: 10\n", "  priority: null\n  failover: ~\n")
    assert check({**FLEET, "policies/web.yaml": with_nulls}) == []
    missing = CLUSTER.replace("  syncMode: Push\n", "  syncMode: null\n")
    found = check({**FLEET, "clusters/member1.yaml": missing})
    assert [line for line in found if "error" in line] == [
        "clusters/member1.yaml:8:3: error: Cluster member1: spec.syncMode: required field is "
        "missing",
    ]
