"""Render: placed bindings to the files of the rendered branch (Karmada: the binding controller's
ensureWork and the namespace sync controller), as a pure function.

`render(plan)` turns the final bindings of one source revision into the tree of DESIGN.md §3:
one manifest per resource and cluster under `works/<cluster>/` (`_work`: replicas, overrides,
labels, pruning), the Namespaces the clusters need (`_namespaces`), one kustomization per
cluster and `render.yaml` (`_report`), and each binding under `bindings/`, every file written
by the deterministic YAML writer (`_yaml`) at a path built from checked names (`_paths`).

It does no I/O and reads nothing of the previous render but what the plan hands it: the paths
the previous tree has (a refused or suspended manifest keeps its previous file, if any, and so
does a cluster a binding is being evicted from while the eviction task lasts) and,
for incremental renders, each binding's input digest (`_inputs`): a binding whose digest is
unchanged keeps its previous files without being rendered again. Overrides and the Webster
division come in through the plan's context, so this stage imports no other stage.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from gitfleet.model import config, diagnostic, objects, work
from gitfleet.model.template import ResourceKey, ResourceTemplate
from gitfleet.render import _inputs, _namespaces, _paths, _report, _work, _yaml, _yamlread

Binding = work.ResourceBinding | work.ClusterResourceBinding
Context = _work.Context
Output = _work.Output
Refusal = _work.Refusal
Override = _work.Override
Divide = _work.Divide
dump_yaml = _yaml.dump
read_own_yaml = _yamlread.load
RENDER_FILE = _paths.RENDER_FILE
INPUTS_ANNOTATION = _inputs.ANNOTATION
target_clusters = _work.target_clusters


def resource_key(binding: Binding) -> ResourceKey:
    r = binding.spec.resource
    return ResourceKey(r.api_version, r.kind, r.namespace, r.name)


@dataclasses.dataclass(frozen=True, slots=True)
class Previous:
    """What a render may take from the previous one."""

    paths: frozenset[str]
    """Every file of the previous tree."""
    bindings: Mapping[ResourceKey, Binding]
    """The previous bindings (with their recorded input digests), by template."""
    refusals: Mapping[str, tuple[Refusal, ...]]
    """Previous refusals, by resource (as `str(ResourceKey)`)."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """Everything one render reads."""

    bindings: Sequence[Binding]
    templates: Sequence[ResourceTemplate]
    """The source's templates with their effective namespace."""
    auto_namespaces: Sequence[ResourceKey]
    objects: objects.ObjectSet
    third_party: Sequence[config.ResourceInterpreterCustomization]
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


@dataclasses.dataclass(frozen=True, slots=True)
class Tree:
    """The rendered tree: new files, previous files kept as they are, what was refused, and
    how many bindings were rendered again (the others were reused)."""

    files: Mapping[str, bytes]
    kept: frozenset[str]
    refusals: tuple[Refusal, ...]
    rendered: int
    report: Mapping[str, Any]
    """render.yaml's document (written in `files`)."""

    @property
    def paths(self) -> frozenset[str]:
        return frozenset(self.files) | self.kept


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
    files: dict[str, bytes] = dataclasses.field(default_factory=dict)
    kept: set[str] = dataclasses.field(default_factory=set)
    refusals: list[Refusal] = dataclasses.field(default_factory=list)
    rendered: int = 0

    def add(self, output: Output) -> None:
        for path, data in output.files.items():
            self.files.setdefault(path, data)
        self.kept.update(p for p in output.kept if p not in self.files)
        self.refusals.extend(output.refusals)


def _after(time: str, other: str) -> bool:
    try:
        return datetime.datetime.fromisoformat(time) > datetime.datetime.fromisoformat(other)
    except ValueError:
        return True


def _steady(binding: Binding, previous: Binding | None) -> Binding:
    """`binding` with the previous `lastScheduledTime` when nothing else changed.

    Karmada's scheduler schedules duplicated and replica-less bindings again on every event,
    stamping the time each time; in Git that would rewrite every such binding on every commit.
    A schedule that changed nothing keeps the time of the last one that did (unless a
    reschedule was requested after it, whose handling the new time records)."""
    if previous is None:
        return binding
    old, new = previous.status.last_scheduled_time, binding.status.last_scheduled_time
    trigger = binding.spec.reschedule_triggered_at
    if old is None or old == new or (trigger is not None and _after(trigger, old)):
        return binding
    kept = dataclasses.replace(
        binding, status=dataclasses.replace(binding.status, last_scheduled_time=old)
    )
    return kept if _without_digest(kept) == _without_digest(previous) else binding


def _without_digest(binding: Binding) -> Binding:
    found = binding.metadata.annotations or {}
    if INPUTS_ANNOTATION not in found:
        return binding
    annotations = {k: v for k, v in found.items() if k != INPUTS_ANNOTATION} or None
    return dataclasses.replace(
        binding, metadata=dataclasses.replace(binding.metadata, annotations=annotations)
    )


def _bindings(plan: Plan, into: _Collected) -> None:
    by_key = {t.key: t for t in plan.templates}
    inputs = _inputs.Inputs(
        plan.objects, list(plan.context.clusters.values()), plan.third_party, plan.renderer
    )
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
        steady = _steady(binding, before)
        doc = _inputs.binding_doc(steady)
        targets = [t.name for t in target_clusters(binding.spec)]
        digest = inputs.digest(template, doc, targets)
        same_inputs = before is not None and _inputs.recorded(before) == digest
        if (
            same_inputs
            and before is not None
            and _without_digest(steady) == _without_digest(before)
        ):
            into.kept.add(binding_path)
        else:
            into.files[binding_path] = _yaml.dump(_inputs.with_digest(doc, digest))
        into.kept.update(_evicting(template, binding))
        if previous is not None and same_inputs and not plan.full:
            into.add(_reused(template, binding, previous))
            continue
        into.rendered += 1
        into.add(_work.render_binding(template, binding, plan.context))


def _namespaces_of(plan: Plan, into: _Collected, previous_paths: Collection[str]) -> None:
    by_key = {t.key: t for t in plan.templates}
    auto = [by_key[k] for k in plan.auto_namespaces if k in by_key]
    defined = {t.name for t in plan.templates if t.kind == "Namespace" and t.api_version == "v1"}

    def existing(path: str) -> bool:
        return path in into.files or path in previous_paths

    placed = [*into.files, *into.kept]
    for output in _namespaces.outputs(auto, defined, placed, plan.context, existing):
        into.add(output)


def render(plan: Plan) -> Tree:
    """The rendered tree of `plan` (see the module)."""
    previous_paths = plan.previous.paths if plan.previous is not None else frozenset()
    into = _Collected()
    _bindings(plan, into)
    _namespaces_of(plan, into, previous_paths)
    by_cluster: dict[str, list[str]] = {name: [] for name in sorted(plan.context.clusters)}
    files: dict[str, bytes] = {}
    kept: set[str] = set()
    for path in (*into.files, *(p for p in into.kept if p in previous_paths)):
        top, _, rest = path.partition("/")
        if top == _paths.WORKS:
            name, _, relative = rest.partition("/")
            if name not in by_cluster:
                continue  # a cluster that left the fleet: its folder goes
            by_cluster[name].append(relative)
        if path in into.files:
            files[path] = into.files[path]
        else:
            kept.add(path)
    counts = {name: len(listed) for name, listed in by_cluster.items()}
    for name, listed in by_cluster.items():
        folder = _paths.cluster_folder(name)
        files[f"{folder}/{_paths.KUSTOMIZATION}"] = _report.kustomization(listed)
    refusals = sorted(
        into.refusals, key=lambda r: (r.origin.path, r.origin.line, r.resource, r.cluster)
    )
    report = _report.render_file(
        source_commit=plan.source_commit,
        renderer=plan.renderer,
        status=plan.status,
        bindings=len(plan.bindings),
        manifests=counts,
        refusals=refusals,
        warnings=diagnostic.sorted_diagnostics(list(plan.warnings)),
        failover=plan.failover,
        observed_at=plan.observed_at,
    )
    files[_paths.RENDER_FILE] = _yaml.dump(report)
    return Tree(files, frozenset(kept), tuple(refusals), into.rendered, report)
