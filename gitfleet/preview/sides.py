"""The two renders a preview compares, obtained as cheaply as they can be.

A side is a rendered tree as blob ids by path, plus the contents of the files rendered here
(the rest are read from the repository, and only when they differ between the sides). The base
is the rendered branch's tip when that tip renders the base commit; otherwise the base commit is
rendered on top of the tip. The head is rendered on top of the base, so the render's reuse of
bindings whose inputs did not change (`pipeline.render`) leaves only what the pull request
touches to be rendered a second time. Both are scheduled with the clusters' status as their
status refs report it (those present in the repository), as the reconciler does. What a side
refuses is read from its render.yaml, as the rendered branch would record it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence

from gitfleet import pipeline
from gitfleet import render as rendering
from gitfleet.gitstore import objects, rendered, status
from gitfleet.gitstore.repository import Repository
from gitfleet.model import diagnostic, loaded


@dataclasses.dataclass(frozen=True, slots=True)
class Side:
    commit: str
    """The rendered commit this tree is (empty for a render made here)."""
    files: Mapping[str, str]
    """Blob id of every file, by path."""
    new: Mapping[str, bytes]
    """Contents of the files that are not in the repository."""
    errors: tuple[diagnostic.Diagnostic, ...] = ()
    """Why the source did not render (the tree is then empty)."""
    rendered: int = 0
    """Bindings rendered here (the others were reused from the side below)."""

    @property
    def ok(self) -> bool:
        return not self.errors


def contents(repo: Repository, side: Side, paths: Iterable[str]) -> dict[str, bytes]:
    """The contents of `paths` of `side` (new bytes, or blobs read in one batch)."""
    wanted = [p for p in paths if p in side.files]
    stored = {side.files[p] for p in wanted if p not in side.new}
    blobs = repo.read(stored, objects.BLOB)
    return {p: side.new[p] if p in side.new else blobs.get(side.files[p], b"") for p in wanted}


def _reader(repo: Repository, side: Side) -> Callable[[Sequence[str]], Mapping[str, bytes]]:
    return lambda paths: contents(repo, side, paths)


def as_previous(repo: Repository, side: Side, fmt: objects.Format) -> pipeline.PreviousRender:
    """`side` as the next render reads it (its bindings and render.yaml)."""
    return pipeline.read_previous(side.commit, side.files, _reader(repo, side), fmt.name)


def refusals(repo: Repository, side: Side, fmt: objects.Format) -> tuple[rendering.Refusal, ...]:
    """What `side`'s render refuses, as its render.yaml records it (refusals a render carried
    over from the side below included)."""
    if rendering.RENDER_FILE not in side.files:
        return ()
    report_only = {rendering.RENDER_FILE: side.files[rendering.RENDER_FILE]}
    read = pipeline.read_previous(side.commit, report_only, _reader(repo, side), fmt.name)
    return pipeline.recorded_refusals(read.report)


def from_tip(tip: rendered.Tip) -> Side:
    return Side(commit=tip.commit, files=dict(tip.files), new={})


def render(
    repo: Repository,
    source: loaded.LoadedSource,
    on: Side | None,
    fmt: objects.Format,
) -> Side:
    """Render `source` on top of `on` (None: from scratch)."""
    previous = as_previous(repo, on, fmt) if on is not None and on.ok else None
    commit = source.revision or ""
    reported = status.read_cluster_status(repo)[1]
    result = pipeline.render(source, previous, reported, now=repo.commit_time(commit))
    if not result.ok:
        found = [d for d in result.diagnostics if d.severity is diagnostic.Severity.ERROR]
        return Side(commit="", files={}, new={}, errors=tuple(found))
    files = {p: oid for p, oid in result.base.items() if p not in result.changes}
    new = {p: bytes(data) for p, data in result.changes.items() if data is not None}
    files.update({p: fmt.object_id(objects.BLOB, data) for p, data in new.items()})
    return Side(commit="", files=files, new=new, rendered=result.rendered_bindings)
