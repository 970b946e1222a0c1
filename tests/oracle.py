"""What the oracle tests share: Karmada's answers, as a scenario module wrote them, and the
comparison of gitfleet's answer with each, failing with the first seeds that differ and the
scenario each came from. Imported as `oracle` (tests/ is on the path)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

SHOWN = 400
"""Characters of a differing scenario shown in the failure."""


def answers(path: Path, seeds: int) -> list[Any]:
    """The answers in `path`, one per seed of its scenario module."""
    found: list[Any] = json.loads(path.read_text(encoding="utf-8"))["answers"]
    assert len(found) == seeds, f"{path} holds {len(found)} answers for {seeds} scenarios"
    return found


def assert_agrees(karmadas: Sequence[Any], answer: Callable[[int], tuple[Any, Any] | None]) -> int:
    """`answer(seed)`: gitfleet's answer to the seed's scenario and that scenario, or None for
    a seed the test leaves out. How many seeds were compared."""
    differences = []
    compared = 0
    for seed, karmada in enumerate(karmadas):
        found = answer(seed)
        if found is None:
            continue
        compared += 1
        ours, case = found
        if ours != karmada:
            shown = json.dumps(case, ensure_ascii=False, default=str)[:SHOWN]
            differences.append(f"seed {seed}: Karmada {karmada}, gitfleet {ours} ({shown})")
    assert not differences, f"{len(differences)} differ:\n" + "\n".join(differences[:10])
    return compared
