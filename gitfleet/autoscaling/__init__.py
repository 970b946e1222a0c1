"""The autoscaling stage: FederatedHPAs set their targets' replicas from metrics measured
across the member clusters, as pure functions of the source, the previous render's
FederatedHPA files, the agents' measurements and the time (Karmada:
pkg/controllers/federatedhpa, with the defaults of its mutating webhook).

`autoscale` runs once per render, before placement. For each FederatedHPA of the source:
1. the current replicas are those the autoscaler last set (its file on the rendered branch),
   unless the template's replicas in the source changed since, which is a user's scale, as
   `kubectl scale` on a Karmada template is;
2. with measurements (`workloads`, the pods of the target in each cluster its binding placed
   it on, from the agents' reports) and a time, it evaluates as Karmada's controller does
   every sync period: bounds first (above maxReplicas, below minReplicas), then whether
   another FederatedHPA controls the same pods (`_selectors`: then it does not scale), else
   each metric's proposal (`_calculator`), the highest winning, then stabilization and rate
   limits (`_behavior`); without measurements (a render from the command line) nothing is
   evaluated and the last decision stands;
3. the template is replaced by a copy with the decided `spec.replicas`, so detection reads
   them as the binding's replicas and the scheduler divides them.

Templates no FederatedHPA targets are passed through untouched; a template two FederatedHPAs
target carries the first one's decision (neither scales it: both are ambiguous). The result
also holds the FederatedHPA files to write (`_state`) and one line per change for the commit
message.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Mapping, Sequence
from typing import Any

from gitfleet.autoscaling import _behavior, _calculator, _samples, _selectors, _state
from gitfleet.interpreter import _quantity as quantity
from gitfleet.model import autoscaling, loaded, objects, template, times
from gitfleet.model.template import ResourceKey

Workload = _samples.Workload
Pod = _samples.Pod
State = _state.State
FOLDER = _state.FOLDER
from_report = _samples.from_report
read_state = _state.read
state_path = _state.path
RESOURCES = _samples.RESOURCES
TARGET_ANNOTATION = "gitfleet.io/federated-hpa"
"""Put on the manifests of a FederatedHPA's target (value `<namespace>/<name>`): the agents
measure the workloads that carry it (`agent.podmetrics`)."""
DEFAULT_UTILIZATION = 80
"""The cpu utilization target of a FederatedHPA without metrics (Karmada's webhook)."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Decision:
    """One FederatedHPA's evaluation (or its last one, when nothing was evaluated)."""

    hpa: autoscaling.FederatedHPA
    target: ResourceKey
    replicas: int
    """The replicas the template is rendered with."""
    state: State
    line: str | None = None
    """The commit message's line, when this render changed the replicas."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Autoscaled:
    objects: objects.ObjectSet
    """The source's objects, targets carrying the decided replicas."""
    decisions: tuple[Decision, ...] = ()
    files: Mapping[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    """The FederatedHPA file of each decision, by path, as a document."""

    def message(self, default: str) -> str:
        lines = [d.line for d in self.decisions if d.line]
        return "\n\n".join([*lines, default]) if lines else default


def _replicas_of(body: Mapping[str, Any]) -> int:
    """The template's replicas (absent: 1, the API server's default for workloads)."""
    spec = body.get("spec")
    value = spec.get("replicas") if isinstance(spec, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else 1


def _target_of(
    hpa: autoscaling.FederatedHPA, templates: Sequence[template.ResourceTemplate]
) -> template.ResourceTemplate | None:
    ref = hpa.spec.scale_target_ref
    return next(
        (
            t
            for t in templates
            if (t.namespace, t.kind, t.name) == (hpa.namespace, ref.kind, ref.name)
            and (not ref.api_version or ref.api_version == t.api_version)
        ),
        None,
    )


def _scaled(
    t: template.ResourceTemplate, replicas: int, hpa: autoscaling.FederatedHPA
) -> template.ResourceTemplate:
    """A copy of the target with the decided replicas and the annotation that has it
    measured."""
    spec = t.body.get("spec")
    metadata: Any = dict(t.body.get("metadata") or {})
    annotations = dict(metadata.get("annotations") or {})
    annotations[TARGET_ANNOTATION] = f"{hpa.namespace}/{hpa.name}"
    metadata["annotations"] = annotations
    body: Any = {
        **t.body,
        "metadata": metadata,
        "spec": {**(spec if isinstance(spec, dict) else {}), "replicas": replicas},
    }
    return dataclasses.replace(t, body=body)


def autoscale(
    objs: objects.ObjectSet,
    previous: Mapping[str, Mapping[str, Any]],
    workloads: Mapping[ResourceKey, Sequence[Workload]] | None,
    now: str | None,
    settings: loaded.AutoscalingSettings,
) -> Autoscaled:
    """Every FederatedHPA's decision and the objects rendered with them. `previous` holds the
    previous render's FederatedHPA files by path; `workloads` the measurements of each target
    (None: do not evaluate); `now` the time of the evaluation (RFC 3339)."""
    if not objs.federated_hpas:
        return Autoscaled(objects=objs)
    moment = times.parse(now) if workloads is not None else None
    targets = [
        (hpa, found)
        for hpa in objs.federated_hpas
        if (found := _target_of(hpa, objs.templates)) is not None
    ]
    ambiguous = _selectors.ambiguities(targets, objs.templates)
    replaced: dict[ResourceKey, tuple[int, autoscaling.FederatedHPA]] = {}
    decisions, files = [], {}
    for hpa, found in targets:
        path = _state.path(hpa.namespace, hpa.name)
        before = previous.get(path)
        blocked = ambiguous.get((hpa.namespace, hpa.name))
        decision = _decide(hpa, found, _state.read(before), workloads, moment, settings, blocked)
        replaced.setdefault(found.key, (decision.replicas, hpa))
        if decision.state.current is None:
            continue
        decisions.append(decision)
        doc = decision.state.document(hpa.KIND, hpa.namespace, hpa.name)
        kept = before is not None and _state.read(before).memory() == decision.state.memory()
        files[path] = dict(before) if kept and before is not None else doc
    templates = tuple(
        _scaled(t, *replaced[t.key]) if t.key in replaced else t for t in objs.templates
    )
    return Autoscaled(
        objects=dataclasses.replace(objs, templates=templates),
        decisions=tuple(decisions),
        files=files,
    )


def _decide(
    hpa: autoscaling.FederatedHPA,
    target: template.ResourceTemplate,
    state: State,
    workloads: Mapping[ResourceKey, Sequence[Workload]] | None,
    now: datetime.datetime | None,
    settings: loaded.AutoscalingSettings,
    ambiguity: _selectors.Ambiguity | None = None,
) -> Decision:
    source = _replicas_of(target.body)
    user_scaled = state.template_replicas != source
    current = source if state.current is None or user_scaled else state.desired
    if workloads is None or now is None:
        kept = dataclasses.replace(state, template_replicas=source, desired=current)
        if state.current is None:
            return Decision(hpa=hpa, target=target.key, replicas=source, state=state)
        return Decision(hpa=hpa, target=target.key, replicas=current, state=kept)
    evaluation = _Evaluation(hpa, state, current, now, settings)
    evaluation.run(workloads.get(target.key, ()), ambiguity)
    final = evaluation.state(source)
    line = None
    if final.desired != current:
        line = (
            f"autoscale: FederatedHPA {hpa.namespace}/{hpa.name}: {evaluation.reason}, "
            f"{current} -> {final.desired} replicas"
        )
    return Decision(hpa=hpa, target=target.key, replicas=final.desired, state=final, line=line)


def _amount(milli: int) -> str:
    return str(quantity.of_milli(milli, quantity.Format.DECIMAL_SI))


def _targets(hpa: autoscaling.FederatedHPA) -> list[_calculator.Target | str]:
    """Each metric's target, or why it cannot be read (defaulted: cpu at 80%)."""
    if not hpa.spec.metrics:
        return [_calculator.Target("cpu", DEFAULT_UTILIZATION)]
    found: list[_calculator.Target | str] = []
    for metric in hpa.spec.metrics:
        source = metric.resource
        if metric.type != "Resource" or source is None:
            found.append(f"{metric.type} metrics are not read by gitfleet")
            continue
        goal = source.target
        if goal.average_utilization is not None and goal.average_utilization > 0:
            found.append(_calculator.Target(source.name, goal.average_utilization))
            continue
        try:
            average = quantity.parse(goal.average_value).milli_value()
        except ValueError as error:
            found.append(f"invalid target averageValue of {source.name}: {error}")
            continue
        if average <= 0:
            found.append(f"the target of {source.name} is not positive")
            continue
        found.append(_calculator.Target(source.name, None, average))
    return found


def _describe(target: _calculator.Target, proposal: _calculator.Proposal) -> str:
    if target.utilization is not None:
        return f"{target.resource} {proposal.utilization}% of {target.utilization}% target"
    return (
        f"{target.resource} {_amount(proposal.average)} of {_amount(target.average)} average target"
    )


def _metric_name(target: _calculator.Target) -> str:
    if target.utilization is not None:
        return f"{target.resource} resource utilization (percentage of request)"
    return f"{target.resource} resource"


def _metric_status(target: _calculator.Target, proposal: _calculator.Proposal) -> dict[str, Any]:
    current: dict[str, Any] = {"averageValue": _amount(proposal.average)}
    if proposal.utilization is not None:
        current["averageUtilization"] = proposal.utilization
    return {"type": "Resource", "resource": {"name": target.resource, "current": current}}


class _Evaluation:
    """One evaluation of one FederatedHPA (Karmada's reconcileAutoscaler)."""

    def __init__(
        self,
        hpa: autoscaling.FederatedHPA,
        state: State,
        current: int,
        now: datetime.datetime,
        settings: loaded.AutoscalingSettings,
    ) -> None:
        self.hpa, self.before, self.current = hpa, state, current
        self.now, self.settings = now, settings
        self.desired = current
        self.reason = ""
        self.metrics: list[dict[str, Any]] = []
        self.conditions: dict[str, tuple[str, str, str]] = {}
        self.runs = state.recommendations or (_behavior.Recommendation(current, times.text(now)),)
        self.events = (state.scale_up, state.scale_down)
        self.rules = _behavior.behavior(hpa.spec.behavior, settings)

    def _condition(self, kind: str, status: bool, reason: str, message: str) -> None:
        self.conditions[kind] = ("True" if status else "False", reason, message)

    def run(
        self, workloads: Sequence[Workload], ambiguity: _selectors.Ambiguity | None = None
    ) -> None:
        spec = self.hpa.spec
        low = spec.min_replicas if spec.min_replicas is not None else 1
        members = sum(w.spec_replicas for w in workloads)
        if members == 0:
            message = (
                "failed to get replicas in any of clusters, possibly because all of clusters "
                "are not ready"
            )
            self._condition("AbleToScale", False, "FailedGetScale", message)
            return
        message = "the HPA controller was able to get the target's current scale"
        self._condition("AbleToScale", True, "SucceededGetScale", message)
        if self.current > spec.max_replicas:
            self.desired, self.reason = spec.max_replicas, "above maxReplicas"
            return
        if self.current < low:
            self.desired, self.reason = low, "below minReplicas"
            return
        if ambiguity is not None:
            self._condition("ScalingActive", False, "AmbiguousSelector", ambiguity.message)
            return
        proposal = self._propose(workloads, members)
        if proposal is None:
            return
        self._normalize(proposal, (low, spec.max_replicas))

    def _propose(self, workloads: Sequence[Workload], members: int) -> int | None:
        """The highest proposal of the metrics (None: no metric could be computed, or one
        failed while the others propose a scale-down)."""
        pods = _calculator.pods_of(workloads)
        calibration = members / self.current if self.current else 1.0
        incomplete = [w.problem for w in workloads if not w.complete]
        best: tuple[int, str, str] | None = None
        failures: list[str] = []
        targets = _targets(self.hpa)
        for target in targets:
            if isinstance(target, str):
                failures.append(target)
                continue
            try:
                if incomplete:
                    raise _calculator.CalculationError(incomplete[0])
                found = _calculator.propose(
                    pods, target, self.current, calibration, self.now, self.settings
                )
            except _calculator.CalculationError as error:
                failures.append(f"failed to get {target.resource} utilization: {error}")
                continue
            self.metrics.append(_metric_status(target, found))
            if best is None or found.replicas > best[0]:
                best = (found.replicas, _describe(target, found), _metric_name(target))
        if failures and (best is None or best[0] < self.current):
            count = f"invalid metrics ({len(failures)} invalid out of {len(targets)})"
            message = f"the HPA was unable to compute the replica count: {count}, " \
                f"first error is: {failures[0]}"  # fmt: skip
            self._condition("ScalingActive", False, "FailedGetResourceMetric", message)
            return None
        assert best is not None
        message = f"the HPA was able to successfully calculate a replica count from {best[2]}"
        self._condition("ScalingActive", True, "ValidMetricFound", message)
        self.reason = best[1]
        return best[0]

    def _normalize(self, proposal: int, bounds: tuple[int, int]) -> None:
        if self.rules is None:
            window = self.settings.downscale_stabilization_seconds
            stable, self.runs = _behavior.stabilize_plain(self.runs, proposal, self.now, window)
            limited = _behavior.limit_plain(self.current, stable, bounds)
            held = ("ScaleDownStabilized", "recent recommendations were higher than current "
                    "one, applying the highest recent recommendation")  # fmt: skip
        else:
            stable, self.runs = _behavior.stabilize(
                self.runs, proposal, self.current, self.rules, self.now
            )
            limited = _behavior.limit_with_behavior(
                self.current, stable, bounds, self.rules, self.events, self.now
            )
            held = (
                ("ScaleUpStabilized", "recent recommendations were lower than current one, "
                 "applying the lowest recent recommendation")
                if proposal >= self.current
                else ("ScaleDownStabilized", "recent recommendations were higher than current "
                      "one, applying the highest recent recommendation")
            )  # fmt: skip
        if stable != proposal:
            self._condition("AbleToScale", True, *held)
        else:
            message = "recommended size matches current size"
            self._condition("AbleToScale", True, "ReadyForNewScale", message)
        self._condition(
            "ScalingLimited", limited.replicas != stable, limited.reason, limited.message
        )
        self.desired = limited.replicas

    def state(self, source: int) -> State:
        before = self.before
        events = self.events
        scaled = self.desired != self.current
        if scaled and self.rules is not None:
            events = _behavior.store_event(events, self.rules, self.current, self.desired, self.now)
        moment = times.text(self.now)
        last = before.last
        if scaled:
            last = _state.Decision(
                time=moment, before=self.current, after=self.desired, reason=self.reason
            )
        return State(
            template_replicas=source,
            current=self.current,
            desired=self.desired,
            recommendations=tuple(self.runs),
            scale_up=tuple(events[0]),
            scale_down=tuple(events[1]),
            last_scale_time=moment if scaled else before.last_scale_time,
            metrics=tuple(self.metrics),
            conditions=self._conditions(before.conditions, moment),
            last=last,
        )

    def _conditions(
        self, old: Sequence[Mapping[str, Any]], moment: str
    ) -> tuple[dict[str, Any], ...]:
        """Karmada's conditions: set ones replace those of the same type, keeping the
        transition time while their status stays."""
        found = {str(c.get("type")): dict(c) for c in old}
        for kind, (status, reason, message) in self.conditions.items():
            previous = found.get(kind, {})
            since = previous.get("lastTransitionTime") if previous.get("status") == status else None
            found[kind] = {
                "type": kind, "status": status, "reason": reason, "message": message,
                "lastTransitionTime": since or moment,
            }  # fmt: skip
        return tuple(found[k] for k in sorted(found))


def describe(
    hpa: autoscaling.FederatedHPA, state: State, target: ResourceKey | None = None
) -> dict[str, Any]:
    """What `gitfleet explain` and `gitfleet status` say of a FederatedHPA (stable keys):
    its target, bounds, the replicas it set and its last decision (None when it never
    scaled)."""
    ref = hpa.spec.scale_target_ref
    shown = str(target) if target is not None else f"{ref.kind}/{hpa.namespace}/{ref.name}"
    return {
        "namespace": hpa.namespace,
        "name": hpa.name,
        "target": shown,
        "minReplicas": hpa.spec.min_replicas if hpa.spec.min_replicas is not None else 1,
        "maxReplicas": hpa.spec.max_replicas,
        "replicas": state.desired if state.current is not None else None,
        "lastDecision": state.last.to_doc() if state.last is not None else None,
        "conditions": [
            {k: c.get(k) for k in ("type", "status", "reason", "message")} for c in state.conditions
        ],
    }


def decision_line(found: Mapping[str, Any]) -> str:
    """One line for a human: `FederatedHPA shop/web: 4 replicas (1..10), last: ...`."""
    replicas = found["replicas"]
    head = f"FederatedHPA {found['namespace']}/{found['name']} scales {found['target']}"
    bounds = f"{found['minReplicas']}..{found['maxReplicas']}"
    shown = "not evaluated yet" if replicas is None else f"{replicas} replicas"
    line = f"{head}: {shown} ({bounds})"
    last = found["lastDecision"]
    if last is not None:
        line += f"; last scaled {last['from']} -> {last['to']} at {last['time']}: {last['reason']}"
    return line


def described(objs: objects.ObjectSet, files: Mapping[str, Any]) -> list[dict[str, Any]]:
    """`describe` of every FederatedHPA of the source, with its file on the rendered branch."""
    found = []
    for hpa in objs.federated_hpas:
        target = _target_of(hpa, objs.templates)
        state = _state.read(files.get(_state.path(hpa.namespace, hpa.name)))
        found.append(describe(hpa, state, target.key if target is not None else None))
    return found
