"""Refs: read them, and move several at once by compare-and-swap.

Every move names the value the writer last saw; git checks it under the ref's lock and applies
all moves of one call in a single transaction (`git update-ref --stdin`), so two writers
never lose each other's work and a reader never sees half of a publication. A lost race
raises `RefConflictError`, naming the ref and where it is now.

Git keeps a ref as a file named after it, so `a/b` cannot be made while `a` or `a/b/c` exists
(`in_the_way`); a move refused for that says so, rather than git's "cannot lock ref".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from gitfleet.errors import RefConflictError
from gitfleet.gitstore.repository import Repository, output_lines


@dataclasses.dataclass(frozen=True, slots=True)
class RefState:
    """A ref's commit and that commit's tree."""

    commit: str
    tree: str


@dataclasses.dataclass(frozen=True, slots=True)
class Move:
    """Set `ref` to `new` if it is still at `old` (None: it must not exist yet)."""

    ref: str
    new: str
    old: str | None


def list_refs(repo: Repository, prefix: str) -> dict[str, RefState]:
    """Every ref under `prefix` (e.g. `refs/heads/gitfleet/works/`) that names a commit."""
    found = {}
    for line in for_each_ref(repo, "%(objectname) %(tree) %(refname)", prefix):
        commit, tree, name = line.split(" ", 2)
        if tree:
            found[name] = RefState(commit, tree)
    return found


def ref_names(repo: Repository, prefix: str) -> list[str]:
    """The name of every ref under `prefix` (or named `prefix`), whatever it points at; nothing
    is read from the objects, so listing thousands of cluster refs costs little."""
    return for_each_ref(repo, "%(refname)", prefix)


def for_each_ref(repo: Repository, fmt: str, prefix: str) -> list[str]:
    """`git for-each-ref`'s line in `fmt` for every ref under `prefix`."""
    code, out, err = repo.run("for-each-ref", f"--format={fmt}", "--", prefix)
    if code != 0:
        raise repo.fail(f"cannot list refs: {err.decode(errors='replace').strip()}")
    return output_lines(out)


def in_the_way(repo: Repository, wanted: Iterable[str]) -> dict[str, str]:
    """For each ref of `wanted` (full names) that cannot be made in `repo`, the ref in its way:
    one whose name is a folder of its name, or that lies in the folder its name would be."""
    wanted = list(wanted)
    tops = sorted({"/".join(ref.split("/")[:3]) for ref in wanted})
    existing = {name for top in tops for name in ref_names(repo, top)}
    below: dict[str, str] = {}
    """Each folder of an existing ref's name, with the first ref in it."""
    for name in sorted(existing):
        parts = name.split("/")
        for end in range(1, len(parts)):
            below.setdefault("/".join(parts[:end]), name)
    found = {}
    for ref in wanted:
        parts = ref.split("/")
        folders = ("/".join(parts[:end]) for end in range(1, len(parts)))
        other = next((f for f in folders if f in existing), None) or below.get(ref)
        if other is not None:
            found[ref] = other
    return found


def blocked_move(repo: Repository, moves: Sequence[Move]) -> str | None:
    """What keeps a ref of `moves` from being made in `repo` (`in_the_way`), if anything:
    where git would only say "cannot lock ref"."""
    blocked = sorted(in_the_way(repo, [m.ref for m in moves]).items())
    if not blocked:
        return None
    ref, other = blocked[0]
    return (
        f"cannot make {ref} while {other} exists (a ref cannot also be a folder of refs):"
        f" delete or rename {other}"
    )


def read_ref(repo: Repository, ref: str) -> RefState | None:
    """Where `ref` (a full name, `refs/heads/...`) points, None if it does not exist."""
    return list_refs(repo, ref).get(ref)


def check_name(repo: Repository, ref: str) -> bool:
    code, _, _ = repo.run("check-ref-format", ref)
    return code == 0


def update(repo: Repository, moves: Sequence[Move], message: str) -> None:
    """Apply every move or none; `RefConflictError` if any ref is not where it was expected."""
    if not moves:
        return
    zero = "0" * len(moves[0].new)
    script = "".join(f"update {m.ref} {m.new} {m.old or zero}\n" for m in moves)
    code, _, err = repo.run("update-ref", "-m", message, "--stdin", stdin=script.encode())
    if code == 0:
        return
    for m in moves:
        now = read_ref(repo, m.ref)
        at = now.commit if now is not None else None
        if at != m.old:
            where = f"now at {at}" if at else "deleted"
            expected = m.old or "absent"
            raise RefConflictError(
                f"{m.ref} moved while rendering (expected {expected}, {where}); render again"
            )
    blocked = blocked_move(repo, moves)
    if blocked is not None:
        raise repo.fail(blocked)
    raise repo.fail(f"cannot update refs: {err.decode(errors='replace').strip()}")
