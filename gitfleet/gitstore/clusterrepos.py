"""A repository per cluster, for Git hosts that scope credentials per repository.

The rendered branch stays in the main repository. Each cluster's repository, named by a URL
template (`https://git.example/fleet-{cluster}.git`), holds two refs, at the same names as in the
main repository: `refs/heads/gitfleet/works/<cluster>`, the cluster's folder alone (copied there
by `push_works` after a render), and `refs/heads/gitfleet/status/<cluster>`, written by the
cluster's agent (brought back by `fetch_status` before the next render reads it). A credential
for that repository can read nothing of the other clusters and write nothing of theirs.

`push_works` never moves a cluster's ref backwards: a ref that is already at or ahead of the
main repository's (another reconciler copied a newer render first) is left alone; a ref the main
repository has rewritten (its history no longer contains the copy's commit) is replaced by
compare-and-swap on the value just read; a commit the main repository does not know is left for
a later copy, when it will.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable

from gitfleet.errors import GitfleetError
from gitfleet.gitstore import refs, remote, rendered, status
from gitfleet.gitstore.repository import Repository

PLACEHOLDER = "{cluster}"


def cluster_url(template: str, cluster: str) -> str:
    """The repository URL of `cluster`, as the template writes it."""
    return template.replace(PLACEHOLDER, cluster)


def _located(template: str, cluster: str) -> str:
    """The repository of `cluster` as git is given it here (see `remote.locate`)."""
    return remote.locate(cluster_url(template, cluster))


class Copy(enum.StrEnum):
    PUSHED = "pushed"
    UP_TO_DATE = "up to date"
    AHEAD = "ahead"
    """The cluster's repository holds a newer render than the main repository."""
    UNKNOWN = "unknown"
    """The cluster's repository holds a commit the main repository does not know (yet)."""
    FAILED = "failed"


@dataclasses.dataclass(frozen=True, slots=True)
class Outcome:
    cluster: str
    copy: Copy
    message: str = ""


def _is_ancestor(repo: Repository, older: str, newer: str) -> bool:
    code, _, _ = repo.run("merge-base", "--is-ancestor", older, newer)
    return code == 0


def _copy_one(repo: Repository, template: str, cluster: str) -> Outcome:
    ref = rendered.cluster_ref(cluster)
    local = refs.read_ref(repo, ref)
    if local is None:
        return Outcome(cluster, Copy.FAILED, f"{ref} does not exist")
    url = _located(template, cluster)
    there = remote.tip(repo, url, ref)
    if there == local.commit:
        return Outcome(cluster, Copy.UP_TO_DATE)
    if there is not None and repo.commit_of(there) is None:
        return Outcome(cluster, Copy.UNKNOWN, f"{remote.shown(url)} holds {there}")
    if there is not None and _is_ancestor(repo, local.commit, there):
        return Outcome(cluster, Copy.AHEAD)
    lease = f"--force-with-lease={ref}:{there or ''}"
    where = remote.address(url)
    code, out, err = repo.run(
        "push", "--quiet", "--porcelain", lease, "--end-of-options", where.url,
        f"{local.commit}:{ref}", env=where.environment(repo.git_dir),
    )  # fmt: skip
    if code != 0:
        message = (out + err).decode(errors="replace").strip().splitlines()
        return Outcome(cluster, Copy.FAILED, message[-1] if message else "push failed")
    return Outcome(cluster, Copy.PUSHED)


def push_works(repo: Repository, template: str, clusters: Iterable[str]) -> list[Outcome]:
    """Copy each cluster's own ref to its repository; what happened to each (a cluster whose
    repository cannot be reached does not keep the others from being copied)."""
    found = []
    for cluster in sorted(set(clusters)):
        try:
            found.append(_copy_one(repo, template, cluster))
        except GitfleetError as exc:  # one cluster's host must not stop the others
            found.append(Outcome(cluster, Copy.FAILED, str(exc)))
    return found


def fetch_status(repo: Repository, template: str, clusters: Iterable[str]) -> dict[str, str]:
    """Bring each cluster's status ref from its repository into `repo`; per cluster that
    could not be fetched, why (a cluster that has not reported yet is not a failure). A ref
    already in line costs one round trip and no fetch: the reconciler calls this every look."""
    problems = {}
    for cluster in sorted(set(clusters)):
        ref = status.status_ref(cluster)
        try:
            url = _located(template, cluster)
            tip = remote.tip(repo, url, ref)
        except GitfleetError as exc:  # one cluster's host must not stop the others
            problems[cluster] = str(exc)
            continue
        here = refs.read_ref(repo, ref)
        if tip is None or (here is not None and here.commit == tip):
            continue
        where = remote.address(url)
        code, _, err = repo.run(
            "fetch", "--quiet", "--no-tags", "--end-of-options", where.url, f"+{ref}:{ref}",
            env=where.environment(repo.git_dir),
        )  # fmt: skip
        if code != 0:
            problems[cluster] = err.decode(errors="replace").strip()
    return problems
