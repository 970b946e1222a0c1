"""What a binding and its rendered files depend on, as digests: the keys of incremental rendering.

Two questions, two digests:

- Are the binding's files still right? Its manifests are a function of its template (content
  and file), the binding itself (schedule result, dependencies, claim, suspension, conflict
  resolution, status), each target cluster (name, labels and spec: what override rules match;
  never its status), the override policies that could apply (every ClusterOverridePolicy and
  the OverridePolicies of the template's namespace), the interpreter customizations for the
  template's kind, and the renderer's version. Their digest is written on the binding
  (`ANNOTATION`); when the next render computes the same digest for the binding it placed, the
  files cannot have changed and are taken from the previous render unread.
- Is the binding itself still right, so that it need not be detected and scheduled again?
  Karmada's controllers act on events: a binding none of whose inputs changed is left alone.
  Its inputs are its template, read on its own (`TEMPLATE_ANNOTATION`, written on the
  binding), and what every binding reads (`Inputs.shared`, written once in render.yaml):
  every propagation and override policy, every cluster with its status (its capacity apart,
  in `Inputs.capacity`: it matters only to bindings whose schedule reads it), every interpreter
  customization, the CRDs, PriorityClasses and Namespaces (scope, priority, and the
  Namespace manifests of every cluster, which depend on nothing else), the renderer. When both
  are as the previous render recorded them, the previous binding is the answer, and so are
  its files. Only a settled binding says what it was made from: one that came out of the
  scheduler as it went in. A binding that just changed may change once more with the same
  inputs (the scheduler reads the previous result: cluster locality reorders it), so it is
  placed again at the next render, and says so once it no longer moves.

A render from scratch computes every binding and must give the same tree, which the tests
check.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from gitfleet.model import cluster, config, meta, objects, work
from gitfleet.model.template import PerTemplate, ResourceKey, ResourceTemplate

ANNOTATION = "gitfleet.io/render-inputs"
TEMPLATE_ANNOTATION = "gitfleet.io/template-inputs"
_OWN_ANNOTATIONS = (ANNOTATION, TEMPLATE_ANNOTATION)
FILES_REVISION = 2
"""What the renderer writes for the same inputs: raised when a change to gitfleet makes a render
write different files for them (2: `gitfleet.io/preserve-on-deletion`), so that bindings
rendered by an earlier gitfleet are rendered again instead of keeping their files, as a full
render would. The version of gitfleet, also hashed, does not change between releases."""
_SHARED_TEMPLATES = {
    ("apiextensions.k8s.io", "CustomResourceDefinition"),
    ("scheduling.k8s.io", "PriorityClass"),
    ("", "Namespace"),
}
"""Templates whose content reaches other templates' bindings (scope, priority) or the
Namespace manifests of every cluster."""
Binding = work.ResourceBinding | work.ClusterResourceBinding


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _digest(parts: Iterable[bytes], framed: bytes = b"") -> str:
    """The digest of `parts`, each framed by its length, then of `framed`: parts already
    framed (`_framed`)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(b"%d:" % len(part))
        h.update(part)
    h.update(framed)
    return h.hexdigest()


def _framed(part: bytes) -> bytes:
    return b"%d:%s" % (len(part), part)


def _docs_digest(docs: Iterable[Any]) -> str:
    return _digest(
        _canonical(d.to_doc()) for d in sorted(docs, key=lambda d: (d.namespace, d.name))
    )


_template_digest = PerTemplate(lambda t: _digest([_canonical(t.body), t.origin.path.encode()]))
"""Each template's digest (content and file)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Recorded:
    """What a previous render recorded of its inputs: the digests of the shared ones and of
    the clusters' capacity (render.yaml's `inputs`) and, per binding (by template), the digest
    of its files' inputs and that of the template it settled from."""

    shared: str | None = None
    capacity: str | None = None
    files: Mapping[ResourceKey, str] = dataclasses.field(default_factory=dict)
    templates: Mapping[ResourceKey, str] = dataclasses.field(default_factory=dict)

    @staticmethod
    def split(
        doc: dict[str, Any], kept: dict[tuple[tuple[str, str], ...], dict[str, str]]
    ) -> tuple[dict[str, Any], str | None, str | None]:
        """A rendered binding's document without its digest annotations, and those digests
        (files, template): the stages compare and reuse bindings by what they say. The
        annotations left are one object per content, kept in `kept` (bindings of one policy
        have the same ones), so that documents decoded together decode them once. A
        document with annotations that are not all strings is returned as it is, for its
        decoder to refuse."""
        metadata = doc.get("metadata")
        if not isinstance(metadata, dict):
            return doc, None, None
        found = metadata.get("annotations")
        if (
            not isinstance(found, dict)
            or not any(a in found for a in _OWN_ANNOTATIONS)
            or not all(isinstance(v, str) for v in found.values())
        ):
            return doc, None, None
        left = tuple((k, v) for k, v in found.items() if k not in _OWN_ANNOTATIONS)
        plain = {k: v for k, v in metadata.items() if k != "annotations"}
        if left:
            plain["annotations"] = kept.setdefault(left, dict(left))
        return {**doc, "metadata": plain}, found.get(ANNOTATION), found.get(TEMPLATE_ANNOTATION)


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
    """Digests of the shared inputs, computed once per render.

    `recorded` is what the previous render recorded: bindings are reused (`unchanged`) only
    when its shared digest equals this render's; whether the clusters' capacity changed too
    (`same_capacity`) matters only to bindings whose schedule reads it, which the caller
    knows."""

    def __init__(
        self,
        objs: objects.ObjectSet,
        clusters: Sequence[cluster.Cluster],
        third_party: Sequence[config.ResourceInterpreterCustomization],
        version: str,
        recorded: Recorded | None = None,
    ) -> None:
        self.recorded = recorded or Recorded()
        self._version = f"{version} files {FILES_REVISION}".encode()
        self.clusters = tuple(clusters)
        split = [_split_capacity(c) for c in sorted(clusters, key=_name)]
        self._cluster_overrides = _docs_digest(objs.cluster_override_policies).encode()
        self.shared = "sha256:" + _digest(
            [
                self._version,
                _docs_digest(objs.propagation_policies).encode(),
                _docs_digest(objs.cluster_propagation_policies).encode(),
                _docs_digest(objs.override_policies).encode(),
                self._cluster_overrides,
                _docs_digest(objs.customizations).encode(),
                _docs_digest(third_party).encode(),
                *(_canonical(shape) for shape, _ in split),
                *sorted(
                    _canonical(t.body)
                    for t in objs.templates
                    if (t.key.group, t.kind) in _SHARED_TEMPLATES
                ),
            ]
        )
        self.capacity = "sha256:" + _digest(_canonical(capacity) for _, capacity in split)
        self.reusable = self.recorded.shared == self.shared
        self.same_capacity = self.recorded.capacity == self.capacity
        by_namespace: dict[str, list[meta.ApiObject]] = {}
        for p in objs.override_policies:
            by_namespace.setdefault(p.namespace, []).append(p)
        self._overrides = {ns: _docs_digest(ps).encode() for ns, ps in by_namespace.items()}
        self._clusters = {
            capacity["name"]: _digest(
                [_canonical({k: v for k, v in shape.items() if k != "status"})]
            ).encode()
            for shape, capacity in split
        }
        self._targets: dict[str, bytes] = {}
        """Each target cluster's part of a binding's digest, framed: its name and digest."""
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
        """The digest of everything the manifests of the binding `doc` (as written, without
        its digests) for `template` on the `targets` clusters depend on."""
        key = template.key
        parts = [
            self._version,
            self.template(template).encode(),
            _spec_and_metadata(doc),
            self._cluster_overrides,
            self._overrides.get(key.namespace, b""),
            self._customizations.get((key.api_version, key.kind), b""),
        ]
        return _digest(parts, b"".join(self._target(name) for name in targets))

    def _target(self, name: str) -> bytes:
        found = self._targets.get(name)
        if found is None:
            found = _framed(name.encode()) + _framed(self._clusters.get(name, b"absent"))
            self._targets[name] = found
        return found

    def template(self, template: ResourceTemplate) -> str:
        """The digest of the template as its binding reads it (content and file)."""
        return _template_digest(template)

    def unchanged(self, template: ResourceTemplate, before: Binding) -> bool:
        """Whether `before`, the previous render's binding of `template`, is still its binding:
        placed by a policy, settled, and made from the same template and shared inputs."""
        return (
            self.reusable
            and before.spec.placement is not None
            and self.recorded.templates.get(template.key) == self.template(template)
        )

    def to_json(self) -> dict[str, str]:
        """render.yaml's `inputs`."""
        return {"shared": self.shared, "capacity": self.capacity}


def _name(member: cluster.Cluster) -> str:
    return member.name


_CAPACITY = ("resourceSummary", "nodeSummary")
"""What of a cluster's status only the estimator reads, and which agents report ever changing."""


def _split_capacity(member: cluster.Cluster) -> tuple[dict[str, Any], dict[str, Any]]:
    """The cluster's document without its capacity, and its capacity (with its name)."""
    doc = member.to_doc()
    found = doc.get("status")
    status = found if isinstance(found, dict) else {}
    capacity = {"name": member.name, **{k: status[k] for k in _CAPACITY if k in status}}
    if isinstance(found, dict):
        doc["status"] = {k: v for k, v in found.items() if k not in _CAPACITY}
    return doc, capacity


def with_digests(doc: Mapping[str, Any], digest: str, template: str | None) -> dict[str, Any]:
    """The binding document with its digest annotations: of its files' inputs, and of its
    template (`Inputs.template`) when the binding has settled."""
    out = dict(doc)
    metadata = dict(out.get("metadata") or {})
    annotations = {**(metadata.get("annotations") or {}), ANNOTATION: digest}
    if template is not None:
        annotations[TEMPLATE_ANNOTATION] = template
    metadata["annotations"] = annotations
    out["metadata"] = metadata
    return out
