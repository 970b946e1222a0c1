"""Which rendered commits an agent applies: with an allowed-signers file, only those signed by a
key it lists (the reconciler signs its commits, `gitstore.signing`).

The commit checked is the very one the agent is about to apply: the tip of the cluster's own
ref for a pull agent, the rendered commit for a push agent. Whoever can move that ref without
the reconciler's key (a force-push, a commit made by hand, a commit whose content was changed
after signing) gets a refusal, with its reason: `UnsignedRender`, `UntrustedSigner` (signed by
a key the file does not list: an unknown key, or one removed from the file after a rotation)
or `BadSignature` (the signature does not match the content). A refused commit is never
applied or pruned from; the agent reports the refusal in the cluster's status ref. Without an
allowed-signers file every commit is applied, as the agents always did.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path

from gitfleet import errors
from gitfleet.gitstore import signing
from gitfleet.gitstore.repository import Repository

log = logging.getLogger(__name__)

REASONS = {
    signing.Trust.UNSIGNED: "UnsignedRender",
    signing.Trust.UNTRUSTED: "UntrustedSigner",
    signing.Trust.BAD: "BadSignature",
}
UNCHECKED = "SignatureNotChecked"
"""The reason when git could not check the signature at all (the commit is refused too)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Refusal:
    """Why a rendered commit is not applied."""

    reason: str
    message: str


def check(repo: Repository, commit: str, allowed: Path | None) -> Refusal | None:
    """None when `commit` may be applied; else why not."""
    if allowed is None:
        return None
    try:
        verdict = signing.verify(repo, commit, allowed)
    except errors.GitfleetError as exc:
        return Refusal(UNCHECKED, f"refused {commit}: cannot check its signature: {exc}")
    if verdict.trusted:
        log.info("%s", verdict.describe(allowed))
        return None
    reason = REASONS[verdict.trust]
    return Refusal(reason, f"refused: {verdict.describe(allowed)} ({reason}); nothing applied")
