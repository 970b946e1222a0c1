"""Building a template's binding from the policy that claims it
(pkg/detector/detector.go `BuildResourceBinding`, `BuildClusterResourceBinding`, `ApplyPolicy`,
`ApplyClusterPolicy`, `applyReplicaInterpretation`; pkg/util/binding.go `MergePolicySuspension`).

A namespaced template gets a ResourceBinding in its namespace, a cluster-scoped one a
ClusterResourceBinding, both named `<name>-<kind>` (lowercase, `:` as `.`). The policy's
placement (defaulted), propagateDeps, schedulerName, failover, conflictResolution, suspension and
preserveResourcesOnDeletion are copied (an existing ClusterResourceBinding keeps its
propagateDeps: ApplyClusterPolicy's update leaves that one field out); replicas and replica
requirements come from the interpreter when it handles InterpretReplica for the kind.
Everything the detector does not own is carried over from the previous binding unchanged: the
schedule result (`spec.clusters`), eviction tasks, `requiredBy`, `rescheduleTriggeredAt`, the
status and any other labels and annotations (among them the scheduler's applied placement).

Feature gates at their defaults: PriorityBasedScheduling on (a ResourceBinding's
`schedulePriority` is the value of the named PriorityClass, which must be in the source),
MultiplePodTemplatesScheduling, WorkloadAffinity and ResourceQuotaEstimate off (no components,
no workload affinity groups, no replica-requirements namespace).

`spec.resource.resourceVersion` holds a digest of the template's specification: the API server's
resourceVersion has no equivalent in Git, and the digest lets the next render tell whether the
template changed (what lazy activation needs).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from typing import Any

from gitfleet import errors, interpreter
from gitfleet.detector import _claim, _defaults
from gitfleet.model import loaded, meta, policy, work
from gitfleet.model.template import ResourceTemplate

Binding = work.ResourceBinding | work.ClusterResourceBinding
Policy = policy.PropagationPolicy | policy.ClusterPropagationPolicy

BINDING_FINALIZER = "karmada.io/binding-controller"
CLUSTER_BINDING_FINALIZER = "karmada.io/cluster-resource-binding-controller"
_KARMADA_KEY_PART = ".karmada.io"
_USER_KARMADA_LABELS = frozenset({"namespace.karmada.io/skip-auto-propagation"})


class BuildError(errors.GitfleetError):
    """The binding cannot be built; Karmada would retry, gitfleet keeps the previous one."""


def _user_keys(values: Mapping[str, str] | None, user: frozenset[str]) -> dict[str, str]:
    return {k: v for k, v in (values or {}).items() if _KARMADA_KEY_PART not in k or k in user}


def digest(template: ResourceTemplate) -> str:
    """A digest of what Karmada counts as a change of the template by its user: everything but
    status, managedFields, resourceVersion, generation and Karmada's own labels and annotations
    (pkg/util/eventfilter/eventfilter.go)."""
    body: dict[str, Any] = {k: v for k, v in template.body.items() if k != "status"}
    meta_doc: dict[str, Any] = {
        k: v
        for k, v in template.metadata.items()
        if k not in ("managedFields", "resourceVersion", "generation")
    }
    meta_doc["labels"] = _user_keys(template.metadata.get("labels"), _USER_KARMADA_LABELS)
    meta_doc["annotations"] = _user_keys(template.metadata.get("annotations"), frozenset())
    body["metadata"] = meta_doc
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def identity(template: ResourceTemplate) -> tuple[str, str, str]:
    """(binding kind, namespace, name) of the template's binding."""
    kind = work.ResourceBinding.KIND if template.namespace else work.ClusterResourceBinding.KIND
    return kind, template.namespace, work.binding_name(template.name, template.kind)


MAX_BINDING_NAME = 253
"""The longest object name the API server takes (a DNS-1123 subdomain)."""


def name_problem(template: ResourceTemplate) -> str | None:
    """A binding is named `<name>-<kind>`: a template name that leaves the binding's over the
    API server's limit gets no binding in Karmada (its create is refused and retried for
    ever), its own or one attached for a workload that needs it, so the template is never
    propagated. None: the name fits."""
    name = identity(template)[2]
    if len(name) <= MAX_BINDING_NAME:
        return None
    return (
        f"its binding's name ({len(name)} characters: the name, '-' and the kind in lower "
        f"case) is longer than the {MAX_BINDING_NAME} an object name may have, so Karmada "
        "cannot create the binding; shorten the name"
    )


def _check_name(template: ResourceTemplate) -> None:
    message = name_problem(template)
    if message is not None:
        where = template.origin.at("metadata", "name")
        raise BuildError(message) from errors.InputError(where, message)


def same_resource(binding: Binding, template: ResourceTemplate) -> bool:
    """Whether a binding is for this template (an apiVersion change keeps the binding, as the
    same object read through another version does in Karmada)."""
    r = binding.spec.resource
    return (r.kind, r.namespace, r.name) == (template.kind, template.namespace, template.name)


def _replicas(
    template: ResourceTemplate, interp: interpreter.Interpreter
) -> tuple[int, work.ReplicaRequirements | None]:
    if not interp.hook_enabled(
        template.api_version, template.kind, interpreter.Operation.INTERPRET_REPLICA
    ):
        return 0, None
    try:
        return interp.get_replicas(_defaults.replica_fields(template.body))
    except errors.GitfleetError as error:
        raise BuildError(f"cannot interpret replicas: {error}") from error


def _schedule_priority(
    claimer: Policy, priority_classes: Mapping[str, int]
) -> work.BindingSchedulePriority | None:
    wanted = claimer.spec.schedule_priority
    if wanted is None:
        return None
    value = priority_classes.get(wanted.priority_class_name)
    if value is None:
        where = claimer.origin.at("spec", "schedulePriority", "priorityClassName")
        message = (
            f"no PriorityClass named {wanted.priority_class_name!r} in the source, which "
            f"{loaded.subject(claimer)} names in spec.schedulePriority"
        )
        raise BuildError(message) from errors.InputError(where, message)
    return work.BindingSchedulePriority(priority=value)


def _suspension(
    previous: work.BindingSuspension | None, wanted: policy.Suspension | None
) -> work.BindingSuspension | None:
    """MergePolicySuspension: the policy's part is replaced, the binding's own `scheduling`
    kept."""
    scheduling = previous.scheduling if previous else None
    if wanted is not None:
        return work.BindingSuspension(
            dispatching=wanted.dispatching,
            dispatching_on_clusters=wanted.dispatching_on_clusters,
            scheduling=scheduling,
        )
    if scheduling is None:
        return None
    return work.BindingSuspension(scheduling=scheduling)


def owner_reference(template: ResourceTemplate) -> dict[str, Any]:
    """The template as the binding's controller owner (metav1.NewControllerRef)."""
    return {
        "apiVersion": template.api_version,
        "kind": template.kind,
        "name": template.name,
        "uid": template.uid,
        "controller": True,
        "blockOwnerDeletion": True,
    }


def _metadata(
    template: ResourceTemplate, claimer: Policy, previous: Binding | None
) -> meta.ObjectMeta:
    kind, namespace, name = identity(template)
    old = previous.metadata if previous else meta.ObjectMeta()
    labels, annotations = _claim.without_claim(old.labels or {}, old.annotations or {})
    claim_labels, claim_annotations = _claim.metadata(claimer)
    id_label = _claim.RB_ID_LABEL if kind == work.ResourceBinding.KIND else _claim.CRB_ID_LABEL
    labels.setdefault(id_label, _claim.permanent_id(kind, namespace, name))
    finalizer = (
        BINDING_FINALIZER if kind == work.ResourceBinding.KIND else CLUSTER_BINDING_FINALIZER
    )
    return dataclasses.replace(
        old,
        name=name,
        namespace=namespace,
        labels=dict(sorted({**labels, **claim_labels}.items())),
        annotations=dict(sorted({**annotations, **claim_annotations}.items())),
        finalizers=tuple(sorted({*old.finalizers, finalizer})),
        owner_references=(owner_reference(template),),
    )


def resource_reference(template: ResourceTemplate) -> work.ObjectReference:
    """`spec.resource`: the template, its uid as written (usually none) and its digest."""
    return work.ObjectReference(
        api_version=template.api_version,
        kind=template.kind,
        namespace=template.namespace,
        name=template.name,
        uid=template.uid,
        resource_version=digest(template),
    )


def with_generation(binding: Binding, previous: Binding | None) -> Binding:
    """`metadata.generation` as the API server keeps it: 1 for a new binding, one more than
    before when the spec changed."""
    if previous is None:
        generation = 1
    else:
        generation = max(previous.metadata.generation, 1) + int(previous.spec != binding.spec)
    if generation == binding.metadata.generation:
        return binding
    return dataclasses.replace(
        binding, metadata=dataclasses.replace(binding.metadata, generation=generation)
    )


def build(
    template: ResourceTemplate,
    claimer: Policy,
    interp: interpreter.Interpreter,
    priority_classes: Mapping[str, int],
    previous: Binding | None,
) -> Binding:
    """The binding `claimer` makes for `template` (its spec already defaulted), merged into
    the previous binding as Karmada's CreateOrUpdate does; raises BuildError."""
    _check_name(template)
    spec = claimer.spec
    replicas, requirements = _replicas(template, interp)
    namespaced = bool(template.namespace)
    old = previous.spec if previous else None
    propagate_deps = spec.propagate_deps
    if old is not None and not namespaced:
        # ApplyClusterPolicy's update of an existing ClusterResourceBinding refreshes every
        # copied field but propagateDeps, which keeps the value it was created with.
        propagate_deps = old.propagate_deps
    new_spec = work.ResourceBindingSpec(
        resource=resource_reference(template),
        propagate_deps=propagate_deps,
        replica_requirements=requirements,
        replicas=replicas,
        placement=spec.placement,
        scheduler_name=spec.scheduler_name,
        failover=spec.failover,
        conflict_resolution=spec.conflict_resolution,
        preserve_resources_on_deletion=spec.preserve_resources_on_deletion,
        schedule_priority=_schedule_priority(claimer, priority_classes) if namespaced else None,
        suspension=_suspension(old.suspension if old else None, spec.suspension),
        clusters=old.clusters if old else (),
        graceful_eviction_tasks=old.graceful_eviction_tasks if old else (),
        required_by=old.required_by if old else (),
        reschedule_triggered_at=old.reschedule_triggered_at if old else None,
    )
    metadata = _metadata(template, claimer, previous)
    status = previous.status if previous else work.ResourceBindingStatus()
    built: Binding
    if namespaced:
        built = work.ResourceBinding(
            metadata=metadata, spec=new_spec, status=status, origin=template.origin
        )
    else:
        built = work.ClusterResourceBinding(
            metadata=metadata, spec=new_spec, status=status, origin=template.origin
        )
    return with_generation(built, previous)


def unclaimed(previous: Binding) -> Binding:
    """A previous binding whose claim is gone: Karmada strips the claim metadata and leaves
    the rest, schedule result included, until the template is deleted or claimed again."""
    labels, annotations = _claim.without_claim(
        previous.metadata.labels or {}, previous.metadata.annotations or {}
    )
    return dataclasses.replace(
        previous,
        metadata=dataclasses.replace(
            previous.metadata, labels=labels or None, annotations=annotations or None
        ),
    )
