"""Folders of a source that hold a render's output, which is never source.

`gitfleet render --out out` typed inside a repository writes a rendered tree into it: a
`render.yaml` of kind Render with `works/` and `bindings/` beside it, every manifest a copy of a
template. Read as source, each would be a second definition of its template and render.yaml an
object without a name, so the next `validate`, `render` or `explain` would fail on files gitfleet
wrote itself. A folder below the top whose entries are only `render.yaml`, `works/` and
`bindings/` with a render.yaml of kind Render (what `gitstore.folder` writes and is willing to
replace) is left out with everything in it, whether it lies in a working tree, a plain folder or
a commit.
"""

from __future__ import annotations

from collections.abc import Sequence

from gitfleet.gitstore import folder
from gitfleet.source import _files


def without_render_outputs(
    files: _files.Files, entries: Sequence[_files.Entry], budget: int
) -> list[_files.Entry]:
    """`entries` without those of folders holding a render's output (see the module). The
    render.yaml files that would tell are read only while they weigh at most `budget` bytes
    together (the source's maxSourceSize): past it, none is left out, and the loader refuses
    the source for its size before reading anything (a tree can hold a large render.yaml in
    any number of folders)."""
    suffix = "/" + folder.RENDER_FILE
    marks = {
        e.path[: -len(suffix)]: e
        for e in entries
        if e.path.endswith(suffix) and e.kind is _files.Kind.FILE
    }
    if not marks:
        return list(entries)
    names: dict[str, set[str]] = {top: set() for top in marks}
    for entry in entries:
        parts = entry.path.split("/")
        for depth in range(1, len(parts)):
            top = "/".join(parts[:depth])
            if top in names:
                names[top].add(parts[depth])
    candidates = [f for f, found in names.items() if found <= folder.OWNED]
    if sum(marks[f].size for f in candidates) > budget:
        return list(entries)
    contents = files.read([marks[f] for f in candidates]) if candidates else {}
    outputs = tuple(
        f + "/"
        for f in candidates
        if isinstance(data := contents[marks[f].path], bytes) and folder.is_render_report(data)
    )
    if not outputs:
        return list(entries)
    return [e for e in entries if not e.path.startswith(outputs)]
