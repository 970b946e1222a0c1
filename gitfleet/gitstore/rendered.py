"""The rendered branch: read its tip, publish a new render onto it and onto the per-cluster refs.

A publication computes every object in Python (`objects`), writes only the ones the previous
render does not already hold (`store`), and moves the branch and the cluster refs together by
compare-and-swap (`refs`). A tree equal to the tip's makes no commit.

Per-cluster refs `refs/heads/gitfleet/works/<cluster>` hold only `works/<cluster>/`, at the same
path as on the rendered branch, so a file means the same in either ref. Their commit is made
only when that folder changed; a cluster that left the fleet gets one commit with no files, so
its agent prunes from a complete desired state instead of guessing from a missing ref.
Every commit carries the trailers `Source-Commit` and `Gitfleet-Render`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable, Mapping

from gitfleet.errors import RefConflictError
from gitfleet.gitstore import objects, refs, store
from gitfleet.gitstore.repository import Repository

CLUSTER_REFS = "refs/heads/gitfleet/works/"
WORKS = "works"
SOURCE_TRAILER = "Source-Commit"
ALLOW_PRUNE_TRAILER = "Gitfleet-Allow-Prune"
CARRIED_TRAILERS = (ALLOW_PRUNE_TRAILER,)
"""Trailers of the source commit copied onto the rendered and per-cluster commits, so that an
agent which can read only its own cluster's ref still sees them."""
RENDER_TRAILER = "Gitfleet-Render"
DEFAULT_IDENT = ("gitfleet", "gitfleet@localhost")


def branch_ref(branch: str) -> str:
    return branch if branch.startswith("refs/") else f"refs/heads/{branch}"


def cluster_ref(cluster: str) -> str:
    return CLUSTER_REFS + cluster


@dataclasses.dataclass(frozen=True, slots=True)
class Tip:
    """The rendered branch's last commit: its trailers and the id of every file and folder."""

    commit: str
    tree: str
    trailers: Mapping[str, str]
    files: Mapping[str, str]
    """Blob id of every file, by path."""
    folders: Mapping[str, str]
    """Tree id of every folder, by path (`""` is the root)."""

    @property
    def base(self) -> objects.Base:
        return objects.Base(self.files, self.folders)

    @property
    def source_commit(self) -> str | None:
        return self.trailers.get(SOURCE_TRAILER)


def _ls_tree(repo: Repository, commit: str) -> tuple[dict[str, str], dict[str, str]]:
    code, out, err = repo.run("ls-tree", "-r", "-t", "-z", "--full-tree", commit)
    if code != 0:
        raise repo.fail(f"cannot read {commit}: {err.decode(errors='replace').strip()}")
    files: dict[str, str] = {}
    folders: dict[str, str] = {}
    for record in out.split(b"\0"):
        if not record:
            continue
        info, _, path = record.partition(b"\t")
        _, kind, oid = info.split(b" ")
        if kind == b"blob":
            files[path.decode("utf-8", "replace")] = oid.decode()
        elif kind == b"tree":
            folders[path.decode("utf-8", "replace")] = oid.decode()
    return files, folders


def read_tip(repo: Repository, branch: str) -> Tip | None:
    """The tip of `branch`, None when it does not exist yet."""
    state = refs.read_ref(repo, branch_ref(branch))
    if state is None:
        return None
    data = repo.read([state.commit], objects.COMMIT).get(state.commit, b"")
    files, folders = _ls_tree(repo, state.commit)
    folders[""] = state.tree
    return Tip(
        commit=state.commit,
        tree=state.tree,
        trailers=objects.trailers_of(data),
        files=files,
        folders=folders,
    )


def read_files(repo: Repository, tip: Tip, wanted: Callable[[str], bool]) -> dict[str, bytes]:
    """The contents of the tip's files whose path `wanted` accepts."""
    chosen = {path: oid for path, oid in tip.files.items() if wanted(path)}
    blobs = repo.read(set(chosen.values()), objects.BLOB)
    missing = [p for p, oid in chosen.items() if oid not in blobs]
    if missing:
        raise repo.fail(f"cannot read {missing[0]!r} of {tip.commit}: object missing")
    return {path: blobs[oid] for path, oid in chosen.items()}


def reader(repo: Repository, tip: Tip) -> Callable[[Iterable[str]], dict[str, bytes]]:
    """Reads the tip's files by path, as `pipeline.read_previous` asks for them."""
    return lambda paths: read_files(repo, tip, set(paths).__contains__)


def identity(repo: Repository) -> objects.Signature:
    """Who commits: git's committer identity (environment, then configuration), else gitfleet,
    now."""
    code, out, _ = repo.run("var", "GIT_COMMITTER_IDENT")
    if code == 0 and out.strip():
        return objects.Signature.parse(out.decode())
    return objects.Signature(*DEFAULT_IDENT, when=int(time.time()))


@dataclasses.dataclass(frozen=True, slots=True)
class Published:
    """What a publication did: the branch's commit now, whether it is new, and the cluster
    refs it moved (cluster name to its new commit)."""

    commit: str
    created: bool
    clusters: Mapping[str, str]


def _cluster_trees(
    built: objects.BuiltTree, fmt: objects.Format
) -> dict[str, list[objects.GitObject]]:
    """For each cluster folder of the render: the wrapper trees of its ref's root (the last
    one is the root)."""
    prefix = WORKS + "/"
    found = {}
    for folder, oid in built.folders.items():
        if folder.startswith(prefix) and "/" not in folder[len(prefix) :]:
            name = folder[len(prefix) :]
            inner = objects.tree_object([(name, oid)], fmt)
            found[name] = [inner, objects.tree_object([(WORKS, inner.id)], fmt)]
    return found


def commit_trailers(repo: Repository, rev: str) -> Mapping[str, str] | None:
    """The trailers of any commit (e.g. a rendered commit's source), None if it is absent."""
    commit = repo.commit_of(rev)
    if commit is None:
        return None
    return objects.trailers_of(repo.read([commit], objects.COMMIT).get(commit, b""))


def publish(
    repo: Repository,
    branch: str,
    files: Mapping[str, objects.Content],
    *,
    expected: str | None,
    source_commit: str,
    version: str,
    author: objects.Signature | None = None,
    message: str | None = None,
    tip: Tip | None = None,
) -> Published:
    """Commit `files` on `branch` if the branch is still at `expected` (None: must not exist),
    and bring every cluster ref in line; `RefConflictError` when another writer moved one.
    `message` is the rendered commit's message (default `render <source commit>`; failover
    says there what it changed). `tip` is the branch's tip as the caller already read it at
    `expected` (read again when not given); the ref update's compare-and-swap still catches
    a writer that moved the branch since."""
    fmt = store.object_format(repo)
    if tip is None or tip.commit != expected:
        tip = read_tip(repo, branch)
    tip_commit = tip.commit if tip else None
    if tip_commit != expected:
        where = f"now at {tip_commit}" if tip_commit else "absent"
        raise RefConflictError(
            f"{branch_ref(branch)} moved while rendering (expected {expected or 'absent'},"
            f" {where}); render again"
        )
    built = objects.build_tree(files, fmt, tip.base if tip else None)
    known = {*tip.files.values(), *tip.folders.values()} if tip else set()
    who = author or identity(repo)
    new_objects = built.missing(known.__contains__)
    moves: list[refs.Move] = []
    created = tip is None or tip.tree != built.id
    trailers = [(SOURCE_TRAILER, source_commit), (RENDER_TRAILER, version)]
    source_trailers = commit_trailers(repo, source_commit) or {}
    trailers += [(k, source_trailers[k]) for k in CARRIED_TRAILERS if k in source_trailers]
    commit = tip_commit or ""
    if created:
        made = objects.commit_object(
            built.id,
            [tip_commit] if tip_commit else [],
            who,
            message or f"render {source_commit}",
            trailers,
            fmt,
        )
        new_objects.append(made)
        moves.append(refs.Move(branch_ref(branch), made.id, tip_commit))
        commit = made.id
    elif tip is not None:
        trailers = [
            (k, v)
            for k, v in tip.trailers.items()
            if k in (SOURCE_TRAILER, RENDER_TRAILER, *CARRIED_TRAILERS)
        ]
    clusters = _publish_clusters(repo, built, fmt, who, trailers, new_objects, moves)
    store.write(repo, list({o.id: o for o in new_objects}.values()), fmt)
    refs.update(repo, moves, f"gitfleet render {source_commit}")
    return Published(commit=commit, created=created, clusters=clusters)


def _publish_clusters(
    repo: Repository,
    built: objects.BuiltTree,
    fmt: objects.Format,
    who: objects.Signature,
    trailers: list[tuple[str, str]],
    new_objects: list[objects.GitObject],
    moves: list[refs.Move],
) -> dict[str, str]:
    current = refs.list_refs(repo, CLUSTER_REFS)
    wanted = _cluster_trees(built, fmt)
    empty = objects.tree_object([], fmt)
    for ref in current:
        name = ref[len(CLUSTER_REFS) :]
        if name not in wanted:
            wanted[name] = [empty]
    source = dict(trailers).get(SOURCE_TRAILER, "")
    moved = {}
    for name in sorted(wanted):
        trees = wanted[name]
        ref = cluster_ref(name)
        state = current.get(ref)
        if state is not None and state.tree == trees[-1].id:
            continue
        parents = [state.commit] if state else []
        made = objects.commit_object(
            trees[-1].id, parents, who, f"render {source} for {name}", trailers, fmt
        )
        new_objects.extend([*trees, made])
        moves.append(refs.Move(ref, made.id, state.commit if state else None))
        moved[name] = made.id
    return moved
