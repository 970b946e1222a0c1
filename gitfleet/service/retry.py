"""When a render that left resources unscheduled is worth making again.

Karmada's scheduler retries a binding it could not place until it fits, and what makes it fit
is the clusters' status: an API a cluster now serves (its agent's first report, a CRD applied),
capacity freed. A render is a function of the source, the previous render and that status, so
the reconciler renders the same source commit again when the clusters' reported status differs
from the one the branch's render was made with, and only while that render left something
unscheduled: a status that changes nothing is never rendered for, a heartbeat that changes no
status is no change, and a render that places nothing more makes no commit.
"""

from __future__ import annotations

from gitfleet.gitstore import status
from gitfleet.gitstore.repository import Repository


class UnscheduledWatch:
    """The status the last render this reconciler made was made with."""

    def __init__(self, repo: Repository) -> None:
        self.repo = repo
        self._made_with: str | None = None
        """The id of that status (`status.read_cluster_status`); None: not known, as for a
        render made by someone else (`gitfleet render`) or before a restart: one render more,
        which costs nothing when nothing changed."""

    def remember(self, snapshot: str) -> None:
        self._made_with = snapshot

    def due(self, unscheduled: bool, snapshot: str | None = None) -> bool:
        """Whether to render again: the render left resources `unscheduled`, and the clusters
        report another status now (`snapshot`: its id, when the caller has read it already)."""
        if not unscheduled:
            return False
        now = snapshot if snapshot is not None else status.read_cluster_status(self.repo)[0]
        return now != self._made_with
