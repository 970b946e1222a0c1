"""Where the reconciler reads the source and publishes renders: a local repository, or a remote
worked with through a bare mirror in a cache folder.

Local: the rendered branch and the per-cluster refs move together in one compare-and-swap
transaction of the repository itself (`rendered.publish`).

Remote: every look starts with a fetch that brings the mirror's branches in line with the
remote's (branches the remote rewound or deleted included). A render is first committed into
the mirror, then every ref it moved is pushed in one atomic push, each with a lease on the
value fetched (`git push --atomic --force-with-lease=<ref>:<expected>`): the remote takes all
of them, or none if any moved meanwhile (`RefConflictError`: fetch and render again on top).
A process killed between the two steps leaves the remote untouched; the next fetch resets the
mirror and the render is made again. Fetch and push failures other than a lost lease are
`RemoteUnavailable`, which the engine retries with backoff.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from gitfleet.errors import GitfleetError, SourceError
from gitfleet.gitstore import (
    objects,
    refs,
    releases,
    remote,
    rendered,
    repository,
    signing,
    status,
)


@dataclasses.dataclass(frozen=True, slots=True)
class Publication:
    """A render committed: what `rendered.publish` did, and every ref it moved (the moves a
    remote still has to take)."""

    published: rendered.Published
    moves: tuple[refs.Move, ...]


class RemoteUnavailable(GitfleetError):
    """The remote could not be fetched from or pushed to (network, permissions, no such
    repository); time may fix it."""


def default_cache() -> Path:
    """`$XDG_CACHE_HOME/gitfleet`, else `~/.cache/gitfleet`."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gitfleet"


class Target:
    """A local repository: nothing to fetch, refs move in place."""

    def __init__(self, repo: repository.Repository, location: str) -> None:
        self.repo = repo
        self.location = location

    @property
    def git_dir(self) -> Path:
        return self.repo.git_dir

    @property
    def remote(self) -> bool:
        """Whether commits need a `push` to be seen (a remote's mirror)."""
        return False

    def refresh(self) -> None:
        """Bring the view of the source and rendered branches up to date."""

    def head(self) -> str | None:
        """The commit of the repository's default branch (what its HEAD names), None when
        there is none yet."""
        return self.repo.commit_of("HEAD")

    def commit(
        self,
        branch: str,
        changes: Mapping[str, objects.Content | None],
        *,
        tip: rendered.Tip | None,
        source_commit: str,
        version: str,
        message: str | None = None,
        signer: signing.Signer | None = None,
        hold_clusters: bool = False,
        sync_modes: Mapping[str, str] | None = None,
    ) -> Publication:
        """Commit a render (its `changes` to `tip`, the branch's tip it was rendered on) onto
        `branch` if it is still at that tip, with the per-cluster refs; `RefConflictError` if
        any of them moved. Locally this publishes it; a mirror's refs still have to be pushed.
        `message` defaults to `render <source commit>`; `signer` signs every commit;
        `hold_clusters` leaves the cluster refs where they are (a rollout moves them);
        `sync_modes` gives each cluster's `spec.syncMode` (see `rendered.publish`)."""
        expected = tip.commit if tip is not None else None
        before = refs.list_refs(self.repo, rendered.CLUSTER_REFS)
        published = rendered.publish(
            self.repo, branch, changes=changes, expected=expected, tip=tip,
            source_commit=source_commit, version=version, message=message, signer=signer,
            hold_clusters=hold_clusters, sync_modes=sync_modes,
        )  # fmt: skip
        moves = [
            refs.Move(ref, new, _commit(before.get(ref)))
            for ref, new in sorted(
                (rendered.cluster_ref(name), new) for name, new in published.clusters.items()
            )
        ]
        if published.created:
            moves.insert(0, refs.Move(rendered.branch_ref(branch), published.commit, expected))
        return Publication(published, tuple(moves))

    def release(
        self, moves: Sequence[releases.Release], signer: signing.Signer | None
    ) -> tuple[refs.Move, ...]:
        """Move cluster refs one by one (a rollout's releases and rollbacks), all or none;
        `RefConflictError` when one moved meanwhile. A mirror's refs still have to be pushed."""
        return releases.commit(self.repo, moves, signer=signer)

    def push(self, publication: Publication) -> None:
        """Make a commit visible where readers look (nothing to do locally)."""
        self.push_refs(publication.moves)

    def push_refs(self, moves: Sequence[refs.Move]) -> None:
        """Make ref moves visible where readers look (nothing to do locally)."""

    def move_ref(self) -> status.MoveRef | None:
        """How status refs are published (None: in the repository itself)."""
        return None

    def close(self) -> None:
        self.repo.close()


class RemoteTarget(Target):
    """A remote repository, through its bare mirror."""

    def __init__(self, url: str, cache: Path) -> None:
        try:
            self.mirror = remote.Mirror(url, cache)
        except SourceError as exc:
            raise RemoteUnavailable(str(exc)) from exc
        super().__init__(self.mirror.repo, url)

    @property
    def remote(self) -> bool:
        return True

    def refresh(self) -> None:
        try:
            self.mirror.fetch()
        except SourceError as exc:
            raise RemoteUnavailable(str(exc)) from exc

    def head(self) -> str | None:
        """The commit the remote's HEAD names, as fetched into the mirror (None when the mirror
        does not hold it: the remote moved since the fetch)."""
        try:
            found = remote.tip(self.repo, self.location, "HEAD")
        except SourceError as exc:
            raise RemoteUnavailable(str(exc)) from exc
        return self.repo.commit_of(found) if found is not None else None

    def push_refs(self, moves: Sequence[refs.Move]) -> None:
        """Push every ref moved, atomically, each leased on its fetched value."""
        try:
            self.mirror.push_many(moves)
        except SourceError as exc:
            raise RemoteUnavailable(str(exc)) from exc

    def move_ref(self) -> status.MoveRef | None:
        def move(ref: str, new: str, expected: str | None) -> None:
            try:
                self.mirror.push(ref, new, expected)
            except SourceError as exc:
                raise RemoteUnavailable(str(exc)) from exc

        return move

    def close(self) -> None:
        self.mirror.close()


def _commit(state: refs.RefState | None) -> str | None:
    return state.commit if state is not None else None


def open_target(location: str, cache: Path | None) -> Target:
    """The target `location` names: a remote URL (mirrored into `cache`) or a local repository
    (its top folder, or a bare repository); `SourceError` for a folder that is neither."""
    if remote.is_remote(location):
        return RemoteTarget(location, cache or default_cache())
    opened = repository.open_repository(location) if Path(location).is_dir() else None
    if opened is None:
        message = "not a Git repository (its top folder, or a bare repository) nor a URL"
        raise repository.not_a_repository(location, message)
    return Target(opened, location)
