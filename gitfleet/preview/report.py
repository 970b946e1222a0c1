"""The preview as data (`--format json`): stable keys, every diff whole. `ok` is false when the
head has errors or its render refuses manifests (`refused`, each as render.yaml records it,
with `onBase`: whether the base refuses it too). `bindings` lists the resources whose binding
changes beyond their placement, and `beyondManifests` what the head changes that no rendered
file holds (`inputs`)."""

from __future__ import annotations

from typing import Any

from gitfleet.preview import diff, result


def _resource(r: diff.Resource) -> dict[str, str]:
    return {"kind": r.kind, "group": r.group, "namespace": r.namespace, "name": r.name}


def _placement(p: diff.Placement) -> dict[str, Any]:
    return {
        "resource": _resource(p.resource),
        "before": dict(sorted(p.before.items())),
        "after": dict(sorted(p.after.items())),
        "clustersAdded": list(p.added),
        "clustersRemoved": list(p.removed),
    }


def _cluster(c: diff.ClusterChanges) -> dict[str, Any]:
    found: dict[str, Any] = {
        change: [f.path for f in c.files if f.change == change]
        for change in ("added", "changed", "removed")
    }
    found["diff"] = "".join(f.diff for f in c.files)
    return found


def _side(s: result.Side) -> dict[str, Any]:
    return {
        "rev": s.rev,
        "commit": s.commit,
        "obtained": s.obtained,
        "renderedBindings": s.rendered,
    }


def as_json(preview: result.Preview) -> dict[str, Any]:
    """Every key present; `rollout` (the head's waves) only with a rollout section."""
    changes = preview.changes
    found: dict[str, Any] = {
        "base": _side(preview.base),
        "head": _side(preview.head),
        "ok": preview.ok,
        "errors": [d.to_json() for d in preview.errors],
        "refused": [{**r.to_json(), "onBase": on_base} for r, on_base in preview.refused()],
        "baseErrors": [d.to_json() for d in preview.base_errors],
        "summary": preview.summary,
        "moved": [_placement(p) for p in changes.moved] if changes else [],
        "added": [_placement(p) for p in changes.added] if changes else [],
        "removed": [_placement(p) for p in changes.removed] if changes else [],
        "clusters": {c.cluster: _cluster(c) for c in changes.clusters} if changes else {},
        "bindings": [
            {"resource": _resource(b.resource), "fields": list(b.fields)} for b in changes.bindings
        ]
        if changes
        else [],
        "beyondManifests": [
            {"subject": c.subject, "change": c.change, "fields": list(c.fields)}
            for c in preview.beyond
        ],
    }
    if preview.waves:
        found["rollout"] = [
            {"wave": w.name, "clusters": list(w.clusters), "changed": list(w.changed)}
            for w in preview.waves
        ]
    return found
