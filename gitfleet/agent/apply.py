"""The applier: one cluster converges to one Work set (Karmada's execution controller).

`sync(client, work)` runs these steps, and returns a `SyncResult` naming what happened to every
manifest and every pruned object:

1. An incomplete Work set (a file that did not load) stops here: nothing is written.
2. Read the inventory (`inventory`); the objects it lists that are no longer desired are the
   leftovers. The prune guard (`prune`) may refuse the whole sync; before it does, a leftover
   with namesakes (below) is read through its group and theirs, and is no deletion when the
   server shows one object (one uid) through both.
3. Record in the inventory, before writing them, the objects about to be applied, so a crash
   half-way never leaves an applied object that a later sync would not prune.
4. Apply phase by phase (`order`): for each kind, one list of the live objects carrying
   gitfleet's labels; an object whose content hash annotation equals the desired one and that
   has not drifted (`drift`) is left alone, so a sync that changes nothing makes no write.
   Others get a server-side apply (field manager `gitfleet`, force), the desired manifest
   first given the native defaults apply needs (`native_defaults`) and passed through the
   interpreter's Retain for fields the member owns. After the first
   phase, CRDs must be Established before custom resources are applied.
5. Delete the leftovers, in reverse order, each only if it still carries gitfleet's labels
   (one whose binding preserves resources on deletion is released instead: `release`);
   a refused delete stays in the inventory and is tried again next sync. A leftover with
   namesakes (`prune.namesakes`: a desired object of its kind, namespace and name in another
   group) is deleted only when its uid is not one of theirs: the same uid is the object this
   sync applied, served under both groups, and it is only forgotten under the old one.
6. Read back what was written, for health and reflected status (`health`), the few fields
   a report keeps (`observed`) and a Deployment's unschedulable pods (`unschedulable`), and
   store the final inventory.

A failure is confined to its object: the others go on, and the result says what failed and
why. An immutable field (a workload's selector, a Job's template, a StatefulSet's
volumeClaimTemplates, a binding's roleRef) is reported; the object is deleted and created
again only when its manifest carries `gitfleet.io/recreate-on-immutable: "true"`. Objects
`kubectl apply` created are taken over (`takeover`) where the manifest allows a takeover:
an object gitfleet does not manage is written only then (`conflict`).
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import enum
import functools
import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar, cast

from gitfleet import errors
from gitfleet.agent import (
    conflict,
    drift,
    health,
    identity,
    inventory,
    kube,
    native_defaults,
    observed,
    order,
    podmetrics,
    prune,
    release,
    stamp,
    takeover,
    unschedulable,
    workdir,
)
from gitfleet.interpreter import Interpreter
from gitfleet.model import replicas, work
from gitfleet.model.template import RawObject

log = logging.getLogger(__name__)
T = TypeVar("T")
Obj = dict[str, Any]

_PATCH_ATTEMPTS = 3
_READ_BACK_LIST_AT = 50
"""From this many writes of one kind on, read them back with one list rather than one get each;
as many to one namespace not yet holding them with gitfleet's labels, see what stands there so."""


class Action(enum.StrEnum):
    CREATED = "created"
    CONFIGURED = "configured"
    UNCHANGED = "unchanged"
    RECREATED = "recreated"
    FAILED = "failed"
    SKIPPED = "skipped"
    """Not attempted: the sync was refused or stopped first."""
    PRUNED = "pruned"
    GONE = "gone"
    """A leftover no longer in the cluster with gitfleet's labels: forgotten, not touched."""
    PRUNE_FAILED = "prune-failed"
    RELEASED = "released"
    """A leftover kept in the cluster without gitfleet's marks (`release`), not deleted."""
    ALIASED = "aliased"
    """A leftover the server serves as a desired object of another group (one uid: an Ingress
    in `extensions` and `networking.k8s.io`): not touched, forgotten under its old group."""


APPLIED = frozenset({Action.CREATED, Action.CONFIGURED, Action.UNCHANGED, Action.RECREATED})
WRITTEN = frozenset({Action.CREATED, Action.CONFIGURED, Action.RECREATED})


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Options:
    max_prune_share: float = prune.DEFAULT_MAX_SHARE
    workers: int = 8
    """Writes in flight at once within one phase."""
    wait_timeout: float = 60.0
    """How long to wait for a CRD to be Established, or a recreated object to be gone."""
    poll: float = 0.2


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class ObjectResult:
    """What a sync did to one object."""

    ref: identity.ObjectRef
    path: str = ""
    """The manifest's file in the rendered commit ("" for leftovers)."""
    action: Action
    message: str = ""
    drift: tuple[str, ...] = ()
    """Fields found changed in the cluster (and put back), or `(object)` if it was deleted."""
    health: work.ResourceHealth = work.ResourceHealth.UNKNOWN
    status: Any = None
    observed: Obj | None = None
    """The fields of the live object a report keeps (`observed`), None when not read back;
    kept for a failed write too, of the object gitfleet applied before, which stays as it was
    (`gitfleet get` lists it, as kubectl does)."""
    unschedulable: tuple[replicas.Pending, ...] = ()
    """A Deployment's pods waiting for a node, by since when (`unschedulable`)."""
    metrics: Obj | None = None
    """The pods of a FederatedHPA's target as measured (`metrics`), None for other objects."""
    terminating: bool = False
    """The live object is being deleted (`health.terminating`): not applied, whatever was
    written."""

    @property
    def applied(self) -> bool:
        return self.action in APPLIED and not self.terminating


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class SyncResult:
    """One sync of one cluster: every manifest's result (sorted by path), every leftover's,
    and the error that stopped the whole sync, if any."""

    cluster: str
    rendered_commit: str
    source_commit: str = ""
    objects: tuple[ObjectResult, ...] = ()
    pruned: tuple[ObjectResult, ...] = ()
    error: str = ""
    cancelled: bool = False
    refused: str = ""
    """Why the rendered commit was refused without a look at the cluster (`verify`'s
    reasons), "" when it was not."""
    guard_refused: bool = False
    """The prune guard refused the sync (`error` says why)."""
    last_applied: str = ""
    """When refused: the commit applied before, which the cluster keeps ("" when none)."""

    @property
    def converged(self) -> bool:
        return (
            not self.error
            and not self.cancelled
            and all(o.applied for o in self.objects)
            and all(p.action is not Action.PRUNE_FAILED for p in self.pruned)
        )

    @property
    def drifted(self) -> tuple[ObjectResult, ...]:
        return tuple(o for o in self.objects if o.drift)


def sync(
    client: kube.KubeClient,
    work_set: workdir.WorkSet,
    *,
    interpreter: Interpreter | None = None,
    options: Options = Options(),
    stop: threading.Event | None = None,
) -> SyncResult:
    """Bring the cluster behind `client` to `work_set`; never raises for a cluster's answer."""
    return _Sync(client, work_set, interpreter or Interpreter(), options, stop or client.stop).run()


@dataclasses.dataclass(slots=True)
class _Write:
    """A manifest that needs a write, with everything decided before sending it."""

    manifest: workdir.Manifest
    rtype: kube.ResourceType
    config: Obj
    drift: tuple[str, ...]
    unretained: Obj
    """The config before Retain kept the live object's fields: what a recreated object is
    created from. The fields Retain keeps belong to the object being replaced (a Job's
    selector and pod labels name its uid), and the server refuses them on a new one."""
    unseen: bool = False
    """No object with gitfleet's labels was listed: one of someone else's may be there
    (`conflict`), to be read before writing."""
    existing: Obj | None = None
    """Someone else's object where the manifest goes, when already read (`unseen` False)."""


_IMMUTABLE_WORDING = (
    "immutable",
    "updates to statefulset spec for fields other than",
    "cannot change roleref",
)
"""How a 422 says a field cannot change (lower case): most kinds call the field immutable; a
StatefulSet refuses a change to any spec field but the few it lets change
(`volumeClaimTemplates`, `serviceName`, ...) as `spec: Forbidden: updates to statefulset spec
for fields other than 'replicas', 'template', and 'updateStrategy' are forbidden`, and a
RoleBinding or ClusterRoleBinding a changed `roleRef` as `roleRef: Invalid value: ...: cannot
change roleRef`, both without that word."""


_STRATEGY_FIELDS = {
    unschedulable.DEPLOYMENT: "strategy",
    ("apps/v1", "StatefulSet"): "updateStrategy",
}
"""The field holding a workload's update strategy, for the kinds whose strategies other than
RollingUpdate (Recreate, OnDelete) refuse `rollingUpdate`."""


def _stale_rolling_update(config: Obj, error: errors.ClusterAPIError) -> str | None:
    """The strategy field of a Deployment changed to Recreate, or a StatefulSet to OnDelete,
    refused for the `rollingUpdate` the server defaulted when it was RollingUpdate: nobody owns
    that field, so an apply cannot remove it (not even as null), and the server refuses it
    beside the new type. None: not that refusal."""
    field = _STRATEGY_FIELDS.get((str(config.get("apiVersion")), str(config.get("kind"))))
    if error.code != 422 or field is None:
        return None
    strategy = (config.get("spec") or {}).get(field)
    if not isinstance(strategy, dict) or strategy.get("type") in (None, "RollingUpdate"):
        return None
    stale = f"spec.{field}.rollingUpdate"
    return field if any(c.get("field") == stale for c in _causes(error)) else None


def _immutable(error: errors.ClusterAPIError) -> bool:
    if error.code != 422:
        return False
    texts = [str(error), *(str(c.get("message", "")) for c in _causes(error))]
    return any(word in t.lower() for t in texts for word in _IMMUTABLE_WORDING)


def _causes(error: errors.ClusterAPIError) -> list[Obj]:
    """The causes a refusal's Status lists (`details.causes`: field and message of each).
    A server or proxy may send another shape: what is not an object in a list is no cause."""
    details = error.status.get("details")
    causes = details.get("causes") if isinstance(details, dict) else None
    return [c for c in causes if isinstance(c, dict)] if isinstance(causes, list) else []


class _Sync:
    """One sync's state: what was decided and seen, per object."""

    pool: concurrent.futures.ThreadPoolExecutor
    """Runs one phase's writes (or deletions) in parallel; made once the sync will write."""

    def __init__(
        self,
        client: kube.KubeClient,
        work_set: workdir.WorkSet,
        interpreter: Interpreter,
        options: Options,
        stop: threading.Event,
    ) -> None:
        self.client = client
        self.work = work_set
        self.interpreter = interpreter
        self.options = options
        self.stop = stop
        self.selector = stamp.selector(work_set.cluster)
        self.results: dict[identity.ObjectRef, ObjectResult] = {}
        self.live: dict[identity.ObjectRef, Obj] = {}
        self.types: dict[tuple[str, str], kube.ResourceType] = {}

    # ---- the steps ---------------------------------------------------------------------

    def run(self) -> SyncResult:
        work_set = self.work
        if not work_set.complete:
            shown = "; ".join(work_set.problems[:5])
            more = len(work_set.problems) - 5
            if more > 0:
                shown += f"; and {more} more"
            return self._stopped(f"the Work directory did not load completely: {shown}")
        try:
            held, exists = inventory.read(self.client, work_set.cluster)
        except (errors.ClusterAPIError, inventory.InventoryError) as exc:
            return self._stopped(str(exc))
        configs = {
            m.ref: stamp.stamp(
                native_defaults.fill(m.body),
                cluster=work_set.cluster,
                source_path=m.path,
                source_commit=work_set.source_commit,
            )
            for m in work_set.manifests
        }
        wanted = {identity.object_id(ref) for ref in configs}
        leftovers = [e for key, e in held.entries.items() if key not in wanted]
        namesakes = prune.namesakes(leftovers, configs)
        verdict = functools.partial(
            prune.refusal,
            cluster=work_set.cluster,
            managed=len(held),
            desired=len(configs),
            max_share=self.options.max_prune_share,
            allowed=work_set.allow_prune,
        )
        refused = verdict(deleting=len(leftovers))
        if refused and namesakes:
            refused = verdict(deleting=len(leftovers) - self._count_aliased(namesakes))
        if refused:
            return dataclasses.replace(self._stopped(refused), guard_refused=True)
        desired = [
            inventory.Entry(m.ref, stamp.annotations_of(configs[m.ref])[stamp.CONTENT_HASH])
            for m in work_set.manifests
        ]
        recorded = inventory.Inventory.of([*held.entries.values(), *desired])
        try:
            self._store(recorded, held if exists else None)
        except errors.ClusterAPIError as exc:
            return self._stopped(f"cannot record the inventory: {exc}")
        self.pool = concurrent.futures.ThreadPoolExecutor(self.options.workers)
        try:
            for phase in order.APPLY_ORDER:
                if self.stop.is_set():
                    break
                self._apply_phase(phase, configs, held)
            pruned = [] if self.stop.is_set() else self._prune(leftovers, namesakes)
            self._read_back()
        finally:
            self.pool.shutdown()
        cancelled = self.stop.is_set()
        kept = [
            held.entries[identity.object_id(p.ref)]
            for p in pruned
            if p.action is Action.PRUNE_FAILED
        ]
        if not cancelled:
            try:
                self._store(inventory.Inventory.of([*desired, *kept]), recorded)
            except errors.ClusterAPIError as exc:
                log.warning("cluster %s: cannot store the inventory: %s", work_set.cluster, exc)
        return SyncResult(
            cluster=work_set.cluster,
            rendered_commit=work_set.rendered_commit,
            source_commit=work_set.source_commit,
            objects=tuple(self._result(m) for m in work_set.manifests),
            pruned=tuple(sorted(pruned, key=lambda r: r.ref)),
            cancelled=cancelled,
        )

    def _result(self, manifest: workdir.Manifest) -> ObjectResult:
        found = self.results.get(manifest.ref)
        if found is None:
            found = ObjectResult(
                ref=manifest.ref, action=Action.SKIPPED, message="the sync was stopped first"
            )
        return dataclasses.replace(found, path=manifest.path)

    def _stopped(self, message: str) -> SyncResult:
        """A sync that writes nothing: every manifest skipped, for `message`."""
        log.warning("cluster %s: %s", self.work.cluster, message)
        return SyncResult(
            cluster=self.work.cluster,
            rendered_commit=self.work.rendered_commit,
            source_commit=self.work.source_commit,
            objects=tuple(
                ObjectResult(ref=m.ref, path=m.path, action=Action.SKIPPED, message=message)
                for m in self.work.manifests
            ),
            error=message,
        )

    def _store(self, wanted: inventory.Inventory, stored: inventory.Inventory | None) -> None:
        """Write `wanted` unless the cluster holds it already (`stored`: None if it holds no
        inventory at all)."""
        if stored is not None and wanted.text() == stored.text():
            return
        inventory.write(self.client, wanted, self.work.cluster, exists=stored is not None)

    # ---- apply -------------------------------------------------------------------------

    def _parallel(self, tasks: Sequence[Callable[[], T]]) -> list[T]:
        return list(self.pool.map(lambda task: task(), tasks))

    def _resolve(self, api_version: str, kind: str) -> kube.ResourceType:
        key = (api_version, kind)
        if key not in self.types:
            self.types[key] = self.client.resource_type(api_version, kind)
        return self.types[key]

    def _list(self, rtype: kube.ResourceType) -> dict[tuple[str, str], Obj]:
        return {
            (o["metadata"].get("namespace", ""), o["metadata"]["name"]): o
            for o in self.client.list_objects(rtype, self.selector)
        }

    def _fail_all(self, refs: Iterable[identity.ObjectRef], message: str) -> None:
        for ref in refs:
            self.results[ref] = ObjectResult(ref=ref, action=Action.FAILED, message=message)

    def _apply_phase(
        self, phase: order.Phase, configs: dict[identity.ObjectRef, Obj], held: inventory.Inventory
    ) -> None:
        by_kind: dict[tuple[str, str], list[workdir.Manifest]] = {}
        for manifest in self.work.manifests:
            if order.phase_of(manifest.ref) is phase:
                by_kind.setdefault((manifest.ref.api_version, manifest.ref.kind), []).append(
                    manifest
                )
        writes: list[_Write] = []
        listed: dict[identity.ObjectRef, Obj] = {}
        for (api_version, kind), manifests in sorted(by_kind.items()):
            try:
                rtype = self._resolve(api_version, kind)
                live = self._list(rtype)
            except errors.ClusterAPIError as exc:
                self._fail_all((m.ref for m in manifests), str(exc))
                continue
            for m in manifests:
                if (m.ref.namespace, m.ref.name) in live:
                    listed[m.ref] = live[(m.ref.namespace, m.ref.name)]
            planned = [
                self._plan(m, rtype, configs[m.ref], live.get((m.ref.namespace, m.ref.name)), held)
                for m in manifests
            ]
            kind_writes = [w for w in planned if w is not None]
            self._look_up_unseen(rtype, [w for w in kind_writes if w.unseen])
            writes += kind_writes
        for ref, result, obj in self._parallel([functools.partial(self._write, w) for w in writes]):
            self.results[ref] = result
            if obj is not None:
                self.live[ref] = obj
            elif result.action is Action.FAILED and ref in listed:
                self.live[ref] = listed[ref]  # refused: the object stays as gitfleet left it
        if phase is order.Phase.FOUNDATION:
            self._settle_crds([w.manifest.ref for w in writes])

    def _look_up_unseen(self, rtype: kube.ResourceType, writes: Sequence[_Write]) -> None:
        """Read what stands where `writes` go, with one list of a namespace where many go (a
        first sync), as read-back does (`_READ_BACK_LIST_AT`); the others are read one by one
        when written. A list that fails leaves its writes to be read one by one."""
        by_namespace: dict[str, list[_Write]] = {}
        for write in writes:
            by_namespace.setdefault(write.manifest.ref.namespace, []).append(write)
        for namespace, waiting in by_namespace.items():
            if len(waiting) < _READ_BACK_LIST_AT:
                continue
            try:
                listed = self.client.list_objects(rtype, namespace=namespace)
            except errors.ClusterAPIError:
                continue
            by_name = {o["metadata"]["name"]: o for o in listed}
            for write in waiting:
                write.existing, write.unseen = by_name.get(write.manifest.ref.name), False

    def _plan(
        self,
        manifest: workdir.Manifest,
        rtype: kube.ResourceType,
        config: Obj,
        live: Obj | None,
        held: inventory.Inventory,
    ) -> _Write | None:
        """The write a manifest needs, or None (its result recorded) when it needs none."""
        ref = manifest.ref
        if live is None:
            gone = ("(object)",) if identity.object_id(ref) in held else ()
            return _Write(manifest, rtype, config, gone, config, unseen=True)
        unretained = config
        try:
            retained = self.interpreter.retain(cast(RawObject, config), cast(RawObject, live))
            config = cast(Obj, retained)
        except (errors.GitfleetError, ValueError, TypeError) as exc:
            message = f"retaining the member's fields of {ref}: {exc}"
            self.results[ref] = ObjectResult(ref=ref, action=Action.FAILED, message=message)
            return None
        desired_hash = stamp.annotations_of(config).get(stamp.CONTENT_HASH)
        if stamp.annotations_of(live).get(stamp.CONTENT_HASH) != desired_hash or takeover.needed(
            live
        ):
            return _Write(manifest, rtype, config, (), unretained)
        changed = drift.changes(config, live)
        if changed:
            return _Write(manifest, rtype, config, tuple(changed), unretained)
        self.results[ref] = ObjectResult(ref=ref, action=Action.UNCHANGED)
        self.live[ref] = live
        return None

    def _write(self, write: _Write) -> tuple[identity.ObjectRef, ObjectResult, Obj | None]:
        ref = write.manifest.ref
        if self.stop.is_set():
            message = "the sync was stopped first"
            return ref, ObjectResult(ref=ref, action=Action.SKIPPED, message=message), None
        try:
            existing = (
                self.client.get(write.rtype, ref.namespace, ref.name)
                if write.unseen
                else write.existing
            )
            found = conflict.verdict(write.config, existing)
            if found is conflict.Verdict.ABORT:
                message = conflict.aborted(ref)
                return ref, ObjectResult(ref=ref, action=Action.FAILED, message=message), None
            if found is conflict.Verdict.USE:
                log.info("cluster %s: %s is not gitfleet's: used as it is", self.work.cluster, ref)
                return ref, ObjectResult(ref=ref, action=Action.UNCHANGED), existing
            if existing is not None:
                write.drift = ()  # there all along: taken over, not created again
            obj, action = self._send(write)
        except errors.ClusterAPIError as exc:
            return ref, ObjectResult(ref=ref, action=Action.FAILED, message=str(exc)), None
        except Exception as exc:  # one bad object must not stop the others
            log.exception("cluster %s: applying %s", self.work.cluster, ref)
            message = f"internal error applying {ref}: {exc}"
            return ref, ObjectResult(ref=ref, action=Action.FAILED, message=message), None
        if write.drift:
            log.info("cluster %s: %s drifted (%s)", self.work.cluster, ref, ", ".join(write.drift))
        return ref, ObjectResult(ref=ref, action=action, drift=write.drift), obj

    def _send(self, write: _Write) -> tuple[Obj, Action]:
        client, rtype, config = self.client, write.rtype, write.config
        try:
            obj, created = client.apply(rtype, config, manager=stamp.FIELD_MANAGER)
        except errors.ClusterAPIError as exc:
            field = _stale_rolling_update(config, exc)
            if field is not None:
                return self._replace_strategy(write, field), Action.CONFIGURED
            if not _immutable(exc):
                raise
            if stamp.annotations_of(config).get(stamp.RECREATE_ON_IMMUTABLE) != "true":
                raise errors.ClusterAPIError(
                    f"{exc}; to let gitfleet delete and create it again, annotate the manifest"
                    f' {stamp.RECREATE_ON_IMMUTABLE}: "true"',
                    exc.status,
                    exc.code,
                ) from exc
            return self._recreate(write), Action.RECREATED
        if takeover.needed(obj):
            ref = write.manifest.ref
            log.info("cluster %s: taking over %s from kubectl", self.work.cluster, ref)
            self._patch_at_version(rtype, ref, obj, takeover.upgrade_patch, "taken over")
            obj, _ = client.apply(rtype, config, manager=stamp.FIELD_MANAGER)
        return obj, Action.CREATED if created else Action.CONFIGURED

    def _replace_strategy(self, write: _Write, field: str) -> Obj:
        """Set a workload's strategy (`spec.<field>`) to the manifest's whole (dropping the
        `rollingUpdate` the server defaulted, which no apply can remove), then apply."""
        ref, strategy = write.manifest.ref, write.config["spec"][field]
        log.info("cluster %s: replacing the strategy of %s", self.work.cluster, ref)
        live = self.client.get(write.rtype, ref.namespace, ref.name)
        if live is None:
            raise errors.NotFoundError(
                f"{ref} disappeared while its strategy was replaced", code=404
            )

        def replace(obj: Obj) -> list[Obj]:
            version = (obj.get("metadata") or {}).get("resourceVersion")
            return [
                {"op": "test", "path": "/metadata/resourceVersion", "value": version},
                {"op": "replace", "path": f"/spec/{field}", "value": strategy},
            ]

        self._patch_at_version(write.rtype, ref, live, replace, "given its strategy")
        obj, _ = self.client.apply(write.rtype, write.config, manager=stamp.FIELD_MANAGER)
        return obj

    def _patch_at_version(
        self,
        rtype: kube.ResourceType,
        ref: identity.ObjectRef,
        obj: Obj,
        make: Callable[[Obj], list[Obj]],
        doing: str,
    ) -> None:
        """Send the JSON patch `make` makes of `obj`: it holds only at the resourceVersion it
        was made for, so a controller's write in between means reading the object again."""
        for attempt in range(_PATCH_ATTEMPTS):
            try:
                self.client.json_patch(
                    rtype, ref.namespace, ref.name, make(obj), manager=stamp.FIELD_MANAGER
                )
                return
            except errors.ClusterAPIError as exc:
                if exc.code not in (409, 422) or attempt + 1 == _PATCH_ATTEMPTS:
                    raise
            found = self.client.get(rtype, ref.namespace, ref.name)
            if found is None:
                raise errors.NotFoundError(f"{ref} disappeared while being {doing}", code=404)
            obj = found

    def _recreate(self, write: _Write) -> Obj:
        ref = write.manifest.ref
        log.info("cluster %s: recreating %s (immutable field changed)", self.work.cluster, ref)
        self.client.delete(write.rtype, ref.namespace, ref.name)
        self._wait(
            lambda: self.client.get(write.rtype, ref.namespace, ref.name) is None,
            f"{ref} to be deleted",
        )
        obj, _ = self.client.apply(write.rtype, write.unretained, manager=stamp.FIELD_MANAGER)
        return obj

    def _wait(self, done: Callable[[], bool], what: str) -> None:
        waited = 0.0
        while not done():
            if waited >= self.options.wait_timeout or self.stop.is_set():
                raise errors.ClusterAPIError(
                    f"gave up waiting {self.options.wait_timeout:g}s for {what}"
                )
            self.stop.wait(self.options.poll)
            waited += self.options.poll

    def _settle_crds(self, written: Sequence[identity.ObjectRef]) -> None:
        """Wait until every CRD written is Established, then look kinds up afresh."""
        crds = [r for r in written if order.is_crd(r) and self.results[r].action in WRITTEN]
        if not crds:
            return
        for ref in crds:
            try:
                rtype = self._resolve(ref.api_version, ref.kind)
                self._wait(
                    functools.partial(self._established, rtype, ref.name),
                    f"CustomResourceDefinition {ref.name} to be Established",
                )
            except errors.ClusterAPIError as exc:
                self.results[ref] = dataclasses.replace(
                    self.results[ref], action=Action.FAILED, message=str(exc)
                )
        self.types.clear()
        try:
            self.client.refresh_discovery()
        except errors.ClusterAPIError as exc:
            log.warning("cluster %s: %s", self.work.cluster, exc)

    def _established(self, rtype: kube.ResourceType, name: str) -> bool:
        """Whether the CRD is Established; a CRD whose names the server refused (another CRD
        of its group has one of them) never will be, and fails at once with the server's
        words rather than after the wait."""
        crd = self.client.get(rtype, "", name) or {}
        conditions = (crd.get("status") or {}).get("conditions") or []
        for condition in conditions:
            if condition.get("type") == "NamesAccepted" and condition.get("status") == "False":
                why = condition.get("message") or condition.get("reason") or "no reason given"
                raise errors.ClusterAPIError(
                    f"CustomResourceDefinition {name} cannot be Established: its names are not"
                    f" accepted ({condition.get('reason', '')}): {why}"
                )
        return any(c.get("type") == "Established" and c.get("status") == "True" for c in conditions)

    # ---- prune -------------------------------------------------------------------------

    def _count_aliased(self, namesakes: prune.Namesakes) -> int:
        """How many leftovers with namesakes the server shows as one of them, read before
        any write (two requests each, made only when the guard would refuse otherwise). One
        that cannot be read counts as a deletion: the guard errs on the side of refusing."""
        count = 0
        for ref, same in namesakes.items():
            try:
                rtype = self._resolve(ref.api_version, ref.kind)
                live = self.client.get(rtype, ref.namespace, ref.name)
                if live is not None and self._aliased(live, same) is not None:
                    count += 1
            except errors.ClusterAPIError:
                continue
        return count

    def _aliased(
        self, live: Obj, namesakes: Sequence[identity.ObjectRef]
    ) -> identity.ObjectRef | None:
        """The namesake that is the object `live` (the same uid), None when none is. A
        namesake's uid is that of the object its apply in this sync returned or found; read
        through its own group when it has none (its apply failed, or has not run yet)."""
        uid = (live.get("metadata") or {}).get("uid")
        for ref in namesakes:
            seen = self.live.get(ref)
            if seen is None:
                try:
                    rtype = self._resolve(ref.api_version, ref.kind)
                except kube.NotServedError:
                    continue  # a group the server does not serve holds no object
                seen = self.client.get(rtype, ref.namespace, ref.name)
            if uid and seen is not None and (seen.get("metadata") or {}).get("uid") == uid:
                return ref
        return None

    def _prune(
        self, leftovers: Sequence[inventory.Entry], namesakes: prune.Namesakes
    ) -> list[ObjectResult]:
        results: list[ObjectResult] = []
        for phase in order.DELETE_ORDER:
            by_kind: dict[tuple[str, str], list[identity.ObjectRef]] = {}
            for entry in leftovers:
                if order.phase_of(entry.ref) is phase:
                    by_kind.setdefault((entry.ref.api_version, entry.ref.kind), []).append(
                        entry.ref
                    )
            tasks: list[Callable[[], ObjectResult]] = []
            for (api_version, kind), refs in sorted(by_kind.items()):
                try:
                    rtype = self._resolve(api_version, kind)
                    live = self._list(rtype)
                except kube.NotServedError as exc:
                    results += [
                        ObjectResult(ref=r, action=Action.GONE, message=str(exc)) for r in refs
                    ]
                    continue
                except errors.ClusterAPIError as exc:
                    results += [
                        ObjectResult(ref=r, action=Action.PRUNE_FAILED, message=str(exc))
                        for r in refs
                    ]
                    continue
                for ref in refs:
                    found = live.get((ref.namespace, ref.name))
                    if found is None:
                        message = "not in the cluster with gitfleet's labels: left alone"
                        results.append(ObjectResult(ref=ref, action=Action.GONE, message=message))
                    else:
                        same = namesakes.get(ref, ())
                        tasks.append(functools.partial(self._leftover, rtype, ref, found, same))
            results += self._parallel(tasks)
        return results

    def _leftover(
        self,
        rtype: kube.ResourceType,
        ref: identity.ObjectRef,
        found: Obj,
        namesakes: Sequence[identity.ObjectRef],
    ) -> ObjectResult:
        """Take a leftover out of the cluster, unless it is one of its namesakes."""
        if namesakes:
            try:
                desired = self._aliased(found, namesakes)
            except errors.ClusterAPIError as exc:
                other = identity.object_id(namesakes[0])
                message = f"cannot tell whether it is {other}, served under both groups: {exc}"
                return ObjectResult(ref=ref, action=Action.PRUNE_FAILED, message=message)
            if desired is not None:
                same, other = identity.object_id(ref), identity.object_id(desired)
                log.info("cluster %s: %s is %s: not deleted", self.work.cluster, same, other)
                message = f"the same object as {other}, served under both groups: kept"
                return ObjectResult(ref=ref, action=Action.ALIASED, message=message)
        if release.wanted(found):
            return self._release(rtype, ref, found)
        return self._delete(rtype, ref)

    def _release(
        self, rtype: kube.ResourceType, ref: identity.ObjectRef, live: Obj
    ) -> ObjectResult:
        try:
            self._patch_at_version(rtype, ref, live, release.patch, "released")
        except errors.NotFoundError:
            return ObjectResult(ref=ref, action=Action.GONE, message="deleted by someone else")
        except errors.ClusterAPIError as exc:
            return ObjectResult(ref=ref, action=Action.PRUNE_FAILED, message=str(exc))
        log.info("cluster %s: released %s (preserved on deletion)", self.work.cluster, ref)
        message = "kept in the cluster (preserveResourcesOnDeletion), without gitfleet's marks"
        return ObjectResult(ref=ref, action=Action.RELEASED, message=message)

    def _delete(self, rtype: kube.ResourceType, ref: identity.ObjectRef) -> ObjectResult:
        try:
            self.client.delete(rtype, ref.namespace, ref.name)
        except errors.ClusterAPIError as exc:
            return ObjectResult(ref=ref, action=Action.PRUNE_FAILED, message=str(exc))
        log.info("cluster %s: pruned %s", self.work.cluster, ref)
        return ObjectResult(ref=ref, action=Action.PRUNED)

    # ---- read back ---------------------------------------------------------------------

    def _read_back(self) -> None:
        """Fresh copies of the objects written (their status moved on since the write), then
        every applied object's health and status."""
        written: dict[tuple[str, str], list[identity.ObjectRef]] = {}
        for result in self.results.values():
            if result.action in WRITTEN:
                ref = result.ref
                written.setdefault((ref.api_version, ref.kind), []).append(ref)
        tasks: list[Callable[[], list[tuple[identity.ObjectRef, Obj]]]] = []
        for (api_version, kind), refs in written.items():
            tasks.append(functools.partial(self._fetch, api_version, kind, refs))
        for fetched in self._parallel(tasks):
            for ref, obj in fetched:
                self.live[ref] = obj
        deployments = {
            key: seen
            for key, result in self.results.items()
            if result.applied
            and (key.api_version, key.kind) == unschedulable.DEPLOYMENT
            and (seen := self.live.get(key)) is not None
        }
        pending = unschedulable.find_all(self.client, deployments)
        for key, result in list(self.results.items()):
            seen = self.live.get(key)
            if result.action is Action.FAILED and seen is not None:
                self.results[key] = dataclasses.replace(result, observed=observed.fields(seen))
            elif result.applied and seen is not None:
                found_health, status = health.observe(self.interpreter, seen)
                deleting = health.terminating(seen)
                self.results[key] = dataclasses.replace(
                    result,
                    health=work.ResourceHealth.UNKNOWN if deleting else found_health,
                    terminating=bool(deleting),
                    message=deleting or result.message,
                    status=status,
                    observed=observed.fields(seen),
                    unschedulable=pending.get(key, ()),
                    metrics=podmetrics.measure(self.client, seen),
                )

    def _fetch(
        self, api_version: str, kind: str, refs: list[identity.ObjectRef]
    ) -> list[tuple[identity.ObjectRef, Obj]]:
        try:
            rtype = self._resolve(api_version, kind)
            if len(refs) >= _READ_BACK_LIST_AT:
                live = self._list(rtype)
                return [
                    (r, live[(r.namespace, r.name)]) for r in refs if (r.namespace, r.name) in live
                ]
            found = [(r, self.client.get(rtype, r.namespace, r.name)) for r in refs]
        except errors.ClusterAPIError as exc:
            log.warning("cluster %s: reading back %s: %s", self.work.cluster, kind, exc)
            return []
        return [(r, obj) for r, obj in found if obj is not None]
