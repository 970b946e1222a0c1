"""The preview as a pull-request comment, within GitHub's 65,536-character limit.

Order: validation errors, the manifests the head's render refuses (each with its file and line,
marked when the base refuses it too), the summary line, the placement table (resources whose
clusters or replicas change), resources added and removed, then one folded `<details>` block per
cluster with its manifest diffs. Everything before the diffs is always printed whole (at most
`MAX_ERRORS` errors and as many refusals, then a count); the diffs share
what room is left, each cluster getting an even share of it, and a diff cut short says so and
points to `gitfleet preview` for the full text. The first line is a hidden marker by which the
comment is found again and updated rather than posted twice.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from gitfleet.preview import diff, result

MARKER = "<!-- gitfleet-preview -->"
LIMIT = 65_536
"""GitHub's limit on a comment body, in characters."""
MAX_ERRORS = 100
_ON_BASE = " (refused on the base too)"
_DASH = "-"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _where(clusters: diff.Clusters) -> str:
    if not clusters:
        return _DASH
    return ", ".join(
        f"{name} ({replicas})" if replicas is not None else name
        for name, replicas in sorted(clusters.items())
    )


def _placement_table(moved: Iterable[diff.Placement]) -> list[str]:
    """One row per resource: clusters gained and lost, then replicas before → after for each
    cluster whose count changes (0 where the resource is not placed)."""
    lines = ["| resource | clusters | replicas |", "|---|---|---|"]
    for p in moved:
        clusters = []
        if p.added:
            clusters.append("added " + ", ".join(p.added))
        if p.removed:
            clusters.append("removed " + ", ".join(p.removed))
        replicas = [
            f"{name} {before or 0} → {after or 0}" for name, before, after in p.replica_changes
        ]
        lines.append(
            f"| {_cell(str(p.resource))} | {_cell('; '.join(clusters)) or 'unchanged'} "
            f"| {_cell(', '.join(replicas)) or _DASH} |"
        )
    return lines


def _resource_table(items: Iterable[diff.Placement], side: str) -> list[str]:
    lines = ["| resource | clusters |", "|---|---|"]
    for p in items:
        lines.append(f"| {_cell(str(p.resource))} | {_cell(_where(getattr(p, side)))} |")
    return lines


def _fence(text: str) -> str:
    """A code fence longer than any run of backticks inside `text`."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _code(text: str) -> str:
    """`text` as inline code, whatever it holds: a revision is typed by whoever runs preview,
    or is a pull request's branch name, which may hold backticks, HTML or an @mention that
    would otherwise break out of the code span."""
    text = " ".join(text.splitlines())
    ticks = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _listing(items: list[str]) -> list[str]:
    """At most `MAX_ERRORS` items, one a line, in a code block (then how many more)."""
    shown = items[:MAX_ERRORS]
    if len(items) > MAX_ERRORS:
        shown.append(f"... and {len(items) - MAX_ERRORS} more")
    text = "\n".join(shown)
    fence = _fence(text)
    return [fence, text, fence, ""]


def _short(commit: str) -> str:
    return commit[:12] if commit else "none"


def _head(preview: result.Preview) -> list[str]:
    base, head = preview.base, preview.head
    lines = [
        MARKER,
        f"### gitfleet preview: {_code(base.rev)} ({_short(base.commit)}) → {_code(head.rev)} "
        f"({_short(head.commit)})",
        "",
    ]
    if preview.errors:
        lines += ["#### Validation errors", "", *_listing([str(d) for d in preview.errors])]
    refused = preview.refused()
    if refused:
        lines += [
            "#### Refused manifests",
            "",
            "Merging leaves these manifests unwritten (each cluster keeps what it has):",
            "",
            *_listing([f"{r}{_ON_BASE if on_base else ''}" for r, on_base in refused]),
        ]
    lines += [f"**{preview.summary}**", ""]
    if preview.base_errors:
        lines += [f"_The base does not render ({len(preview.base_errors)} errors): the head is "
                  "compared with an empty render._", ""]  # fmt: skip
    return lines


def _waves(waves: tuple[result.Wave, ...]) -> list[str]:
    """The rollout plan: which clusters change in which wave."""
    if not waves:
        return []
    lines = [
        "#### Rollout",
        "",
        "Merged, the change reaches the clusters wave by wave:",
        "",
        "| wave | clusters that change | clusters unchanged |",
        "|---|---|---|",
    ]
    for index, wave in enumerate(waves):
        kept = [c for c in wave.clusters if c not in wave.changed]
        lines.append(
            f"| {index + 1}. {_cell(wave.name)} | {_cell(', '.join(wave.changed) or '-')} |"
            f" {_cell(', '.join(kept) or '-')} |"
        )
    return [*lines, ""]


def _sections(changes: diff.TreeDiff) -> list[str]:
    lines: list[str] = []
    if changes.moved:
        lines += ["#### Placement changes", "", *_placement_table(changes.moved), ""]
    if changes.added:
        lines += ["#### Resources added", "", *_resource_table(changes.added, "after"), ""]
    if changes.removed:
        lines += ["#### Resources removed", "", *_resource_table(changes.removed, "before"), ""]
    return lines


def _summary_of(cluster: diff.ClusterChanges) -> str:
    counts = [
        f"{cluster.count(c)} {c}" for c in ("added", "changed", "removed") if cluster.count(c)
    ]
    return f"<code>{cluster.cluster}</code>: {', '.join(counts)}"


def _block(cluster: diff.ClusterChanges, budget: int) -> str | None:
    """The folded diff of one cluster in at most `budget` characters (None if even a cut one
    does not fit)."""
    text = "".join(f.diff for f in cluster.files)
    fence = _fence(text)
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


def render(preview: result.Preview, limit: int = LIMIT) -> str:
    """The comment's Markdown, at most `limit` characters unless the parts that are never cut
    (errors, summary, placement tables) alone exceed it."""
    lines = _head(preview)
    if preview.changes is not None:
        lines += _waves(preview.waves) + _sections(preview.changes)
    text = "\n".join(lines) + "\n"
    clusters = preview.changes.clusters if preview.changes else ()
    if not clusters:
        return text
    text += "#### Manifests per cluster\n\n"
    reserve = 200  # the closing note about omitted clusters
    blocks: list[str] = []
    used = len(text) + reserve
    for index, cluster in enumerate(clusters):
        budget = (limit - used) // (len(clusters) - index) - 1  # 1: the blank line after it
        block = _block(cluster, max(budget, 0))
        if block is not None:
            blocks.append(block + "\n")
            used += len(block) + 1
    text += "".join(blocks)
    omitted = len(clusters) - len(blocks)
    if omitted:
        text += (f"\n_Diffs of {omitted} more cluster{'s' if omitted != 1 else ''} not shown "
                 "(comment size limit); run `gitfleet preview` for them._\n")  # fmt: skip
    return text
