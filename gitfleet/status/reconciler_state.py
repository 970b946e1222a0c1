"""The reconciler's own status: `reconciler.yaml` on `refs/heads/gitfleet/status/_reconciler`.

It is written like an agent's status ref (`gitstore.status`: one parentless commit replaced by
compare-and-swap, naming the rendered commit in its `Rendered-Commit` trailer), so `gitfleet
status` reads every status ref the same way. The file says what the reconciler last saw and
did: the last source commit seen, the last one rendered and its rendered commit, the last error
(with file and line when the source was at fault), how long each step took, the resources the
last render could not schedule and, with a repository per cluster, each cluster's repository
that is not in line.

It lives in `status`, below `service`, because the reconciler writes the file and `gitfleet
status` shows it: both import it from here.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Mapping
from typing import Any

import yaml

from gitfleet import render as rendering
from gitfleet.gitstore import refs, signing, status
from gitfleet.gitstore.repository import Repository
from gitfleet.model import diagnostic, yamllimits

NAME = "_reconciler"
"""The status ref's name under `refs/heads/gitfleet/status/`: not a valid cluster name, so it
cannot clash with a cluster's."""
FILE = "reconciler.yaml"
API_VERSION = "gitfleet.io/v1alpha1"
KIND = "ReconcilerStatus"


def rfc3339(when: float) -> str:
    """How the file writes a time (`when`: seconds since the epoch), to the second, in UTC."""
    moment = datetime.datetime.fromtimestamp(when, datetime.UTC)
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class LastError:
    """Why the last source commit was not rendered (or not pushed)."""

    source_commit: str
    message: str
    time: str
    path: str = ""
    line: int = 0
    col: int = 0

    @classmethod
    def of(cls, source_commit: str, found: diagnostic.Diagnostic, time: str) -> LastError:
        o = found.origin
        return cls(
            source_commit=source_commit,
            message=found.message,
            time=time,
            path=o.path,
            line=o.line,
            col=o.col,
        )

    def __str__(self) -> str:
        where = self.path + (f":{self.line}:{self.col}" if self.line else "")
        return f"{where}: {self.message}" if where else self.message


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class ClusterRepoError:
    """A cluster's own repository that the last look could not bring in line: its status ref
    not fetched (`step` fetch-status) or its works ref not copied (push-works)."""

    cluster: str
    step: str
    source_commit: str
    """The source commit of the look that failed."""
    message: str
    since: str
    """When this step first failed for this cluster with this message (RFC 3339, UTC): how long
    the cluster has been cut off."""


STEPS = ("fetch", "load", "render", "commit", "push")
"""The steps a look of the reconciler times, in the order they run."""


def in_step_order(timings: Mapping[str, float]) -> list[tuple[str, float]]:
    """`timings` as the steps ran (`STEPS`), then any other step by name."""

    def key(step: str) -> tuple[int, str]:
        return (STEPS.index(step) if step in STEPS else len(STEPS), step)

    return [(step, timings[step]) for step in sorted(timings, key=key)]


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class ReconcilerState:
    source_branch: str
    rendered_branch: str
    updated: str
    """When this status was written (RFC 3339, UTC)."""
    last_seen: str = ""
    """The newest source commit the reconciler has looked at."""
    last_rendered_source: str = ""
    """The newest source commit whose render is on the rendered branch."""
    last_rendered: str = ""
    """The rendered commit of `last_rendered_source`."""
    last_error: LastError | None = None
    timings: Mapping[str, float] = dataclasses.field(default_factory=dict)
    """Seconds each step of the last cycle took (`STEPS`); written and read in key order."""
    cluster_repos: tuple[ClusterRepoError, ...] = ()
    """Sorted by cluster and step; empty when every cluster's repository is in line (or there
    is none)."""
    unscheduled: tuple[rendering.Unscheduled, ...] = ()
    """The resources the last render could not schedule (its render.yaml's `unscheduled`)."""


def _error_doc(error: LastError) -> dict[str, Any]:
    doc: dict[str, Any] = {"sourceCommit": error.source_commit, "message": error.message,
                           "time": error.time}  # fmt: skip
    if error.path:
        doc.update(path=error.path, line=error.line, col=error.col)
    return doc


def document(state: ReconcilerState) -> dict[str, Any]:
    """Every field of `state` under its file key, absent ones as null or empty, so that
    `gitfleet status -o json` has stable keys."""
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "sourceBranch": state.source_branch,
        "renderedBranch": state.rendered_branch,
        "updated": state.updated,
        "lastSeenSourceCommit": state.last_seen,
        "lastRenderedSourceCommit": state.last_rendered_source,
        "lastRenderedCommit": state.last_rendered,
        "timings": {k: round(v, 3) for k, v in sorted(state.timings.items())},
        "lastError": _error_doc(state.last_error) if state.last_error is not None else None,
        "clusterRepoErrors": [
            {
                "cluster": e.cluster,
                "step": e.step,
                "sourceCommit": e.source_commit,
                "message": e.message,
                "since": e.since,
            }
            for e in state.cluster_repos
        ],
        "unscheduled": [u.to_json() for u in state.unscheduled],
    }


def dump(state: ReconcilerState) -> bytes:
    """The YAML file for `state` (keys sorted, deterministic). The file leaves out an absent
    error and an empty list of cluster repositories, as it always has."""
    doc = document(state)
    if state.last_error is None:
        del doc["lastError"]
    if not state.cluster_repos:
        del doc["clusterRepoErrors"]
    if not state.unscheduled:
        del doc["unscheduled"]
    return yaml.safe_dump(doc, sort_keys=True).encode()


def _str(doc: Mapping[str, Any], key: str) -> str:
    value = doc.get(key)
    return value if isinstance(value, str) else ""


def _int(doc: Mapping[str, Any], key: str) -> int:
    value = doc.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def load(data: bytes) -> ReconcilerState | None:
    """The state in a `reconciler.yaml`; None if it is not one."""
    try:
        doc = yamllimits.load(data)
    except yaml.YAMLError:
        return None
    if not isinstance(doc, dict) or doc.get("kind") != KIND:
        return None
    raw_error = doc.get("lastError")
    error = None
    if isinstance(raw_error, dict):
        error = LastError(
            source_commit=_str(raw_error, "sourceCommit"),
            message=_str(raw_error, "message"),
            time=_str(raw_error, "time"),
            path=_str(raw_error, "path"),
            line=_int(raw_error, "line"),
            col=_int(raw_error, "col"),
        )
    timings = doc.get("timings")
    raw_repos = doc.get("clusterRepoErrors")
    raw_unscheduled = doc.get("unscheduled")
    unscheduled = (
        rendering.Unscheduled.from_json(item)
        for item in (raw_unscheduled if isinstance(raw_unscheduled, list) else ())
    )
    return ReconcilerState(
        source_branch=_str(doc, "sourceBranch"),
        rendered_branch=_str(doc, "renderedBranch"),
        updated=_str(doc, "updated"),
        last_seen=_str(doc, "lastSeenSourceCommit"),
        last_rendered_source=_str(doc, "lastRenderedSourceCommit"),
        last_rendered=_str(doc, "lastRenderedCommit"),
        last_error=error,
        timings={
            str(k): float(v)
            for k, v in (timings.items() if isinstance(timings, dict) else ())
            if isinstance(v, int | float)
        },
        cluster_repos=tuple(
            ClusterRepoError(
                cluster=_str(item, "cluster"),
                step=_str(item, "step"),
                source_commit=_str(item, "sourceCommit"),
                message=_str(item, "message"),
                since=_str(item, "since"),
            )
            for item in (raw_repos if isinstance(raw_repos, list) else ())
            if isinstance(item, dict)
        ),
        unscheduled=tuple(u for u in unscheduled if u is not None),
    )


def read(repo: Repository) -> tuple[ReconcilerState | None, str | None]:
    """The state on the reconciler's status ref and that ref's commit (None, None: absent)."""
    data, commit = status.read_file(repo, NAME, FILE)
    return (load(data) if data is not None else None), commit


def present(repo: Repository) -> bool:
    """Whether the status ref exists: one ref lookup, nothing read, so an idle look can tell
    that someone deleted it."""
    return refs.read_ref(repo, status.status_ref(NAME)) is not None


def write(
    repo: Repository,
    current: ReconcilerState,
    *,
    expected: str | None,
    move: status.MoveRef | None = None,
    signer: signing.Signer | None = None,
) -> str:
    """Replace the status ref's content if it is still at `expected`; its new commit (signed
    by `signer`, when given). `RefConflictError` when another reconciler wrote it first."""
    return status.write_status(
        repo,
        NAME,
        {FILE: dump(current)},
        expected=expected,
        rendered_commit=current.last_rendered,
        move=move,
        signer=signer,
    )
