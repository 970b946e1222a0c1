"""Every case of the shared scheduler-cases.yaml (facts from Karmada's scheduler, estimator and
helper unit tests) holds for gitfleet's scheduler.

Aspects covered, by case id prefix: Webster division and its tie-breaks (webster-, dispense-,
spread-tc-), static weights (static-, assign-static-), dynamic weights and aggregation in
steady mode (dyn-, agg-, scaleup-, divide-), duplication (duplicated-), overflow tiers
(overflow-), cluster and region spread selection (spread-), and the general estimator
(est-). The file lives outside the repository (`../shared/karmada/` from its root); without it
the test is skipped, and the same cases run from the project's own tables.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import karmada_case_ops
import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
CASES_FILE = (REPO_ROOT / ".." / "shared" / "karmada" / "scheduler-cases.yaml").resolve()


def _cases() -> list[Any]:
    if not CASES_FILE.is_file():
        return [
            pytest.param(
                None, id="no-case-file", marks=pytest.mark.skip(reason=f"{CASES_FILE} not found")
            )
        ]
    cases = yaml.safe_load(CASES_FILE.read_text())["cases"]
    return [pytest.param(case, id=case["id"]) for case in cases]


@pytest.mark.parametrize("case", _cases())
def test_karmada_case(case: dict[str, Any]) -> None:
    karmada_case_ops.check(case)
