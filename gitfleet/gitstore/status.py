"""Status refs: each cluster's `refs/heads/gitfleet/status/<cluster>`, written by its agent.

A status commit holds a small tree (`cluster.yaml`, `works.yaml`) and names the rendered commit
the agent applied in its `Rendered-Commit` trailer. Every status commit is written without a
parent and replaces the previous one by compare-and-swap: the ref's history is always one commit
long, so it never grows however often an agent reports, and fetching it costs one small tree.
The rendered commit is named, not made a parent, so fetching a status ref never pulls the
rendered history with it.

Objects are computed in Python and written in one stream (`objects`, `store`), as the rendered
branch is; the ref moves with `refs.update`, which raises `RefConflictError` when another
writer moved it first.

`read_cluster_status` is what the next render reads: every cluster's reported ClusterStatus and
an id of that snapshot.

The files are written by the render's YAML writer (`encode_file`: sorted keys, block style, the
same value to every YAML reader) and read back by its fast reader of that form, falling back to
a full YAML reader for anything else (`decode_file`: a report another version wrote, one
edited by hand, a hostile one): a `works.yaml` of thousands of manifests is written and read
in a fraction of the time a general YAML library takes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any

import yaml

from gitfleet import render
from gitfleet.errors import RefConflictError, SchemaError
from gitfleet.gitstore import objects, refs, rendered, signing, store
from gitfleet.gitstore.repository import Repository
from gitfleet.interpreter import _quantity as quantity
from gitfleet.model import _codec, cluster, messages, meta, names, yamllimits
from gitfleet.model.origin import Origin

STATUS_REFS = "refs/heads/gitfleet/status/"
RENDERED_TRAILER = "Rendered-Commit"


def status_ref(cluster: str) -> str:
    return STATUS_REFS + cluster


@dataclasses.dataclass(frozen=True, slots=True)
class Status:
    """One cluster's last report: its commit, the trailers and the files of its tree."""

    cluster: str
    commit: str
    tree: str
    trailers: Mapping[str, str]
    files: Mapping[str, bytes]

    @property
    def rendered_commit(self) -> str | None:
        return self.trailers.get(RENDERED_TRAILER)


def read_status(repo: Repository, cluster: str) -> Status | None:
    """The status ref of `cluster`, None when it has not reported yet."""
    state = refs.read_ref(repo, status_ref(cluster))
    return None if state is None else _read(repo, cluster, state)


def read_file(repo: Repository, name: str, file: str) -> tuple[bytes | None, str | None]:
    """One file of the status ref `name` and the ref's commit; (None, None) without the ref,
    (None, commit) when the ref holds no such file."""
    found = read_status(repo, name)
    return (None, None) if found is None else (found.files.get(file), found.commit)


def read_all(repo: Repository) -> dict[str, Status]:
    """Every cluster's status, by cluster name. Status refs whose name no Cluster can have are
    left out unread: the reconciler's own (`_...`), and any other (`a/b`, `Caps`) that anyone
    who can push refs could make up."""
    found = {}
    for ref, state in sorted(refs.list_refs(repo, STATUS_REFS).items()):
        name = ref.removeprefix(STATUS_REFS)
        if names.cluster_problem(name) is None:
            found[name] = _read(repo, name, state)
    return found


def _read(repo: Repository, cluster: str, state: refs.RefState) -> Status:
    data = repo.read([state.commit], objects.COMMIT).get(state.commit, b"")
    tree = _tree_files(repo, state.tree)
    blobs = repo.read(set(tree.values()), objects.BLOB)
    return Status(
        cluster=cluster,
        commit=state.commit,
        tree=state.tree,
        trailers=objects.trailers_of(data),
        files={name: blobs[oid] for name, oid in tree.items() if oid in blobs},
    )


def _tree_files(repo: Repository, tree: str) -> dict[str, str]:
    """Blob ids of the files at the top of a status tree (status trees have no folders)."""
    data = repo.read([tree], objects.TREE).get(tree, b"")
    width = store.object_format(repo).hex_length // 2
    found: dict[str, str] = {}
    at = 0
    while at < len(data):
        space = data.index(b" ", at)
        nul = data.index(b"\0", space)
        mode, name = data[at:space], data[space + 1 : nul].decode("utf-8", "replace")
        oid = data[nul + 1 : nul + 1 + width].hex()
        if mode == objects.FILE_MODE:
            found[name] = oid
        at = nul + 1 + width
    return found


def build(
    repo: Repository,
    cluster: str,
    files: Mapping[str, bytes],
    *,
    rendered_commit: str,
    author: objects.Signature | None = None,
) -> tuple[objects.GitObject, list[objects.GitObject]]:
    """The status commit for `files` (and every object it needs), not yet written."""
    fmt = store.object_format(repo)
    built = objects.build_tree(dict(files), fmt)
    trailers = [(RENDERED_TRAILER, rendered_commit)] if rendered_commit else []
    commit = objects.commit_object(
        built.id,
        [],
        author or rendered.committer(repo),
        f"status of {cluster}",
        trailers,
        fmt,
    )
    return commit, [*built.objects, commit]


MoveRef = Callable[[str, str, str | None], None]
"""Moves a ref (name, new commit, expected commit or None) by compare-and-swap."""


def write_status(
    repo: Repository,
    cluster: str,
    files: Mapping[str, bytes],
    *,
    expected: str | None,
    rendered_commit: str,
    author: objects.Signature | None = None,
    move: MoveRef | None = None,
    signer: signing.Signer | None = None,
) -> str:
    """Replace the status of `cluster` with `files` if its ref is still at `expected` (None: it
    must not exist yet); returns the new commit. `RefConflictError` when someone else moved it.

    `move` publishes the ref elsewhere (a remote, see `remote.Mirror.push`); by default the
    ref of `repo` itself moves. With `signer`, the commit is signed."""
    commit, made = build(repo, cluster, files, rendered_commit=rendered_commit, author=author)
    new = signing.write(repo, made, store.object_format(repo), signer)[commit.id]
    ref = status_ref(cluster)
    try:
        (move or _move_local(repo))(ref, new, expected)
    except RefConflictError as exc:
        raise RefConflictError(f"{ref} was moved by another writer; report again") from exc
    return new


def _move_local(repo: Repository) -> MoveRef:
    def move(ref: str, new: str, expected: str | None) -> None:
        refs.update(repo, [refs.Move(ref, new, expected)], f"gitfleet {ref}")

    return move


CLUSTER_FILE = "cluster.yaml"
"""The file of a status ref with the cluster's own status (written by `agent.report`)."""
NODE_AVAILABLE = "nodeAvailable"
"""The key of `cluster.yaml` beside `status` with what the nodes have available."""


def encode_file(doc: Mapping[str, Any]) -> bytes:
    """A status file's bytes. A value JSON cannot hold (a float a Lua customization made
    infinite, a non-string key) is written by PyYAML instead, as agents always wrote them."""
    try:
        return render.dump_yaml(doc)
    except (TypeError, ValueError):
        return yaml.safe_dump(dict(doc), sort_keys=True, allow_unicode=True).encode()


def decode_file(data: bytes) -> Any:
    """The document of a status file, as `yamllimits.load` reads it (the same errors)."""
    found = render.read_own_yaml(data) if data else None
    return found if found is not None else yamllimits.load(data)


def decode_cluster_status(data: bytes | None, where: str) -> cluster.ClusterStatus | None:
    """The Karmada ClusterStatus under `status` in a `cluster.yaml`; None when there is none
    or it does not decode (another version's report, or a damaged one). The texts of its
    conditions are each one bounded line (`messages.one_line`), as agents write them: status
    and explain print them, and a hostile report's own lines would pass for theirs."""
    try:
        doc = decode_file(data or b"")
    except yaml.YAMLError:
        return None
    raw = doc.get("status") if isinstance(doc, dict) else None
    if not isinstance(raw, dict):
        return None
    try:
        decoded: cluster.ClusterStatus = _codec.decode(
            cluster.ClusterStatus, raw, Origin(where), lenient=True
        )
    except SchemaError:
        return None
    if not _quantities_parse(decoded):
        return None
    summary = decoded.resource_summary
    nodes = _node_available(doc.get(NODE_AVAILABLE), where)
    if summary is not None and nodes is not None:
        decoded = dataclasses.replace(
            decoded, resource_summary=dataclasses.replace(summary, node_available=nodes)
        )
    conditions = tuple(
        dataclasses.replace(
            c,
            status=messages.one_line(c.status),
            reason=messages.one_line(c.reason),
            message=messages.one_line(c.message),
        )
        for c in decoded.conditions
    )
    return dataclasses.replace(decoded, conditions=conditions)


def _node_available(raw: object, where: str) -> tuple[cluster.NodeAvailable, ...] | None:
    """The nodes' available resources a `cluster.yaml` holds beside its status; None when it
    holds none (a report of an earlier agent) or they do not decode or parse: the cluster is
    then estimated from its summary alone, as before agents reported them."""
    if not isinstance(raw, list):
        return None
    try:
        found = tuple(
            _codec.decode(cluster.NodeAvailable, item, Origin(where), lenient=True)
            for item in raw
            if isinstance(item, dict)
        )
        for group in found:
            for value in (group.resources or {}).values():
                quantity.parse(value)
    except (SchemaError, quantity.QuantityError):
        return None
    return found if len(found) == len(raw) else None


def cluster_document(observed: cluster.ClusterStatus) -> dict[str, Any]:
    """The part of a `cluster.yaml` that `decode_cluster_status` reads: `status`, Karmada's
    ClusterStatus, and beside it `nodeAvailable`, the nodes' available resources when the
    summary has them."""
    doc: dict[str, Any] = {"status": meta.to_doc(observed)}
    summary = observed.resource_summary
    if summary is not None and summary.node_available is not None:
        doc[NODE_AVAILABLE] = [meta.to_doc(group) for group in summary.node_available]
    return doc


def _quantities_parse(status: cluster.ClusterStatus) -> bool:
    """Whether every quantity of the resource summary parses. Karmada holds them as
    resource.Quantity, so a report with `cpu: lots` does not decode there either; taken as it
    is, it would fail the schedule of every binding that considers the cluster, fleet-wide."""
    summary = status.resource_summary
    if summary is None:
        return True
    values = (summary.allocatable, summary.allocating, summary.allocated)
    try:
        for raw in (raw for found in values for raw in (found or {}).values()):
            quantity.parse(raw)
    except quantity.QuantityError:
        return False
    return True


def read_cluster_status(repo: Repository) -> tuple[str, dict[str, cluster.ClusterStatus]]:
    """Every cluster's last reported status, by cluster name, and the id of this snapshot.

    A report that does not decode is left out, and its cluster is scheduled on what the
    source declares. The id is `sha256:` of the statuses (with their nodes' available
    resources) as canonical JSON: the same statuses give the same id however often they were
    reported, so renders from equal inputs name equal snapshots."""
    found = {}
    for name, report in read_all(repo).items():
        where = f"{status_ref(name)}:{CLUSTER_FILE}"
        decoded = decode_cluster_status(report.files.get(CLUSTER_FILE), where)
        if decoded is not None:
            found[name] = decoded
    text = json.dumps(
        {name: cluster_document(value) for name, value in found.items()},
        sort_keys=True,
        separators=(",", ":"),
    )
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest(), found
