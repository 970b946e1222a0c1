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
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from gitfleet import __version__, detector, errors, interpreter, overrides, scheduler, validation
from gitfleet import render as rendering
from gitfleet.detector import detection
from gitfleet.gitstore import objects as gitstore_objects
from gitfleet.model import cluster, diagnostic, loaded, meta, objects, work
from gitfleet.model.origin import Origin
from gitfleet.model.template import RawObject, ResourceKey
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

    `clusters` are the clusters scheduled against (declared status superseded by reported);
    the Namespaces in `detection.auto_namespaces` go to all of them.
    """

    bindings: tuple[Binding, ...]
    schedules: tuple[Scheduled, ...]
    detection: Detection
    dependencies: tuple[Dependencies, ...]
    clusters: tuple[cluster.Cluster, ...]
    diagnostics: tuple[diagnostic.Diagnostic, ...]

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


def effective_clusters(
    clusters: Iterable[cluster.Cluster],
    cluster_status: Mapping[str, cluster.ClusterStatus] | None = None,
) -> tuple[cluster.Cluster, ...]:
    """The clusters with their reported status merged in, sorted by name."""
    reported = cluster_status or {}
    return tuple(
        dataclasses.replace(c, status=merge_status(c.status, reported.get(c.name)))
        for c in sorted(clusters, key=lambda c: c.name)
    )


def _ref_map(bindings: Iterable[Binding]) -> dict[BindingRef, Binding]:
    return {BindingRef.of(b): b for b in bindings}


def _settled(binding: Binding, previous: Binding | None, scheduled_ok: bool) -> Binding:
    """The final generation (one more than before when the spec changed) and, for a binding the
    scheduler is content with, the observed generation Karmada's scheduler converges to."""
    final = detector.with_generation(binding, previous)
    if not scheduled_ok:
        return final
    status = dataclasses.replace(
        final.status, scheduler_observed_generation=final.metadata.generation
    )
    return dataclasses.replace(final, status=status)


def _schedule(
    binding: Binding,
    fleet: scheduler.ClusterIndex,
    previous: Binding | None,
    now: str | None,
) -> scheduler.Outcome[Any]:
    if isinstance(binding, work.ResourceBinding):
        return scheduler.schedule(binding, fleet, previous, now=now)
    return scheduler.schedule(binding, fleet, previous, now=now)


def place(
    objs: objects.ObjectSet,
    interp: interpreter.Interpreter,
    previous: Mapping[ResourceKey, Binding] | None = None,
    *,
    cluster_status: Mapping[str, cluster.ClusterStatus] | None = None,
    now: str | None = None,
) -> Placement:
    """Detect, schedule and distribute dependencies for one source revision.

    `previous` holds the previous render's bindings (claims and schedule results carry over);
    `cluster_status` the status each cluster reported, by cluster name; `now` (RFC 3339) stamps
    schedules. A binding that cannot be scheduled keeps what the scheduler leaves it (Karmada
    keeps the previous result except when no cluster fits at all), and the others go on.
    """
    clusters = effective_clusters(objs.clusters, cluster_status)
    found = detector.detect(objs, interp, previous)
    prior = _ref_map((previous or {}).values())
    fleet = scheduler.ClusterIndex(clusters)
    schedules: list[Scheduled] = []
    placed: list[Binding] = []
    for b in found.bindings:
        if b.spec.placement is None:
            placed.append(b)
            continue
        ref = BindingRef.of(b)
        outcome = _schedule(b, fleet, prior.get(ref), now)
        schedules.append(Scheduled(ref, outcome))
        placed.append(outcome.binding)
    distribution = detector.distribute_dependencies(placed, found.templates, interp, previous)
    ok = {s.binding for s in schedules if s.outcome.error is None}
    final = tuple(
        _settled(b, prior.get(BindingRef.of(b)), BindingRef.of(b) in ok)
        for b in distribution.bindings
    )
    return Placement(
        bindings=final,
        schedules=tuple(schedules),
        detection=found,
        dependencies=distribution.dependencies,
        clusters=clusters,
        diagnostics=tuple(
            diagnostic.sorted_diagnostics([*found.diagnostics, *distribution.diagnostics])
        ),
    )


# The render half: placement, then every binding's Work files, as one pure function.

RENDERER = f"gitfleet {__version__}"


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class PreviousRender:
    """The rendered branch's tip as the next render reads it: every file's blob id, the
    bindings (the previous schedule results) and render.yaml."""

    commit: str
    files: Mapping[str, str]
    """Blob id of every file, by path."""
    bindings: Mapping[ResourceKey, Binding]
    report: Mapping[str, Any]
    """render.yaml."""
    object_format: str = "sha1"

    @property
    def source_commit(self) -> str | None:
        value = self.report.get("sourceCommit")
        return value if isinstance(value, str) else None


_BINDING_KINDS: dict[str, type[work.ResourceBinding] | type[work.ClusterResourceBinding]] = {
    c.KIND: c for c in (work.ResourceBinding, work.ClusterResourceBinding)
}


def read_previous(
    commit: str,
    files: Mapping[str, str],
    contents: Mapping[str, bytes],
    object_format: str = "sha1",
) -> PreviousRender:
    """A `PreviousRender` from a rendered tree: `files` (path to blob id) and the `contents` of
    its `bindings/` files and render.yaml. A file that cannot be read back is ignored (the
    binding is then scheduled as new), never fatal: the branch is gitfleet's own output."""
    bindings: dict[ResourceKey, Binding] = {}
    for path, data in sorted(contents.items()):
        if not path.startswith("bindings/"):
            continue
        doc = _yaml_doc(data) or {}
        cls = _BINDING_KINDS.get(str(doc.get("kind")))
        if cls is None:
            continue
        try:
            found = cls.from_doc(doc, Origin(path))
        except errors.InputError:
            continue
        bindings[rendering.resource_key(found)] = found
    report = _yaml_doc(contents.get(rendering.RENDER_FILE, b"")) or {}
    return PreviousRender(
        commit=commit, files=files, bindings=bindings, report=report, object_format=object_format
    )


def _yaml_doc(data: bytes) -> dict[str, Any] | None:
    import yaml

    try:
        doc = yaml.load(data, Loader=yaml.CSafeLoader)
    except yaml.YAMLError:
        return None
    return doc if isinstance(doc, dict) else None


@dataclasses.dataclass(frozen=True, slots=True)
class ClusterChanges:
    """Manifests of one cluster added, changed and removed, by path inside its folder."""

    added: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()

    def to_json(self) -> dict[str, list[str]]:
        return {
            "added": list(self.added),
            "changed": list(self.changed),
            "removed": list(self.removed),
        }


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class RenderResult:
    """A render: the tree to commit (new bytes, or the previous blob for files kept as they
    were), whether it differs from the previous render, what changed per cluster, what was
    refused, and every diagnostic. When the source has errors nothing is rendered (`ok` is
    false and `files` is empty)."""

    files: Mapping[str, gitstore_objects.Content]
    changed: bool
    clusters: Mapping[str, ClusterChanges]
    refusals: tuple[rendering.Refusal, ...]
    diagnostics: tuple[diagnostic.Diagnostic, ...]
    source_commit: str | None
    placement: Placement | None
    rendered_bindings: int = 0

    @property
    def ok(self) -> bool:
        return not any(d.severity is diagnostic.Severity.ERROR for d in self.diagnostics)


def _status_used(
    clusters: Iterable[cluster.Cluster], reported: Mapping[str, cluster.ClusterStatus]
) -> dict[str, dict[str, str]]:
    """Per cluster: where its status came from and a digest of it (render.yaml's `status`)."""
    used = {}
    for c in clusters:
        text = json.dumps(meta.to_doc(c.status), sort_keys=True, separators=(",", ":"))
        used[c.name] = {
            "from": "reported" if c.name in reported else "declared",
            "digest": "sha256:" + hashlib.sha256(text.encode()).hexdigest(),
        }
    return used


def _previous_for_render(previous: PreviousRender) -> rendering.Previous:
    refusals: dict[str, list[rendering.Refusal]] = {}
    for item in previous.report.get("refused") or ():
        if isinstance(item, dict):
            origin = Origin(
                str(item.get("path", "")), int(item.get("line", 0)), int(item.get("col", 0))
            )
            refusal = rendering.Refusal(
                origin, str(item.get("resource", "")), str(item.get("cluster", "")),
                str(item.get("message", "")),
            )  # fmt: skip
            refusals.setdefault(refusal.resource, []).append(refusal)
    digests = {}
    for key, b in previous.bindings.items():
        recorded = (b.metadata.annotations or {}).get(rendering.INPUTS_ANNOTATION)
        if recorded:
            digests[key] = recorded
    return rendering.Previous(
        paths=frozenset(previous.files),
        digests=digests,
        refusals={k: tuple(v) for k, v in refusals.items()},
    )


def _cluster_changes(
    new: Mapping[str, str], old: Mapping[str, str], clusters: Iterable[str]
) -> dict[str, ClusterChanges]:
    """Added, changed and removed manifests per cluster (kustomization.yaml aside)."""
    by_cluster: dict[str, dict[str, list[str]]] = {
        name: {"added": [], "changed": [], "removed": []} for name in clusters
    }
    for path in sorted(new.keys() | old.keys()):
        parts = path.split("/", 2)
        if len(parts) < 3 or parts[0] != "works" or parts[2] == "kustomization.yaml":
            continue
        if path not in old:
            what = "added"
        elif path not in new:
            what = "removed"
        elif new[path] != old[path]:
            what = "changed"
        else:
            continue
        by_cluster.setdefault(parts[1], {"added": [], "changed": [], "removed": []})
        by_cluster[parts[1]][what].append(parts[2])
    return {
        name: ClusterChanges(tuple(c["added"]), tuple(c["changed"]), tuple(c["removed"]))
        for name, c in sorted(by_cluster.items())
    }


def _context(
    source: loaded.LoadedSource, placement: Placement, interp: interpreter.Interpreter
) -> rendering.Context:
    objs = source.objects
    overrider = overrides.Overrides(objs.override_policies, objs.cluster_override_policies)

    def override(manifest: RawObject, target: cluster.Cluster) -> RawObject:
        return overrider.apply(manifest, target).manifest

    def divide(
        total: int, weights: Sequence[tuple[str, int]], uid: str
    ) -> Sequence[tuple[str, int]]:
        return scheduler_webster.dispense(total, weights, (), uid)

    return rendering.Context(
        clusters={c.name: c for c in placement.clusters},
        interp=interp,
        override=override,
        divide=divide,
    )


def render(
    source: loaded.LoadedSource,
    previous: PreviousRender | None = None,
    status: Mapping[str, cluster.ClusterStatus] | None = None,
    *,
    full: bool = False,
    now: str | None = None,
    renderer: str = RENDERER,
) -> RenderResult:
    """Render one loaded source revision on top of the previous render (None: from scratch).

    Pure: the same inputs give the same tree, byte for byte. `status` holds the status each
    cluster reported (it supersedes what the source declares); `now` (RFC 3339, the source
    commit's time) stamps schedules; `full` renders every binding again instead of reusing
    those whose inputs did not change, and must give the same tree.

    Any error in the source (loading or validation) renders nothing: the result is not `ok`
    and carries the located errors. A render whose files equal the previous render's (apart
    from render.yaml's `sourceCommit` and `status`, which name the inputs of a render that
    changes nothing) is not `changed` and holds the previous tree as it is.
    """
    problems = validation.validate(source)
    if any(d.severity is diagnostic.Severity.ERROR for d in problems):
        return RenderResult(
            files={}, changed=False, clusters={}, refusals=(), diagnostics=tuple(problems),
            source_commit=source.revision, placement=None,
        )  # fmt: skip
    objs = source.objects
    interp = interpreter.Interpreter(objs.customizations, source.third_party_customizations)
    placement = place(
        objs, interp, previous.bindings if previous else None, cluster_status=status, now=now
    )
    reported = status or {}
    warnings = [*problems, *placement.diagnostics]
    plan = rendering.Plan(
        bindings=placement.bindings,
        templates=placement.detection.templates,
        auto_namespaces=placement.detection.auto_namespaces,
        objects=objs,
        third_party=source.third_party_customizations,
        context=_context(source, placement, interp),
        source_commit=source.revision,
        renderer=renderer,
        status=_status_used(placement.clusters, reported),
        warnings=warnings,
        previous=_previous_for_render(previous) if previous else None,
        full=full,
    )
    tree = rendering.render(plan)
    return _result(source, previous, placement, tree, warnings)


def _result(
    source: loaded.LoadedSource,
    previous: PreviousRender | None,
    placement: Placement,
    tree: rendering.Tree,
    diagnostics: Sequence[diagnostic.Diagnostic],
) -> RenderResult:
    old = previous.files if previous else {}
    fmt = gitstore_objects.FORMATS.get(
        previous.object_format if previous else "sha1", gitstore_objects.SHA1
    )
    ids = {path: fmt.object_id(gitstore_objects.BLOB, data) for path, data in tree.files.items()}
    ids.update({path: old[path] for path in tree.kept})
    files: dict[str, gitstore_objects.Content] = dict(tree.files)
    files.update({path: gitstore_objects.Blob(old[path]) for path in tree.kept})
    changed = True
    if previous is not None and ids.keys() == old.keys():
        same_report = rendering.dump_yaml(
            {**tree.report, "sourceCommit": previous.report.get("sourceCommit"),
             "status": previous.report.get("status")}
        )  # fmt: skip
        others = all(ids[p] == old[p] for p in ids if p != rendering.RENDER_FILE)
        if others and fmt.object_id(gitstore_objects.BLOB, same_report) == old.get(
            rendering.RENDER_FILE
        ):
            changed = False
            files = {path: gitstore_objects.Blob(oid) for path, oid in old.items()}
            ids = dict(old)
    return RenderResult(
        files=files,
        changed=changed,
        clusters=_cluster_changes(ids, old, (c.name for c in placement.clusters)),
        refusals=tree.refusals,
        diagnostics=tuple(diagnostic.sorted_diagnostics(list(diagnostics))),
        source_commit=source.revision,
        placement=placement,
        rendered_bindings=tree.rendered,
    )
