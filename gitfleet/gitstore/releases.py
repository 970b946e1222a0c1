"""Cluster refs moved one by one, for a progressive rollout: each move is a new commit on top of
the ref (never a rewind), holding the folder given, so the agents' lineage and signed-render
checks pass for a release and for a rollback alike.

A release commit is a render like those `rendered.publish` makes for a cluster ref: the folder
at `works/<cluster>/`, the trailers `Source-Commit` (the source commit the folder was rendered
from: the older one, for a rollback), `Gitfleet-Render`, the source commit's carried trailers
and `Gitfleet-Cluster` (with `Gitfleet-Sync-Mode` when the cluster's mode is known), plus
`Gitfleet-Wave` naming the wave; its message says why it moved.
All moves of one call happen in one compare-and-swap transaction.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from gitfleet.gitstore import objects, refs, rendered, signing, store
from gitfleet.gitstore.repository import Repository

WAVE_TRAILER = "Gitfleet-Wave"


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Release:
    cluster: str
    folder: str | None
    """The tree id of the cluster's folder (None: no folder, nothing to run)."""
    source_commit: str
    version: str
    message: str
    wave: str
    expected: str | None
    """The ref's commit now (None: it must not exist yet); the new commit's parent."""
    sync_mode: str | None = None
    """The cluster's `spec.syncMode` (None: not known, e.g. it left the fleet)."""


def commit(
    repo: Repository,
    releases: Sequence[Release],
    *,
    author: objects.Signature | None = None,
    signer: signing.Signer | None = None,
) -> tuple[refs.Move, ...]:
    """Commit every release and move its ref, all or none (`RefConflictError` when a ref is
    not where it was expected); the moves made."""
    if not releases:
        return ()
    fmt = store.object_format(repo)
    who = author or rendered.committer(repo)
    made: list[objects.GitObject] = []
    planned: list[refs.Move] = []
    for release in releases:
        trees = _trees(release, fmt)
        carried = rendered.commit_trailers(repo, release.source_commit) or {}
        trailers = [
            (rendered.SOURCE_TRAILER, release.source_commit),
            (rendered.RENDER_TRAILER, release.version),
            *((k, carried[k]) for k in rendered.CARRIED_TRAILERS if k in carried),
            *([(WAVE_TRAILER, release.wave)] if release.wave else []),
            (rendered.CLUSTER_TRAILER, release.cluster),
            *([(rendered.SYNC_MODE_TRAILER, release.sync_mode)] if release.sync_mode else []),
        ]
        parents = [release.expected] if release.expected else []
        new = objects.commit_object(trees[-1].id, parents, who, release.message, trailers, fmt)
        made += [*trees, new]
        planned.append(refs.Move(rendered.cluster_ref(release.cluster), new.id, release.expected))
    stored = signing.write(repo, made, fmt, signer)
    moves = tuple(refs.Move(m.ref, stored[m.new], m.old) for m in planned)
    refs.update(repo, moves, "gitfleet rollout")
    return moves


def _trees(release: Release, fmt: objects.Format) -> list[objects.GitObject]:
    """The wrapper trees of the ref's root (the last one is the root)."""
    if release.folder is None:
        return [objects.tree_object([], fmt)]
    inner = objects.tree_object([(release.cluster, release.folder)], fmt)
    return [inner, objects.tree_object([(rendered.WORKS, inner.id)], fmt)]
