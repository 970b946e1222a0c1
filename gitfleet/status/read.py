"""Read a `FleetView` from a repository: the rendered branch's tip (its bindings), every status
ref, and the source commit the tip was rendered from (its templates, interpreter customizations,
clusters and failover settings).

What cannot be read is said in the view's notes rather than failing the whole view: without the
source commit (a repository holding only the rendered branch) the built-in interpreter rules
aggregate the status, templates are known by their identity only, and clusters' sync modes are
not known; without a render there are no resources, only the clusters (declared or reported).

A cluster's applied folder is `current` when the tree its reported commit holds at
`works/<cluster>` is the tip's (None when that commit is not in the repository); the rendered
commit it applied is the one it reported, or for a commit of the cluster's own ref (a pull
agent's), the render that wrote it (`applied`). A cluster that left the fleet (neither in the
source nor in the tip, its ref at the commit with no files a render leaves it) is marked so:
for it, having applied that commit, which pruned everything, is current.

The reconciler's own status ref is read apart (`reconciler_state`), as it stands: it says how
far the reconciler got, which may be past the tip (a source commit that did not validate).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

import yaml

from gitfleet import autoscaling, errors, inputs, rollout, source
from gitfleet import status as fleet_status
from gitfleet.gitstore import clusterrepos, lookup, refs, rendered, repository, status, works
from gitfleet.interpreter import Interpreter
from gitfleet.model import loaded, yamllimits
from gitfleet.model.template import RawObject, ResourceKey
from gitfleet.status import reconciler_state, reports, rollout_state

DEFAULT_GRACE = float(loaded.FailoverSettings().heartbeat_grace_seconds)


def _load(path: str, rev: str | None, notes: list[str]) -> loaded.LoadedSource | None:
    try:
        return source.load(path, rev)
    except errors.GitfleetError as exc:
        notes.append(f"source {rev or 'HEAD'} not read: {exc}")
        return None


def _bindings(repo: repository.Repository, tip: rendered.Tip) -> list[fleet_status.Binding]:
    previous = inputs.previous_of(repo, tip)
    return list(previous.bindings.values()) if previous is not None else []


def _folders(
    repo: repository.Repository, commits: Mapping[str, str]
) -> tuple[dict[str, str | None], dict[str, bool]]:
    """Per cluster, the tree of `works/<cluster>` in the commit given for it, and whether that
    commit is in the repository at all."""
    names = sorted(commits)
    trees = lookup.object_ids(repo, [f"{commits[n]}:{rendered.WORKS}/{n}" for n in names])
    known = lookup.object_ids(repo, [commits[n] for n in names])
    return dict(zip(names, trees, strict=True)), {
        n: oid is not None for n, oid in zip(names, known, strict=True)
    }


def current(
    repo: repository.Repository,
    tip: rendered.Tip | None,
    found: Mapping[str, reports.ClusterReport],
    held: Mapping[str, str | None] | None = None,
) -> dict[str, bool | None]:
    """Per cluster that reported, whether what it applied is the tip's render of its folder
    (None when its commit is not in the repository); for a cluster in `held` (a rollout holds
    its ref back), whether it is the folder given there (its ref's)."""
    reported = {n: r.rendered_commit for n, r in found.items() if r.rendered_commit}
    trees, known = _folders(repo, reported)
    wanted = {n: (held or {}).get(n, _tip_folder(tip, n)) for n in reported}
    return {n: (trees[n] == wanted[n]) if known[n] else None for n in sorted(reported)}


def _tip_folder(tip: rendered.Tip | None, name: str) -> str | None:
    return tip.folders.get(f"{rendered.WORKS}/{name}") if tip is not None else None


def applied(
    repo: repository.Repository,
    tip: rendered.Tip | None,
    found: Mapping[str, reports.ClusterReport],
    waiting: Mapping[str, tuple[str | None, str]] | None = None,
    left: frozenset[str] = frozenset(),
) -> dict[str, fleet_status.Applied]:
    """Per cluster that reported, the rendered branch's commit whose folder it applied, and
    whether that folder is the tip's. A push agent reports that commit itself; a pull agent
    reports a commit of the cluster's own ref, which was written by the oldest render of the
    same source commit that has the same folder. `waiting`: the clusters a rollout holds
    back, with their ref's folder and what the rollout waits for; `left`: the clusters that
    left the fleet (the tip has no folder for them, so applying the emptied one is current)."""
    held = {n: folder for n, (folder, _) in (waiting or {}).items()}
    is_current = current(repo, tip, found, held)
    wanted = {n: found[n].rendered_commit for n in is_current}
    tips = {tip.commit} if tip is not None else set()
    history = lookup.sources(repo, tip.commit) if tip and set(wanted.values()) - tips else []
    on_branch = tips | {commit for commit, _ in history}
    by_source: dict[str, list[str]] = {}
    for commit, source_commit in reversed(history):
        by_source.setdefault(source_commit, []).append(commit)
    own = {n: c for n, c in wanted.items() if c not in on_branch and is_current[n] is not None}
    trees, _ = _folders(repo, own)
    resolved = {n: c for n, c in wanted.items() if c in on_branch}
    made_from = lookup.source_commits(repo, own.values())
    tried = [(n, c) for n in sorted(own) for c in by_source.get(made_from.get(own[n], ""), [])]
    written = lookup.object_ids(repo, [f"{c}:{rendered.WORKS}/{n}" for n, c in tried])
    for (name, commit), tree in zip(tried, written, strict=True):
        if name not in resolved and tree == trees[name]:
            resolved[name] = commit
    why = {n: text for n, (_, text) in (waiting or {}).items()}
    return {
        n: fleet_status.Applied(
            rendered_commit=resolved.get(n, ""),
            current=is_current.get(n),
            waiting=why.get(n, ""),
            left=n in left,
        )
        for n in sorted(set(is_current) | set(why))
    }


def held_back(
    repo: repository.Repository, tip: rendered.Tip | None, state: rollout.State | None
) -> dict[str, tuple[str | None, str]]:
    """The clusters whose ref a rollout holds back from the tip's folder: their ref's folder
    and what their wave waits for."""
    if tip is None or state is None:
        return {}
    waves = {name: w for w in state.waves for name in w.clusters}
    found = {}
    for name, ref in _ref_folders(repo).items():
        if name in waves and ref != _tip_folder(tip, name):
            wave = waves[name]
            text = wave.waiting_for or f"wave {wave.name} ({wave.phase})"
            found[name] = (ref, text)
    return found


def _left_the_fleet(repo: repository.Repository, fleet: Mapping[str, str]) -> frozenset[str]:
    """The clusters that left the fleet: not in `fleet` (the tip's folders and the source's
    Clusters), with their ref at the commit with no files a render leaves them."""
    return frozenset(works.emptied(repo)) - frozenset(fleet)


def _ref_folders(repo: repository.Repository) -> dict[str, str | None]:
    """The folder of each cluster's ref."""
    commits = {
        ref[len(rendered.CLUSTER_REFS) :]: state.commit
        for ref, state in refs.list_refs(repo, rendered.CLUSTER_REFS).items()
    }
    trees, _ = _folders(repo, commits)
    return trees


def reports_of(repo: repository.Repository) -> dict[str, reports.ClusterReport]:
    """Every cluster's last report, by name."""
    return {
        name: reports.decode(name, found.files, found.rendered_commit)
        for name, found in status.read_all(repo).items()
    }


def _source(
    path: str,
    repo: repository.Repository,
    head: loaded.LoadedSource | None,
    source_commit: str | None,
    notes: list[str],
) -> loaded.LoadedSource | None:
    """The source the tip was rendered from (HEAD's when nothing was rendered)."""
    if head is not None and source_commit in (None, head.revision):
        return head
    if source_commit and repo.commit_of(source_commit):
        return _load(path, source_commit, notes)
    if source_commit:
        notes.append(
            f"source commit {source_commit} is not in the repository: built-in interpreter"
            " rules only"
        )
    return None


def read(
    path: str,
    *,
    branch: str | None = None,
    now: datetime.datetime,
    grace: float | None = None,
    cluster_repos: str | None = None,
) -> fleet_status.FleetView:
    """The fleet of the repository at `path` as of `now` (`grace`: default, the source's
    failover heartbeat grace period). With `cluster_repos` (a URL template, see
    `gitstore.clusterrepos`), each cluster's status ref is first brought from its own
    repository into this one."""
    repo = repository.open_repository(path)
    if repo is None:
        raise repository.not_a_repository(path)
    try:
        notes: list[str] = []
        head = _load(path, None, notes) if branch is None else None
        name = branch or (head.config.rendered_branch if head else loaded.DEFAULT_RENDERED_BRANCH)
        tip = rendered.read_tip(repo, name)
        if tip is None:
            notes.append(f"{rendered.branch_ref(name)} does not exist: nothing rendered yet")
        source_commit = tip.source_commit if tip is not None else None
        src = _source(path, repo, head, source_commit, notes)
        modes = {f.rpartition("/")[2]: "" for f in (tip.folders if tip else ()) if _folder(f)}
        templates: dict[ResourceKey, RawObject] = {}
        interp = Interpreter()
        if src is not None:
            modes.update({c.name: str(c.spec.sync_mode) for c in src.objects.clusters})
            templates = {t.key: t.body for t in src.objects.templates}
            interp = Interpreter(src.objects.customizations, src.third_party_customizations)
            if grace is None:
                grace = float(src.config.failover.heartbeat_grace_seconds)
        if cluster_repos is not None:
            failed = clusterrepos.fetch_status(repo, cluster_repos, modes)
            notes += [f"status of {c} not fetched: {why}" for c, why in failed.items()]
        found = reports_of(repo)
        state, state_commit = reconciler_state.read(repo)
        rolling = _rollout(repo, src)
        if state is None and state_commit is not None:
            ref = status.status_ref(reconciler_state.NAME)
            notes.append(f"{ref} holds no {reconciler_state.FILE} of kind {reconciler_state.KIND}")
        return fleet_status.fleet(
            fleet_status.Rendered(
                branch=name, commit=tip.commit if tip else None, source_commit=source_commit
            ),
            bindings=_bindings(repo, tip) if tip is not None else [],
            reports_by_cluster=found,
            modes=modes,
            applied=applied(
                repo, tip, found, held_back(repo, tip, rolling), _left_the_fleet(repo, modes)
            ),
            templates=templates,
            interp=interp,
            now=now,
            grace=DEFAULT_GRACE if grace is None else grace,
            notes=notes,
            reconciler=state,
            autoscalers=_autoscalers(repo, tip, src),
            rollout_state=rolling,
        )
    finally:
        repo.close()


def _autoscalers(
    repo: repository.Repository, tip: rendered.Tip | None, src: loaded.LoadedSource | None
) -> list[dict[str, Any]]:
    """The FederatedHPAs of the source rendered, with their files on the rendered branch."""
    if src is None or not src.objects.federated_hpas:
        return []
    files: dict[str, Any] = {}
    if tip is not None:
        found = rendered.read_files(repo, tip, lambda p: p.startswith(f"{autoscaling.FOLDER}/"))
        files = {p: _document(data) for p, data in found.items()}
    return autoscaling.described(src.objects, files)


def _document(data: bytes) -> Any:
    """A rendered file's document; None when it cannot be read (shown as not evaluated)."""
    try:
        return yamllimits.load(data)
    except yaml.YAMLError:
        return None


def _rollout(repo: repository.Repository, src: loaded.LoadedSource | None) -> rollout.State | None:
    """The recorded rollout, while the source rendered has a `rollout` section (a state left
    from before it was removed says nothing about the fleet)."""
    if src is None or src.config.rollout is None:
        return None
    state, _ = rollout_state.read(repo)
    return state


def _folder(path: str) -> bool:
    """Whether a folder of the rendered tree is a cluster's (`works/<cluster>`)."""
    head, _, name = path.partition("/")
    return head == rendered.WORKS and bool(name) and "/" not in name
