"""The preview as a pull-request comment, never longer than its limit (GitHub's 65,536
characters unless `--limit` says less).

Order: validation errors, the manifests the head's render refuses (each with its file and line,
marked when the base refuses it too), the summary line, the changes no manifest shows
(Clusters, interpreter scripts, settings: `inputs`), the rollout plan, the placement table
(resources whose clusters or replicas change), the bindings that change otherwise (failover,
tolerations), resources added and removed, one folded
`<details>` block per cluster with its manifest diffs, and last a note naming what did not fit.
The first line is a hidden marker by which the comment is found again and updated rather than
posted twice.

The comment is made from a pull request anyone can open, so no part of it may grow with what the
pull request holds: a revision in the title is cut to at most `MAX_REVISION` characters, one
listed problem or refusal to `MAX_ITEM`, a table cell to `MAX_CELL` (each keeping its start and
its end, the middle replaced by how many characters were cut), and at most `MAX_ERRORS` problems
and as many refusals are listed. Room goes to what matters first: the title, the summary and
the closing note are always there; then the problems and the refusals, as many as fit, then a
count of the others; then the changes beyond the manifests, the same way; then the rollout
plan and the tables, row by row; the diffs share what is left, each cluster an even share of
it, and a diff cut short says so.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Iterator, Sequence

from gitfleet.model import origin
from gitfleet.preview import diff, result

MARKER = "<!-- gitfleet-preview -->"
LIMIT = 65_536
"""GitHub's limit on a comment body, in characters."""
MIN_LIMIT = 1_000
"""The smallest limit: the title, the summary and the closing note fit in it whatever the
preview holds (`--limit` takes no less)."""
MAX_ERRORS = 100
MAX_ITEM = 1_000
"""Characters of one listed problem or refusal (a name of thousands of characters in it is cut)."""
MAX_CELL = 500
"""Characters of one table cell (a resource's clusters, a wave's)."""
MAX_REVISION = 100
"""Characters of a revision in the title; at small limits, a 25th of the limit."""
_MIN_ITEM = 80
"""Characters of the last problem or refusal that fits, at least (else it is only counted)."""
_ON_BASE = " (refused on the base too)"
_DASH = "-"
_CUT = " …({:,} characters cut)… "
_DIFFS = "#### Manifests per cluster\n\n"


def _clip(text: str, most: int) -> str:
    """`text` in at most `most` characters: its start (a problem's file and line) and its end
    (what is wrong), the middle replaced by how many characters were cut."""
    if len(text) <= most:
        return text
    room = most - len(_CUT.format(len(text)))
    head = (room + 1) // 2
    return text[:head] + _CUT.format(len(text) - room) + text[len(text) - (room - head) :]


def _run(text: str) -> int:
    """The longest run of backticks in `text`."""
    return max((len(run) for run in re.findall(r"`+", text)), default=0)


def _cell(text: str) -> str:
    return _clip(text, MAX_CELL).replace("|", "\\|").replace("\n", " ")


def _where(clusters: diff.Clusters) -> str:
    if not clusters:
        return _DASH
    return ", ".join(
        f"{name} ({replicas})" if replicas is not None else name
        for name, replicas in sorted(clusters.items())
    )


def _placement_rows(moved: Iterable[diff.Placement]) -> Iterator[str]:
    """One row per resource: clusters gained and lost, then replicas before → after for each
    cluster whose count changes (0 where the resource is not placed)."""
    for p in moved:
        clusters = []
        if p.added:
            clusters.append("added " + ", ".join(p.added))
        if p.removed:
            clusters.append("removed " + ", ".join(p.removed))
        replicas = [
            f"{name} {before or 0} → {after or 0}" for name, before, after in p.replica_changes
        ]
        yield (
            f"| {_cell(str(p.resource))} | {_cell('; '.join(clusters)) or 'unchanged'} "
            f"| {_cell(', '.join(replicas)) or _DASH} |\n"
        )


def _resource_rows(items: Iterable[diff.Placement], side: str) -> Iterator[str]:
    for p in items:
        yield f"| {_cell(str(p.resource))} | {_cell(_where(getattr(p, side)))} |\n"


def _binding_rows(bindings: Iterable[diff.BindingChange]) -> Iterator[str]:
    """A binding's fields come from what a pull request wrote (a policy's cluster names, say):
    inline code, which HTML, links and @mentions cannot leave, its `|` escaped as GitHub's
    tables need even there."""
    for b in bindings:
        fields = _code("; ".join(b.fields), MAX_CELL).replace("|", "\\|")
        yield f"| {_cell(str(b.resource))} | {fields} |\n"


def _wave_rows(waves: Iterable[result.Wave]) -> Iterator[str]:
    for index, wave in enumerate(waves):
        kept = [c for c in wave.clusters if c not in wave.changed]
        yield (
            f"| {index + 1}. {_cell(wave.name)} | {_cell(', '.join(wave.changed) or '-')} |"
            f" {_cell(', '.join(kept) or '-')} |\n"
        )


def _code(text: str, most: int) -> str:
    """`text` as inline code, whatever it holds: a revision is typed by whoever runs preview,
    or is a pull request's branch name, which may hold backticks, HTML or an @mention that
    would otherwise break out of the code span. Cut to `most` characters."""
    text = _clip(" ".join(text.splitlines()), most)
    ticks = "`" * (_run(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _listing(heading: str, items: Sequence[str], room: int) -> tuple[str, int]:
    """`heading`, then a code block of the first items (at most `MAX_ERRORS`, each cut to
    `MAX_ITEM` characters) that fit in `room` characters and the count of the others, fenced
    longer than any run of backticks they hold: (the section, how many items it accounts for:
    all of them, or none when not even the count fits)."""

    def size(fence: int, body: int, left: int) -> int:
        """Of the section: `body` counts the items' characters and their line ends."""
        count = len(f"... and {left} more\n") if left else 0
        return len(heading) + 2 * fence + 3 + body + count

    fence, body, shown = 3, 0, list[str]()
    if size(fence, body, len(items)) > room:
        return "", 0
    for index, item in enumerate(items[:MAX_ERRORS]):
        left = len(items) - index - 1
        most = min(MAX_ITEM, room - size(fence, body, left) - 1)
        if most < _MIN_ITEM:
            break
        item = _clip(item, most)
        wider = max(fence, _run(item) + 1)
        if size(wider, body + len(item) + 1, left) > room:
            break
        fence, body = wider, body + len(item) + 1
        shown.append(item)
    if len(shown) < len(items):
        shown.append(f"... and {len(items) - len(shown)} more")
    ticks = "`" * fence
    return f"{heading}{ticks}\n" + "\n".join(shown) + f"\n{ticks}\n\n", len(items)


def _table(heading: str, rows: Iterator[str], room: int) -> tuple[str, int]:
    """`heading` (the table's header included), then the rows that fit in `room` characters:
    (the section, how many rows it shows); nothing when not one row fits."""
    text, shown = heading, 0
    for row in rows:
        if len(text) + len(row) + 1 > room:  # 1: the blank line after the table
            break
        text += row
        shown += 1
    return (text + "\n", shown) if shown else ("", 0)


def _short(commit: str) -> str:
    return commit[:12] if commit else "none"


def _title(preview: result.Preview, limit: int) -> str:
    base, head = preview.base, preview.head
    most = min(MAX_REVISION, limit // 25)
    return (
        f"{MARKER}\n### gitfleet preview: {_code(base.rev, most)} ({_short(base.commit)}) → "
        f"{_code(head.rev, most)} ({_short(head.commit)})\n\n"
    )


def _summary(preview: result.Preview) -> str:
    text = f"**{preview.summary}**\n\n"
    if preview.base_errors:
        text += (f"_The base does not render ({len(preview.base_errors)} errors): the head is "
                 "compared with an empty render._\n\n")  # fmt: skip
    return text


def _summary_of(cluster: diff.ClusterChanges) -> str:
    counts = [
        f"{cluster.count(c)} {c}" for c in ("added", "changed", "removed") if cluster.count(c)
    ]
    return f"<code>{cluster.cluster}</code>: {', '.join(counts)}"


def _block(cluster: diff.ClusterChanges, budget: int) -> str | None:
    """The folded diff of one cluster in at most `budget` characters (None if even a cut one
    does not fit)."""
    text = origin.visible("".join(f.diff for f in cluster.files))
    fence = "`" * max(3, _run(text) + 1)
    opening = f"<details><summary>{_summary_of(cluster)}</summary>\n\n{fence}diff\n"
    closing = f"{fence}\n\n</details>\n"
    whole = opening + text + closing
    if len(whole) <= budget:
        return whole
    lines = text.splitlines(keepends=True)
    kept: list[str] = []
    size = len(opening) + len(closing) + 120  # room for the note
    for line in lines:
        if size + len(line) > budget:
            break
        kept.append(line)
        size += len(line)
    if size > budget:
        return None
    note = (
        f"{fence}\n\n_Diff cut short: {len(lines) - len(kept)} more lines not shown (comment "
        "size limit); run `gitfleet preview` for all of it._\n\n</details>\n"
    )
    return opening + "".join(kept) + note


def _blocks(clusters: Sequence[diff.ClusterChanges], room: int) -> tuple[str, int]:
    """The clusters' folded diffs in `room` characters, each cluster an even share of what the
    ones before it left: (those that fit, under their heading; how many)."""
    room -= len(_DIFFS)
    blocks: list[str] = []
    used = 0
    for index, cluster in enumerate(clusters):
        budget = (room - used) // (len(clusters) - index) - 1  # 1: the blank line after it
        block = _block(cluster, max(budget, 0))
        if block is not None:
            blocks.append(block + "\n")
            used += len(block) + 1
    return (_DIFFS + "".join(blocks), len(blocks)) if blocks else ("", 0)


@dataclasses.dataclass(frozen=True, slots=True)
class _Section:
    """A part of the comment that may not fit: how many things it holds, what they are, and
    how it is laid out in the room it is given (its text, and how many of the things the text
    accounts for)."""

    count: int
    what: str
    layout: Callable[[int], tuple[str, int]]

    def left_out(self, shown: int) -> str:
        return f"{self.count - shown:,} of {self.count:,} {self.what}"


def _note(left_out: Sequence[str]) -> str:
    """The closing line naming what did not fit."""
    if not left_out:
        return ""
    return (f"_Not shown (comment size limit): {'; '.join(left_out)}. Run `gitfleet preview` "
            "for all of it._\n")  # fmt: skip


_REFUSED = (
    "#### Refused manifests\n\n"
    "Merging leaves these manifests unwritten (each cluster keeps what it has):\n\n"
)
_BEYOND = (
    "#### Changes beyond the manifests\n\n"
    "Merged, these change what the agents and the reconciler do, though no manifest diff"
    " shows it: a Push Cluster's `syncMode` and `secretRef` decide whether the push agent"
    " serves it and with which kubeconfig; interpreter scripts run in the agents (Retain on"
    " every apply, health and status on every report) and in the reconciler; gitfleet.yaml's"
    " `sourceBranch` is the branch rendered once this is merged; a source commit's"
    " `Gitfleet-Allow-Prune` lifts the agents' prune guard and `Gitfleet-Rollout: skip`"
    " releases it to every cluster at once (check the message of the commit that merges"
    " this, too).\n\n"
)
_WAVES = (
    "#### Rollout\n\nMerged, the change reaches the clusters wave by wave:\n\n"
    "| wave | clusters that change | clusters unchanged |\n|---|---|---|\n"
)
_MOVED = "#### Placement changes\n\n| resource | clusters | replicas |\n|---|---|---|\n"
_BINDINGS = (
    "#### Binding changes\n\nBesides where these resources go, their bindings change: what"
    " the reconciler does with them later (when a cluster or the application fails, when the"
    " clusters' status changes).\n\n| resource | fields |\n|---|---|\n"
)
_ADDED = "#### Resources added\n\n| resource | clusters |\n|---|---|\n"
_REMOVED = "#### Resources removed\n\n| resource | clusters |\n|---|---|\n"


def _sections(preview: result.Preview) -> tuple[list[_Section], list[_Section]]:
    """The parts before the summary (the problems) and after it, each in order of what
    matters."""
    errors = [str(d) for d in preview.errors]
    refused = [f"{r}{_ON_BASE if on_base else ''}" for r, on_base in preview.refused()]
    problems = [
        _Section(len(errors), "validation errors",
                 lambda room: _listing("#### Validation errors\n\n", errors, room)),
        _Section(len(refused), "refused manifests", lambda room: _listing(_REFUSED, refused, room)),
    ]  # fmt: skip
    if preview.changes is None:
        return problems, []
    changes, waves = preview.changes, preview.waves
    beyond = [str(c) for c in preview.beyond]
    return problems, [
        _Section(len(beyond), "changes beyond the manifests",
                 lambda room: _listing(_BEYOND, beyond, room)),
        _Section(len(waves), "waves of the rollout plan",
                 lambda room: _table(_WAVES, _wave_rows(waves), room)),
        _Section(len(changes.moved), "placement changes",
                 lambda room: _table(_MOVED, _placement_rows(changes.moved), room)),
        _Section(len(changes.bindings), "binding changes",
                 lambda room: _table(_BINDINGS, _binding_rows(changes.bindings), room)),
        _Section(len(changes.added), "resources added",
                 lambda room: _table(_ADDED, _resource_rows(changes.added, "after"), room)),
        _Section(len(changes.removed), "resources removed",
                 lambda room: _table(_REMOVED, _resource_rows(changes.removed, "before"), room)),
        _Section(len(changes.clusters), "clusters' diffs",
                 lambda room: _blocks(changes.clusters, room)),
    ]  # fmt: skip


def render(preview: result.Preview, limit: int = LIMIT) -> str:
    """The comment's Markdown, at most `limit` characters (`MIN_LIMIT` or more), whatever the
    preview holds."""
    if limit < MIN_LIMIT:
        raise ValueError(f"a limit of {limit} characters is below {MIN_LIMIT}")
    before, after = _sections(preview)
    sections = [*before, *after]
    longest_note = len(_note([s.left_out(0) for s in sections if s.count]))
    title, summary = _title(preview, limit), _summary(preview)
    room = limit - len(title) - len(summary) - longest_note
    laid: list[str] = []
    left_out: list[str] = []
    for section in sections:
        text, shown = section.layout(room) if section.count else ("", 0)
        room -= len(text)
        laid.append(text)
        if shown < section.count:
            left_out.append(section.left_out(shown))
    problems, rest = "".join(laid[: len(before)]), "".join(laid[len(before) :])
    return title + problems + summary + rest + _note(left_out)
