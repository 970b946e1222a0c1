"""The rendered branch: read its tip, publish a new render onto it and onto the per-cluster refs.

A publication computes every object in Python (`objects`), writes only the ones the previous
render does not already hold (`store`), and moves the branch and the cluster refs together by
compare-and-swap (`refs`). A tree equal to the tip's makes no commit. A render given as the
changes to the tip costs what it changes, not what the tree holds: only the changed folders
are recomputed, and the new commit's listing is derived from the tip's and kept, so that the
next render reads its tip without listing it again (tips are kept by commit id, which names
their content for good).

Per-cluster refs `refs/heads/gitfleet/works/<cluster>` hold only `works/<cluster>/`, at the same
path as on the rendered branch, so a file means the same in either ref. Their commit is made
only when that folder changed; a cluster that left the fleet gets one commit with no files, so
its agent prunes from a complete desired state instead of guessing from a missing ref.
Every commit carries the trailers `Source-Commit` and `Gitfleet-Render`, and those trailers are
what makes a commit a render: a publication builds only on renders. A cluster ref's commit also
names its cluster (`Gitfleet-Cluster`), so that, once signed, it cannot pass for another
cluster's (the agents check it, `agent.verify`); a rendered-branch commit names none. It also
says how the cluster is synced (`Gitfleet-Sync-Mode`: its Cluster's `spec.syncMode`), so that
a pull agent, which reads nothing but its cluster's ref, can tell a Push cluster (whose push
agent applies it and writes its status) from its own; a change of mode alone makes a commit.
When the branch or a cluster ref is at any other commit (reset to a source commit, say), it
refuses (`ForeignHistoryError`, saying how to recover) rather than make that history the
rendered one, unless asked for a new history, which replaces each such ref with a parentless
render.
"""

from __future__ import annotations

import collections
import dataclasses
import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import SupportsBytes

from gitfleet.errors import ForeignHistoryError, RefConflictError
from gitfleet.gitstore import identity, objects, refs, signing, store
from gitfleet.gitstore.repository import Repository

CLUSTER_REFS = "refs/heads/gitfleet/works/"
WORKS = "works"
SOURCE_TRAILER = "Source-Commit"
ALLOW_PRUNE_TRAILER = "Gitfleet-Allow-Prune"
CARRIED_TRAILERS = (ALLOW_PRUNE_TRAILER,)
"""Trailers of the source commit copied onto the rendered and per-cluster commits, so that an
agent which can read only its own cluster's ref still sees them."""
RENDER_TRAILER = "Gitfleet-Render"
TREE_TRAILER = "Gitfleet-Tree"
"""The rendered branch's commit names its own tree: a commit amended by hand keeps the render's
message, trailers included, but not its tree, and the next render then reuses none of its
files (`Tip.amended`)."""
CLUSTER_TRAILER = "Gitfleet-Cluster"
SYNC_MODE_TRAILER = "Gitfleet-Sync-Mode"


def branch_ref(branch: str) -> str:
    return branch if branch.startswith("refs/") else f"refs/heads/{branch}"


def cluster_ref(cluster: str) -> str:
    return CLUSTER_REFS + cluster


def is_render(trailers: Mapping[str, str]) -> bool:
    """Whether a commit with these trailers is a render (of the branch or of a cluster ref)."""
    return SOURCE_TRAILER in trailers and RENDER_TRAILER in trailers


@dataclasses.dataclass(frozen=True, slots=True)
class Tip:
    """The rendered branch's last commit: its trailers and the id of every file and folder.

    One tip serves every reader of its commit (`read_tip` keeps it), so none of its mappings
    is ever changed: a publication derives fresh ones for the commit it makes."""

    commit: str
    tree: str
    trailers: Mapping[str, str]
    base: objects.Base
    """Every file and folder, as a publication on this tip builds on them."""

    @property
    def files(self) -> Mapping[str, str]:
        """Blob id of every file, by path."""
        return self.base.files

    @property
    def folders(self) -> Mapping[str, str]:
        """Tree id of every folder, by path (`""` is the root)."""
        return self.base.folders

    @property
    def source_commit(self) -> str | None:
        return self.trailers.get(SOURCE_TRAILER)

    @property
    def is_render(self) -> bool:
        return is_render(self.trailers)

    @property
    def amended(self) -> bool:
        return _amended(self.trailers, self.tree)


def _amended(trailers: Mapping[str, str], tree: str) -> bool:
    """Whether a commit names a tree other than its own (`TREE_TRAILER`; a render made before
    the trailer names none)."""
    return trailers.get(TREE_TRAILER, tree) != tree


def _make_tip(commit: str, tree: str, data: bytes, base: objects.Base) -> Tip:
    return Tip(commit=commit, tree=tree, trailers=objects.trailers_of(data), base=base)


class _Tips:
    """Tips already read or published, by repository and commit.

    A commit id names its tree and message for good, so a tip kept here is never stale, and
    a render that reads the tip its last publication made costs one ref read instead of
    reading every folder's tree (half a second for 1.4 million files). The cache is bounded
    because a tip of that size holds tens of megabytes: per repository, the last
    `per_repository` tips (a render reads the tip the previous one published, and a reader
    that started before a publication may still ask for the tip before it); at most
    `repositories` repositories, the least recently used forgotten first (a process works on
    one repository, or a few; tests make many)."""

    def __init__(self, repositories: int, per_repository: int) -> None:
        self._repositories = repositories
        self._per_repository = per_repository
        self._lock = threading.Lock()
        self._tips: collections.OrderedDict[Path, collections.OrderedDict[str, Tip]] = (
            collections.OrderedDict()
        )

    def get(self, repo: Repository, commit: str) -> Tip | None:
        key = repo.git_dir.resolve()
        with self._lock:
            kept = self._tips.get(key)
            found = kept.get(commit) if kept is not None else None
            if kept is not None and found is not None:
                self._tips.move_to_end(key)
                kept.move_to_end(commit)
            return found

    def put(self, repo: Repository, tip: Tip) -> None:
        key = repo.git_dir.resolve()
        with self._lock:
            kept = self._tips.setdefault(key, collections.OrderedDict())
            self._tips.move_to_end(key)
            kept[tip.commit] = tip
            kept.move_to_end(tip.commit)
            while len(kept) > self._per_repository:
                kept.popitem(last=False)
            while len(self._tips) > self._repositories:
                self._tips.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._tips.clear()


_TIPS = _Tips(repositories=4, per_repository=2)


def forget_tips() -> None:
    """Forget every tip read or published, so that the next `read_tip` lists its commit with
    git (for tests comparing a derived listing with git's)."""
    _TIPS.clear()


def _listing(repo: Repository, commit: str, tree: str) -> objects.Base:
    """Every folder of `commit` with its entries: the folders as `git ls-tree -d` lists them,
    each kept as its tree object (`objects.Entries`, read in one `git cat-file --batch`), not
    a dictionary of every file."""
    code, out, err = repo.run("ls-tree", "-r", "-d", "-z", "--full-tree", commit)
    if code != 0:
        raise repo.fail(f"cannot read {commit}: {err.decode(errors='replace').strip()}")
    folders = {"": tree}
    subs: dict[str, set[str]] = {"": set()}
    for record in out.split(b"\0"):
        if not record:
            continue
        info, _, raw = record.partition(b"\t")
        oid = info.rpartition(b" ")[2].decode()
        path = raw.decode("utf-8", "replace")
        parent, _, name = path.rpartition("/")
        folders[path] = oid
        subs.setdefault(path, set())
        subs[parent].add(name)
    trees = repo.read(set(folders.values()), objects.TREE)
    width = len(tree) // 2
    entries = {}
    for path, oid in folders.items():
        data = trees.get(oid)
        if data is None:
            raise repo.fail(f"cannot read {commit}: tree {oid} of {path or '/'!r} missing")
        entries[path] = objects.Folder(objects.Entries(data, width), frozenset(subs[path]))
    return objects.Base(folders, entries)


def read_tip(repo: Repository, branch: str) -> Tip | None:
    """The tip of `branch`, None when it does not exist yet."""
    state = refs.read_ref(repo, branch_ref(branch))
    if state is None:
        return None
    tip = _TIPS.get(repo, state.commit)
    if tip is not None:
        return tip
    data = repo.read([state.commit], objects.COMMIT).get(state.commit, b"")
    tip = _make_tip(state.commit, state.tree, data, _listing(repo, state.commit, state.tree))
    _TIPS.put(repo, tip)
    return tip


def last_render_below(
    repo: Repository, tip: Tip, limit: int, accept: Callable[[str], bool]
) -> Tip | None:
    """The newest render down `tip`'s first parents, at most `limit` commits deep, that is not
    amended and that `accept` takes (by commit id), read whole; None when there is none. The
    commits are read in one batch, and only the chosen one's folders are listed: this is the
    rare look below a tip that cannot be trusted."""
    code, out, _ = repo.run(
        "rev-list", "--first-parent", f"--max-count={limit}", "--format=%T", f"{tip.commit}^"
    )
    if code != 0:
        return None  # a parentless tip
    words = out.decode().split()  # "commit <id>" then its tree id, for each commit
    below = list(zip(words[1::3], words[2::3], strict=True))
    messages = repo.read([commit for commit, _ in below], objects.COMMIT)
    for commit, tree in below:
        data = messages.get(commit, b"")
        trailers = objects.trailers_of(data)
        if is_render(trailers) and not _amended(trailers, tree) and accept(commit):
            return _make_tip(commit, tree, data, _listing(repo, commit, tree))
    return None


def read_files(repo: Repository, tip: Tip, wanted: Callable[[str], bool]) -> dict[str, bytes]:
    """The contents of the tip's files whose path `wanted` accepts."""
    return _contents(repo, tip, {path: oid for path, oid in tip.files.items() if wanted(path)})


def _contents(repo: Repository, tip: Tip, chosen: Mapping[str, str]) -> dict[str, bytes]:
    blobs = repo.read(set(chosen.values()), objects.BLOB)
    missing = [p for p, oid in chosen.items() if oid not in blobs]
    if missing:
        raise repo.fail(f"cannot read {missing[0]!r} of {tip.commit}: object missing")
    return {path: blobs[oid] for path, oid in chosen.items()}


def reader(repo: Repository, tip: Tip) -> Callable[[Iterable[str]], dict[str, bytes]]:
    """Reads the tip's files by path, as `pipeline.read_previous` asks for them (a few paths
    of a large tree: looked up, not searched for)."""
    files = tip.files
    return lambda paths: _contents(repo, tip, {p: files[p] for p in paths if p in files})


class _Renders:
    """Commits known to be renders, with the sync mode each names (`SYNC_MODE_TRAILER`): a
    commit id names its message for good, so each is read once, not at every publication
    (bounded: forgotten all at once when full)."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._lock = threading.Lock()
        self._known: dict[str, str | None] = {}

    def add(self, commit: str, sync_mode: str | None) -> None:
        with self._lock:
            if len(self._known) >= self._limit:
                self._known.clear()
            self._known[commit] = sync_mode

    def _learn(self, repo: Repository, commits: Iterable[str]) -> dict[str, str | None]:
        """The renders among `commits`, with their sync modes, read where not known yet."""
        with self._lock:
            known = {c: self._known[c] for c in commits if c in self._known}
        unknown = set(commits) - known.keys()
        data = repo.read(unknown, objects.COMMIT) if unknown else {}
        for commit in unknown:
            trailers = objects.trailers_of(data.get(commit, b""))
            if is_render(trailers):
                known[commit] = trailers.get(SYNC_MODE_TRAILER)
                self.add(commit, known[commit])
        return known

    def foreign(self, repo: Repository, commits: Mapping[str, str]) -> list[str]:
        """Of `commits` (ref to commit), the refs whose commit is not a render, sorted."""
        renders = self._learn(repo, commits.values())
        return sorted(ref for ref, c in commits.items() if c not in renders)

    def sync_mode(self, repo: Repository, commit: str) -> str | None:
        """The sync mode a render commit names (None: none, or not a render)."""
        return self._learn(repo, [commit]).get(commit)


_RENDERS = _Renders(limit=100_000)


def foreign_refs(repo: Repository, branch: str) -> list[str]:
    """The refs a render onto `branch` builds on (the branch and every cluster ref) that are
    at a commit that is not a render, sorted."""
    commits = {ref: state.commit for ref, state in refs.list_refs(repo, CLUSTER_REFS).items()}
    tip = refs.read_ref(repo, branch_ref(branch))
    if tip is not None:
        commits[branch_ref(branch)] = tip.commit
    return _RENDERS.foreign(repo, commits)


def clusters_without_ref(repo: Repository, tip: Tip) -> list[str]:
    """The clusters of the render at `tip` (its `works/<cluster>` folders) whose ref does not
    exist, sorted: deleted since the render was published (to start it over, or as the way out
    of a ref that was not at a render). One ref listing; the tip already knows its folders."""
    present = {ref[len(CLUSTER_REFS) :] for ref in refs.ref_names(repo, CLUSTER_REFS)}
    return sorted(tip.base.folder(WORKS).folders - present)


_NAMED = 5
"""Refs an error names; it counts the others."""


def history_error(foreign: Iterable[str]) -> ForeignHistoryError:
    """Why a render refuses to build on `foreign` refs, and how to recover."""
    names = sorted(foreign)
    shown = names[:_NAMED]
    rest = f"{len(names) - len(shown)} more" if len(names) > len(shown) else shown.pop()
    which = f"{', '.join(shown)} and {rest}" if shown else rest
    single = len(names) == 1
    at = "is at a commit that is not a render" if single else "are at commits that are not renders"
    return ForeignHistoryError(
        f"{which} {at} (no {SOURCE_TRAILER} and {RENDER_TRAILER} trailers), and a render"
        " builds only on renders. Point the ref back at a render, or start a new history:"
        " delete the ref (`git update-ref -d <ref>`; on a remote, `git push origin --delete"
        " <ref>`) and render again, or run `gitfleet render --new-history`, which replaces"
        " it (its commits are then reachable from the reflog only: make sure it is not a branch"
        " of your own)"
    )


def committer(repo: Repository) -> objects.Signature:
    """Who commits to `repo`, now (`identity`'s rule)."""

    def var(name: str) -> str | None:
        code, out, _ = repo.run("var", name)
        named = out.decode().strip()
        return named if code == 0 and named else None

    return identity.signature(var)


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


def _build(
    tip: Tip | None,
    files: Mapping[str, objects.Content] | None,
    changes: Mapping[str, objects.Content | None] | None,
    fmt: objects.Format,
    stored: bool,
) -> tuple[objects.BuiltTree, objects.Base | None, Callable[[str], bool]]:
    """The render's tree, the new tip's listing when it could be derived from the old one
    without a pass over every file, and which objects the repository already holds (with
    `stored`, the changes' blobs are on their way in, and the tree lists none of them)."""
    if changes is not None and files is None:
        base = tip.base if tip else objects.EMPTY_BASE
        changed = objects.apply_changes(base, changes, fmt, stored=stored)
        return changed.tree, changed.base, changed.held.__contains__
    if files is not None and changes is None:
        built = objects.build_tree(files, fmt, tip.base if tip else None)
        known = {*tip.files.values(), *tip.folders.values()} if tip else set()
        return built, None, known.__contains__
    raise TypeError("publish takes either files or changes")


def _receive_blobs(
    repo: Repository, changes: Mapping[str, objects.Content | None] | None, fmt: objects.Format
) -> store.Incoming | None:
    """Many changes: every blob they bring (but those already stored, `objects.Blob`) goes to
    git at once, to be checked while the trees are built (None: too few to be worth it, they
    go with the trees). A content written at many paths (each cluster's same
    kustomization.yaml) goes once; manifests spliced from a shared text go without being
    hashed here (the trees hash them): each is its cluster's copy of one resource, distinct by
    construction (were two the same, git takes a pack holding an object twice, and a repack
    keeps one)."""
    if changes is None or len(changes) < store.UNPACK_LIMIT:
        return None
    whole: dict[str, bytes | SupportsBytes] = {}
    spliced: list[bytes | SupportsBytes] = []
    for content in changes.values():
        if content is None or isinstance(content, objects.Blob):
            continue
        data = content.content if isinstance(content, objects.Hashed) else content
        if getattr(data, "splice", None) is not None:
            spliced.append(data)
        elif isinstance(content, objects.Hashed):
            whole[content.id] = data
        else:
            whole[fmt.object_id(objects.BLOB, bytes(data))] = data
    if len(whole) + len(spliced) < store.UNPACK_LIMIT:
        return None
    return store.receive(repo, store.Blobs([*whole.values(), *spliced]), fmt)


def publish(
    repo: Repository,
    branch: str,
    files: Mapping[str, objects.Content] | None = None,
    *,
    changes: Mapping[str, objects.Content | None] | None = None,
    expected: str | None,
    source_commit: str,
    version: str,
    author: objects.Signature | None = None,
    message: str | None = None,
    tip: Tip | None = None,
    new_history: bool = False,
    signer: signing.Signer | None = None,
    hold_clusters: bool = False,
    sync_modes: Mapping[str, str] | None = None,
) -> Published:
    """Commit a render on `branch` if the branch is still at `expected` (None: must not exist),
    and bring every cluster ref in line; `RefConflictError` when another writer moved one.

    The render is either `files`, the whole tree, or `changes` to the tree at `expected`
    (path to new content, None: the file is removed; onto no tip at all, the whole tree).
    Changes cost what they touch: only the folders holding a changed path are recomputed,
    and the new commit's listing is derived from the tip's, so that the next `read_tip`
    does not list the tree again. `message` is the rendered commit's message (default
    `render <source commit>`; failover says there what it changed). `tip` is the branch's
    tip as the caller already read it at `expected` (read again when not given); the ref
    update's compare-and-swap still catches a writer that moved the branch since.

    A ref that is at a commit that is not a render (`is_render`) is never built on:
    `ForeignHistoryError`, and nothing is written. With `new_history`, each such ref gets a
    parentless commit instead (for the branch, the render must then be the whole tree: made
    from scratch, as `changes` to no tree at all). With `signer`, every commit made is
    signed. With `hold_clusters`, no cluster ref moves: a progressive rollout moves them
    (`releases`). `sync_modes` gives each cluster's `spec.syncMode`, which its ref's commit
    names (`SYNC_MODE_TRAILER`); a ref whose commit names another mode gets a commit (not
    given: the modes are not known, and no commit names one)."""
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
    current = refs.list_refs(repo, CLUSTER_REFS)
    foreign = _RENDERS.foreign(repo, {ref: state.commit for ref, state in current.items()})
    if tip is not None and not tip.is_render:
        foreign.append(branch_ref(branch))
    if foreign and not new_history:
        raise history_error(foreign)
    parent = tip if tip is not None and tip.is_render else None
    incoming = _receive_blobs(repo, changes, fmt)
    try:
        built, after, known = _build(parent, files, changes, fmt, incoming is not None)
    except BaseException:
        if incoming is not None:
            incoming.drop()
        raise
    who = author or committer(repo)
    new_objects = built.missing(known)
    if incoming is not None:
        incoming.keep()
    moves: list[refs.Move] = []
    created = parent is None or parent.tree != built.id
    trailers = [(SOURCE_TRAILER, source_commit), (RENDER_TRAILER, version)]
    source_trailers = commit_trailers(repo, source_commit) or {}
    trailers += [(k, source_trailers[k]) for k in CARRIED_TRAILERS if k in source_trailers]
    commit = tip_commit or ""
    made = None
    if created:
        made = objects.commit_object(
            built.id,
            [parent.commit] if parent else [],
            who,
            message or f"render {source_commit}",
            [*trailers, (TREE_TRAILER, built.id)],
            fmt,
        )
        new_objects.append(made)
        moves.append(refs.Move(branch_ref(branch), made.id, tip_commit))
        commit = made.id
    elif parent is not None:
        trailers = [
            (k, v)
            for k, v in parent.trailers.items()
            if k in (SOURCE_TRAILER, RENDER_TRAILER, *CARRIED_TRAILERS)
        ]
    clusters = (
        {}
        if hold_clusters
        else _publish_clusters(
            repo,
            _Publication(built, fmt, who, trailers, sync_modes),
            new_objects,
            moves,
            current,
            frozenset(foreign),
        )
    )
    stored = signing.write(repo, new_objects, fmt, signer)
    moves = [refs.Move(m.ref, stored[m.new], m.old) for m in moves]
    refs.update(repo, moves, f"gitfleet render {source_commit}")
    modes = sync_modes or {}
    for move in moves:
        name = move.ref[len(CLUSTER_REFS) :] if move.ref.startswith(CLUSTER_REFS) else None
        _RENDERS.add(move.new, modes.get(name) if name is not None else None)
    if made is not None:
        commit = stored[made.id]
        if after is not None:
            _TIPS.put(repo, _make_tip(commit, built.id, made.data, after))
    clusters = {name: stored[new] for name, new in clusters.items()}
    return Published(commit=commit, created=created, clusters=clusters)


@dataclasses.dataclass(frozen=True, slots=True)
class _Publication:
    """What every cluster ref's commit of one publication is made from."""

    built: objects.BuiltTree
    fmt: objects.Format
    who: objects.Signature
    trailers: list[tuple[str, str]]
    sync_modes: Mapping[str, str] | None
    """None: not known, so a ref's mode is no reason for a commit."""


def _publish_clusters(
    repo: Repository,
    publication: _Publication,
    new_objects: list[objects.GitObject],
    moves: list[refs.Move],
    current: Mapping[str, refs.RefState],
    foreign: frozenset[str],
) -> dict[str, str]:
    """Commit each cluster folder that changed, or whose sync mode did, onto its ref
    (`current`: where the refs are); a ref in `foreign` gets a parentless commit, whatever
    its tree."""
    fmt = publication.fmt
    wanted = _cluster_trees(publication.built, fmt)
    empty = objects.tree_object([], fmt)
    for ref in current:
        name = ref[len(CLUSTER_REFS) :]
        if name not in wanted:
            wanted[name] = [empty]
    trailers = publication.trailers
    source = dict(trailers).get(SOURCE_TRAILER, "")
    moved = {}
    for name in sorted(wanted):
        trees = wanted[name]
        ref = cluster_ref(name)
        state = current.get(ref)
        modes = publication.sync_modes
        mode = modes.get(name) if modes is not None else None
        if (
            state is not None
            and ref not in foreign
            and state.tree == trees[-1].id
            and (modes is None or _RENDERS.sync_mode(repo, state.commit) == mode)
        ):
            continue
        adopted = state is not None and ref not in foreign
        parents = [state.commit] if adopted and state is not None else []
        named = [*trailers, (CLUSTER_TRAILER, name)]
        named += [(SYNC_MODE_TRAILER, mode)] if mode else []
        made = objects.commit_object(
            trees[-1].id, parents, publication.who, f"render {source} for {name}", named, fmt
        )
        new_objects.extend([*trees, made])
        moves.append(refs.Move(ref, made.id, state.commit if state else None))
        moved[name] = made.id
    return moved
