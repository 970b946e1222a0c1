"""`gitfleet status`: the fleet as its agents report it through Git.

Reads the rendered branch's tip, every cluster's status ref and the source commit the tip was
rendered from (`gitfleet.status.read`), and prints what the reconciler last reported on its own
status ref (when there is one: the source commits it last saw and rendered, its last error with
file and line, the seconds each step took, each cluster's repository not in line), a table of
clusters (ready; capacity: ready/total nodes, `empty (0 nodes)` for a cluster that reported no
nodes, `last known` or `declared` when its agent could not collect them; last heartbeat; the
rendered commit applied; synced: whether it is the current render of the cluster's folder and
was applied without error, the same for Push and Pull clusters; drifted manifests; errors) and
a table of resources (the clusters each is in, whether the scheduler placed it, replicas ready
out of desired, health, clusters that applied it), then what went wrong, cluster by cluster
(a ready cluster's capacity not collected among it), and each resource not scheduled with the
scheduler's reason. With `--cluster-repos TEMPLATE` (a repository per
cluster), each cluster's status ref is first fetched from its own repository into the one read.
With a progressive rollout, the phase and each wave (its clusters, its phase, what it waits
for) come before the clusters, and a cluster whose ref the rollout holds back shows `(held)`
after SYNCED, which is then about the render released to it (`waiting` in JSON). A cluster that
left the fleet shows `(left)` after SYNCED, which then says whether its agent deleted what
gitfleet made there (`left` in JSON); until it did, the problems say so.
`-o json` prints the same, with each resource's aggregated status and its items as Karmada's
ResourceBinding status holds them, the reconciler's status file under `reconciler` (null
without one) and the rollout's under `rollout` (null without one). Exit 0 whatever the fleet's
state; 1 when the repository cannot be read.
"""

from __future__ import annotations

import datetime
import sys
from collections.abc import Sequence

import click

from gitfleet import autoscaling, errors, rollout
from gitfleet.cli import options
from gitfleet.cli import output as out
from gitfleet.model import capacity
from gitfleet.model.origin import shown
from gitfleet.status import ClusterRow, FleetView, read, reconciler_state

SHORT = 12


def _short(commit: str | None) -> str:
    return commit[:SHORT] if commit else "-"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """Cells with their control characters escaped: some are what agents wrote."""
    cells = [[shown(cell) for cell in r] for r in (header, *rows)]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(r, widths, strict=True)).rstrip()
        for r in cells
    ]


def _yes_no(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "no")


def _nodes(found: capacity.Capacity) -> str:
    nodes = found.nodes
    return "" if nodes is None else f"{nodes.ready_num}/{nodes.total_num} nodes"


def _capacity(found: capacity.Capacity | None) -> str:
    """Ready/total nodes, `empty (0 nodes)`, `last known ...` or `declared`, as kubectl shows a
    count and the state it is in."""
    if found is None:
        return "-"
    if found.source is capacity.Source.EMPTY:
        return "empty (0 nodes)"
    if found.source is capacity.Source.LAST_KNOWN:
        return f"last known {_nodes(found)}".rstrip()
    if found.source is capacity.Source.DECLARED:
        return "declared"
    return _nodes(found) or "-"


def _capacity_problem(c: ClusterRow) -> list[str]:
    """Why a ready cluster's capacity was not collected (a cluster not ready says why above)."""
    found = c.capacity
    if found is None or c.ready != "True" or not found.reason:
        return []
    kept = "last known summary kept" if found.nodes is not None else "declared capacity in force"
    return [f"{c.name}: capacity not collected ({found.reason}): {found.message}; {kept}"]


def _reconciler(state: reconciler_state.ReconcilerState) -> list[str]:
    """Shown above the clusters because it says why the render may lag the source branch."""
    if state.last_rendered_source:
        done = f"rendered {_short(state.last_rendered_source)} → {_short(state.last_rendered)}"
    else:
        done = "nothing rendered"
    lines = [f"reconciler: last seen {_short(state.last_seen)}, {done}, updated {state.updated}"]
    error = state.last_error
    if error is not None:
        source = _short(error.source_commit)
        lines.append(f"  last error: {error} (at {error.time}, source {source})")
    if state.unscheduled:
        lines.append(f"  last render: {len(state.unscheduled)} resources not scheduled")
    if state.timings:
        timed = reconciler_state.in_step_order(state.timings)
        steps = ", ".join(f"{step} {seconds:.3f}s" for step, seconds in timed)
        lines.append(f"  timings: {steps}")
    lines += [
        f"  cluster repository {e.cluster}: {e.step} failing since {e.since}: {e.message}"
        f" (source {_short(e.source_commit)})"
        for e in state.cluster_repos
    ]
    return [*lines, ""]


def _rollout(state: rollout.State) -> list[str]:
    """Shown above the clusters: a held cluster's SYNCED is about the render released to it."""
    lines = [f"rollout of source {_short(state.source_commit)}: {state.phase}"]
    if state.message:
        lines[0] += f": {state.message}"
    rows = [
        [w.name, str(w.phase), ", ".join(w.clusters) or "-", w.waiting_for or "-"]
        for w in state.waves
    ]
    lines += ["  " + line for line in _table(["WAVE", "PHASE", "CLUSTERS", "WAITING FOR"], rows)]
    return [*lines, ""]


def _sync_cells(c: ClusterRow) -> list[str]:
    """SYNCED (marked `(held)` when a rollout holds the cluster's ref back, `(left)` when the
    cluster left the fleet), DRIFTED, ERRORS."""
    synced = _yes_no(c.synced) + (" (held)" if c.waiting else "") + (" (left)" if c.left else "")
    return [synced, str(c.drifted), str(len(c.errors))]


def _cluster_problems(c: ClusterRow) -> list[str]:
    """Its readiness when not Ready (not for a cluster that left the fleet and was pruned:
    no agent reports for it any more), and, for one that left, that it is not pruned yet."""
    if c.left and c.synced:
        return []
    found = [f"{c.name}: {c.ready}: {c.message}"] if c.ready != "True" else []
    if c.left:
        found.append(
            f"{c.name}: left the fleet (no Cluster in the source), not pruned yet: its agent"
            " has not applied the emptied folder of its works ref"
        )
    return found


def human(view: FleetView) -> str:
    rendered = view.rendered
    head = f"{rendered.branch} at {_short(rendered.commit)}"
    if rendered.source_commit:
        head += f" (source {_short(rendered.source_commit)})"
    lines = [f"{head}, observed {view.observed_at}", ""]
    if view.reconciler is not None:
        lines += _reconciler(view.reconciler)
    if view.rollout is not None:
        lines += _rollout(view.rollout)
    clusters = [
        [c.name, c.mode or "-", c.ready, _capacity(c.capacity), c.heartbeat or "-"]
        + [_short(c.rendered_commit)]
        + (_sync_cells(c) if c.reported else ["-"] * 3)
        for c in view.clusters
    ]
    header = [
        "CLUSTER",
        "MODE",
        "READY",
        "CAPACITY",
        "HEARTBEAT",
        "APPLIED",
        "SYNCED",
        "DRIFTED",
        "ERRORS",
    ]
    lines += _table(header, clusters) if clusters else ["no clusters"]
    resources = [
        [
            str(r.key),
            str(len(r.clusters)),
            "-" if r.scheduled is None else _yes_no(r.scheduled.status == "True"),
            "-" if r.desired is None else f"{'-' if r.ready is None else r.ready}/{r.desired}",
            str(r.health),
            f"{sum(1 for i in r.items if i.applied)}/{len(r.items)}",
        ]
        for r in view.resources
    ]
    lines.append("")
    header = ["RESOURCE", "CLUSTERS", "SCHEDULED", "READY", "HEALTH", "APPLIED"]
    lines += _table(header, resources) if resources else ["no resources"]
    if view.autoscalers:
        lines += ["", *(autoscaling.decision_line(a) for a in view.autoscalers)]
    problems = [p for c in view.clusters for p in _cluster_problems(c)]
    problems += [p for c in view.clusters for p in _capacity_problem(c)]
    problems += [f"{c.name}: {e}" for c in view.clusters for e in c.errors]
    problems += [f"{r.key}: {r.error}" for r in view.resources if r.error]
    problems += [
        f"{r.key}: not scheduled ({r.scheduled.reason}): {r.scheduled.message}"
        for r in view.resources
        if r.scheduled is not None and r.scheduled.status == "False"
    ]
    problems += [
        f"{r.key}: dispatching suspended to {', '.join(r.suspended)}: they keep the manifests "
        "they were last sent"
        for r in view.resources
        if r.suspended
    ]
    problems += [f"note: {n}" for n in view.notes]
    if problems:  # each one line, whatever an agent wrote in it (a path, a name)
        lines += ["", *(shown(p) for p in problems)]
    return "\n".join(lines) + "\n"


@click.command("status")
@options.repo_option_saying(
    "The Git repository: its rendered branch, status refs, and the source commit rendered."
)
@click.option(
    "--branch",
    default=None,
    callback=options.branch_name,
    help="Rendered branch (default: from gitfleet.yaml).",
)
@click.option(
    "--grace",
    type=options.FiniteFloatRange(min=0),
    default=None,
    help="Seconds after its last heartbeat a cluster counts as Unknown (default: gitfleet.yaml's"
    " failover heartbeat grace period).",
)
@options.cluster_repos_option(
    "fetch each cluster's status ref from there into the repository first."
)
@options.output_option
def status_command(
    repo: str, branch: str | None, grace: float | None, cluster_repos: str | None, output: str
) -> None:
    """Show the fleet: clusters and resources, as the agents report them."""
    now = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    try:
        view = read.read(repo, branch=branch, now=now, grace=grace, cluster_repos=cluster_repos)
    except errors.InputError as error:
        out.fail_input(error)
    except errors.GitfleetError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(1)
    out.emit(view.to_json(), output, human(view))


status = status_command
