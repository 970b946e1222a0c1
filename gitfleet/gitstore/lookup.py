"""Resolve many object names at once: `<commit>:<path>`, refs, ids, in one git process; and
which source commit each commit of a branch was rendered from.

`gitfleet status` asks, for every cluster, which tree its reported commit holds at
`works/<cluster>`, to tell whether the cluster applied the current render of its folder (a
cluster's own ref and the rendered branch hold the folder at the same path with the same tree
id, so the answer does not depend on which one the agent read); and, for a commit of a
cluster's own ref, which commit of the rendered branch wrote it (`sources`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from gitfleet.gitstore import objects, rendered, repository
from gitfleet.gitstore.repository import Repository


def object_ids(repo: Repository, names: Sequence[str]) -> list[str | None]:
    """The id of the object each name stands for, in order; None when it names none (a name
    with a line break in it, which a status report can hold, names none)."""
    asked = [name for name in names if "\n" not in name]
    if not asked:
        return [None] * len(names)
    request = "".join(f"{name}\n" for name in asked).encode()
    code, out, err = repo.run(
        "cat-file", "--batch-check=%(objectname) %(objecttype)", stdin=request
    )
    if code != 0:
        raise repo.fail(f"cannot resolve objects: {err.decode(errors='replace').strip()}")
    answers = iter(repository.output_lines(out))
    found: list[str | None] = []
    for name in names:
        oid, _, kind = ("" if "\n" in name else next(answers, "")).rpartition(" ")
        found.append(oid if kind not in ("missing", "ambiguous") and oid else None)
    return found


def sources(repo: Repository, rev: str) -> list[tuple[str, str]]:
    """Every commit of `rev`'s history, newest first, with the source commit its
    `Source-Commit` trailer names ("" when it has none)."""
    trailer = f"%(trailers:key={rendered.SOURCE_TRAILER},valueonly,separator=%x2C)"
    code, out, err = repo.run("log", f"--format=%H%x00{trailer}", "--end-of-options", rev)
    if code != 0:
        raise repo.fail(f"cannot list {rev}: {err.decode(errors='replace').strip()}")
    found = []
    for line in repository.output_lines(out):
        commit, _, source = line.partition("\0")
        found.append((commit, source.strip()))
    return found


def source_commits(repo: Repository, commits: Iterable[str]) -> dict[str, str]:
    """The source commit each of `commits` names in its `Source-Commit` trailer ("" when it
    has none; a commit not in the repository is left out)."""
    read = repo.read(set(commits), objects.COMMIT)
    return {
        c: objects.trailers_of(data).get(rendered.SOURCE_TRAILER, "") for c, data in read.items()
    }
