"""What agent tests share besides fixtures: the cluster's name, fast apply options, and Work
sets built from documents. Imported as `agent.agent_kit` (tests/ is on the path)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import workfiles

from gitfleet.agent import apply, workdir

CLUSTER = "member1"
FAST = apply.Options(poll=0.01, wait_timeout=5.0)
Sync = Callable[..., apply.SyncResult]


def work_set(
    docs: Iterable[dict[str, Any]],
    *,
    commit: str = "r1",
    allow_prune: bool = False,
    cluster: str = CLUSTER,
) -> workdir.WorkSet:
    """`cluster`'s Work set of `docs`, rendered at `commit` from source commit `s-<commit>`."""
    files = workfiles.work_files({cluster: list(docs)})
    return workdir.parse(
        cluster, files, rendered_commit=commit, source_commit=f"s-{commit}", allow_prune=allow_prune
    )
