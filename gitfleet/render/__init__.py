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
does a cluster a binding is being evicted from while the eviction task lasts) and,
for incremental renders, the digests of their inputs the previous bindings carry (`_inputs`):
a binding the placement reused as it was, or whose files' inputs are unchanged, keeps its
previous files without being rendered again, and so do Namespaces while the inputs every
binding shares are unchanged. Overrides and the Webster division come in through the plan's
context, so this stage imports no other stage.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from gitfleet.model import diagnostic, work
from gitfleet.model.template import ResourceKey, ResourceTemplate
from gitfleet.render import (
    _inputs,
    _namespaces,
    _paths,
    _report,
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
WORKS = _paths.WORKS
KUSTOMIZATION = _paths.KUSTOMIZATION
Inputs = _inputs.Inputs
Recorded = _inputs.Recorded
TEMPLATE_ANNOTATION = _inputs.TEMPLATE_ANNOTATION
target_clusters = _work.target_clusters


def resource_key(binding: Binding) -> ResourceKey:
    r = binding.spec.resource
    return ResourceKey(r.api_version, r.kind, r.namespace, r.name)


@dataclasses.dataclass(frozen=True, slots=True)
class Previous:
    """What a render may take from the previous one."""

    paths: AbstractSet[str]
    """Every file of the previous tree."""
    bindings: Mapping[ResourceKey, Binding]
    """The previous bindings (their digests in `Inputs.recorded`), by template."""
    refusals: Mapping[str, tuple[Refusal, ...]]
    """Previous refusals, by resource (as `str(ResourceKey)`)."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """Everything one render reads."""

    bindings: Sequence[Binding]
    templates: Sequence[ResourceTemplate]
    """The source's templates with their effective namespace."""
    auto_namespaces: Sequence[ResourceKey]
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


@dataclasses.dataclass(frozen=True, slots=True)
class Tree:
    """The rendered tree: new files, previous files kept as they are, what was refused, and
    how many bindings were rendered again (the others were reused)."""

    files: Mapping[str, Data]
    """New files, each as bytes or as a manifest that makes them when read."""
    kept: frozenset[str]
    refusals: tuple[Refusal, ...]
    rendered: int
    report: Mapping[str, Any]
    """render.yaml's document (written in `files`)."""
    unscheduled: tuple[Unscheduled, ...] = ()


def _reused(template: ResourceTemplate, binding: Binding, previous: Previous) -> Output:
    """A binding whose inputs did not change: every file it had stays."""
    relative = _paths.object_path(template.key)
    names = tuple(t.name for t in target_clusters(binding.spec))
    kept = tuple(f"{_paths.cluster_folder(n)}/{relative}" for n in names)
    return Output({}, kept, previous.refusals.get(str(template.key), ()), names)


def _evicting(template: ResourceTemplate, binding: Binding) -> list[str]:
    """The paths of the Works kept, as they were, on the clusters the binding is being evicted
    from (Karmada leaves those Works alone until the graceful eviction task ends)."""
    relative = _paths.object_path(template.key)
    return [f"{_paths.cluster_folder(n)}/{relative}" for n in work.evicting_clusters(binding.spec)]


@dataclasses.dataclass(slots=True)
class _Collected:
    files: dict[str, Data] = dataclasses.field(default_factory=dict)
    kept: set[str] = dataclasses.field(default_factory=set)
    refusals: list[Refusal] = dataclasses.field(default_factory=list)
    rendered: int = 0

    def add(self, output: Output) -> None:
        if self.files.keys().isdisjoint(output.files):  # as a rule: a binding's own paths
            self.files.update(output.files)
        else:
            for path, data in output.files.items():
                self.files.setdefault(path, data)
        if self.files.keys().isdisjoint(output.kept):  # as a rule: a binding's own paths
            self.kept.update(output.kept)
        else:
            self.kept.update(p for p in output.kept if p not in self.files)
        self.refusals.extend(output.refusals)


def _bindings(plan: Plan, into: _Collected) -> None:
    by_key = {t.key: t for t in plan.templates}
    inputs = plan.inputs
    recorded = inputs.recorded
    previous = plan.previous
    for binding in plan.bindings:
        key = resource_key(binding)
        template = by_key.get(key)
        if template is None:
            continue
        try:
            binding_path = _paths.binding_path(template.key)
        except _paths.PathError as error:
            into.refusals.append(Refusal(template.origin, str(template.key), "", str(error)))
            continue
        before = previous.bindings.get(key) if previous is not None else None
        into.kept.update(_evicting(template, binding))
        if (
            previous is not None
            and before is binding
            and not plan.full
            and inputs.unchanged(template, before)
        ):
            into.kept.add(binding_path)
            into.add(_reused(template, binding, previous))
            continue
        doc = binding.to_doc()
        targets = [t.name for t in target_clusters(binding.spec)]
        digest = inputs.digest(template, doc, targets)
        same_inputs = before is not None and recorded.files.get(key) == digest
        made_from = inputs.template(template) if key in plan.settled else None
        if same_inputs and before == binding and recorded.templates.get(key) == made_from:
            into.kept.add(binding_path)
        else:
            into.files[binding_path] = _yaml.dump(_inputs.with_digests(doc, digest, made_from))
        if previous is not None and same_inputs and not plan.full:
            into.add(_reused(template, binding, previous))
            continue
        into.rendered += 1
        into.add(_work.render_binding(template, binding, plan.context))


def _namespaces_of(
    plan: Plan, listed: Mapping[str, Sequence[str]], previous_paths: Collection[str]
) -> list[Output]:
    by_key = {t.key: t for t in plan.templates}
    auto = [by_key[k] for k in plan.auto_namespaces if k in by_key]
    defined = {t.name for t in plan.templates if t.kind == "Namespace" and t.api_version == "v1"}
    previous = plan.previous
    reusable = previous is not None and plan.inputs.reusable and not plan.full

    def reuse(template: ResourceTemplate, cluster: str, path: str) -> Output | None:
        """A Namespace's manifest depends on nothing but the shared inputs (its template
        among them): while they are unchanged, the previous render's stays."""
        if previous is None or not reusable or path not in previous_paths:
            return None
        refused = previous.refusals.get(str(template.key), ())
        return Output({}, (path,), tuple(r for r in refused if r.cluster == cluster), (cluster,))

    wanted = _namespaces.needed(listed)
    return _namespaces.outputs(auto, defined, wanted, plan.context, reuse)


_WORKS_FOLDER = _paths.WORKS + "/"


class _Listing:
    """The tree's paths as they are settled: each cluster's manifests (relative to its folder),
    the files written and the previous files kept."""

    def __init__(self, clusters: Iterable[str], into: _Collected) -> None:
        self.by_cluster: dict[str, list[str]] = {name: [] for name in sorted(clusters)}
        self.files: dict[str, Data] = {}
        self.kept: set[str] = set()
        self.into = into

    def add(self, paths: Iterable[str]) -> None:
        by_cluster, written, files, kept = self.by_cluster, self.into.files, self.files, self.kept
        start = len(_paths.WORKS) + 1
        for path in paths:
            if path.startswith(_WORKS_FOLDER):
                name, _, relative = path[start:].partition("/")
                listed = by_cluster.get(name)
                if listed is None:
                    continue  # a cluster that left the fleet: its folder goes
                listed.append(relative)
            data = written.get(path)
            if data is not None:
                files[path] = data
            else:
                kept.add(path)


def render(plan: Plan) -> Tree:
    """The rendered tree of `plan` (see the module)."""
    previous_paths = plan.previous.paths if plan.previous is not None else frozenset()
    into = _Collected()
    _bindings(plan, into)
    listing = _Listing(plan.context.clusters, into)
    listing.add([*into.files, *(into.kept & previous_paths)])
    for output in _namespaces_of(plan, listing.by_cluster, previous_paths):
        into.add(output)
        present = [*output.files, *(p for p in output.kept if p in previous_paths)]
        listing.add(p for p in present if p not in listing.files and p not in listing.kept)
    by_cluster, files, kept = listing.by_cluster, listing.files, listing.kept
    counts = {name: len(listed) for name, listed in by_cluster.items()}
    for name, listed in by_cluster.items():
        folder = _paths.cluster_folder(name)
        files[f"{folder}/{_paths.KUSTOMIZATION}"] = _report.kustomization(listed)
    refusals = sorted(
        into.refusals, key=lambda r: (r.origin.path, r.origin.line, r.resource, r.cluster)
    )
    unscheduled = _unscheduled.unscheduled(plan.bindings, {t.key: t for t in plan.templates})
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
    )
    files[_paths.RENDER_FILE] = _yaml.dump(report)
    return Tree(files, frozenset(kept), tuple(refusals), into.rendered, report, unscheduled)
