"""Which names a source or rendered branch may have, wherever they are given (gitfleet.yaml,
`--branch`): one rule, so that a name refused in one place is refused in every other.

A branch name is what `git check-ref-format` takes (the parts that matter here), not `HEAD`
(a branch of that name makes HEAD ambiguous for every git command), and not among the refs
gitfleet writes for each cluster, nor a folder above them: a render would overwrite a
cluster's works ref or an agent's status with the whole rendered tree, or fail on the ref
store's folders.

Whether a valid name can be made depends on the repository too: Git keeps a branch as a file
named after it, so `a/b` cannot be made while `a` or `a/b/c` exists (`conflict`); a render
onto such a name would otherwise stop at git's own "cannot lock ref" once everything else
was done.
"""

from __future__ import annotations

import re

from gitfleet.gitstore import refs, rendered, status
from gitfleet.gitstore.repository import Repository

_BAD_REF = re.compile(r"\.\.|@\{|//|[\x00-\x20~^:?*\[\\\x7f]|^[-/.]|/\.|[/.]$|\.lock$")
"""What `git check-ref-format` refuses in a branch name (the parts that matter here)."""
_OWN_REFS = (rendered.CLUSTER_REFS, status.STATUS_REFS)


def problem(name: str) -> str | None:
    """What is wrong with `name` as a branch gitfleet reads or renders onto (None: nothing)."""
    if not name or name == "HEAD" or _BAD_REF.search(name):
        return f"{name!r} is not a valid branch name"
    ref = rendered.branch_ref(name)
    if any(ref.startswith(own) or own.startswith(ref + "/") for own in _OWN_REFS):
        owned = " and ".join(f"{own}<cluster>" for own in _OWN_REFS)
        return f"{name!r} is not a branch of its own: gitfleet writes {owned}"
    return None


def conflict(repo: Repository, name: str) -> str | None:
    """What keeps branch `name` from being made in `repo`: an existing branch whose name is a
    folder of `name`, or that lies in the folder `name` would be (None: nothing does)."""
    ref = rendered.branch_ref(name)
    top = "/".join(ref.split("/")[:3])
    """`name`'s first part under refs/heads: every branch in the way is, or is below, it."""
    for other in refs.ref_names(repo, top):
        if ref.startswith(other + "/") or other.startswith(ref + "/"):
            other_name = other.removeprefix("refs/heads/")
            return (
                f"branch {name!r} cannot be made while branch {other_name!r} exists (a branch "
                f"cannot also be a folder of branches): choose another name, or delete "
                f"{other_name!r}"
            )
    return None
