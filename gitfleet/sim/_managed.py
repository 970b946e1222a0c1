"""Server-side apply and field ownership (`metadata.managedFields`).

Each write records who set which fields:
- an apply (`PATCH` with `application/apply-patch+yaml`) makes its manager own exactly the
  fields of its configuration; a field another manager owns with a different value is a
  conflict (409, each cause naming the manager and field) unless `force=true`, which takes
  the field over; fields the manager applied before and no longer does are removed from the
  object unless some other manager still owns them (or something below them);
- any other write (create, update, patch) gives its manager the fields it changed, taking
  them away from the others without conflict, and drops removed fields from every set;
- an apply by the manager `kubectl` takes over without conflict the fields a client-side
  `kubectl apply` set (as its last-applied-configuration annotation says) and still have
  that value, and rewrites the annotation, if there is one, to the configuration applied:
  so `kubectl apply --server-side` after `kubectl apply` works as on a real server.

This follows Kubernetes' structured-merge-diff (`sigs.k8s.io/structured-merge-diff/merge`)
with the list semantics of `_lists`; versions and field types are not modelled.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from gitfleet.sim import _errors, _fields, _gojson, _json, _patch

APPLY = "Apply"
UPDATE = "Update"
KUBECTL = "kubectl"
"""The manager whose apply upgrades what client-side `kubectl apply` set."""
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


@dataclasses.dataclass(slots=True)
class Entry:
    """One element of `metadata.managedFields`."""

    manager: str
    operation: str
    api_version: str
    time: str
    fields: set[_fields.Path]
    subresource: str = ""

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.manager, self.operation, self.subresource)

    def encode(self) -> _json.Obj:
        entry: _json.Obj = {
            "manager": self.manager,
            "operation": self.operation,
            "apiVersion": self.api_version,
            "time": self.time,
            "fieldsType": "FieldsV1",
            "fieldsV1": _fields.to_fields_v1(self.fields),
        }
        if self.subresource:
            entry["subresource"] = self.subresource
        return entry


def decode(obj: _json.Obj | None) -> list[Entry]:
    """The entries recorded on `obj` (none for a new object)."""
    entries: list[Entry] = []
    for raw in _json.dig(obj or {}, "metadata", "managedFields") or []:
        if not isinstance(raw, dict) or not raw.get("manager"):
            continue
        entries.append(
            Entry(
                manager=raw["manager"],
                operation=raw.get("operation", UPDATE),
                api_version=raw.get("apiVersion", ""),
                time=raw.get("time", ""),
                fields=_fields.from_fields_v1(raw.get("fieldsV1")),
                subresource=raw.get("subresource", ""),
            )
        )
    return entries


def store(obj: _json.Obj, entries: list[Entry]) -> None:
    """Write `entries` (those owning something) into `obj.metadata.managedFields`."""
    kept = [entry.encode() for entry in entries if entry.fields]
    metadata = _json.ensure(obj, "metadata")
    if kept:
        metadata["managedFields"] = kept
    else:
        metadata.pop("managedFields", None)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Write:
    """Who writes and where: the manager, the object's apiVersion, the subresource ("" or
    "status"), whether the kind has a status subresource, and whether it is built in."""

    manager: str
    api_version: str
    time: str
    subresource: str = ""
    status_subresource: bool = False
    builtin: bool = True

    @property
    def scope(self) -> str:
        if self.subresource == "status":
            return "status"
        return "spec" if self.status_subresource else "main"


def _fieldset(obj: _json.Obj | None, write: Write) -> frozenset[_fields.Path]:
    if obj is None:
        return frozenset()
    return _fields.of(_fields.ownable(obj, status=write.scope), builtin=write.builtin)


def record_update(old: _json.Obj | None, new: _json.Obj, write: Write) -> None:
    """Update `new`'s managed fields for a non-apply write that turned `old` into `new`."""
    given = _json.dig(new, "metadata", "managedFields")
    previous = _json.dig(old or {}, "metadata", "managedFields")
    if given == [{}]:
        new["metadata"].pop("managedFields")  # the documented way to reset ownership
        return
    if given and given != previous:
        return  # the writer set managedFields itself: they stand, as on a real server
    entries = decode(old)
    before, after = _fieldset(old, write), _fieldset(new, write)
    removed = before - after
    changed = {
        path
        for path in after
        if path not in before
        or (not _fields.is_item(path) and _fields.get(old, path) != _fields.get(new, path))
    }
    own: Entry | None = None
    for entry in entries:
        if entry.key == (write.manager, UPDATE, write.subresource):
            own = entry
        entry.fields -= removed | changed
    if changed:
        if own is None:
            own = Entry(
                write.manager, UPDATE, write.api_version, write.time, set(), write.subresource
            )
            entries.append(own)
        own.fields |= changed
        own.api_version, own.time = write.api_version, write.time
    store(new, entries)


def apply(
    live: _json.Obj | None,
    config: _json.Obj,
    write: Write,
    *,
    force: bool,
    sent: _json.Obj | None = None,
) -> _json.Obj:
    """The object after `write.manager` applies `config` to `live` (None: not there yet).
    `sent`: the configuration as the client sent it, before the namespace was filled in."""
    config = _strip_nulls(config)
    entries = decode(live)
    applied = _fieldset(config, write)
    own_key = (write.manager, APPLY, write.subresource)
    current = live or {}
    conflicts: list[tuple[Entry, _fields.Path]] = []
    for entry in entries:
        if entry.key == own_key:
            continue
        for path in sorted(entry.fields & applied):
            if _fields.is_item(path):
                continue
            if _fields.get(current, path) != _fields.get(config, path):
                conflicts.append((entry, path))
    if conflicts and not force and not _upgrading_client_side_apply(current, conflicts, write):
        raise _conflict_error(conflicts)
    for entry, path in conflicts:
        entry.fields.discard(path)
    merged: _json.Obj = _patch.merge(
        current, _fields_only(config, write), strategic=True, builtin=write.builtin
    )
    previous = next((set(e.fields) for e in entries if e.key == own_key), set())
    still_owned = _fields.prefixes(
        [*applied, *(p for e in entries if e.key != own_key for p in e.fields)]
    )
    for path in sorted(previous - applied, key=len, reverse=True):
        if path not in still_owned and not _fields.is_key_field(path):
            _fields.remove(merged, path)
    own = Entry(
        write.manager, APPLY, write.api_version, write.time, set(applied), write.subresource
    )
    position = next((n for n, e in enumerate(entries) if e.key == own_key), len(entries))
    entries[position : position + 1] = [own]  # in place: a repeated apply changes nothing
    store(merged, entries)
    if write.manager == KUBECTL and _last_applied(merged) is not None:
        merged["metadata"]["annotations"][LAST_APPLIED] = _last_applied_text(sent or config)
    return merged


def _last_applied(obj: _json.Obj) -> str | None:
    value = (_json.dig(obj, "metadata", "annotations") or {}).get(LAST_APPLIED)
    return value if isinstance(value, str) and value else None


def _last_applied_text(config: _json.Obj) -> str:
    """The annotation as the API server rewrites it after kubectl's apply: the configuration
    as sent, without the annotation, in compact JSON with sorted keys and a newline."""
    shown = _json.clone(config)
    annotations = _json.dig(shown, "metadata", "annotations")
    if isinstance(annotations, dict):
        annotations.pop(LAST_APPLIED, None)
        if not annotations:
            shown["metadata"].pop("annotations")
    return _gojson.dumps(shown, sort_keys=True) + "\n"


def _upgrading_client_side_apply(
    live: _json.Obj, conflicts: list[tuple[Entry, _fields.Path]], write: Write
) -> bool:
    """Whether the API server lets kubectl's server-side apply take over the fields a
    client-side `kubectl apply` set, without conflict (apiserver fieldmanager
    lastappliedmanager.go): only for the manager `kubectl`, and only for fields that the
    last-applied-configuration annotation sets to the value they still have."""
    text = _last_applied(live) if write.manager == KUBECTL else None
    if text is None:
        return False
    try:
        last = json.loads(text)
    except ValueError:
        return False
    if not isinstance(last, dict):
        return False
    allowed = {
        path
        for path in _fieldset(last, write)
        if _fields.is_item(path) or _fields.get(last, path) == _fields.get(live, path)
    }
    return all(path in allowed for _, path in conflicts)


def _fields_only(config: _json.Obj, write: Write) -> _json.Obj:
    """What an apply may change: for a status apply, only `status`; for the main endpoint
    of a kind with a status subresource, everything but `status`."""
    if write.scope == "status":
        return {"status": config.get("status", {})}
    if write.scope == "spec":
        return {k: v for k, v in config.items() if k != "status"}
    return config


def _strip_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_strip_nulls(v) for v in value]
    return value


def _manager_named(entry: Entry) -> str:
    """How a conflict names a manager: an updater with the API version it wrote through, an
    applier by name alone (apiserver fieldmanager/internal/conflict.go printManager)."""
    if entry.operation == APPLY:
        return f'"{entry.manager}"'
    return f'"{entry.manager}" using {entry.api_version}'


def _conflict_error(conflicts: list[tuple[Entry, _fields.Path]]) -> _errors.ApiError:
    """409 Conflict with a cause per field; like the API server's, its details name no object."""
    causes = [
        {
            "reason": "FieldManagerConflict",
            "message": f"conflict with {_manager_named(entry)}",
            "field": _fields.describe(path),
        }
        for entry, path in conflicts
    ]
    lines = [f"{cause['message']}: {cause['field']}" for cause in causes]
    count = len(conflicts)
    message = f"Apply failed with {count} conflict{'s' if count > 1 else ''}: " + "\n".join(lines)
    return _errors.ApiError(409, message, details={"causes": causes})
