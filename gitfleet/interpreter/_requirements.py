"""What one replica of a pod template needs: summed resource requests and node constraints.

The scheduler's general estimator divides a cluster's free capacity by this, so the arithmetic
follows Karmada exactly: a container's limits stand in for requests it does not set; app
containers are summed, then each init container raises a resource to its own request if larger
(they run one at a time), then the pod overhead is added. CPU is counted in millicores, every
other resource in whole units rounded up, per container. Only cpu, memory, ephemeral-storage,
pods and scalar resources count. Amounts are Go int64s: a quantity beyond their range reads as
Go reads it (`_quantity.int64_scaled`) and sums wrap, so an absurd request (`"1e19"` of memory)
comes out as Karmada's. Karmada: pkg/util/helper/binding.go
(GenerateReplicaRequirements, GenerateNodeClaimByPodSpec), pkg/util/resource.go
(AddPodTemplateRequest, AddPodRequest, Add, SetMaxResource, ResourceList),
pkg/util/lifted/corev1helpers.go (IsScalarResourceName and friends).

Karmada copies `priorityClassName` and the namespace only under the ResourceQuotaEstimate
feature gate, which is off by default; so does this module (it leaves both empty).
"""

from __future__ import annotations

import functools
from typing import Any

from gitfleet.interpreter import _fields, _names, _quantity
from gitfleet.interpreter._fields import Path
from gitfleet.model import meta, work

CPU = "cpu"
MEMORY = "memory"
PODS = "pods"
EPHEMERAL_STORAGE = "ephemeral-storage"
_HUGEPAGES_PREFIX = "hugepages-"
_ATTACHABLE_VOLUMES_PREFIX = "attachable-volumes-"
_NATIVE_PREFIX = "kubernetes.io/"
_QUOTA_PREFIX = "requests."

Amounts = dict[str, int]
"""Resource name -> millicores for cpu, whole units (rounded up) for anything else."""


def from_pod_template(template: Any, path: Path) -> work.ReplicaRequirements | None:
    """Requirements of a PodTemplateSpec; None when it requests nothing and constrains nothing."""
    template = _fields.mapping(template, path)
    return from_pod_spec(template.get("spec"), (*path, "spec"))


def from_pod_spec(spec: Any, path: Path) -> work.ReplicaRequirements | None:
    """Requirements of a PodSpec; None when it requests nothing and constrains nothing."""
    spec = _fields.mapping(spec, path)
    request = resource_list(pod_request(spec, path))
    claim = node_claim(spec, path)
    if claim is None and request is None:
        return None
    return work.ReplicaRequirements(node_claim=claim, resource_request=request)


def pod_request(spec: dict[str, Any], path: Path) -> Amounts:
    """The effective request of one pod (Karmada `Resource.AddPodTemplateRequest`)."""
    total: Amounts = {}
    key = "containers"
    for i, container in enumerate(_fields.array(spec.get(key), (*path, key))):
        for name, amount in _effective_requests(container, path, key, i).items():
            total[name] = _quantity.wrap_int64(total.get(name, 0) + amount)
    key = "initContainers"
    for i, container in enumerate(_fields.array(spec.get(key), (*path, key))):
        for name, amount in _effective_requests(container, path, key, i).items():
            total[name] = max(total.get(name, 0), amount)
    overhead = spec.get("overhead")
    if overhead is not None:
        try:
            amounts = _amounts(overhead, ())
        except _fields.FieldError as e:
            raise e.under(*path, "overhead") from None
        for name, amount in amounts.items():
            total[name] = _quantity.wrap_int64(total.get(name, 0) + amount)
    return total


def _effective_requests(container: Any, path: Path, key: str, i: int) -> Amounts:
    """Requests, with limits standing in for resources that have no request."""
    try:
        resources = _fields.mapping(container, ()).get("resources")
        if resources is None:
            return {}
        resources = _fields.mapping(resources, ("resources",))
        limits = resources.get("limits")
        amounts = {} if limits is None else _amounts(limits, ("resources", "limits"))
        requests = resources.get("requests")
        if requests is not None:
            amounts.update(_amounts(requests, ("resources", "requests")))
    except _fields.FieldError as e:
        raise e.under(*path, key, i) from None
    return amounts


def _amounts(resources: Any, path: Path) -> Amounts:
    """The counted resources of a ResourceList, as `Amounts`."""
    amounts: Amounts = {}
    for name, raw in _fields.mapping(resources, path).items():
        if raw is None:
            # Go reads a null quantity as zero; the resource is still there (a null request
            # keeps the limit from standing in for it)
            raw = 0
        if isinstance(raw, bool) or not isinstance(raw, (str, int, float)):
            raise _fields.FieldError((*path, name), "expected a quantity (a string or a number)")
        try:
            amount = _amount(name, raw)
        except _quantity.QuantityError as e:
            raise _fields.FieldError((*path, name), str(e)) from None
        if amount is not None:
            amounts[name] = amount
    return amounts


@functools.lru_cache(maxsize=4096)
def _amount(name: str, raw: str | int | float) -> int | None:
    """Millicores for cpu, whole units (rounded up) for other counted resources, as Go's int64
    reads them; None for resources that do not count."""
    if name == CPU:
        return _quantity.int64_scaled(raw, -3)
    if name in (MEMORY, PODS, EPHEMERAL_STORAGE) or is_scalar(name):
        return _quantity.int64_scaled(raw, 0)
    return None


def resource_list(amounts: Amounts) -> dict[str, meta.Quantity] | None:
    """Positive amounts as canonical quantity strings, sorted; None if there are none
    (Karmada `Resource.ResourceList`)."""
    out: dict[str, meta.Quantity] = {
        name: _text(name, amounts[name]) for name in sorted(amounts) if amounts[name] > 0
    }
    return out or None


@functools.lru_cache(maxsize=4096)
def _text(name: str, amount: int) -> str:
    """How Karmada prints an amount: cpu in millicores, memory, storage and hugepages in
    binary units, anything else in decimal units."""
    if name == CPU:
        return str(_quantity.of_milli(amount, _quantity.Format.DECIMAL_SI))
    binary = name in (MEMORY, EPHEMERAL_STORAGE) or name.startswith(_HUGEPAGES_PREFIX)
    fmt = _quantity.Format.BINARY_SI if binary else _quantity.Format.DECIMAL_SI
    return str(_quantity.of_units(amount, fmt))


@functools.lru_cache(maxsize=1024)
def is_scalar(name: str) -> bool:
    """Extended, hugepages, `kubernetes.io/`-prefixed or attachable-volume resources."""
    return (
        _is_extended(name)
        or name.startswith(_HUGEPAGES_PREFIX)
        or _NATIVE_PREFIX in name
        or name.startswith(_ATTACHABLE_VOLUMES_PREFIX)
    )


def _is_extended(name: str) -> bool:
    """A `domain/name` resource outside kubernetes.io that is valid as a quota name."""
    if "/" not in name or _NATIVE_PREFIX in name or name.startswith(_QUOTA_PREFIX):
        return False
    return _names.is_qualified_name(_QUOTA_PREFIX + name)


def node_claim(spec: dict[str, Any], path: Path) -> work.NodeClaim | None:
    """nodeSelector, tolerations and required node affinity; None if all are empty."""
    if "nodeSelector" not in spec and "tolerations" not in spec and "affinity" not in spec:
        return None
    selector = _fields.typed_string_map(spec.get("nodeSelector"), (*path, "nodeSelector"))
    key = (*path, "tolerations")
    tolerations = tuple(
        _toleration(t, (*key, i)) for i, t in enumerate(_fields.array(spec.get("tolerations"), key))
    )
    keys = ("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
    required = _fields.optional_mapping(_fields.at(spec, keys, path), (*path, *keys))
    hard = None if required is None else _node_selector(required, (*path, *keys))
    if selector is None and hard is None and not tolerations:
        return None
    return work.NodeClaim(hard_node_affinity=hard, node_selector=selector, tolerations=tolerations)


def _toleration(raw: Any, path: Path) -> meta.Toleration:
    raw = _fields.mapping(raw, path)
    return meta.Toleration(
        key=_fields.string(raw.get("key"), (*path, "key")),
        operator=_fields.string(raw.get("operator"), (*path, "operator")),
        value=_fields.string(raw.get("value"), (*path, "value")),
        effect=_fields.string(raw.get("effect"), (*path, "effect")),
        toleration_seconds=_fields.optional_integer(
            raw.get("tolerationSeconds"), (*path, "tolerationSeconds")
        ),
    )


def _node_selector(raw: dict[str, Any], path: Path) -> meta.NodeSelector:
    """Go's NodeSelector: terms absent (or null) are a nil slice, apart from an empty list."""
    key = (*path, "nodeSelectorTerms")
    if raw.get("nodeSelectorTerms") is None:
        return meta.NodeSelector()
    terms = _fields.array(raw.get("nodeSelectorTerms"), key)
    return meta.NodeSelector(
        node_selector_terms=tuple(_term(t, (*key, i)) for i, t in enumerate(terms))
    )


def _term(raw: Any, path: Path) -> meta.NodeSelectorTerm:
    raw = _fields.mapping(raw, path)
    return meta.NodeSelectorTerm(
        match_expressions=_requirements(raw.get("matchExpressions"), (*path, "matchExpressions")),
        match_fields=_requirements(raw.get("matchFields"), (*path, "matchFields")),
    )


def _requirements(raw: Any, path: Path) -> tuple[meta.NodeSelectorRequirement, ...]:
    out = []
    for i, item in enumerate(_fields.array(raw, path)):
        item = _fields.mapping(item, (*path, i))
        values = _fields.array(item.get("values"), (*path, i, "values"))
        out.append(
            meta.NodeSelectorRequirement(
                key=_fields.string(item.get("key"), (*path, i, "key")),
                operator=_fields.string(item.get("operator"), (*path, i, "operator")),
                values=tuple(
                    _fields.string(v, (*path, i, "values", j)) for j, v in enumerate(values)
                ),
            )
        )
    return tuple(out)
