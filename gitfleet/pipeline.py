"""The pipeline: the stages run in order over one source revision, as pure functions.

`place` is the placement half: detect (which policy claims each template, and its binding),
schedule each binding against the clusters, then distribute dependencies to where their
workloads went (Karmada: pkg/detector, pkg/scheduler, pkg/dependenciesdistributor). It does no
I/O: the caller brings the loaded objects, the interpreter, the previous render's bindings and
the clusters' reported status.

`render` is the whole pipeline over one loaded source revision: validate (any error renders
nothing), place, then the render stage with the overrides and the Webster division handed in,
on top of the previous render read from the rendered branch (`read_previous`). It says whether
the tree differs from the previous one and what changed per cluster; committing it is
`gitstore.rendered.publish`'s business.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from gitfleet import (
    __version__,
    autoscaling,
    descheduler,
    detector,
    errors,
    failover,
    interpreter,
    overrides,
    scheduler,
    taintpolicy,
    validation,
)
from gitfleet import render as rendering
from gitfleet.detector import detection
from gitfleet.gitstore import objects as gitstore_objects
from gitfleet.model import (
    cluster,
    diagnostic,
    folders,
    loaded,
    meta,
    objects,
    policy,
    selectors,
    work,
)
from gitfleet.model.folders import Folders
from gitfleet.model.origin import Origin
from gitfleet.model.template import RawObject, ResourceKey, ResourceTemplate
from gitfleet.scheduler import modeling as scheduler_modeling
from gitfleet.scheduler import webster as scheduler_webster

Binding = detection.Binding
BindingRef = detection.BindingRef
Dependencies = detection.Dependencies
Detection = detection.Detection


@dataclasses.dataclass(frozen=True, slots=True)
class Scheduled:
    """One binding's trip through the scheduler."""

    binding: BindingRef
    outcome: scheduler.Outcome[Any]


@dataclasses.dataclass(frozen=True, slots=True)
class Placement:
    """Where everything goes: the final bindings (sorted by kind, namespace, name), how each
    was scheduled, what the detector decided and which dependencies followed which workload.

    `clusters` are the clusters scheduled against (declared status superseded by reported,
    unhealthy ones with their Ready condition and taints, with the taints ClusterTaintPolicies
    left them); the Namespaces in `detection.auto_namespaces` go to all of them.
    """

    bindings: tuple[Binding, ...]
    schedules: tuple[Scheduled, ...]
    detection: Detection
    dependencies: tuple[Dependencies, ...]
    clusters: tuple[cluster.Cluster, ...]
    diagnostics: tuple[diagnostic.Diagnostic, ...]
    failover: failover.Failover | None = None
    """What failover judged and did, when a status snapshot was given."""
    descheduler: descheduler.Descheduler | None = None
    """What the descheduler lowered, when a status snapshot was given and it is enabled."""
    cluster_taints: taintpolicy.Managed = dataclasses.field(default_factory=dict)
    """The taints ClusterTaintPolicies left on the clusters (render.yaml's `clusterTaints`)."""
    settled: frozenset[ResourceKey] = frozenset()
    """The placed bindings (by template) that come out of the scheduler as they go in: placing
    them again with the same inputs would change nothing (of those that changed, none unless
    `place` was asked to `settle` them)."""

    def binding(self, ref: BindingRef) -> Binding | None:
        return next((b for b in self.bindings if BindingRef.of(b) == ref), None)

    def outcome(self, ref: BindingRef) -> scheduler.Outcome[Any] | None:
        return next((s.outcome for s in self.schedules if s.binding == ref), None)


def merge_status(
    declared: cluster.ClusterStatus, reported: cluster.ClusterStatus | None
) -> cluster.ClusterStatus:
    """A cluster's status: each field reported by the cluster's agent supersedes the one
    declared in the source; fields the agent did not report keep their declared value."""
    if reported is None:
        return declared
    changes = {}
    for f in dataclasses.fields(cluster.ClusterStatus):
        value = getattr(reported, f.name)
        if value != f.default:
            changes[f.name] = value
    return dataclasses.replace(declared, **changes)


def _graded(member: cluster.Cluster, status: cluster.ClusterStatus) -> cluster.ClusterStatus:
    """`status` with the nodes its agent reported counted per grade of the Cluster's resource
    models (`scheduler.modeling`), as Karmada's cluster status controller fills
    `allocatableModelings` in; a report without them keeps its summary as it is."""
    summary = status.resource_summary
    if summary is None or summary.node_available is None:
        return status
    graded = scheduler_modeling.allocatable_modelings(
        member.spec.resource_models, summary.node_available
    )
    return dataclasses.replace(
        status, resource_summary=dataclasses.replace(summary, allocatable_modelings=graded)
    )


def effective_clusters(
    clusters: Iterable[cluster.Cluster],
    cluster_status: Mapping[str, cluster.ClusterStatus] | None = None,
) -> tuple[cluster.Cluster, ...]:
    """The clusters with their reported status merged in, sorted by name (a cluster with no
    report is the declared one itself), the nodes each agent reported graded against the
    Cluster's resource models."""
    reported = cluster_status or {}
    return tuple(
        c
        if c.name not in reported
        else dataclasses.replace(c, status=_graded(c, merge_status(c.status, reported[c.name])))
        for c in sorted(clusters, key=lambda c: c.name)
    )


def _ref_map(bindings: Iterable[Binding]) -> dict[BindingRef, Binding]:
    return {BindingRef.of(b): b for b in bindings}


def _settled(binding: Binding, previous: Binding | None, scheduled_ok: bool) -> Binding:
    """The final generation (one more than before when the spec changed), for a binding the
    scheduler is content with the observed generation Karmada's scheduler converges to, and
    the previous schedule's time when the schedule changed nothing (`scheduler.steady`)."""
    final = detector.with_generation(binding, previous)
    if scheduled_ok and final.status.scheduler_observed_generation != final.metadata.generation:
        status = dataclasses.replace(
            final.status, scheduler_observed_generation=final.metadata.generation
        )
        final = dataclasses.replace(final, status=status)
    return scheduler.steady(final, previous)


def _schedule(
    binding: Binding,
    fleet: scheduler.ClusterIndex,
    previous: Binding | None,
    now: str | None,
) -> scheduler.Outcome[Any]:
    if isinstance(binding, work.ResourceBinding):
        return scheduler.schedule(binding, fleet, previous, now=now)
    return scheduler.schedule(binding, fleet, previous, now=now)


def _schedule_failing(
    binding: Binding,
    fleet: scheduler.ClusterIndex,
    previous: Binding | None,
    now: str | None,
    failing: failover.Failover | None,
) -> tuple[scheduler.Outcome[Any], Binding]:
    """The scheduler's outcome and the final binding, with failover around the scheduler."""
    if failing is None:
        outcome = _schedule(binding, fleet, previous, now)
        return outcome, outcome.binding
    attempt = failing.attempt(binding, previous)
    evicting = _with_tasks(binding, attempt.previous) if attempt.left else binding
    outcome = _schedule(evicting, fleet, attempt.previous, now)
    if attempt.left and outcome.error is not None:
        attempt = failing.blocked(attempt, outcome.error)
        outcome = _schedule(binding, fleet, attempt.previous, now)
    return outcome, failing.settle(attempt, outcome.binding, outcome.error)


def _with_tasks(binding: Binding, previous: Binding | None) -> Binding:
    """`binding` with the eviction tasks failover left on `previous`: the scheduler keeps the
    binding off the clusters they name, and the binding's own tasks (those of the previous
    render) would hide the ones failover just added."""
    if previous is None:
        return binding
    tasks = previous.spec.graceful_eviction_tasks
    return dataclasses.replace(
        binding, spec=dataclasses.replace(binding.spec, graceful_eviction_tasks=tasks)
    )


def _quiet(
    unchanged: detector.Unchanged | None, failing: failover.Failover
) -> detector.Unchanged | None:
    """`unchanged`, for bindings failover leaves alone whatever the time."""
    if unchanged is None or not failing.idle:
        return None
    chosen = unchanged
    return lambda template, b: (
        not b.spec.graceful_eviction_tasks and not failing.acting_on(b) and chosen(template, b)
    )


def _descheduling(
    observed: failover.Observed | None, settings: loaded.DeschedulerSettings | None
) -> descheduler.Descheduler | None:
    """The descheduler of a render with a status snapshot, unless it is turned off."""
    chosen = settings or loaded.DeschedulerSettings()
    if observed is None or not chosen.enabled:
        return None
    return descheduler.Descheduler(descheduler_reports(observed), observed.at, chosen)


def descheduler_reports(observed: failover.Observed) -> dict[str, descheduler.ClusterReport]:
    """What the descheduler reads of a status snapshot."""
    return {
        name: descheduler.ClusterReport(current=r.current, workloads=r.replicas)
        for name, r in observed.reports.items()
    }


def _lowered(
    previous: Mapping[ResourceKey, Binding],
    unchanged: detector.Unchanged | None,
    lowering: descheduler.Descheduler,
) -> tuple[dict[ResourceKey, Binding], detector.Unchanged | None]:
    """The previous bindings with the replicas their clusters cannot run taken off, and
    `unchanged` for the others only (a lowered binding must be scheduled again)."""
    lowered = {key: lowering.lower(b) for key, b in previous.items()}
    if unchanged is None or not lowering.lowered:
        return lowered, unchanged
    chosen, moved = unchanged, frozenset(lowering.lowered)
    return lowered, lambda template, b: descheduler.key_of(b) not in moved and chosen(template, b)


def place(
    objs: objects.ObjectSet,
    interp: interpreter.Interpreter,
    previous: Mapping[ResourceKey, Binding] | None = None,
    *,
    cluster_status: Mapping[str, cluster.ClusterStatus] | None = None,
    now: str | None = None,
    observed: failover.Observed | None = None,
    settings: loaded.FailoverSettings | None = None,
    deschedule: loaded.DeschedulerSettings | None = None,
    unchanged: detector.Unchanged | None = None,
    settle: bool = False,
    cluster_taints: taintpolicy.Managed | None = None,
    seen: Iterable[detection.Seen] = (),
) -> Placement:
    """Detect, schedule and distribute dependencies for one source revision.

    `previous` holds the previous render's bindings (claims and schedule results carry over);
    `cluster_status` the status each cluster reported, by cluster name; `now` (RFC 3339) stamps
    schedules. A binding that cannot be scheduled keeps what the scheduler leaves it (Karmada
    keeps the previous result except when no cluster fits at all), and the others go on.
    With a status snapshot (`observed`: heartbeats, health, and the time it was taken),
    failover runs with `settings` (`gitfleet.failover`; default: gitfleet.yaml's defaults);
    without one, only what the source alone decides does (`_declared_failover`: the NoExecute
    taints the Clusters declare or the ClusterTaintPolicies add).
    `unchanged` (see `detector.detect`) names the previous bindings
    that are still the answer: they are neither detected nor scheduled again, unless failover
    has something to do (a cluster judged unhealthy or tainted NoExecute, a binding with
    eviction tasks), as time alone moves it on. With `settle`, the bindings that changed are
    placed once more to learn which have settled (`Placement.settled`).
    With a snapshot, the descheduler also runs, with `deschedule` (default: gitfleet.yaml's
    defaults): it lowers the previous bindings before they are scheduled (`_lowered`).
    The ClusterTaintPolicies then taint the clusters, starting from the taints they left in
    the previous render (`cluster_taints`), at the snapshot's time (else `now`); when that
    changes any taint, every binding is placed again. `seen` is what the previous render
    recorded of the templates its bindings do not record (see `detector.detect`).
    """
    clusters = effective_clusters(objs.clusters, cluster_status)
    failing = None
    if observed is not None:
        failing = failover.Failover(clusters, observed, settings or loaded.FailoverSettings())
        clusters = failing.clusters
    before = cluster_taints or {}
    tainting = taintpolicy.apply(
        clusters, objs.cluster_taint_policies, before, observed.at if observed else now
    )
    if tainting.managed != before:
        unchanged = None
    clusters = tainting.clusters
    if failing is not None:
        failing.retaint(clusters)
    elif now is not None:
        failing = _declared_failover(clusters, now, settings)
    if failing is not None:
        unchanged = _quiet(unchanged, failing)
    fleet = scheduler.ClusterIndex(clusters)
    first = _Round(objs, interp, fleet, now, tuple(seen))
    lowering = _descheduling(observed, deschedule)
    start = previous or {}
    if lowering is not None:
        start, unchanged = _lowered(start, unchanged, lowering)
    first.run(start, unchanged, failing, lowering)
    prior = _ref_map((previous or {}).values())
    moved = {
        id(b)
        for b in first.final
        if b.spec.placement is not None
        and id(b) not in first.kept
        and prior.get(BindingRef.of(b)) != b
    }
    settled = {rendering.resource_key(b) for b in first.final if b.spec.placement is not None}
    if moved and settle:
        settled -= _unsettled(first, moved)
    elif moved:
        settled -= {rendering.resource_key(b) for b in first.final if id(b) in moved}
    found, distribution = first.found, first.distribution
    return Placement(
        bindings=first.final,
        schedules=tuple(first.schedules),
        detection=found,
        dependencies=distribution.dependencies,
        clusters=clusters,
        diagnostics=tuple(
            diagnostic.sorted_diagnostics([*found.diagnostics, *distribution.diagnostics])
        ),
        failover=failing,
        descheduler=lowering,
        cluster_taints=tainting.managed,
        settled=frozenset(settled),
    )


def _declared_failover(
    clusters: Sequence[cluster.Cluster], now: str, settings: loaded.FailoverSettings | None
) -> failover.Failover | None:
    """Failover without a status snapshot (`gitfleet render`, `preview`, `explain`): the
    NoExecute taints of `clusters` (declared by the source's Clusters or added by its
    ClusterTaintPolicies) evict as the reconciler's render at `now` (the source commit's time)
    would evict them, so what these commands show is what the reconciler does with the commit;
    no cluster is judged by its agent's reports. None when no cluster has one: failover then
    has nothing to do."""
    found = failover.Failover(
        clusters, failover.Observed(at=now), settings or loaded.FailoverSettings()
    )
    return None if found.idle else found


class _Round:
    """One pass of detection, scheduling and dependency distribution over a source."""

    def __init__(
        self,
        objs: objects.ObjectSet,
        interp: interpreter.Interpreter,
        fleet: scheduler.ClusterIndex,
        now: str | None,
        seen: tuple[detection.Seen, ...] = (),
    ) -> None:
        self.objs, self.interp, self.fleet, self.now = objs, interp, fleet, now
        self.seen = seen
        self.kept: set[int] = set()
        self.schedules: list[Scheduled] = []
        self.final: tuple[Binding, ...] = ()

    def run(
        self,
        previous: Mapping[ResourceKey, Binding],
        unchanged: detector.Unchanged | None,
        failing: failover.Failover | None,
        lowering: descheduler.Descheduler | None = None,
    ) -> None:
        self.found = detector.detect(self.objs, self.interp, previous, unchanged, self.seen)
        reused = detection.Outcome.UNCHANGED
        self.kept = {id(d.binding) for d in self.found.decisions if d.outcome is reused}
        prior = _ref_map(previous.values())
        placed: list[Binding] = []
        for b in self.found.bindings:
            if b.spec.placement is None or id(b) in self.kept:
                placed.append(b)
                continue
            ref = BindingRef.of(b)
            before = prior.get(ref)
            outcome, final_binding = _schedule_failing(b, self.fleet, before, self.now, failing)
            if lowering is not None and before is not None:
                lowering.moved(before, final_binding, outcome.error)
            self.schedules.append(Scheduled(ref, outcome))
            placed.append(final_binding)
        self.distribution = detector.distribute_dependencies(
            placed, self.found.templates, self.interp, previous
        )
        ok = {s.binding for s in self.schedules if s.outcome.error is None}
        self.final = tuple(
            _settled(b, prior.get(BindingRef.of(b)), BindingRef.of(b) in ok)
            for b in self.distribution.bindings
        )


def _unsettled(first: _Round, moved: set[int]) -> set[ResourceKey]:
    """Of the bindings that `first` changed (`moved`, by object id), those that would change
    again if placed once more with the same inputs: the scheduler reads the previous result
    (cluster locality reorders it), so one round may not be the last."""
    again = _Round(first.objs, first.interp, first.fleet, first.now)
    previous = {rendering.resource_key(b): b for b in first.final}
    again.run(previous, lambda template, b: id(b) not in moved, None)
    before = {rendering.resource_key(b): b for b in first.final if id(b) in moved}
    return {
        key
        for b in again.final
        if (key := rendering.resource_key(b)) in before and before[key] != b
    }


# The render half: placement, then every binding's Work files, as one pure function.

RENDERER = f"gitfleet {__version__}"


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class PreviousRender:
    """The rendered branch's tip as the next render reads it: every file's blob id, the
    bindings (the previous schedule results) and render.yaml."""

    commit: str
    files: Folders[str]
    """Blob id of every file, by path, held by folder."""
    bindings: Mapping[ResourceKey, Binding]
    """The bindings, without the digests they carry (those are in `recorded`)."""
    report: Mapping[str, Any]
    """render.yaml."""
    object_format: str = "sha1"
    recorded: rendering.Recorded = dataclasses.field(default_factory=rendering.Recorded)
    autoscalers: Mapping[str, Mapping[str, Any]] = dataclasses.field(default_factory=dict)
    """The FederatedHPA files (`gitfleet.autoscaling`), by path."""
    complete: bool = True
    """Whether every file under `bindings/` was read back as a binding of its own, and every
    cluster's folder holds as many files as render.yaml says it was given."""
    trusted: bool = True
    """Whether its files may be reused unread: not so when the commit was amended by hand, or
    when the render is to be signed and the signer's key did not sign this commit (`render`
    then renders every binding again)."""
    vouched: rendering.Vouched | None = None
    """When the signer's key did not sign it, the newest render below it that the key did:
    the files a render keeps (refused, suspended, evicting) are taken from there."""

    @property
    def source_commit(self) -> str | None:
        value = self.report.get("sourceCommit")
        return value if isinstance(value, str) else None

    @property
    def cluster_taints(self) -> taintpolicy.Managed:
        """The taints ClusterTaintPolicies left on the clusters (render.yaml's section)."""
        return taintpolicy.from_json(self.report.get(taintpolicy.SECTION))

    @property
    def seen(self) -> tuple[detection.Seen, ...]:
        """What render.yaml's `seen` says of the templates its bindings do not record."""
        items = self.report.get(rendering.SEEN)
        found = (detection.Seen.from_json(i) for i in (items or ()))
        return tuple(s for s in found if s is not None) if isinstance(items, list) else ()

    @property
    def unscheduled(self) -> tuple[rendering.Unscheduled, ...]:
        """The resources render.yaml says were not scheduled."""
        items = self.report.get("unscheduled")
        found = (rendering.Unscheduled.from_json(i) for i in (items or ()))
        return tuple(u for u in found if u is not None) if isinstance(items, list) else ()


_BINDING_KINDS: dict[str, type[work.ResourceBinding] | type[work.ClusterResourceBinding]] = {
    c.KIND: c for c in (work.ResourceBinding, work.ClusterResourceBinding)
}


_BINDINGS_FOLDER = "bindings/"
_WORKS = rendering.WORKS + "/"
_Parsed = tuple[Binding, str | None, str | None]
_PARSED: dict[str, tuple[str, _Parsed | None]] = {}
"""Bindings already read back, by path, with the blob id they were read from: a blob id names
its content, so a binding file read once need not be parsed again by a long-running
reconciler (and its binding stays the same object, which tells the render it can be reused).
A path holds the last content read there, so the bindings a reconciler keeps are those of
its paths, however often they are rewritten."""
_PARSED_LIMIT = 200_000
_UNREAD = ("", None)


@dataclasses.dataclass(slots=True)
class _Shared:
    """What the bindings read back together share: their text (bindings of one policy share
    their placement, target list and conditions, and differ in a few lines) and its decoded
    values, each read and decoded once, and the annotations left once their digests are
    taken off."""

    text: rendering.ReadMemo = dataclasses.field(default_factory=rendering.ReadMemo)
    decoded: meta.Shared = dataclasses.field(default_factory=dict)
    annotations: dict[tuple[tuple[str, str], ...], dict[str, str]] = dataclasses.field(
        default_factory=dict
    )


def _parse_binding(path: str, data: bytes, shared: _Shared) -> _Parsed | None:
    doc = _yaml_doc(data, shared.text) or {}
    cls = _BINDING_KINDS.get(str(doc.get("kind")))
    if cls is None:
        return None
    plain, digest, template = rendering.Recorded.split(doc, shared.annotations)
    try:
        binding = cls.from_doc(plain, Origin(path), shared=shared.decoded)
    except errors.InputError:
        return None
    return binding, digest, template


def read_previous(
    commit: str,
    files: Mapping[str, str],
    read: Callable[[Sequence[str]], Mapping[str, bytes]],
    object_format: str = "sha1",
) -> PreviousRender:
    """A `PreviousRender` from a rendered tree: `files` (path to blob id) and `read`, which
    returns the contents of the paths it is given (only `bindings/` files not read before and
    render.yaml are asked for). A file that cannot be read back is ignored (its binding is then
    scheduled as new), never fatal: the branch is gitfleet's own output."""
    grouped = folders.grouped(files)
    read_back = (_BINDINGS_FOLDER, f"{autoscaling.FOLDER}/")
    chosen = sorted(
        f"{folder}/{name}"
        for folder, names in grouped.by_folder.items()
        if f"{folder}/".startswith(read_back)  # the folders, not every path of a large tree
        for name in names
    )
    listed = [p for p in chosen if p.startswith(_BINDINGS_FOLDER)]
    scalers = [p for p in chosen if not p.startswith(_BINDINGS_FOLDER)]
    if len(_PARSED) + sum(1 for p in listed if p not in _PARSED) > _PARSED_LIMIT:
        _PARSED.clear()
    wanted = [p for p in listed if _PARSED.get(p, _UNREAD)[0] != files[p]]
    contents = read([*wanted, *scalers, rendering.RENDER_FILE])
    shared = _Shared()
    for path in wanted:
        _PARSED[path] = (files[path], _parse_binding(path, contents.get(path, b""), shared))
    bindings: dict[ResourceKey, Binding] = {}
    digests: dict[ResourceKey, str] = {}
    templates: dict[ResourceKey, str] = {}
    for path in listed:
        found = _PARSED[path][1]
        if found is None:
            continue
        binding, digest, template = found
        key = rendering.resource_key(binding)
        bindings[key] = binding
        if digest is not None:
            digests[key] = digest
        if template is not None:
            templates[key] = template
    report = _yaml_doc(contents.get(rendering.RENDER_FILE, b"")) or {}
    found = report.get("inputs")
    inputs = found if isinstance(found, dict) else {}
    recorded = rendering.Recorded(
        _text(inputs.get("shared")), _text(inputs.get("capacity")), digests, templates
    )
    return PreviousRender(
        commit=commit,
        files=grouped,
        bindings=bindings,
        report=report,
        object_format=object_format,
        recorded=recorded,
        autoscalers=_autoscalers(scalers, contents),
        complete=len(bindings) == len(listed) and _as_reported(grouped, report),
    )


def _as_reported(files: Folders[str], report: Mapping[str, Any]) -> bool:
    """Whether each cluster's folder holds as many manifests as render.yaml says it was given:
    a file added to a render commit by hand (or one taken away) is not, and the next render
    then settles every folder whole. Counted folder by folder, not file by file."""
    found = report.get("clusters")
    clusters = found if isinstance(found, dict) else {}
    said = {name: c.get("manifests") for name, c in clusters.items() if isinstance(c, dict)}
    counted: dict[str, int] = {}
    for folder, names in files.by_folder.items():
        if folder.startswith(_WORKS):
            name, _, inner = folder[len(_WORKS) :].partition("/")
            size = len(names) if inner else len(names) - (rendering.KUSTOMIZATION in names)
            counted[name] = counted.get(name, 0) + size
    return counted == said


def _autoscalers(paths: Sequence[str], contents: Mapping[str, bytes]) -> dict[str, Any]:
    """The FederatedHPA files that can be read back (one that cannot starts afresh)."""
    found = {p: _yaml_doc(contents.get(p, b"")) for p in paths}
    return {p: doc for p, doc in found.items() if doc is not None}


def _yaml_doc(data: bytes, memo: rendering.ReadMemo | None = None) -> dict[str, Any] | None:
    """A rendered file's document: read by the render's own reader when it is as written
    (`memo`: what it read before, see `render.read_own_yaml`), else by a full YAML reader."""
    found = rendering.read_own_yaml(data, memo)
    if found is not None:
        return found
    import yaml

    from gitfleet.model import yamllimits

    try:
        doc = yamllimits.load(data)
    except yaml.YAMLError:
        return None
    return doc if isinstance(doc, dict) else None


Change = gitstore_objects.Hashed | rendering.Data | None
"""A file of a render as it differs from the previous tree's: new content, with its blob id
where it replaces a file (it was hashed to compare them); a file the previous tree did not
have is hashed once, when it is written; None: the file is removed."""


@dataclasses.dataclass(frozen=True, slots=True)
class ClusterChanges:
    """Manifests of one cluster added, changed and removed (`added`, `changed`, `removed`: by
    path inside its folder, sorted). Held folder by folder, with the names the render made:
    a render of a million manifests would otherwise hold a path for each."""

    folders: tuple[tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]], ...] = ()
    """(folder inside the cluster's, names added, changed, removed), for each folder
    holding a change."""

    @property
    def added(self) -> tuple[str, ...]:
        return self._inside(1)

    @property
    def changed(self) -> tuple[str, ...]:
        return self._inside(2)

    @property
    def removed(self) -> tuple[str, ...]:
        return self._inside(3)

    @property
    def counts(self) -> tuple[int, int, int]:
        """How many manifests were added, changed and removed."""
        added = changed = removed = 0
        for _, a, c, r in self.folders:
            added, changed, removed = added + len(a), changed + len(c), removed + len(r)
        return added, changed, removed

    def _inside(self, which: int) -> tuple[str, ...]:
        found = []
        for entry in self.folders:
            inner = entry[0]
            found += [f"{inner}/{name}" if inner else name for name in entry[which]]
        return tuple(sorted(found))

    def to_json(self) -> dict[str, list[str]]:
        return {
            "added": list(self.added),
            "changed": list(self.changed),
            "removed": list(self.removed),
        }


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class RenderResult:
    """A render: the tree to commit, as the previous tree (`base`) and what differs from it
    (`changes`), whether it differs from the previous render, what changed per cluster, what
    was refused, and every diagnostic. When the source has errors nothing is rendered (`ok` is
    false and `files` is empty)."""

    base: Mapping[str, str]
    """Blob id of every file of the previous tree, by path."""
    changes: Folders[Change]
    """The files that differ from `base`: new content (as bytes, or a manifest that makes
    them when read; with its blob id where it replaces a file, which it was compared with),
    or None for a file removed. Held by folder (`model.folders`), as the render made them."""
    changed: bool
    clusters: Mapping[str, ClusterChanges]
    refusals: tuple[rendering.Refusal, ...]
    diagnostics: tuple[diagnostic.Diagnostic, ...]
    source_commit: str | None
    placement: Placement | None
    rendered_bindings: int = 0
    unscheduled: tuple[rendering.Unscheduled, ...] = ()
    """The resources the scheduler could not place (render.yaml's `unscheduled`)."""
    failover_summary: failover.Summary | None = None
    """What failover recorded in render.yaml and changed, when it ran and changed the tree."""
    failover_watch: failover.Watch | None = None
    """When a render of the same source must be made again for failover (time passing,
    cluster health or the agents' reports changing)."""
    descheduled: tuple[str, ...] = ()
    """What the descheduler moved, one line per binding, when the render changed the tree."""
    descheduler_watch: descheduler.Watch | None = None
    """When a render of the same source must be made again for the descheduler."""
    autoscaled: autoscaling.Autoscaled | None = None
    """The FederatedHPAs' decisions, when the source has any."""

    @property
    def ok(self) -> bool:
        return not any(d.severity is diagnostic.Severity.ERROR for d in self.diagnostics)

    @property
    def sync_modes(self) -> dict[str, str] | None:
        """Each cluster's `spec.syncMode`, which its ref's commits name (None: not known, as
        for a render of what the previous render was made from, which places nothing)."""
        if self.placement is None:
            return None
        return {c.name: str(c.spec.sync_mode) for c in self.placement.clusters}

    @property
    def files(self) -> dict[str, gitstore_objects.Content]:
        """Every file of the tree: new bytes, or the previous blob for a file kept as it was."""
        found: dict[str, gitstore_objects.Content] = {
            p: gitstore_objects.Blob(oid) for p, oid in self.base.items() if p not in self.changes
        }
        found.update({p: data for p, data in self.changes.items() if data is not None})
        return found

    def message(self, default: str) -> str:
        """The rendered commit's message: `default`, after what failover, the descheduler and
        the FederatedHPAs changed, if anything."""
        text = descheduler.message(self.descheduled, default)
        summary = self.failover_summary
        text = summary.message(text) if summary is not None else text
        return self.autoscaled.message(text) if self.autoscaled is not None else text


def _status_used(
    clusters: Iterable[cluster.Cluster],
    reported: Mapping[str, cluster.ClusterStatus],
    observed: failover.Observed | None,
) -> dict[str, dict[str, str]]:
    """Per cluster: where its status came from, a digest of it and the heartbeat failover
    judged it by (render.yaml's `status`)."""
    used = {}
    reports = observed.reports if observed is not None else {}
    for c in clusters:
        text = json.dumps(meta.to_doc(c.status), sort_keys=True, separators=(",", ":"))
        used[c.name] = {
            "from": "reported" if c.name in reported else "declared",
            "digest": "sha256:" + hashlib.sha256(text.encode()).hexdigest(),
        }
        beat = reports[c.name].heartbeat if c.name in reports else None
        if beat is not None:
            used[c.name]["heartbeat"] = beat
    return used


def recorded_refusals(report: Mapping[str, Any]) -> tuple[rendering.Refusal, ...]:
    """What a render refused, as its render.yaml (`report`) records it."""
    found = report.get("refused")
    items = found if isinstance(found, list) else []
    return tuple(rendering.Refusal.from_json(item) for item in items if isinstance(item, dict))


def _previous_for_render(previous: PreviousRender) -> rendering.Previous:
    refusals: dict[str, list[rendering.Refusal]] = {}
    for refusal in recorded_refusals(previous.report):
        refusals.setdefault(refusal.resource, []).append(refusal)
    return rendering.Previous(
        files=previous.files,
        bindings=previous.bindings,
        refusals={k: tuple(v) for k, v in refusals.items()},
        complete=previous.complete,
        vouched=previous.vouched,
    )


def _cluster_changes(
    changes: Folders[Change],
    old: Folders[str],
    added: Mapping[str, AbstractSet[str]],
    clusters: Iterable[str],
) -> dict[str, ClusterChanges]:
    """Added, changed and removed manifests per cluster (kustomization.yaml aside), from the
    changes to the previous tree (`old`: its blob ids; `added`: the files new to a folder it
    has, by folder)."""
    found: dict[str, list[tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]]] = {
        n: [] for n in clusters
    }
    start = len(_WORKS)
    for folder, names in changes.by_folder.items():
        if not folder.startswith(_WORKS):
            continue
        name, _, inner = folder[start:].partition("/")
        fresh = added.get(folder, ()) if old.folder(folder) else names
        new: list[str] = []
        changed: list[str] = []
        removed: list[str] = []
        for file, content in names.items():
            if not inner and file == rendering.KUSTOMIZATION:
                continue
            (removed if content is None else new if file in fresh else changed).append(file)
        if new or changed or removed:
            entry = (inner, tuple(new), tuple(changed), tuple(removed))
            found.setdefault(name, []).append(entry)
    return {name: ClusterChanges(tuple(entries)) for name, entries in sorted(found.items())}


def _context(
    source: loaded.LoadedSource, placement: Placement, interp: interpreter.Interpreter
) -> rendering.Context:
    objs = source.objects
    overrider = overrides.Overrides(objs.override_policies, objs.cluster_override_policies)

    def override(manifest: RawObject, target: cluster.Cluster) -> RawObject:
        return overrider.apply(manifest, target).manifest

    def author(
        manifest: RawObject, target: cluster.Cluster, keys: tuple[str | int, ...]
    ) -> tuple[Origin, str] | None:
        found = overrider.author(manifest, target, keys)
        return (found.origin, found.policy) if found is not None else None

    def divide(
        total: int, weights: Sequence[tuple[str, int]], uid: str
    ) -> Sequence[tuple[str, int]]:
        return scheduler_webster.dispense(total, weights, (), uid)

    groups = _override_groups(objs, placement.clusters)
    return rendering.Context(
        clusters={c.name: c for c in placement.clusters},
        interp=interp,
        override=override,
        divide=divide,
        group=lambda member: groups[member.name],
        check=validation.manifest_problems,
        author=author,
    )


def _override_groups(
    objs: objects.ObjectSet, clusters: Iterable[cluster.Cluster]
) -> dict[str, int]:
    """For each cluster, which override rules of the source (all of them, whatever they
    select) target it, numbered by first appearance: clusters with the same answer get the
    same overrides for any manifest (`gitfleet.overrides` picks rules by the manifest, then by
    each rule's target cluster). A number, since every manifest of every cluster looks its
    group up."""
    targets: list[policy.ClusterAffinity | None] = []
    chosen: tuple[policy.ClusterOverridePolicy | policy.OverridePolicy, ...] = (
        *objs.cluster_override_policies,
        *objs.override_policies,
    )
    for p in chosen:
        rules = p.spec.override_rules
        targets += [r.target_cluster for r in rules] if rules else [p.spec.target_cluster]
    numbers: dict[tuple[bool, ...], int] = {}
    return {
        c.name: numbers.setdefault(
            tuple(t is None or selectors.cluster_matches(c, t) for t in targets), len(numbers)
        )
        for c in clusters
    }


def render(
    source: loaded.LoadedSource,
    previous: PreviousRender | None = None,
    status: Mapping[str, cluster.ClusterStatus] | None = None,
    *,
    full: bool = False,
    now: str | None = None,
    renderer: str = RENDERER,
    observed: failover.Observed | None = None,
    measured: Measured | None = None,
) -> RenderResult:
    """Render one loaded source revision on top of the previous render (None: from scratch).

    Pure: the same inputs give the same tree, byte for byte. `status` holds the status each
    cluster reported (it supersedes what the source declares); `now` (RFC 3339, the source
    commit's time) stamps schedules; `full` renders every binding again instead of reusing
    those whose inputs did not change, and must give the same tree. `observed` (the agents'
    heartbeats and health, and when they were read) turns failover on, with the settings of
    the source's gitfleet.yaml; render.yaml records it (`observedAt`, `status`, `failover`).
    Without it, NoExecute taints the source's Clusters declare still evict, at `now` (`place`).
    With `measured` too (the agents' measurements of FederatedHPA targets), the FederatedHPAs
    are evaluated at `observed.at`; without, their last decisions stand (`_autoscale`).

    A previous render that is not `trusted` is read as ever (its schedule results), but none
    of its files are reused: the render is `full`.

    Any error in the source (loading or validation) renders nothing: the result is not `ok`
    and carries the located errors. A render whose files equal the previous render's (apart
    from render.yaml's `sourceCommit` and `status`, which name the inputs of a render that
    changes nothing) is not `changed` and holds the previous tree as it is; so is a render of
    the very source commit and cluster status the previous render was made from (unless
    `full`, or failover watches the clusters' heartbeats), which computes nothing and reports
    what the previous render refused and left unscheduled (render.yaml's lists), as computing
    it would.
    """
    full = full or (previous is not None and not previous.trusted)
    if not full and observed is None and _already_rendered(source, previous, status, renderer):
        assert previous is not None
        return RenderResult(
            base=previous.files, changes=Folders(), changed=False, clusters={},
            refusals=recorded_refusals(previous.report), diagnostics=(),
            source_commit=source.revision, placement=None, unscheduled=previous.unscheduled,
        )  # fmt: skip
    problems = validation.validate(source)
    if any(d.severity is diagnostic.Severity.ERROR for d in problems):
        return RenderResult(
            base={}, changes=Folders(), changed=False, clusters={}, refusals=(),
            diagnostics=tuple(problems), source_commit=source.revision, placement=None,
        )  # fmt: skip
    scaled = _autoscale(source, previous, measured, observed)
    source = dataclasses.replace(source, objects=scaled.objects)
    interp = _interpreter(source)
    recorded = previous.recorded if previous is not None else None
    taints = previous.cluster_taints if previous is not None else {}
    clusters = taintpolicy.carried(effective_clusters(source.objects.clusters, status), taints)
    inputs = _inputs(source, clusters, renderer, recorded)
    unchanged = None if full else _unchanged(inputs)
    placement = _place(source, interp, previous, taints, status, now, observed, unchanged)
    if placement.clusters != inputs.clusters:
        inputs = _inputs(source, placement.clusters, renderer, recorded)
    reported = status or {}
    failed = placement.failover
    summary = None
    if failed is not None:
        section = _section(previous.report, "failover") if previous else None
        summary = failed.summary(section, placement.bindings)
    warnings = [*problems, *placement.diagnostics]
    plan = rendering.Plan(
        bindings=placement.bindings,
        templates=placement.detection.templates,
        auto_namespaces=placement.detection.auto_namespaces,
        held_namespaces=placement.detection.held_namespaces,
        inputs=inputs,
        settled=placement.settled,
        context=_context(source, placement, interp),
        source_commit=source.revision,
        renderer=renderer,
        status=_status_used(placement.clusters, reported, observed),
        warnings=warnings,
        previous=_previous_for_render(previous) if previous else None,
        full=full,
        failover=summary.section if summary is not None else None,
        observed_at=observed.at if observed is not None else None,
        cluster_taints=taintpolicy.to_json(placement.cluster_taints),
        seen=[s.to_json() for s in placement.detection.seen],
    )
    tree = _with_autoscalers(rendering.render(plan), scaled)
    result = _result(source, previous, placement, tree, warnings)
    result = _with_descheduler(result, placement.descheduler)
    if scaled.decisions:
        result = dataclasses.replace(result, autoscaled=scaled)
    if failed is None:
        return result
    return dataclasses.replace(
        result,
        failover_summary=summary if result.changed else None,
        failover_watch=failed.watch(placement.bindings),
    )


def _with_descheduler(
    result: RenderResult, lowering: descheduler.Descheduler | None
) -> RenderResult:
    if lowering is None:
        return result
    moved = lowering.changes if result.changed else ()
    return dataclasses.replace(result, descheduled=moved, descheduler_watch=lowering.watch())


def placement(
    source: loaded.LoadedSource,
    previous: PreviousRender | None = None,
    status: Mapping[str, cluster.ClusterStatus] | None = None,
    *,
    now: str | None = None,
) -> Placement:
    """Where a render of `source` with these inputs (see `render`) places everything, every
    binding scheduled again as `render(..., full=True)` does, so that each has its diagnosis:
    what `gitfleet explain` shows (FederatedHPA targets with their last decided replicas)."""
    scaled = _autoscale(source, previous, None, None)
    source = dataclasses.replace(source, objects=scaled.objects)
    taints = previous.cluster_taints if previous is not None else {}
    return _place(source, _interpreter(source), previous, taints, status, now, None, None)


def refusals(
    source: loaded.LoadedSource, placement: Placement, template: ResourceTemplate
) -> tuple[rendering.Refusal, ...]:
    """What a render of `placement` refuses of `template`'s manifests (a plain-text Secret, an
    override that breaks a field, ...): the render stage run for its bindings alone, for
    `gitfleet explain`, which must not call applied what no cluster receives."""
    context = _context(source, placement, _interpreter(source))
    key = template.key
    return tuple(
        refusal
        for b in placement.bindings
        if rendering.resource_key(b) == key
        for refusal in rendering.render_binding(template, b, context).refusals
    )


Measured = Mapping[ResourceKey, Sequence[autoscaling.Workload]]
"""The agents' measurements of each workload, by template (`gitfleet.autoscaling`)."""


def _autoscale(
    source: loaded.LoadedSource,
    previous: PreviousRender | None,
    measured: Measured | None,
    observed: failover.Observed | None,
) -> autoscaling.Autoscaled:
    """The FederatedHPAs' decisions; each target is measured only on the clusters its
    previous binding placed it on (Karmada reads the binding's clusters)."""
    bindings = previous.bindings if previous is not None else {}
    placed = None
    if measured is not None and observed is not None:
        placed = {
            key: [w for w in found if w.cluster in _cluster_names(bindings.get(key))]
            for key, found in measured.items()
        }
    return autoscaling.autoscale(
        source.objects,
        previous.autoscalers if previous is not None else {},
        placed,
        observed.at if observed is not None else None,
        source.config.autoscaling,
    )


def _cluster_names(binding: Binding | None) -> frozenset[str]:
    return frozenset(c.name for c in binding.spec.clusters) if binding is not None else frozenset()


def _with_autoscalers(tree: rendering.Tree, scaled: autoscaling.Autoscaled) -> rendering.Tree:
    """`tree` with the FederatedHPA files."""
    if not scaled.files:
        return tree
    by_folder = dict(tree.files.by_folder)
    for path, doc in scaled.files.items():
        folder, _, name = path.rpartition("/")
        by_folder[folder] = {**by_folder.get(folder, {}), name: rendering.dump_yaml(doc)}
    return dataclasses.replace(tree, files=Folders(by_folder))


def _interpreter(source: loaded.LoadedSource) -> interpreter.Interpreter:
    objs = source.objects
    return interpreter.Interpreter(objs.customizations, source.third_party_customizations)


def _place(
    source: loaded.LoadedSource,
    interp: interpreter.Interpreter,
    previous: PreviousRender | None,
    taints: taintpolicy.Managed,
    status: Mapping[str, cluster.ClusterStatus] | None,
    now: str | None,
    observed: failover.Observed | None,
    unchanged: detector.Unchanged | None,
) -> Placement:
    """The placement half of a render: the one call `render` and `placement` share (`taints`:
    what the previous render's ClusterTaintPolicies left)."""
    return place(
        source.objects,
        interp,
        previous.bindings if previous else None,
        cluster_status=status,
        now=now,
        observed=observed,
        settings=source.config.failover,
        deschedule=source.config.descheduler,
        unchanged=unchanged,
        settle=True,
        cluster_taints=taints,
        seen=previous.seen if previous else (),
    )


def _inputs(
    source: loaded.LoadedSource,
    clusters: Sequence[cluster.Cluster],
    renderer: str,
    recorded: rendering.Recorded | None,
) -> rendering.Inputs:
    third_party = source.third_party_customizations
    return rendering.Inputs(source.objects, clusters, third_party, renderer, recorded)


def _unchanged(inputs: rendering.Inputs) -> detector.Unchanged:
    """A previous binding is still the answer when its inputs are unchanged, the clusters'
    capacity included if its schedule reads it."""
    if inputs.same_capacity:
        return inputs.unchanged
    return lambda template, b: not scheduler.reads_capacity(b) and inputs.unchanged(template, b)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _already_rendered(
    source: loaded.LoadedSource,
    previous: PreviousRender | None,
    status: Mapping[str, cluster.ClusterStatus] | None,
    renderer: str,
) -> bool:
    """Whether the previous render was made from this very source commit, by this renderer,
    with the same cluster status: then it is this render's result, and nothing is computed (a
    reconciler polling an unchanged source pays only for reading it). Not when the source now
    has errors: those of its repository (a branch in the way of its refs) come and go between
    renders of one commit."""
    if previous is None or source.revision is None or not source.ok:
        return False
    report = previous.report
    if report.get("sourceCommit") != source.revision or report.get("renderer") != renderer:
        return False
    clusters = effective_clusters(source.objects.clusters, status)
    return _status_used(clusters, status or {}, None) == report.get("status")


def _section(report: Mapping[str, Any], name: str) -> Mapping[str, Any] | None:
    found = report.get(name)
    return found if isinstance(found, dict) else None


def _result(
    source: loaded.LoadedSource,
    previous: PreviousRender | None,
    placement: Placement,
    tree: rendering.Tree,
    diagnostics: Sequence[diagnostic.Diagnostic],
) -> RenderResult:
    old = previous.files if previous else Folders[str]()
    fmt = gitstore_objects.FORMATS.get(
        previous.object_format if previous else "sha1", gitstore_objects.SHA1
    )
    ids = gitstore_objects.BlobIds(fmt)
    by_folder: dict[str, Mapping[str, Change]] = {}
    added: dict[str, set[str]] = {}
    """The files new to folders the previous tree has, by folder."""
    for folder, written in tree.files.by_folder.items():
        before = old.folder(folder)
        if not before:
            by_folder[folder] = written  # a folder new to the tree: all of it is new
            continue
        found: dict[str, Change] = {}
        for name, data in written.items():
            known = before.get(name)
            if known is None:
                found[name] = data
                added.setdefault(folder, set()).add(name)
                continue
            oid = ids.of(data)
            if known != oid:
                found[name] = gitstore_objects.Hashed(oid, data)
        if found:
            by_folder[folder] = found
    removed = {folder: sorted(names) for folder, names in tree.removed.items() if names}
    for folder, names in old.by_folder.items():
        if not rendering.owns(folder):  # render.yaml and the FederatedHPAs' files
            now = tree.files.folder(folder)
            gone = [name for name in names if name not in now]
            if gone:
                removed[folder] = gone
    changes = Folders(by_folder)
    changed = previous is None or bool(removed) or _differs(changes, old, previous, tree, fmt)
    if changed:
        for folder, gone in sorted(removed.items()):
            by_folder[folder] = {**by_folder.get(folder, {}), **dict.fromkeys(gone)}
    else:
        changes = Folders()
    return RenderResult(
        base=old,
        changes=changes,
        changed=changed,
        clusters=_cluster_changes(changes, old, added, (c.name for c in placement.clusters)),
        refusals=tree.refusals,
        diagnostics=tuple(diagnostic.sorted_diagnostics(list(diagnostics))),
        source_commit=source.revision,
        placement=placement,
        rendered_bindings=tree.rendered,
        unscheduled=tree.unscheduled,
    )


def _differs(
    changes: Folders[Change],
    old: Folders[str],
    previous: PreviousRender | None,
    tree: rendering.Tree,
    fmt: gitstore_objects.Format,
) -> bool:
    """Whether a tree with the previous one's paths and these `changes` to its files differs
    from it in content, render.yaml's `sourceCommit`, `inputs`, `status` and `observedAt`
    aside (they name the inputs of the render that produced the output)."""
    if previous is None:
        return True
    if any(p != rendering.RENDER_FILE for p in changes):
        return True
    report = {
        **tree.report,
        "sourceCommit": previous.report.get("sourceCommit"),
        "inputs": previous.report.get("inputs"),
        "status": previous.report.get("status"),
    }
    if "observedAt" in tree.report:
        report["observedAt"] = previous.report.get("observedAt")
    same = fmt.object_id(gitstore_objects.BLOB, rendering.dump_yaml(report))
    return same != old.get(rendering.RENDER_FILE)
