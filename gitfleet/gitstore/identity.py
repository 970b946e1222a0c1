"""Who gitfleet's commits name: the identity Git itself names (its environment variables, then
its configuration), else `gitfleet <gitfleet@localhost>`.

One rule for every commit gitfleet makes (the repository `init` and the demo create, renders,
per-cluster refs, status refs), so that none of them fails where Git has no identity: a new
laptop, a CI container, a service account with an empty home directory.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from gitfleet.gitstore import objects

FALLBACK_NAME = "gitfleet"
FALLBACK_EMAIL = "gitfleet@localhost"

GitVar = Callable[[str], str | None]
"""`git var NAME` in the repository at hand: its output, None when git can name nobody."""


def signature(git_var: GitVar) -> objects.Signature:
    """The committer, now: what gitfleet writes into the commits it builds itself."""
    named = git_var("GIT_COMMITTER_IDENT")
    if named:
        return objects.Signature.parse(named)
    return objects.Signature(FALLBACK_NAME, FALLBACK_EMAIL, when=int(time.time()))


def commit_options(git_var: GitVar) -> tuple[str, ...]:
    """Options for `git commit`: none when Git names both author and committer, else the
    fallback as configuration (which the environment's identity, if any, still outranks)."""
    if all(git_var(who) for who in ("GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT")):
        return ()
    return ("-c", f"user.name={FALLBACK_NAME}", "-c", f"user.email={FALLBACK_EMAIL}")


def work_tree_var(path: Path) -> GitVar:
    """`git var` run in a work tree (the repository `init` and the demo commit to)."""

    def var(name: str) -> str | None:
        done = subprocess.run(["git", "var", name], cwd=path, capture_output=True, text=True)
        named = done.stdout.strip()
        return named if done.returncode == 0 and named else None

    return var
