"""What Karmada refuses in a Cluster, and quantities the scheduler could not read.

Ported from pkg/apis/cluster/validation/validation.go (ValidateClusterSpec,
ValidateClusterAPIEndpoint, ValidateClusterProxyURL, validateClusterSpecForFieldSelector,
ValidateClusterResourceModels) and pkg/util/lifted/validateclustertaints.go (taints: label-key
keys, label-value values, unique by key and effect). The name (ValidateClusterName) and the
taint effects are field rules of the model (`cluster.ClusterMeta`, `meta.Taint`), which the
loader enforces and the JSON Schemas carry. Declared capacity (`status.resourceSummary`) must
be quantities too: the scheduler divides by them.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping, Sequence

from gitfleet.interpreter import _quantity as quantity
from gitfleet.model import cluster, labelsyntax, meta, policy
from gitfleet.validation import _report

_PROXY_SCHEMES = ("http", "https", "socks5")


def check(obj: cluster.Cluster, report: _report.Report) -> None:
    spec = obj.spec
    if spec.api_endpoint:
        _endpoint(report, spec.api_endpoint)
    if spec.proxy_url:
        _proxy(report, spec.proxy_url)
    _location(spec, report)
    taints(spec.taints, report)
    _models(spec.resource_models, report)
    summary = obj.status.resource_summary
    if summary is not None:
        for name in ("allocatable", "allocating", "allocated"):
            _quantities(report, ("status", "resourceSummary", name), getattr(summary, name))


def _endpoint(report: _report.Report, endpoint: str) -> None:
    keys = ("spec", "apiEndpoint")
    form = "; expected a URL such as https://host:port"
    try:
        url = urllib.parse.urlsplit(endpoint)
    except ValueError as exc:
        report.error(keys, f"{endpoint!r} is not a URL: {exc}{form}")
        return
    if not url.netloc.rpartition("@")[2]:  # Go's URL.Host: a port alone is a host there
        report.error(keys, f"{endpoint!r} has no host{form}")
    if url.username is not None:
        report.error(keys, "user information is not allowed in the URL")
    if url.fragment:
        report.error(keys, "fragments are not allowed in the URL")
    if url.query:
        report.error(keys, "query parameters are not allowed in the URL")


def _proxy(report: _report.Report, proxy_url: str) -> None:
    keys = ("spec", "proxyURL")
    try:
        scheme = urllib.parse.urlsplit(proxy_url).scheme
    except ValueError as exc:
        report.error(keys, f"{proxy_url!r} is not a URL: {exc}")
        return
    if scheme not in _PROXY_SCHEMES:
        report.error(keys, f"unsupported scheme {scheme!r}: must be http, https or socks5")


def _location(spec: cluster.ClusterSpec, report: _report.Report) -> None:
    for name, value in (("provider", spec.provider), ("region", spec.region)):
        problem = labelsyntax.label_value(value)
        if problem:
            report.error(("spec", name), problem)
    if spec.zone and spec.zones:
        report.error(("spec", "zone"), "zone and zones cannot be used together")
    problem = labelsyntax.label_value(spec.zone)
    if problem:
        report.error(("spec", "zone"), problem)
    for index, zone in enumerate(spec.zones):
        problem = labelsyntax.label_value(zone)
        if problem:
            report.error(("spec", "zones", index), problem)


def taints(taints: Sequence[meta.Taint | policy.PolicyTaint], report: _report.Report) -> None:
    """Keys are label keys, values label values, and no two share key and effect (a Cluster's
    `spec.taints`, and a ClusterTaintPolicy's, which end up there)."""
    seen: set[tuple[str, str]] = set()
    for index, taint in enumerate(taints):
        keys = ("spec", "taints", index)
        problem = labelsyntax.qualified_name(taint.key)
        if problem:
            report.error((*keys, "key"), problem)
        problem = labelsyntax.label_value(taint.value)
        if problem:
            report.error((*keys, "value"), problem)
        if (taint.key, taint.effect) in seen:
            report.error(keys, "taints must be unique by key and effect")
        seen.add((taint.key, taint.effect))


def _parse(report: _report.Report, keys: tuple[str | int, ...], raw: meta.Quantity) -> int | None:
    try:
        return quantity.parse(raw).nanos
    except quantity.QuantityError as exc:
        report.error(keys, str(exc))
        return None


def _quantities(
    report: _report.Report, keys: tuple[str, ...], values: Mapping[str, meta.Quantity] | None
) -> None:
    for name, raw in (values or {}).items():
        _parse(report, (*keys, name), raw)


def _models(models: tuple[cluster.ResourceModel, ...], report: _report.Report) -> None:
    """ValidateClusterResourceModels on the models as Karmada stores them
    (`cluster.standard_resource_models`: sorted by grade, the first grade from 0, the last one
    up to the largest int64): grades differ, same resources in the same order, max above min,
    intervals contiguous. Reports the first problem, as Karmada."""
    keys = ("spec", "resourceModels")
    for index, model in enumerate(models):
        for range_index, item in enumerate(model.ranges):
            where = (*keys, index, "ranges", range_index)
            if _parse(report, (*where, "min"), item.min) is None:
                return
            if _parse(report, (*where, "max"), item.max) is None:
                return
    if not models:
        return
    problem = _models_problem(cluster.standard_resource_models(models))
    if problem:
        report.error(keys, problem)


def _models_problem(models: tuple[cluster.ResourceModel, ...]) -> str | None:
    bounds = [
        [
            (item.name, quantity.parse(item.min).nanos, quantity.parse(item.max).nanos)
            for item in m.ranges
        ]
        for m in models
    ]
    for index, (model, row) in enumerate(zip(models, bounds, strict=True)):
        previous = bounds[index - 1] if index else None
        if previous is not None and model.grade == models[index - 1].grade:
            return "the grades of the models must differ"
        if previous is not None and len(previous) != len(row):
            return "every model must have the same number of resources"
        for column, (name, low, high) in enumerate(row):
            if high <= low:
                return "each resource's max must be greater than its min"
            if previous is not None and previous[column][0] != name:
                return "every model must list the same resources in the same order"
            if previous is not None and previous[column][2] != low:
                return "model intervals must be contiguous (each min equal to the previous max)"
    return None
