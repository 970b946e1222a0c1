"""`gitfleet explain KIND/NAME`: why a resource went where it went.

Loads the source, runs the placement half of the pipeline and prints, for one resource: the policy
that claims it (with file and line) and why every other candidate lost; the binding; each filter's
verdict per cluster, the scores and the replica arithmetic, and where a cluster's capacity held
fewer replicas than wanted, whether it reported itself empty or its capacity is the last known or
the declared one (not collected now), or the grades of its resource models its nodes fall in
when those made the estimate; the Scheduled condition; when the descheduler last lowered the
schedule, and why; the dependencies that followed it (or the workloads it followed). KIND is spelled
as kubectl accepts it: kind, plural or short name, any case, optionally qualified by group
(`deployments.apps`, `deploy.v1.apps`), and the resource as `KIND/NAME` or `KIND NAME`. Exit 1 when
the resource is not in the source, is not propagated, or the render refuses it for every cluster
it goes to (a plain-text Secret, say); a mistyped kind, name or namespace (exit 1, as `gitfleet
get` and kubectl do) gets the closest that exist.

The placement is made from the inputs `gitfleet render` reads (`gitfleet.inputs`): the rendered
branch's tip as the previous render (claims and schedule results carry over) and the clusters'
reported status, every binding scheduled again as `render --full` does. A plain folder, or a
repository not rendered yet, is explained as a first render.
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import click

from gitfleet import autoscaling, descheduler, errors, inputs, pipeline, source
from gitfleet import render as rendering
from gitfleet.cli import kinds, options
from gitfleet.cli import output as out
from gitfleet.detector import detection
from gitfleet.gitstore import repository
from gitfleet.model import _codec, capacity, cluster, diagnostic, work
from gitfleet.model.origin import Origin, shown
from gitfleet.model.template import ResourceKey, ResourceTemplate
from gitfleet.scheduler import core, estimator
from gitfleet.scheduler.plugins import api_enablement


def _closest(word: str, known: Iterable[str]) -> list[str]:
    """The known words closest to a mistyped one, closest first."""
    return difflib.get_close_matches(word, sorted(set(known)), n=3, cutoff=0.6)


def _find(
    placement: pipeline.Placement, group_kind: kinds.GroupKind, namespace: str, name: str
) -> ResourceTemplate | None:
    for t in placement.detection.templates:
        if (t.key.group, t.kind, t.name) == (*group_kind, name) and t.namespace in (
            namespace,
            "",
        ):
            return t
    return None


def _where(key: ResourceKey) -> str:
    return f"{key.kind} {key.namespace}/{key.name}" if key.namespace else f"{key.kind} {key.name}"


def _targets(targets: Iterable[work.TargetCluster]) -> list[dict[str, Any]]:
    return [{"name": t.name, "replicas": t.replicas} for t in targets]


def _scheduled_condition(b: detection.Binding) -> dict[str, str] | None:
    for c in b.status.conditions:
        if c.type == "Scheduled":
            return {"status": c.status, "reason": c.reason, "message": c.message}
    return None


def _descheduled(b: detection.Binding) -> dict[str, str | None] | None:
    """The descheduler's last lowering of the binding's schedule, if any."""
    for c in b.status.conditions:
        if c.type == descheduler.CONDITION:
            return {"time": c.last_transition_time, "message": c.message}
    return None


def _binding_json(b: detection.Binding) -> dict[str, Any]:
    return {
        "kind": b.KIND,
        "namespace": b.namespace,
        "name": b.name,
        "replicas": b.spec.replicas,
        "placement": _codec.encode(b.spec.placement) if b.spec.placement else None,
        "clusters": _targets(b.spec.clusters),
        "requiredBy": [
            {"namespace": s.namespace, "name": s.name, "clusters": _targets(s.clusters)}
            for s in b.spec.required_by
        ],
        "scheduled": _scheduled_condition(b),
        "descheduled": _descheduled(b),
        "lastScheduledTime": b.status.last_scheduled_time,
        "dispatchingSuspended": list(b.spec.dispatching_suspended(t.name for t in b.spec.clusters)),
    }


def bindings_of(
    placement: pipeline.Placement, template: ResourceTemplate
) -> list[detection.Binding]:
    """The template's bindings: its own, and those attached for workloads that need it (one
    per requirer namespace)."""
    key = template.key
    return [
        b
        for b in placement.bindings
        if (b.spec.resource.kind, b.spec.resource.namespace, b.spec.resource.name)
        == (key.kind, key.namespace, key.name)
    ]


def _limits(
    placement: pipeline.Placement,
    found: Iterable[detection.Binding],
    reported: Mapping[str, cluster.ClusterStatus],
) -> list[dict[str, Any]]:
    """The clusters whose capacity holds fewer replicas than a binding wants, each with where
    that capacity comes from (`model.capacity`): a zero from a cluster that reported no nodes
    is an empty cluster, not a failure; a summary not collected now is the last known or the
    declared one (`summary`: whether there is any, declared or reported)."""
    limits: dict[str, dict[str, Any]] = {}
    members = {c.name: c for c in placement.clusters}
    for b in found:
        outcome = placement.outcome(detection.BindingRef.of(b))
        if outcome is None or not core.asks_estimator(b.spec):
            continue
        for attempt in outcome.diagnosis.attempts:
            for c in attempt.candidates:
                if c.available >= b.spec.replicas or c.name in limits:
                    continue
                member = members.get(c.name)
                limits[c.name] = {
                    "cluster": c.name,
                    "replicas": b.spec.replicas,
                    "available": c.available,
                    "summary": member is not None and member.status.resource_summary is not None,
                    "models": _models(member, b.spec.replica_requirements),
                    **capacity.of(reported.get(c.name)).to_json(),
                }
    return [limits[name] for name in sorted(limits)]


def _models(
    member: cluster.Cluster | None, requirements: work.ReplicaRequirements | None
) -> list[dict[str, int]] | None:
    """The nodes per grade the estimate packed replicas onto when it came from the cluster's
    resource models (None: from its summary)."""
    if member is None or not estimator.by_resource_models(member, requirements):
        return None
    summary = member.status.resource_summary
    modelings = summary.allocatable_modelings if summary is not None else ()
    return [{"grade": m.grade, "count": m.count} for m in modelings if m.count]


def _graded(models: list[dict[str, int]]) -> str:
    if not models:
        return "no node in any grade"
    return ", ".join(
        f"{m['count']} node{'s' if m['count'] != 1 else ''} in grade {m['grade']}" for m in models
    )


def _unknown_apis_line(clusters: list[str]) -> str:
    """What to do about the clusters that serve no API gitfleet knows of, said of one or many."""
    if len(clusters) == 1:
        return (
            f"APIs: {clusters[0]} serves no API gitfleet knows of: no status.apiEnablements in "
            "the Cluster, none reported by an agent; declare the kinds the cluster serves "
            "there, or run its agent"
        )
    return (
        f"APIs: {', '.join(clusters)} serve no API gitfleet knows of: no status.apiEnablements "
        "in their Clusters, none reported by an agent; declare the kinds each cluster serves "
        "there, or run their agents"
    )


def _limit_line(limit: dict[str, Any]) -> str | None:
    """Why a cluster's capacity is what it is: its resource models' grades when its agent
    collected its nodes just now, else where its summary comes from when not collected now."""
    fits = f"capacity: {limit['cluster']} fits {limit['available']} of {limit['replicas']} replicas"
    why = f" ({limit['reason']}): {limit['message']}" if limit["reason"] else ""
    nodes = limit["nodes"]
    source = capacity.Source(limit["source"])
    if source is capacity.Source.EMPTY:
        return f"{fits}: it reported no nodes (an empty cluster)"
    if source is capacity.Source.COLLECTED and limit["models"] is not None:
        return f"{fits} by its resource models: {_graded(limit['models'])}"
    if source is capacity.Source.LAST_KNOWN:
        counted = f", {nodes['ready']}/{nodes['total']} nodes" if nodes is not None else ""
        return f"{fits} by its last known summary{counted}: not collected now{why}"
    if source is capacity.Source.DECLARED:
        declared = "the capacity declared in the source"
        if not limit["summary"]:
            return f"{fits}: no capacity is declared in the source and its agent reported none"
        if why:
            return f"{fits} by {declared}: never collected{why}"
        return f"{fits} by {declared}: its agent reported none"
    return None


def _unknown_apis(placement: pipeline.Placement, found: Iterable[detection.Binding]) -> list[str]:
    """The clusters the APIEnablement filter turned down that serve no API gitfleet knows of:
    their Cluster declares no `status.apiEnablements` and their agents reported none (Karmada
    would have collected them when the cluster joined)."""
    empty = {c.name for c in placement.clusters if not c.status.api_enablements}
    names: set[str] = set()
    for b in found:
        outcome = placement.outcome(detection.BindingRef.of(b))
        for attempt in outcome.diagnosis.attempts if outcome is not None else ():
            names.update(
                name
                for name in empty & set(attempt.filters)
                if any(
                    plugin == api_enablement.NAME and not r.success
                    for plugin, r in attempt.filters[name]
                )
            )
    return sorted(names)


def _problems(
    placement: pipeline.Placement, template: ResourceTemplate
) -> list[diagnostic.Diagnostic]:
    """The problems found in the template's file."""
    return [d for d in placement.diagnostics if d.origin.path == template.origin.path]


def report(
    placement: pipeline.Placement,
    template: ResourceTemplate,
    reported: Mapping[str, cluster.ClusterStatus],
    refused: Sequence[rendering.Refusal],
) -> dict[str, Any]:
    """Everything `explain` says about one template, with stable keys (`reported`: each
    cluster's reported status, by name; `refused`: what the render refuses of its
    manifests)."""
    decision = placement.detection.decision(template.key)
    assert decision is not None
    found = bindings_of(placement, template)
    refs = [detection.BindingRef.of(b) for b in found]
    outcomes = [o for o in (placement.outcome(r) for r in refs) if o is not None]
    deps = [d for d in placement.dependencies if d.requirer in refs]
    auto = template.key in placement.detection.auto_namespaces
    return {
        "decision": decision.to_json(),
        "bindings": [_binding_json(b) for b in found],
        "schedules": [o.diagnosis.to_json() for o in outcomes],
        "capacity": _limits(placement, found, reported),
        "unknownApis": _unknown_apis(placement, found),
        "dependencies": [
            {
                "references": [_codec.encode(r) for r in d.references],
                "attached": [_where(k) for k in d.attached],
                "missing": list(d.missing),
            }
            for d in deps
        ],
        "namespaceSync": [c.name for c in placement.clusters] if auto else None,
        "refused": [r.to_json() for r in refused],
        "diagnostics": [d.to_json() for d in _problems(placement, template)],
    }


_SELECTS_BY = {
    "MATCH_NAME": "name",
    "MATCH_LABEL_SELECTOR": "label selector",
    "MATCH_ALL": "kind (match-all)",
}


def _policy_lines(decision: detection.Decision, repo: str) -> list[str]:
    lines = ["policy:"]
    if decision.claim is not None:
        lines.append(f"  claimed by {decision.claim} in the previous render")
    if not decision.candidates:
        lines.append("  no policy has a selector for this kind")
    for c in decision.candidates:
        origin = out.origin_from_here(c.policy.origin, repo)
        where = f" ({origin})" if origin.line else ""
        selects = _SELECTS_BY.get(c.implicit_priority.name)
        if selects is None:
            lines.append(f"  {c.verdict}: {c.policy}{where}: {c.reason}")
            continue
        lines.append(
            f"  {c.verdict}: {c.policy}{where}: priority {c.explicit_priority}, selects by "
            f"{selects}: {c.reason}"
        )
    return lines


def _binding_lines(b: dict[str, Any]) -> list[str]:
    where = f"{b['namespace']}/{b['name']}" if b["namespace"] else b["name"]
    lines = [f"binding: {b['kind']} {where}, {b['replicas']} replicas"]
    scheduled = b["scheduled"]
    if scheduled is not None:
        lines.append(
            f"condition Scheduled={scheduled['status']} ({scheduled['reason']}): "
            f"{scheduled['message']}"
        )
    lowered = b["descheduled"]
    if lowered is not None:
        lines.append(f"lowered by the descheduler at {lowered['time']}: {lowered['message']}")
    clusters = ", ".join(f"{t['name']}={t['replicas']}" for t in b["clusters"]) or "none"
    lines.append(f"clusters: {clusters}")
    if b["dispatchingSuspended"]:
        lines.append(
            f"dispatching suspended to {', '.join(b['dispatchingSuspended'])} (the policy's "
            "suspension): they keep the manifests they were last sent"
        )
    if b["lastScheduledTime"]:
        lines.append(f"last scheduled: {b['lastScheduledTime']}")
    for s in b["requiredBy"]:
        names = ", ".join(t["name"] for t in s["clusters"]) or "none"
        lines.append(f"required by ResourceBinding {s['namespace']}/{s['name']}: {names}")
    return lines


def _refused_everywhere(refused: Sequence[dict[str, Any]]) -> bool:
    """Whether the render writes none of the resource's manifests (a refusal for no one
    cluster is for all of them)."""
    return any(not r["cluster"] for r in refused)


def _refused_lines(refused: Sequence[dict[str, Any]], repo: str) -> list[str]:
    if _refused_everywhere(refused):
        return []
    return [
        Origin(out.path_from_here(r["path"], repo), r["line"], r["col"]).says(
            f"refused for cluster {r['cluster']}: {r['message']}"
        )
        for r in refused
    ]


def _outcome_line(
    decision: detection.Decision,
    found: Iterable[detection.Binding],
    refused: Sequence[dict[str, Any]],
    repo: str,
) -> str:
    """The detector's verdict, unless the render refuses every manifest of the resource; for a
    template no policy claims that workloads need (propagateDeps), where it goes with them,
    which the detector does not know yet."""
    if _refused_everywhere(refused):
        first = refused[0]
        where = Origin(out.path_from_here(first["path"], repo), first["line"], first["col"])
        return f"outcome: refused: no cluster receives it ({where}): {shown(first['message'])}"
    targets = sorted({t.name for b in found for s in b.spec.required_by for t in s.clusters})
    if decision.binding is not None or not targets:
        return f"outcome: {decision.outcome}: {decision.message}"
    why = decision.message.removeprefix("not propagated: ")
    return (
        f"outcome: dependency: sent with the workloads that need it (propagateDeps) to "
        f"{', '.join(targets)}; no policy of its own: {why}"
    )


def human(
    placement: pipeline.Placement,
    template: ResourceTemplate,
    data: dict[str, Any],
    repo: str = ".",
) -> str:
    """The explanation as text, its files named as seen from the current folder (`repo`:
    the source as given), as validate names them; `-o json` keeps the source's paths."""
    decision = placement.detection.decision(template.key)
    assert decision is not None
    origin = out.origin_from_here(template.origin, repo)
    lines = [
        f"{_where(template.key)} ({template.api_version}, {origin})",
        _outcome_line(decision, bindings_of(placement, template), data["refused"], repo),
        *_refused_lines(data["refused"], repo),
        _inputs_line(data["inputs"]),
        *_policy_lines(decision, repo),
    ]
    for b in bindings_of(placement, template):
        lines.extend(_binding_lines(_binding_json(b)))
        outcome = placement.outcome(detection.BindingRef.of(b))
        if outcome is not None:
            lines.append("scheduling:")
            lines.extend(f"  {line}" for line in outcome.diagnosis.lines())
    lines.extend(line for limit in data["capacity"] if (line := _limit_line(limit)) is not None)
    if unknown := data["unknownApis"]:
        lines.append(_unknown_apis_line(unknown))
    for deps in data["dependencies"]:
        lines.append("dependencies (propagateDeps):")
        lines.extend(f"  attached: {a}" for a in deps["attached"])
        lines.extend(f"  not in the source: {m}" for m in deps["missing"])
    if data.get("autoscaling") is not None:
        lines.append(f"autoscaling: {autoscaling.decision_line(data['autoscaling'])}")
    if data["namespaceSync"] is not None:
        names = ", ".join(data["namespaceSync"]) or "none"
        lines.append(f"namespace controller: sent to every cluster ({names})")
    lines.extend(str(out.problem_from_here(d, repo)) for d in _problems(placement, template))
    return "\n".join(lines) + "\n"


def _autoscaling(
    loaded: source.LoadedSource, found: inputs.Inputs, template: ResourceTemplate
) -> dict[str, Any] | None:
    """The FederatedHPA that scales the template, with its last decision (None: none)."""
    files = found.previous.autoscalers if found.previous is not None else {}
    described = autoscaling.described(loaded.objects, files)
    return next((d for d in described if d["target"] == str(template.key)), None)


def _render_inputs(path: str, loaded: source.LoadedSource) -> inputs.Inputs:
    """What render would read beside the source; a repository whose refs cannot be read (one
    naming an object that is not there) is an input error, as in render."""
    repo = repository.open_repository(path) if loaded.revision is not None else None
    try:
        return inputs.read(repo, loaded)
    except errors.InputError as error:
        out.fail_input(error)
    finally:
        if repo is not None:
            repo.close()


def _load(repo: str, rev: str | None) -> source.LoadedSource:
    """The source; a folder below a repository's top is read as plain files, which explains
    its templates without the policies and clusters beside it: a note says so, with the
    `--repo` of the top, as validate says it."""
    try:
        loaded = source.load(repo, rev)
    except errors.UsageError as error:
        raise click.UsageError(str(error)) from error
    except errors.InputError as error:
        out.fail_input(error)
    hint = repository.inside_repository(repo) if loaded.revision is None else None
    if hint:
        click.echo(f"note: read the folder {repo} as plain files; {hint}", err=True)
    if not loaded.ok:
        for d in loaded.diagnostics:
            if d.severity is diagnostic.Severity.ERROR:
                click.echo(str(out.problem_from_here(d, repo)), err=True)
        sys.exit(1)
    return loaded


def _not_found(
    placement: pipeline.Placement, group_kind: kinds.GroupKind, namespace: str, name: str
) -> str:
    """Why KIND/NAME is not explained, with the namespaces it is in, or the names of that kind
    in the namespace (and the namespaces) closest to what was typed."""
    same_kind = [t for t in placement.detection.templates if (t.key.group, t.kind) == group_kind]
    elsewhere = sorted(t.namespace for t in same_kind if t.name == name)
    if elsewhere:
        hint = f" (it is in namespace {', '.join(elsewhere)}: use -n)"
    else:
        names = [t.name for t in same_kind if t.namespace in (namespace, "")]
        hint = kinds.did_you_mean(_closest(name, names))
        namespaces = {t.namespace for t in placement.detection.templates if t.namespace}
        if not hint and namespace not in namespaces:
            hint = kinds.did_you_mean(_closest(namespace, namespaces), "-n ")
    return f"{group_kind[1]} {name} is not in the source in namespace {namespace}{hint}"


def _inputs(found: inputs.Inputs, placement: pipeline.Placement) -> dict[str, Any]:
    """Which render inputs the explanation was made from (`gitfleet render`'s own)."""
    previous = found.previous
    return {
        "renderedBranch": found.branch,
        "previousRender": previous.commit if previous is not None else None,
        "previousSource": previous.source_commit if previous is not None else None,
        "clusterStatus": {
            c.name: "reported"
            if c.name in found.status
            else "declared"
            if c.status != cluster.ClusterStatus()
            else "none"
            for c in placement.clusters
        },
    }


def _inputs_line(data: dict[str, Any]) -> str:
    previous = data["previousRender"]
    if previous is None:
        line = f"inputs: no previous render on {data['renderedBranch']}"
    else:
        line = f"inputs: previous render {previous[:12]} on {data['renderedBranch']}"
        if data["previousSource"]:
            line += f" (source {data['previousSource'][:12]})"
    reported = [n for n, came in data["clusterStatus"].items() if came == "reported"]
    declared = [n for n, came in data["clusterStatus"].items() if came == "declared"]
    if reported:
        line += f"; status reported by {', '.join(reported)}"
    if declared:
        line += f"; status declared in the source for {', '.join(declared)}"
    unknown = [n for n, came in data["clusterStatus"].items() if came == "none"]
    if unknown:
        line += f"; no status for {', '.join(unknown)} (none declared, none reported)"
    return line


@click.command()
@click.argument("resource", nargs=-1, required=True, metavar="KIND/NAME | KIND NAME")
@options.namespace_option
@options.repo_option
@options.rev_option
@options.output_option
def explain(
    resource: tuple[str, ...], namespace: str, repo: str, rev: str | None, output: str
) -> None:
    """Why KIND/NAME went where it went: policy, filters, scores, replicas, dependencies."""
    try:
        kind_token, name = kinds.kind_and_name(resource)
    except errors.UsageError as error:
        raise click.UsageError(str(error)) from error
    if not name:
        raise click.UsageError(f"expected KIND/NAME or KIND NAME, got {resource[0]!r}")
    loaded = _load(repo, rev)
    found = _render_inputs(repo, loaded)
    placement = pipeline.placement(loaded, found.previous, found.status, now=found.now)
    try:
        group_kind = kinds.resolve(kind_token, placement.detection.templates)
    except errors.UsageError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(1)
    wanted_namespace = namespace or loaded.config.default_namespace
    template = _find(placement, group_kind, wanted_namespace, name)
    if template is None:
        click.echo(_not_found(placement, group_kind, wanted_namespace, name), err=True)
        sys.exit(1)
    data = {
        **report(placement, template, found.status, pipeline.refusals(loaded, placement, template)),
        "inputs": _inputs(found, placement),
        "autoscaling": _autoscaling(loaded, found, template),
    }
    out.emit(data, output, human(placement, template, data, repo))
    if not data["bindings"] and data["namespaceSync"] is None:
        sys.exit(1)
    if _refused_everywhere(data["refused"]):
        sys.exit(1)
