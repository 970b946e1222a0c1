"""`gitfleet.yaml`'s `rollout`: the ordered waves a rendered change goes through, cluster by
cluster, and the control a commit sets (run, pause, abort).

A wave selects clusters as a Karmada ClusterAffinity does (`selectors.cluster_matches`: names,
label and field selectors, exclude). The clusters no wave selects form one last, implicit wave.
`assign` is the one place clusters are given their wave, for validation, the rollout stage, the
preview and `gitfleet status`.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Iterable

from gitfleet.model import cluster, policy, selectors
from gitfleet.model.origin import UNKNOWN, Origin

REST_WAVE = "rest"
"""The name of the implicit last wave (the clusters no wave selects)."""
TRAILER = "Gitfleet-Rollout"
"""The source commit trailer that skips the waves for that commit (`Gitfleet-Rollout: skip`)."""
SKIP = "skip"
DEFAULT_TIMEOUT_SECONDS = 600.0


class OnFailure(enum.StrEnum):
    """What a wave that is not healthy within its timeout does to its clusters."""

    HALT = "halt"
    """Stop the rollout; every cluster keeps what it was given."""
    ROLLBACK = "rollback"
    """Stop the rollout and give the wave's clusters back the last render healthy on them."""


class Control(enum.StrEnum):
    """`rollout.control`: set by a commit, reviewed like any change."""

    RUN = "Run"
    PAUSE = "Pause"
    """Release nothing more; timeouts do not run."""
    ABORT = "Abort"
    """Roll back every cluster the rollout released, and release nothing while it is set."""


@dataclasses.dataclass(frozen=True, slots=True)
class Budget:
    """`maxUnavailable`: how many clusters of a wave are updated at once (a count, or a percent
    of the wave rounded down, at least one)."""

    count: int | None = None
    percent: int | None = None

    def limit(self, size: int) -> int:
        if self.count is not None:
            return max(1, self.count)
        percent = 100 if self.percent is None else self.percent
        return max(1, math.floor(size * percent / 100))

    def __str__(self) -> str:
        if self.count is not None:
            return str(self.count)
        return f"{100 if self.percent is None else self.percent}%"


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Wave:
    """One step of a rollout."""

    name: str
    affinity: policy.ClusterAffinity = dataclasses.field(default_factory=policy.ClusterAffinity)
    max_unavailable: Budget = Budget()
    bake_seconds: float = 0.0
    """How long every cluster of the wave must stay healthy before the next wave goes."""
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    """How long after its release the wave may take to become healthy."""
    on_failure: OnFailure = OnFailure.HALT
    origin: Origin = UNKNOWN


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class RolloutSettings:
    waves: tuple[Wave, ...] = ()
    control: Control = Control.RUN
    origin: Origin = UNKNOWN


REST = Wave(name=REST_WAVE)
"""The implicit last wave's settings: everything at once, no bake."""


def assign(
    waves: Iterable[Wave], clusters: Iterable[cluster.Cluster]
) -> tuple[tuple[Wave, tuple[str, ...]], ...]:
    """Each wave with the clusters it holds (sorted), then the implicit last wave when some
    cluster is in none. A cluster several waves select is in the first of them (`validate`
    reports the overlap as an error)."""
    members = sorted(clusters, key=lambda c: c.name)
    taken: set[str] = set()
    plan = []
    for wave in waves:
        names = tuple(
            c.name
            for c in members
            if c.name not in taken and selectors.cluster_matches(c, wave.affinity)
        )
        taken.update(names)
        plan.append((wave, names))
    rest = tuple(c.name for c in members if c.name not in taken)
    if rest:
        plan.append((REST, rest))
    return tuple(plan)
