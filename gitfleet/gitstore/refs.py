"""Refs: read them, and move several at once by compare-and-swap.

Every move names the value the writer last saw; git checks it under the ref's lock and applies
all moves of one call in a single transaction (`git update-ref --stdin`), so two writers
never lose each other's work and a reader never sees half of a publication. A lost race
raises `RefConflictError`, naming the ref and where it is now.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

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
    for line in _for_each_ref(repo, "%(objectname) %(tree) %(refname)", prefix):
        commit, tree, name = line.split(" ", 2)
        if tree:
            found[name] = RefState(commit, tree)
    return found


def ref_names(repo: Repository, prefix: str) -> list[str]:
    """The name of every ref under `prefix` (or named `prefix`), whatever it points at; nothing
    is read from the objects, so listing thousands of cluster refs costs little."""
    return _for_each_ref(repo, "%(refname)", prefix)


def _for_each_ref(repo: Repository, fmt: str, prefix: str) -> list[str]:
    """`git for-each-ref`'s line in `fmt` for every ref under `prefix`."""
    code, out, err = repo.run("for-each-ref", f"--format={fmt}", "--", prefix)
    if code != 0:
        raise repo.fail(f"cannot list refs: {err.decode(errors='replace').strip()}")
    return output_lines(out)


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
    raise repo.fail(f"cannot update refs: {err.decode(errors='replace').strip()}")
