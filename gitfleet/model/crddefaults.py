"""Custom resources as the API server stores them: with the defaults their CRD's schema declares.

Karmada's API server fills in every `default` of a CustomResourceDefinition's structural schema
when it stores a custom resource, so Karmada's detector, interpreters (Lua customizations
reading `obj.spec.replicas`, say), overrides and Works all see the defaulted object. A source
repository has no API server; this module applies the same defaulting to the templates whose
CRD is in the source, for the template's own version.

The walk is apiextensions-apiserver's structural defaulting (pkg/apiserver/schema/defaulting
`Default`): in an object, each property with a default that is absent, or null where the
schema does not allow null, gets a copy of the default; then every property present is
defaulted by its own schema (a default just filled in included), other keys by
`additionalProperties`; in a list every item by `items`; scalars stay as they are. `metadata`
is left alone: a CRD may not default it.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from gitfleet.model.template import ResourceTemplate

CRD_GROUP = "apiextensions.k8s.io"
Schemas = dict[tuple[str, str, str], Mapping[str, Any]]
"""(group, version, kind) -> the version's openAPIV3Schema."""


def crds(templates: Iterable[ResourceTemplate]) -> Iterator[ResourceTemplate]:
    """The CustomResourceDefinitions among the templates."""
    return (
        t for t in templates if t.kind == "CustomResourceDefinition" and t.key.group == CRD_GROUP
    )


def crd_specs(templates: Iterable[ResourceTemplate]) -> Iterator[dict[str, Any]]:
    """The `spec` of each CustomResourceDefinition among the templates (one that is an object)."""
    for t in crds(templates):
        spec = t.body.get("spec")
        if isinstance(spec, dict):
            yield spec


def schemas(templates: Iterable[ResourceTemplate]) -> Schemas:
    """The schemas declaring defaults, of every version of the CRDs among the templates."""
    found: Schemas = {}
    for spec in crd_specs(templates):
        names, group = spec.get("names"), spec.get("group")
        kind = names.get("kind") if isinstance(names, dict) else None
        versions = spec.get("versions")
        if not (isinstance(group, str) and isinstance(kind, str) and isinstance(versions, list)):
            continue
        for version in versions:
            if not isinstance(version, dict) or not isinstance(version.get("schema"), dict):
                continue
            name, schema = version.get("name"), version["schema"].get("openAPIV3Schema")
            if isinstance(name, str) and isinstance(schema, dict) and _declares_default(schema):
                found[(group, name, kind)] = schema
    return found


def defaulted(template: ResourceTemplate, found: Schemas) -> ResourceTemplate:
    """The template with its CRD's defaults filled in (new fields after the ones it has);
    itself when there are none to fill."""
    group, _, version = template.api_version.rpartition("/")
    schema = found.get((group, version, template.kind))
    if schema is None:
        return template
    rest = {k: v for k, v in template.body.items() if k != "metadata"}
    result = _default_object(rest, schema)
    if result is rest:
        return template
    filled: Any = {**template.body, **result}
    return ResourceTemplate(filled, template.origin)


def _declares_default(schema: Any) -> bool:
    if isinstance(schema, dict):
        return "default" in schema or any(_declares_default(v) for v in schema.values())
    if isinstance(schema, list):
        return any(_declares_default(v) for v in schema)
    return False


def _default(value: Any, schema: Any) -> Any:
    """`value` defaulted by `schema`: a new value where anything was filled in (copy on
    write), `value` itself otherwise."""
    if not isinstance(schema, dict):
        return value
    if isinstance(value, dict):
        return _default_object(value, schema)
    if isinstance(value, list):
        items = schema.get("items")
        out = [_default(item, items) for item in value]
        return out if any(a is not b for a, b in zip(out, value, strict=True)) else value
    return value


def _default_object(value: dict[str, Any], schema: Mapping[str, Any]) -> dict[str, Any]:
    found = schema.get("properties")
    properties: Mapping[str, Any] = found if isinstance(found, dict) else {}
    out = value
    for key, prop in properties.items():
        if not isinstance(prop, dict) or prop.get("default") is None:
            continue
        if key not in out or (out[key] is None and prop.get("nullable") is not True):
            out = dict(out) if out is value else out
            out[key] = copy.deepcopy(prop["default"])
    extra = schema.get("additionalProperties")
    for key, item in list(out.items()):
        child = _default(item, properties.get(key, extra))
        if child is not item:
            out = dict(out) if out is value else out
            out[key] = child
    return out
