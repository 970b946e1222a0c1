"""What a binding's rendered files depend on, as one digest: the key of incremental rendering.

A binding's manifests are a function of its template (content and file), the binding itself
(schedule result, dependencies, claim, suspension, conflict resolution, status), each target
cluster (name, labels and spec: what override rules match; never its status), the override
policies that could apply (every ClusterOverridePolicy and the OverridePolicies of the
template's namespace), the interpreter customizations for the template's kind, and the
renderer's version. The digest of all of them is written on the binding in the rendered
branch; when the next render computes the same digest, the binding's files cannot have changed
and are taken from the previous render unread. A render from scratch computes every binding
and must give the same tree, which the tests check.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from gitfleet.model import cluster, config, meta, objects, work
from gitfleet.model.template import ResourceTemplate

ANNOTATION = "gitfleet.io/render-inputs"
Binding = work.ResourceBinding | work.ClusterResourceBinding


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _digest(parts: Iterable[bytes]) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(b"%d:" % len(part))
        h.update(part)
    return h.hexdigest()


def _docs_digest(docs: Iterable[Any]) -> str:
    return _digest(
        _canonical(d.to_doc()) for d in sorted(docs, key=lambda d: (d.namespace, d.name))
    )


def binding_doc(binding: Binding) -> dict[str, Any]:
    """The binding as written, without the digest annotation (its own input)."""
    doc = binding.to_doc()
    annotations = doc.get("metadata", {}).get("annotations")
    if isinstance(annotations, dict) and ANNOTATION in annotations:
        del annotations[ANNOTATION]
        if not annotations:
            del doc["metadata"]["annotations"]
    return doc


def _spec_and_metadata(doc: Mapping[str, Any]) -> bytes:
    """What of a binding its manifests read: everything but its status."""
    return _canonical({k: v for k, v in doc.items() if k != "status"})


def _by_kind(
    found: Iterable[config.ResourceInterpreterCustomization],
) -> dict[tuple[str, str], list[config.ResourceInterpreterCustomization]]:
    by_kind: dict[tuple[str, str], list[config.ResourceInterpreterCustomization]] = {}
    for c in found:
        by_kind.setdefault((c.spec.target.api_version, c.spec.target.kind), []).append(c)
    return by_kind


class Inputs:
    """Digests of the shared inputs, computed once per render."""

    def __init__(
        self,
        objs: objects.ObjectSet,
        clusters: Sequence[cluster.Cluster],
        third_party: Sequence[config.ResourceInterpreterCustomization],
        version: str,
    ) -> None:
        self._version = version.encode()
        self._cluster_overrides = _docs_digest(objs.cluster_override_policies).encode()
        by_namespace: dict[str, list[meta.ApiObject]] = {}
        for p in objs.override_policies:
            by_namespace.setdefault(p.namespace, []).append(p)
        self._overrides = {ns: _docs_digest(ps).encode() for ns, ps in by_namespace.items()}
        self._clusters = {
            c.name: _digest(
                [_canonical({k: v for k, v in c.to_doc().items() if k != "status"})]
            ).encode()
            for c in clusters
        }
        user, third = _by_kind(objs.customizations), _by_kind(third_party)
        self._customizations = {
            kind: _digest(
                [
                    _docs_digest(user.get(kind, ())).encode(),
                    _docs_digest(third.get(kind, ())).encode(),
                ]
            ).encode()
            for kind in user.keys() | third.keys()
        }

    def digest(
        self, template: ResourceTemplate, doc: Mapping[str, Any], targets: Iterable[str]
    ) -> str:
        """The digest of everything the manifests of the binding `doc` (`binding_doc`) for
        `template` on the `targets` clusters depend on."""
        key = template.key
        parts = [
            self._version,
            _canonical(template.body),
            template.origin.path.encode(),
            _spec_and_metadata(doc),
            self._cluster_overrides,
            self._overrides.get(key.namespace, b""),
            self._customizations.get((key.api_version, key.kind), b""),
        ]
        for name in targets:
            parts += [name.encode(), self._clusters.get(name, b"absent")]
        return _digest(parts)


def recorded(binding: Binding) -> str | None:
    """The digest a previous render wrote on `binding`."""
    return (binding.metadata.annotations or {}).get(ANNOTATION)


def with_digest(doc: Mapping[str, Any], digest: str) -> dict[str, Any]:
    """The binding document with its digest annotation."""
    out = dict(doc)
    metadata = dict(out.get("metadata") or {})
    metadata["annotations"] = {**(metadata.get("annotations") or {}), ANNOTATION: digest}
    out["metadata"] = metadata
    return out
