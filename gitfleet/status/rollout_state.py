"""The rollout's recorded state: `rollout.yaml` on `refs/heads/gitfleet/status/_rollout`.

Written like the reconciler's own status ref (`reconciler_state`): one parentless commit
replaced by compare-and-swap, naming the rendered commit being rolled out in its
`Rendered-Commit` trailer. A ref of its own, so that the rollout and the rest of the
reconciler never rewrite each other's file. The document is the rollout stage's
(`rollout.to_doc`): the source commit being rolled out, the phase, each wave's clusters, phase,
what it waits for and when it was reached, became healthy and finished, and per cluster the
render last seen healthy on it.

It lives in `status`, below `service`, because the reconciler writes it and `gitfleet status`
shows it.
"""

from __future__ import annotations

import yaml

from gitfleet import rollout
from gitfleet.gitstore import signing, status
from gitfleet.gitstore.repository import Repository
from gitfleet.model import yamllimits

NAME = "_rollout"
"""The status ref's name under `refs/heads/gitfleet/status/`: not a valid cluster name."""
FILE = "rollout.yaml"


def dump(state: rollout.State) -> bytes:
    return yaml.safe_dump(rollout.to_doc(state), sort_keys=False).encode()


def load(data: bytes) -> rollout.State | None:
    try:
        return rollout.from_doc(yamllimits.load(data))
    except yaml.YAMLError:
        return None


def read(repo: Repository) -> tuple[rollout.State | None, str | None]:
    """The recorded state and its ref's commit (None, None: nothing recorded yet)."""
    data, commit = status.read_file(repo, NAME, FILE)
    return (load(data) if data is not None else None), commit


def write(
    repo: Repository,
    state: rollout.State,
    *,
    expected: str | None,
    move: status.MoveRef | None = None,
    signer: signing.Signer | None = None,
) -> str:
    """Replace the recorded state if the ref is still at `expected`; `RefConflictError` when
    another reconciler wrote it first."""
    return status.write_status(
        repo,
        NAME,
        {FILE: dump(state)},
        expected=expected,
        rendered_commit=state.rendered_commit,
        move=move,
        signer=signer,
    )
