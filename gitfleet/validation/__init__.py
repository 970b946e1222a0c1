"""Validate: every problem of a loaded source, as Karmada's webhooks and CRDs would see them.

`validate(loaded)` returns the sorted list of diagnostics: the loader's own (YAML, files,
documents), every schema error of Karmada documents (`_schema`), the checks Karmada's webhooks
make per kind (`_propagation`, `_override`, `_cluster`, `_taint_policy`, `_customization`,
`_autoscaling`), what a member's API server would refuse in a template (`_manifest`, also
`manifest_problems` for the render stage), checks across objects (`_references`),
gitfleet.yaml's rollout waves against the clusters (`_rollout`), warnings for fields
gitfleet does not support yet (`_unsupported`) and for kinds Karmada interprets with the
customizations it bundles, which gitfleet lacks (`_bundled`). It never stops at the first
problem. Turning errors into an exit code is the command line's business.
"""

from __future__ import annotations

from gitfleet.model import diagnostic, loaded
from gitfleet.model import objects as objs
from gitfleet.validation import (
    _autoscaling,
    _bundled,
    _cluster,
    _crd_names,
    _customization,
    _manifest,
    _override,
    _propagation,
    _references,
    _report,
    _rollout,
    _schema,
    _taint_policy,
    _unsupported,
    schemas,
)

__all__ = ["manifest_problems", "validate"]

manifest_problems = _manifest.problems


_NAMESPACED = {(k.API_VERSION, k.KIND): k.NAMESPACED for k in schemas.KINDS}


def _subject(document: loaded.Document, default_namespace: str) -> str:
    """How messages name a Karmada document's object: in the namespace the API server would
    store it in (`model.scope`), as messages about the loaded object do."""
    metadata = document.body.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    name, namespace = metadata.get("name"), metadata.get("namespace")
    namespace = namespace if isinstance(namespace, str) else ""
    if not _NAMESPACED.get((document.api_version, document.kind), False):
        namespace = ""
    elif not namespace:
        namespace = default_namespace
    return loaded.describe(document.kind, namespace, name if isinstance(name, str) else "")


def _documents(source: loaded.LoadedSource) -> list[diagnostic.Diagnostic]:
    """Schema errors (all of them, replacing the loader's first one) and unsupported fields."""
    found: list[diagnostic.Diagnostic] = []
    replaced: set[int] = set()
    for document in source.documents:
        if document.role is not loaded.Role.KARMADA:
            continue
        subject = _subject(document, source.config.default_namespace)
        if document.error is None:
            found += _unsupported.check(document, subject)
            continue
        errors = _schema.check(document, subject)
        if errors:
            replaced.add(id(document.error))
            found += errors
    return [d for d in source.diagnostics if id(d) not in replaced] + found


def _per_kind(source: loaded.LoadedSource) -> list[diagnostic.Diagnostic]:
    found: list[diagnostic.Diagnostic] = []
    objects = source.objects
    propagations: tuple[_propagation.Propagation, ...] = (
        *objects.propagation_policies,
        *objects.cluster_propagation_policies,
    )
    overrides: tuple[_override.Override, ...] = (
        *objects.override_policies,
        *objects.cluster_override_policies,
    )
    for propagation in propagations:
        report = _report.Report(propagation.origin, loaded.subject(propagation))
        _propagation.check(propagation, report)
        found += report.diagnostics
    for override in overrides:
        report = _report.Report(override.origin, loaded.subject(override))
        _override.check(override, report)
        found += report.diagnostics
    for member in objects.clusters:
        report = _report.Report(member.origin, loaded.subject(member))
        _cluster.check(member, report)
        found += report.diagnostics
    for tainting in objects.cluster_taint_policies:
        report = _report.Report(tainting.origin, loaded.subject(tainting))
        _taint_policy.check(tainting, source.config.failover, report)
        found += report.diagnostics
    found += _customization.check(objects.customizations)
    found += _federated_hpas(objects)
    return found


def _federated_hpas(objects: objs.ObjectSet) -> list[diagnostic.Diagnostic]:
    found = _autoscaling.across(objects.federated_hpas, objects.templates)
    for hpa in objects.federated_hpas:
        report = _report.Report(hpa.origin, loaded.subject(hpa))
        _autoscaling.check(hpa, report)
        found += report.diagnostics
    return found


def validate(source: loaded.LoadedSource) -> list[diagnostic.Diagnostic]:
    """Every problem of the source, sorted by file, line and column."""
    found = _documents(source) + _per_kind(source) + _references.across(source.objects)
    found += _manifest.check(source.objects.templates) + _rollout.check(source)
    customizations = (*source.objects.customizations, *source.third_party_customizations)
    found += _bundled.check(source.objects.templates, customizations)
    found += _crd_names.check(source.objects.templates)
    return diagnostic.sorted_diagnostics(found)
