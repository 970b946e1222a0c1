"""Fields gitfleet does not support yet are warnings naming the field, never silent.

Aspects covered: every entry of the one table is reported where it is written, for the kinds
it belongs to; a field set to its empty value is not reported; the warnings do not fail
validation; conflictResolution, either value, is supported and not reported.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from validation.documents import FLEET, variant

from gitfleet.validation import _unsupported

Check = Callable[[dict[str, str]], list[str]]
WEB = "policies/web.yaml"
SPEC = "  propagateDeps: true\n"

CASES = [
    pytest.param(WEB, SPEC, SPEC + "  association: true\n", "spec.association", id="association"),
    pytest.param(
        WEB, "  placement:\n",
        "  placement:\n    workloadAffinity:\n      affinity: {groupByLabelKey: app}\n",
        "spec.placement.workloadAffinity", id="workload affinity",
    ),
    pytest.param(
        "clusters/member1.yaml", "  secretRef:\n",
        "  impersonatorSecretRef: {namespace: karmada-cluster, name: imp}\n  secretRef:\n",
        "spec.impersonatorSecretRef", id="impersonator",
    ),
]  # fmt: skip


def test_every_table_entry_has_a_case() -> None:
    covered = {case.values[3] for case in CASES}
    assert covered == {".".join(keys) for _, keys in _unsupported.UNSUPPORTED}


@pytest.mark.parametrize(("path", "old", "new", "field"), CASES)
def test_unsupported_field_is_a_warning(
    check: Check, path: str, old: str, new: str, field: str
) -> None:
    found = check(variant(path, old, new))
    assert len(found) == 1, found
    assert ": warning: " in found[0]
    assert found[0].endswith(f": {field}: not supported by gitfleet yet; it has no effect")


def test_empty_values_are_not_reported(check: Check) -> None:
    quiet = SPEC + "  association: false\n  dependentOverrides: []\n"
    assert check(variant(WEB, SPEC, quiet)) == []
    assert check(FLEET) == []


SUPPORTED = [
    pytest.param(SPEC + "  activationPreference: Lazy\n", id="activation preference"),
    pytest.param(SPEC + "  dependentOverrides: [web]\n", id="dependent overrides"),
    pytest.param(SPEC + "  preserveResourcesOnDeletion: true\n", id="preserve on deletion"),
    pytest.param(
        SPEC + "  failover:\n    application:\n      decisionConditions: {tolerationSeconds: 60}\n",
        id="application failover",
    ),
    pytest.param(
        SPEC + "  schedulePriority:\n"
        "    {priorityClassSource: KubePriorityClass, priorityClassName: hi}\n",
        id="schedule priority",
    ),
]


@pytest.mark.parametrize("new", SUPPORTED)
def test_fields_gitfleet_acts_on_are_not_warned(check: Check, new: str) -> None:
    found = check(variant(WEB, SPEC, new))
    assert not [line for line in found if "not supported by gitfleet yet" in line], found


@pytest.mark.parametrize("value", ["Abort", "Overwrite"])
def test_conflict_resolution_is_supported(check: Check, value: str) -> None:
    assert check(variant(WEB, SPEC, SPEC + f"  conflictResolution: {value}\n")) == []
