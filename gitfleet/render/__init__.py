"""Render: placed bindings to the files of the rendered branch (Karmada: the binding controller's
ensureWork and the namespace sync controller), as a pure function.

`render(plan)` turns the final bindings of one source revision into the tree of DESIGN.md §3:
one manifest per resource and cluster under `works/<cluster>/` (`_work`: replicas, overrides,
labels, pruning), the Namespaces the clusters need (`_namespaces`), one kustomization per
cluster and `render.yaml` (`_report`: with the resources not scheduled, `_unscheduled`), and
each binding under `bindings/`, every file written
by the deterministic YAML writer (`_yaml`) at a path built from checked names (`_paths`).

It does no I/O and reads nothing of the previous render but what the plan hands it: the paths
the previous tree has (a refused or suspended manifest keeps its previous file, if any, and so
does a cluster a binding is being evicted from while the eviction task lasts; below a tip
the signing key did not sign, as the newest render it signed has it, read through the plan's
`Vouched`) and,
for incremental renders, the digests of their inputs the previous bindings carry (`_inputs`):
a binding the placement reused as it was, or whose files' inputs are unchanged, keeps its
previous files without being rendered again, and so do Namespaces while the inputs every
binding shares are unchanged. Overrides and the Webster division come in through the plan's
context, so this stage imports no other stage.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from gitfleet.model import diagnostic, work
from gitfleet.model.folders import Folders
from gitfleet.model.template import ResourceKey, ResourceTemplate
from gitfleet.render import (
    _inputs,
    _namespaces,
    _paths,
    _report,
    _tree,
    _unscheduled,
    _work,
    _yaml,
    _yamlread,
)

Binding = work.ResourceBinding | work.ClusterResourceBinding
Context = _work.Context
Output = _work.Output
Data = _work.Data
ClusterManifest = _work.ClusterManifest
Refusal = _work.Refusal
Unscheduled = _unscheduled.Unscheduled
Override = _work.Override
Divide = _work.Divide
dump_yaml = _yaml.dump
read_own_yaml = _yamlread.load
ReadMemo = _yamlread.Memo
RENDER_FILE = _paths.RENDER_FILE
SEEN = _report.SEEN
WORKS = _paths.WORKS
KUSTOMIZATION = _paths.KUSTOMIZATION
Inputs = _inputs.Inputs
Recorded = _inputs.Recorded
TEMPLATE_ANNOTATION = _inputs.TEMPLATE_ANNOTATION
target_clusters = _work.target_clusters
owns = _tree.owns
Vouched = _tree.Vouched
render_binding = _work.render_binding


def resource_key(binding: Binding) -> ResourceKey:
    r = binding.spec.resource
    return ResourceKey(r.api_version, r.kind, r.namespace, r.name)


@dataclasses.dataclass(frozen=True, slots=True)
class Previous:
    """What a render may take from the previous one."""

    files: Folders[str]
    """Every file of the previous tree (its blob id), by folder."""
    bindings: Mapping[ResourceKey, Binding]
    """The previous bindings (their digests in `Inputs.recorded`), by template."""
    refusals: Mapping[str, tuple[Refusal, ...]]
    """Previous refusals, by resource (as `str(ResourceKey)`)."""
    complete: bool = True
    """Whether every binding of the previous tree was read back (`bindings`): if not, a
    file may belong to none of them, and the render settles every folder whole."""
    vouched: Vouched | None = None
    """For a signed render on a tip its key did not sign, the signed render its kept files
    are taken from (None: they are kept as the tip has them)."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """Everything one render reads."""

    bindings: Sequence[Binding]
    templates: Sequence[ResourceTemplate]
    """The source's templates with their effective namespace."""
    auto_namespaces: Sequence[ResourceKey]
    held_namespaces: Sequence[ResourceKey] = ()
    """Namespaces labelled to skip auto-propagation: each cluster the namespace controller
    sent one to keeps its previous file (Karmada leaves those Works alone)."""
    inputs: Inputs
    """The digests of the inputs, built from the clusters of `context`, with what the
    previous render recorded of them."""
    settled: Collection[ResourceKey] = ()
    """The bindings (by template) that come out of the scheduler as they go in: their files
    say which template they were made from, so that the next render can reuse them."""
    context: Context
    source_commit: str | None
    renderer: str
    status: Mapping[str, Mapping[str, str]]
    """Per cluster, what status the schedule used (for render.yaml)."""
    warnings: Sequence[diagnostic.Diagnostic]
    previous: Previous | None = None
    full: bool = False
    """Render every binding, even those whose inputs did not change."""
    failover: Mapping[str, Any] | None = None
    """render.yaml's `failover` section, when failover ran."""
    observed_at: str | None = None
    """When the cluster status used was observed (render.yaml's `observedAt`)."""
    cluster_taints: Mapping[str, Any] | None = None
    """render.yaml's `clusterTaints`: the taints ClusterTaintPolicies added."""
    seen: Sequence[Mapping[str, Any]] = ()
    """render.yaml's `seen`: the detector's record of the templates no fresh binding records."""


@dataclasses.dataclass(frozen=True, slots=True)
class Tree:
    """The rendered tree, as the previous one changes (`_tree`): new files, the previous files
    that go, what was refused, and how many bindings were rendered again (the others were
    reused). Held by folder (see `model.folders`); the previous tree's files under neither
    `works/` nor `bindings/` are the caller's to settle (`owns`)."""

    files: Folders[Data]
    """New files, each as bytes or as a manifest that makes them when read."""
    removed: Mapping[str, AbstractSet[str]]
    """The names of the previous tree's files that go, by folder; every other file stays."""
    refusals: tuple[Refusal, ...]
    rendered: int
    report: Mapping[str, Any]
    """render.yaml's document (written in `files`)."""
    unscheduled: tuple[Unscheduled, ...] = ()


def _evicting(template: ResourceTemplate, binding: Binding) -> Output:
    """The Works kept, as they were, on the clusters the binding is being evicted from
    (Karmada leaves those Works alone until the graceful eviction task ends)."""
    clusters = tuple(work.evicting_clusters(binding.spec))
    return Output(_paths.object_path(template.key), {}, clusters, (), ())


def _bindings(plan: Plan, into: _tree.Collected) -> None:
    by_key = {t.key: t for t in plan.templates}
    inputs = plan.inputs
    recorded = inputs.recorded
    previous = plan.previous
    handled: set[ResourceKey] = set()
    for binding in plan.bindings:
        key = resource_key(binding)
        template = by_key.get(key)
        if template is None:
            continue
        try:
            folder, _, name = _paths.binding_path(template.key).rpartition("/")
        except _paths.PathError as error:
            into.refusals.append(Refusal(template.origin, str(template.key), "", str(error)))
            continue
        handled.add(key)
        before = previous.bindings.get(key) if previous is not None else None
        into.add(_evicting(template, binding))
        if (
            previous is not None
            and before is binding
            and not plan.full
            and inputs.unchanged(template, before)
        ):
            into.keep(folder, name)
            into.reuse(template.key, binding, previous.refusals.get(str(key), ()))
            continue
        doc = binding.to_doc()
        targets = [t.name for t in target_clusters(binding.spec)]
        digest = inputs.digest(template, doc, targets)
        same_inputs = before is not None and recorded.files.get(key) == digest
        made_from = inputs.template(template) if key in plan.settled else None
        if same_inputs and before == binding and recorded.templates.get(key) == made_from:
            into.keep(folder, name)
        else:
            into.write(folder, name, _yaml.dump(_inputs.with_digests(doc, digest, made_from)))
        if previous is not None and same_inputs and not plan.full:
            into.reuse(template.key, binding, previous.refusals.get(str(key), ()))
            continue
        into.rendered += 1
        into.own(_paths.object_path(template.key))
        into.add(_work.render_binding(template, binding, plan.context))
    gone = previous.bindings.keys() - handled if previous is not None else set()
    for key in gone:
        try:
            into.own(_paths.object_path(key))  # the binding is gone: so are its files
        except _paths.PathError:
            continue


def _namespaces_of(
    plan: Plan, wanted: Mapping[str, set[str]], before: Folders[str]
) -> list[Output]:
    by_key = {t.key: t for t in plan.templates}
    # Karmada's detector writes a claim on the stored Namespace, which its namespace sync
    # controller sends everywhere: where no binding places it, it carries the claim too.
    bound = {resource_key(b): b for b in plan.bindings}
    auto = [
        _work.claimed(by_key[k], bound[k]) if k in bound else by_key[k]
        for k in plan.auto_namespaces
        if k in by_key
    ]
    defined = {t.name for t in plan.templates if t.kind == "Namespace" and t.api_version == "v1"}
    previous = plan.previous
    reusable = previous is not None and plan.inputs.reusable and not plan.full

    def reuse(template: ResourceTemplate, cluster: str, relative: str) -> Output | None:
        """A Namespace's manifest depends on nothing but the shared inputs (its template
        among them): while they are unchanged, the previous render's stays."""
        path = f"{_paths.cluster_folder(cluster)}/{relative}"
        if previous is None or not reusable or path not in before:
            return None
        refused = previous.refusals.get(str(template.key), ())
        mine = tuple(r for r in refused if r.cluster == cluster)
        return Output(relative, {}, (cluster,), mine, (cluster,))

    return _namespaces.outputs(auto, defined, wanted, plan.context, reuse)


def _held(plan: Plan, before: Folders[str]) -> list[Output]:
    """The Namespaces labelled to skip auto-propagation, each kept as it was on every cluster
    whose previous tree has its file and where no binding placed it, before or now (a file a
    binding placed follows the binding)."""
    if plan.previous is None or not plan.held_namespaces:
        return []
    held = set(plan.held_namespaces)
    now = {key: b for b in plan.bindings if (key := resource_key(b)) in held}
    outputs = []
    for key in plan.held_namespaces:
        relative = _paths.object_path(key)
        placed = (now.get(key), plan.previous.bindings.get(key))
        bound = {t.name for b in placed if b is not None for t in target_clusters(b.spec)}
        kept = tuple(
            name
            for name in sorted(plan.context.clusters)
            if name not in bound and f"{_paths.cluster_folder(name)}/{relative}" in before
        )
        if kept:
            outputs.append(Output(relative, {}, kept, (), ()))
    return outputs


def render(plan: Plan) -> Tree:
    """The rendered tree of `plan` (see the module)."""
    before = plan.previous.files if plan.previous is not None else Folders[str]()
    previous = plan.previous
    exact = previous is None or plan.full or not plan.inputs.reusable or not previous.complete
    into = _tree.Collected(exact, vouched=previous.vouched if previous is not None else None)
    _bindings(plan, into)
    settled = _tree.Settled(plan.context.clusters, into, before)
    inner = settled.by_cluster
    wanted = _namespaces.needed({c: found.values() for c, found in inner.items()})
    for output in [*_namespaces_of(plan, wanted, before), *_held(plan, before)]:
        into.add(output)
    settled.settle_namespaces()
    counts = {}
    kustomizations = _report.Kustomizations()
    for name in settled.by_cluster:
        if exact or name in settled.reshaped:
            listed = settled.relative_paths(name)
            counts[name] = len(listed)
            folder = _paths.cluster_folder(name)
            written = kustomizations.of(listed)
            settled.files.setdefault(folder, {})[_paths.KUSTOMIZATION] = written
        else:
            counts[name] = settled.count(name)
    refusals = sorted(
        into.refusals, key=lambda r: (r.origin.path, r.origin.line, r.resource, r.cluster)
    )
    unscheduled = _unscheduled.unscheduled(
        plan.bindings, {t.key: t for t in plan.templates}, frozenset(plan.auto_namespaces)
    )
    report = _report.render_file(
        source_commit=plan.source_commit,
        renderer=plan.renderer,
        inputs=plan.inputs.to_json(),
        status=plan.status,
        bindings=len(plan.bindings),
        manifests=counts,
        refusals=refusals,
        unscheduled=unscheduled,
        warnings=diagnostic.sorted_diagnostics(list(plan.warnings)),
        failover=plan.failover,
        observed_at=plan.observed_at,
        cluster_taints=plan.cluster_taints,
        seen=plan.seen,
    )
    settled.files.setdefault("", {})[_paths.RENDER_FILE] = _yaml.dump(report)
    files = Folders(settled.files)
    return Tree(files, settled.removed, tuple(refusals), into.rendered, report, unscheduled)
