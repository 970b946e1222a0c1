"""Whether one render may follow another in what an agent applies: never backwards.

A commit follows `base` (the commit an agent last applied) when it is `base`, descends from it,
or belongs to a history that began after `base` was made: every root of its history (a
parentless render: a new cluster ref, a ref deleted and written again, `render --new-history`)
has a later committer time than `base`. An older render, of the same history or of one that
began before `base`, does not follow it. Between a rendered-branch commit and a cluster ref's
(a push agent switching to per-cluster refs when a progressive rollout begins, or back), which
share no history, a commit follows `base` when it was made no earlier than it: the cluster
commits of a publication are made with its rendered commit, and a rollout's later. Committer
times are part of what the reconciler signs, so only its key can make a history that starts
later.

The repository must hold both commits and the history of `commit` down to `base`, or all of it:
a root the copy only seems to have because its history was fetched shallow is no root, and
`SourceError` says so.
"""

from __future__ import annotations

from gitfleet.gitstore import objects, rendered
from gitfleet.gitstore.repository import Repository


def follows(repo: Repository, commit: str, base: str) -> bool:
    """Whether `commit` may be applied after `base` (see the module docstring); `SourceError`
    when the repository cannot tell."""
    found = repo.commit_of(base)
    if found is None:
        raise repo.fail(f"cannot read {base}, the commit last applied")
    if found == commit:
        return True
    code, _, err = repo.run("merge-base", "--is-ancestor", found, commit)
    if code == 0:
        return True
    if code != 1:
        raise repo.fail(f"cannot compare {commit} with {found}: {_first(err)}")
    if _names_cluster(repo, commit) != _names_cluster(repo, found):
        made = _times(repo, [found, commit])
        return made[commit] >= made[found]
    code, out, err = repo.run("rev-list", "--max-parents=0", commit)
    if code != 0:
        raise repo.fail(f"cannot read the history of {commit}: {_first(err)}")
    roots = out.decode().split()
    if set(roots) & _shallow(repo):
        raise repo.fail(f"the history of {commit} is not complete in {repo.display}")
    made = _times(repo, [found, *roots])
    return all(made[root] > made[found] for root in roots)


def _names_cluster(repo: Repository, commit: str) -> bool:
    """Whether `commit` is a cluster ref's (it names its cluster in a trailer)."""
    data = repo.read([commit], objects.COMMIT).get(commit, b"")
    return rendered.CLUSTER_TRAILER in objects.trailers_of(data)


def _first(err: bytes) -> str:
    lines = err.decode(errors="replace").strip().splitlines()
    return lines[0] if lines else "?"


def _shallow(repo: Repository) -> set[str]:
    """The commits whose parents a shallow fetch left out."""
    path = repo.git_dir / "shallow"
    return set(path.read_text().split()) if path.exists() else set()


def _times(repo: Repository, commits: list[str]) -> dict[str, int]:
    """Committer time of each commit, in seconds."""
    code, out, err = repo.run("show", "-s", "--format=%H %ct", *commits)
    if code != 0:
        raise repo.fail(f"cannot read {', '.join(commits)}: {_first(err)}")
    pairs = (line.split() for line in out.decode().splitlines() if line)
    return {oid: int(when) for oid, when in pairs}
