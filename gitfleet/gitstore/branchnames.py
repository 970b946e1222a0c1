"""Which names a source or rendered branch may have, wherever they are given (gitfleet.yaml,
`--branch`): one rule, so that a name refused in one place is refused in every other.

A branch name is what `git check-ref-format` takes (the parts that matter here), and a
branch's name, never a full ref: not one starting with `refs/` (`refs/heads/x` is written `x`;
`refs/tags/v1`, `refs/stash`, `refs/notes/commits` or `refs/remotes/origin/main` are no
branches, and a render would create or move them), not `HEAD` or `@`, which Git reads as HEAD
(a branch `HEAD` makes HEAD ambiguous for every git command; one named `@` cannot be named by
its name), and not among the refs gitfleet writes for each cluster, nor a folder above them:
a render would overwrite a cluster's works ref or an agent's status with the whole rendered
tree, or fail on the ref store's folders.

Whether a valid name can be made depends on the repository too: Git keeps a branch as a file
named after it, so `a/b` cannot be made while `a` or `a/b/c` exists (`conflict`); a render
onto such a name would otherwise stop at git's own "cannot lock ref" once everything else
was done. The same holds for the refs gitfleet writes for each cluster (`own_conflicts`): a
branch named `gitfleet/works` or `gitfleet/status` keeps every one of them from being made.

Nor may a render move a branch someone works on (`conflict`): one checked out in a work tree
(git refuses to move it too: the work tree would be left behind the branch, and its next commit
would undo the render), the one HEAD names (a bare repository's default branch), or the one the
source is read from. Moved, each would lose the source under a rendered tree, the more easily as
the error for a branch that is not at a render suggests `--new-history`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from gitfleet.gitstore import refs, rendered, status
from gitfleet.gitstore.repository import Repository

_BAD_REF = re.compile(r"\.\.|@\{|//|[\x00-\x20~^:?*\[\\\x7f]|^[-/.]|/\.|[/.]$|\.lock$")
"""What `git check-ref-format` refuses in a branch name (the parts that matter here)."""
_OWN_REFS = (rendered.CLUSTER_REFS, status.STATUS_REFS)
_HEAD = ("HEAD", "@")
"""Names Git reads as HEAD, whatever branch has them."""
_FULL = "refs/"
"""How a full ref name starts (a branch's: refs/heads/)."""


def problem(name: str) -> str | None:
    """What is wrong with `name` as a branch gitfleet reads or renders onto (None: nothing)."""
    if not name or name in _HEAD or _BAD_REF.search(name):
        return f"{name!r} is not a valid branch name"
    if name.startswith(_FULL):
        short = name.removeprefix(f"{_FULL}heads/")
        if short != name and problem(short) is None:
            return f"{name!r} is a full ref name: name the branch, {short!r}"
        return (
            f"{name!r} is a full ref name, not a branch name: give a branch's name (what follows"
            " refs/heads/)"
        )
    ref = rendered.branch_ref(name)
    if any(ref.startswith(own) or own.startswith(ref + "/") for own in _OWN_REFS):
        owned = " and ".join(f"{own}<cluster>" for own in _OWN_REFS)
        return f"{name!r} is not a branch of its own: gitfleet writes {owned}"
    return None


def conflict(repo: Repository, name: str, source: str | None = None) -> str | None:
    """What keeps branch `name` from being rendered onto in `repo` (None: nothing does): an
    existing branch whose name is a folder of `name`, or that lies in the folder `name` would
    be; or `name` is a branch someone works on (`held`), or the source revision `source`
    names it."""
    ref = rendered.branch_ref(name)
    if source is not None and ref in (source, f"refs/{source}", rendered.branch_ref(source)):
        return (
            f"branch {name!r} is the source: a render would replace the source with its output;"
            " render onto another branch"
        )
    holder = held(repo, ref)
    if holder is not None:
        return (
            f"branch {name!r} is {holder}: a render would move it from under its work; render"
            " onto another branch"
        )
    other = refs.in_the_way(repo, [ref]).get(ref)
    if other is None:
        return None
    return _in_the_way(f"branch {name!r}", other, "choose another name, or delete")


def held(repo: Repository, ref: str) -> str | None:
    """Who works on branch `ref`, if anyone: a work tree that has it checked out, or HEAD
    (in a bare repository, the default branch clones check out)."""
    for line in refs.for_each_ref(repo, "%(HEAD)%(refname) %(worktreepath)", ref):
        name, _, path = line[1:].partition(" ")
        if name != ref:
            continue
        if path and Path(path) != repo.work_tree and Path(path) != repo.git_dir:
            return f"checked out in the work tree at {path}"
        if path or line[0] == "*":
            return "checked out here" if repo.work_tree is not None else "the one HEAD names"
    return None


def own_conflicts(repo: Repository, clusters: Iterable[str], *, statuses: bool) -> dict[str, str]:
    """What keeps the Work ref of each cluster of `clusters` (with `statuses`, also its status
    ref) from being made in `repo`, by cluster: another branch whose name is a folder of the
    ref's, or lies in the folder the ref would be (clusters whose refs can be made: absent)."""
    makers = [("Work", rendered.cluster_ref)]
    makers += [("status", status.status_ref)] if statuses else []
    wanted = {make(name): (name, what) for name in clusters for what, make in makers}
    found: dict[str, str] = {}
    for ref, other in sorted(refs.in_the_way(repo, wanted).items()):
        name, what = wanted[ref]
        shown = f"its {what} ref {ref.removeprefix('refs/heads/')!r}"
        found.setdefault(name, _in_the_way(shown, other, "rename or delete"))
    return found


def _in_the_way(what: str, other: str, way_out: str) -> str:
    other_name = other.removeprefix("refs/heads/")
    return (
        f"{what} cannot be made while branch {other_name!r} exists (a branch cannot also be a"
        f" folder of branches): {way_out} {other_name!r}"
    )
