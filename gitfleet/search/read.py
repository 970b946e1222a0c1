"""What `gitfleet get` reads from a repository: every cluster's last report (its status ref,
first fetched from the cluster's own repository with `cluster_repos`), and from the source
commit (gitfleet.yaml's source branch, else HEAD) the kinds it defines (for KIND's
spellings), each Cluster (its sync mode says who can be asked live, its `secretRef` where its
kubeconfig is) and the default namespace. A
source that cannot be read is a note, not a failure: the reports alone still say what runs
where.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from gitfleet import errors, source
from gitfleet.gitstore import clusterrepos, repository
from gitfleet.model import cluster, loaded, scope
from gitfleet.model.template import ResourceTemplate
from gitfleet.status import read, reports


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Fleet:
    reports: Mapping[str, reports.ClusterReport]
    clusters: Mapping[str, cluster.Cluster]
    """Each Cluster the source declares, by name."""
    templates: tuple[ResourceTemplate, ...] = ()
    default_namespace: str = scope.DEFAULT_NAMESPACE
    notes: tuple[str, ...] = ()


def fleet(path: str, *, cluster_repos: str | None = None) -> Fleet:
    """The reports and the source of the repository at `path`."""
    repo = repository.open_repository(path)
    if repo is None:
        raise repository.not_a_repository(path)
    try:
        notes: list[str] = []
        try:
            src: loaded.LoadedSource | None = source.load(path)
        except errors.GitfleetError as exc:
            notes.append(f"source not read: {exc}")
            src = None
        clusters = {c.name: c for c in src.objects.clusters} if src else {}
        if cluster_repos is not None:
            names = set(clusters) | set(read.reports_of(repo))
            failed = clusterrepos.fetch_status(repo, cluster_repos, sorted(names))
            notes += [f"status of {c} not fetched: {why}" for c, why in failed.items()]
        return Fleet(
            reports=read.reports_of(repo),
            clusters=clusters,
            templates=tuple(src.objects.templates) if src else (),
            default_namespace=src.config.default_namespace if src else scope.DEFAULT_NAMESPACE,
            notes=tuple(notes),
        )
    finally:
        repo.close()
