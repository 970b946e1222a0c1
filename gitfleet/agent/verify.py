"""Which rendered commits an agent applies: with an allowed-signers file, only those signed by a
key it lists (the reconciler signs its commits, `gitstore.signing`).

The commit checked is the very one the agent is about to apply: the tip of the cluster's own
ref for a pull agent, the rendered commit for a push agent. Whoever can move that ref without
the reconciler's key (a force-push, a commit made by hand, a commit whose content was changed
after signing) gets a refusal, with its reason: `UnsignedRender`, `UntrustedSigner` (signed by
a key the file does not list: an unknown key, or one removed from the file after a rotation)
or `BadSignature` (the signature does not match the content).

A signature says who made a commit, not for whom or when, so a signed commit is also checked to
be meant for this agent and not older than what it applied. A cluster ref's commit names its
cluster (`rendered.CLUSTER_TRAILER`); a commit naming another cluster, or none on a pull
agent's own ref, or one on a ref of the whole fleet, is `WrongCluster`: whoever can write the
ref cannot replay another cluster's render (whose folder for this cluster is empty). And each
cluster's worker refuses a commit that does not follow the one it last applied
(`gitstore.lineage`: a descendant, or a history begun later), which it learns from the status
ref when it starts: `Rollback`, so nobody can move a ref back to an older signed render.

Whatever the signatures, a pull agent applies only a render (`render_check`): a commit without
the trailers every render carries (a source commit pushed to a Work ref by mistake, a commit
made by hand) is `NotARender`. Its trailers would otherwise count: a source commit's
`Gitfleet-Allow-Prune: all` would let the agent delete everything the cluster runs. Trailers
are easily written, so this stops mistakes; signatures stop those who mean it.

A refused commit is never applied or pruned from; the agent reports the refusal in the
cluster's status ref. Without an allowed-signers file every render is applied, as the agents
always did.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Mapping
from pathlib import Path

from gitfleet import errors
from gitfleet.gitstore import rendered, signing
from gitfleet.gitstore.repository import Repository

log = logging.getLogger(__name__)

REASONS = {
    signing.Trust.UNSIGNED: "UnsignedRender",
    signing.Trust.UNTRUSTED: "UntrustedSigner",
    signing.Trust.BAD: "BadSignature",
}
UNCHECKED = "SignatureNotChecked"
"""The reason when git could not check the signature at all (the commit is refused too)."""
WRONG_CLUSTER = "WrongCluster"
ROLLBACK = "Rollback"
NOT_A_RENDER = "NotARender"
HISTORY_UNCHECKED = "HistoryNotChecked"
"""The reason when the agent could not tell whether a commit follows the last one applied."""

Follows = Callable[[str, str], bool]
"""Whether a commit may be applied after another (`lineage.follows`, on the agent's copy)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Refusal:
    """Why a rendered commit is not applied."""

    reason: str
    message: str


def check(
    repo: Repository, commit: str, allowed: Path | None, *, cluster: str | None
) -> Refusal | None:
    """None when `commit` may be applied by an agent reading the ref of `cluster` (None: a ref
    of the whole fleet); else why not."""
    if allowed is None:
        return None
    try:
        verdict = signing.verify(repo, commit, allowed)
    except errors.GitfleetError as exc:
        return Refusal(UNCHECKED, f"refused {commit}: cannot check its signature: {exc}")
    if not verdict.trusted:
        reason = REASONS[verdict.trust]
        return Refusal(reason, f"refused: {verdict.describe(allowed)} ({reason}); nothing applied")
    log.info("%s", verdict.describe(allowed))
    named = (rendered.commit_trailers(repo, commit) or {}).get(rendered.CLUSTER_TRAILER)
    if named == cluster:
        return None
    meant = f"cluster {named}" if named else "no single cluster"
    wanted = f"cluster {cluster}'s ref" if cluster else "a ref of the whole fleet"
    return Refusal(
        WRONG_CLUSTER,
        f"refused {commit}: it is a render for {meant}, read from {wanted} ({WRONG_CLUSTER});"
        " nothing applied",
    )


def render_check(commit: str, trailers: Mapping[str, str]) -> Refusal | None:
    """None when `commit`, with these trailers, is a render; else why it is not applied."""
    if rendered.is_render(trailers):
        return None
    return Refusal(
        NOT_A_RENDER,
        f"refused {commit}: it is not a render (it has no {rendered.SOURCE_TRAILER} and"
        f" {rendered.RENDER_TRAILER} trailers), but a commit pushed to the ref by hand or by"
        f" mistake ({NOT_A_RENDER}); nothing applied",
    )


def rollback(commit: str, applied: str | None, follows: Follows) -> Refusal | None:
    """None when `commit` may be applied after `applied`, the commit last applied to the
    cluster (None: nothing yet); else why not."""
    if applied is None or commit == applied:
        return None
    try:
        if follows(commit, applied):
            return None
    except errors.GitfleetError as exc:
        return Refusal(
            HISTORY_UNCHECKED,
            f"refused {commit}: cannot tell whether it follows {applied}, the commit last"
            f" applied: {exc} ({HISTORY_UNCHECKED}); nothing applied",
        )
    return Refusal(
        ROLLBACK,
        f"refused {commit}: it does not descend from {applied}, the commit last applied, nor"
        f" begin a history made after it ({ROLLBACK}); nothing applied",
    )
