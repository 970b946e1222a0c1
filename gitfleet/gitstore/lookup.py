"""Resolve many object names at once: `<commit>:<path>`, refs, ids, in one git process.

`gitfleet status` asks, for every cluster, which tree its reported commit holds at
`works/<cluster>`, to tell whether the cluster applied the current render of its folder (a
cluster's own ref and the rendered branch hold the folder at the same path with the same tree
id, so the answer does not depend on which one the agent read).
"""

from __future__ import annotations

from collections.abc import Sequence

from gitfleet.gitstore.repository import Repository


def object_ids(repo: Repository, names: Sequence[str]) -> list[str | None]:
    """The id of the object each name stands for, in order; None when it names none."""
    if not names:
        return []
    request = "".join(f"{name}\n" for name in names).encode()
    code, out, err = repo.run(
        "cat-file", "--batch-check=%(objectname) %(objecttype)", stdin=request
    )
    if code != 0:
        raise repo.fail(f"cannot resolve objects: {err.decode(errors='replace').strip()}")
    found: list[str | None] = []
    for line in out.decode(errors="replace").splitlines():
        oid, _, kind = line.rpartition(" ")
        found.append(oid if kind not in ("missing", "ambiguous") and oid else None)
    return found
