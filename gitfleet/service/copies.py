"""A repository per cluster, from the reconciler's side: each look brings the clusters' status
refs in before anything reads them, and copies the clusters' works refs out after the render
(`gitstore.clusterrepos` does the Git work and never moves a ref backwards).

Copies are level-triggered: every look compares each cluster's repository with the main one and
copies what is behind, whether or not a new source commit came in. A host that was down, a
repository created late, a reconciler stopped between publishing a render and copying it: all
heal at the next look, without a new render. A cluster's repository that fails never holds up
the others or the render. The failure is logged (event `cluster-repo-error`, naming the
cluster, the step and the source commit) and kept, by cluster and step, for the reconciler's
status ref until a later look succeeds.

Status is fetched for the Cluster objects of the source last loaded (the clusters a render
schedules). Works refs are copied for every `refs/heads/gitfleet/works/<cluster>` of the main
repository, so a cluster removed from the source still gets its emptied ref, from which its
agent prunes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping

from gitfleet.gitstore import clusterrepos, refs, rendered
from gitfleet.gitstore.repository import Repository
from gitfleet.service import events
from gitfleet.status import reconciler_state

FETCH_STATUS = "fetch-status"
PUSH_WORKS = "push-works"


class ClusterRepos:
    """The copies between `repo` and each cluster's repository (`template`: its URL, with
    `{cluster}` standing for the cluster's name), and which of them are failing."""

    def __init__(
        self,
        repo: Repository,
        template: str,
        sink: events.Sink,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.repo = repo
        self.template = template
        self.sink = sink
        self.clock = clock
        self._fetched: set[str] = set()
        """Clusters whose status ref this look has fetched already."""
        self._failing: dict[tuple[str, str], reconciler_state.ClusterRepoError] = {}

    @property
    def errors(self) -> tuple[reconciler_state.ClusterRepoError, ...]:
        return tuple(self._failing[key] for key in sorted(self._failing))

    def new_look(self) -> None:
        """Start a look: each cluster's status is fetched at most once in it, though the
        clusters are known in two steps (before and after loading a new source commit)."""
        self._fetched.clear()

    def fetch_status(self, source_commit: str, clusters: Collection[str]) -> None:
        """Bring in the status ref of each of `clusters` (every cluster the source defines)
        that this look has not fetched yet."""
        todo = sorted(set(clusters) - self._fetched)
        self._fetched.update(todo)
        failed = clusterrepos.fetch_status(self.repo, self.template, todo)
        self._settle(FETCH_STATUS, source_commit, todo, failed, clusters)

    def push_works(self, source_commit: str) -> None:
        """Copy each cluster's works ref to its repository where that one is behind."""
        clusters = [
            ref.removeprefix(rendered.CLUSTER_REFS)
            for ref in refs.list_refs(self.repo, rendered.CLUSTER_REFS)
        ]
        failed = {}
        for outcome in clusterrepos.push_works(self.repo, self.template, clusters):
            if outcome.copy is clusterrepos.Copy.FAILED:
                failed[outcome.cluster] = outcome.message
            elif outcome.copy is clusterrepos.Copy.PUSHED:
                self._emit("cluster-copied", source_commit, cluster=outcome.cluster)
            elif outcome.copy is not clusterrepos.Copy.UP_TO_DATE:
                self._emit(
                    "cluster-copy-skipped",
                    source_commit,
                    cluster=outcome.cluster,
                    reason=str(outcome.copy),
                    detail=outcome.message,
                )
        self._settle(PUSH_WORKS, source_commit, clusters, failed, clusters)

    def _settle(
        self,
        step: str,
        source_commit: str,
        tried: Collection[str],
        failed: Mapping[str, str],
        current: Collection[str],
    ) -> None:
        """Log and keep the failures of `step` among the clusters `tried`, forget its
        successes, and forget the clusters no longer `current`. A failure repeating the same
        message keeps the time it started."""
        now = reconciler_state.rfc3339(self.clock())
        for cluster in tried:
            before = self._failing.pop((cluster, step), None)
            message = failed.get(cluster)
            if message is None:
                continue
            self._emit(
                "cluster-repo-error", source_commit, cluster=cluster, step=step, error=message
            )
            since = before.since if before is not None and before.message == message else now
            self._failing[cluster, step] = reconciler_state.ClusterRepoError(
                cluster=cluster,
                step=step,
                source_commit=source_commit,
                message=message,
                since=since,
            )
        for key in [k for k in self._failing if k[1] == step and k[0] not in current]:
            del self._failing[key]

    def _emit(self, name: str, source_commit: str, /, **fields: events.Value) -> None:
        self.sink(events.Event(name, source_commit, self.clock(), fields))
