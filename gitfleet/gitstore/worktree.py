"""Which files of a repository's working tree make the source: what `git add --all` would
commit, so that `gitfleet validate` checks the change being made before it is committed.

That is every tracked file and every untracked file git does not ignore (a virtual
environment, a render written with `--out` and listed in .gitignore are not part of the
source). Git only names the paths; the caller reads the files itself, with the rules it has
for any folder (no link followed, size limits, gitfleet.yaml's include and exclude).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from gitfleet.gitstore.repository import Repository


def source_paths(repo: Repository) -> frozenset[str]:
    """Paths from the top, `/`-separated, of the files `git add --all` would commit (a nested
    repository or a submodule is one path, its folder's); `SourceError` for a bare
    repository or when git cannot list them."""
    if repo.work_tree is None:
        raise repo.fail("a bare repository has no working tree")
    code, out, err = repo.run(
        "ls-files", "-z", "--full-name", "--cached", "--others", "--exclude-standard",
        env={"GIT_WORK_TREE": str(repo.work_tree)},
    )  # fmt: skip
    if code != 0:
        raise repo.fail(f"cannot list the working tree: {err.decode(errors='replace').strip()}")
    return frozenset(os.fsdecode(p).rstrip("/") for p in out.split(b"\0") if p)


def ignored(repo: Repository, paths: Sequence[str]) -> frozenset[str]:
    """Which of `paths` (from the top, `/`-separated) git ignores in the working tree (a
    tracked path never is); `SourceError` when git cannot say."""
    code, out, err = repo.run(
        "check-ignore", "-z", "--stdin",
        stdin=b"".join(os.fsencode(p) + b"\0" for p in paths),
        env={"GIT_WORK_TREE": str(repo.work_tree)},
    )  # fmt: skip
    if code not in (0, 1):  # 1: none is ignored
        raise repo.fail(f"cannot tell ignored files: {err.decode(errors='replace').strip()}")
    return frozenset(os.fsdecode(p) for p in out.split(b"\0") if p)
