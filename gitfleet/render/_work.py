"""One binding's manifests, one per target cluster, as Karmada's binding controller builds Works
(Karmada: pkg/controllers/binding/common.go ensureWork, mergeTargetClusters,
divideReplicasByJobCompletions, mergeLabel, mergeAnnotations, mergeConflictResolution;
pkg/controllers/ctrlutil/work.go CreateOrUpdateWork).

Target clusters are `spec.clusters` in order, then the clusters of `spec.requiredBy` not
already there (attached dependencies follow their workloads). For each, on a copy of the
template:
1. a workload's replicas are set to the cluster's share by the interpreter's ReviseReplica,
   Duplicated and Divided alike; the template's own count is never used;
2. a Job divided over clusters gets its `spec.completions` split by the same weights;
3. overrides are applied (the caller's `override`, which is `gitfleet.overrides`);
4. labels and annotations are set (below); 5. server-set fields and status are pruned;
6. numbers take the form Karmada's JSON round trip gives them (`_json`), in the template as
   stored (so `replicas: 2.0` is revised as 2) and in the result.

Labels and annotations, decided for GitOps (docs/design.md, "Objects in member clusters"):
- from Karmada: the policy's claim (the claim labels and annotations the binding records),
  put on the template before step 1 in place of any claim it was written with, as Karmada's
  detector writes it on the stored template (so overrides see it, and may change or remove
  it); then, after the overrides, the binding's
  permanent id label, the binding's name (and namespace) and
  `work.karmada.io/conflict-resolution` (the template's own valid value, else the binding's).
  Karmada's `karmada.io/managed` is not written: it tells a Karmada control plane that it owns
  the object. Work names, template uid and generation, the
  managed-labels/-annotations lists and the applied-overrides record describe Karmada's Work
  objects and its update path, which gitfleet does not have.
- gitfleet's: labels `gitfleet.io/managed-by: gitfleet` and `gitfleet.io/cluster`, annotation
  `gitfleet.io/source-path`, and `gitfleet.io/preserve-on-deletion: "true"` for a binding with
  `preserveResourcesOnDeletion` (the agent then leaves the object in the cluster, without
  gitfleet's and Karmada's marks, when its manifest goes) and for a namespace gitfleet
  generated: nothing in the source asked for it, and deleting it when the last manifest in it
  goes would delete what others keep there (a Secret delivered another way); Karmada's
  namespace, which exists in its control plane, stays on the members too. The source commit
  and the content hash are not written here (they would change every manifest on every
  commit): the agent adds them when it applies.

Clusters that match the same override rules (`Context.group`) and get the same replicas share
one build: the manifest is built once with a placeholder cluster label, and each cluster's
copy only has its own label filled in (a manifest whose text makes the placeholder ambiguous is
built for its cluster instead). That copy is a `ClusterManifest`, which makes its bytes only
when they are read (hashed, written): a render holds each shared build once, however many
clusters receive it.

A failure for one cluster (an override that cannot apply or would change what the object is, a
replica the interpreter cannot revise, a manifest its API server would refuse, such as a label
an override made a number (the context's `check`, validate's own rule), a manifest over 1.5 MiB,
a path that cannot be built) refuses that cluster's manifest only, located at the file and
line to fix, and the cluster keeps what the previous render gave it.
A Secret is refused on every cluster unless its template opts in to being written in plain text.
A cluster whose dispatching is suspended keeps its previous manifest as well.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, cast

from gitfleet import errors, interpreter
from gitfleet.model import cluster, policy, work, workloadcounts
from gitfleet.model.origin import Origin
from gitfleet.model.template import RawObject, ResourceTemplate
from gitfleet.render import _json, _paths, _prune, _yaml

Binding = work.ResourceBinding | work.ClusterResourceBinding
Override = Callable[[RawObject, cluster.Cluster], RawObject]
"""A manifest as one cluster receives it after the (Cluster)OverridePolicies."""
Author = Callable[[RawObject, cluster.Cluster, tuple[str | int, ...]], tuple[Origin, str] | None]
"""The override rule that wrote a field of a manifest for one cluster, if one did: where it is,
and its policy, named."""
Check = Callable[[RawObject], Sequence[tuple[tuple[str | int, ...], str]]]
"""What a member's API server would refuse in a manifest: (field path, message) each."""
Divide = Callable[[int, Sequence[tuple[str, int]], str], Sequence[tuple[str, int]]]
"""Karmada's Webster division: (total, [(cluster, weight)], template uid) -> [(cluster, n)]."""

MAX_MANIFEST_BYTES = 1536 * 1024
"""The most a manifest may weigh: what a member stores of one object (etcd's default request
limit, 1.5 MiB). A ConfigMap or Secret may hold 1 MiB of values, so its manifest may be over
1 MiB and still be applied; past 1.5 MiB no default cluster takes it (a patch bomb)."""
MANAGED_BY_LABEL = "gitfleet.io/managed-by"
MANAGED_BY = "gitfleet"
CLUSTER_LABEL = "gitfleet.io/cluster"
SOURCE_PATH_ANNOTATION = "gitfleet.io/source-path"
GENERATED_ANNOTATION = "gitfleet.io/generated-namespace"
PLAINTEXT_SECRET_ANNOTATION = "gitfleet.io/allow-plaintext-secret"
CONFLICT_RESOLUTION_ANNOTATION = "work.karmada.io/conflict-resolution"
PRESERVE_ANNOTATION = "gitfleet.io/preserve-on-deletion"
"""Set ("true") on the manifests of a binding with `preserveResourcesOnDeletion`: Karmada keeps
that on the Work, which a Work folder has no place for, and the agent must know it from the
object alone once its manifest is gone."""
RB_ID_LABEL = "resourcebinding.karmada.io/permanent-id"
CRB_ID_LABEL = "clusterresourcebinding.karmada.io/permanent-id"
RB_NAMESPACE_ANNOTATION = "resourcebinding.karmada.io/namespace"
RB_NAME_ANNOTATION = "resourcebinding.karmada.io/name"
CRB_NAME_ANNOTATION = "clusterresourcebinding.karmada.io/name"
_PLACEHOLDER = "gitfleet-cluster-label-placeholder-6b1f0c3a"
_PLACEHOLDER_LINE = f"\n    {CLUSTER_LABEL}: {_PLACEHOLDER}\n".encode()
_CLAIM_PREFIXES = ("propagationpolicy.karmada.io/", "clusterpropagationpolicy.karmada.io/")
_CONFLICT_VALUES = ("abort", "overwrite")
_MAPS = ("labels", "annotations")


def located(origin: Origin) -> dict[str, Any]:
    """Where a render.yaml entry points in the source."""
    return {"path": origin.path, "line": origin.line, "col": origin.col}


@dataclasses.dataclass(frozen=True, slots=True)
class Refusal:
    """A manifest not rendered for a cluster (empty: for every cluster), and why."""

    origin: Origin
    resource: str
    cluster: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return {
            **located(self.origin),
            "resource": self.resource,
            "cluster": self.cluster,
            "message": self.message,
        }

    @classmethod
    def from_json(cls, item: Mapping[str, Any]) -> Refusal:
        """A refusal as `to_json` wrote it (render.yaml's `refused`)."""
        line, col = item.get("line", 0), item.get("col", 0)
        origin = Origin(
            str(item.get("path", "")),
            line if isinstance(line, int) else 0,
            col if isinstance(col, int) else 0,
        )
        return cls(
            origin,
            str(item.get("resource", "")),
            str(item.get("cluster", "")),
            str(item.get("message", "")),
        )

    def __str__(self) -> str:
        where = f" on cluster {self.cluster}" if self.cluster else ""
        return self.origin.says(f"{self.resource}{where}: {self.message}")


@dataclasses.dataclass(frozen=True, slots=True)
class Output:
    """One resource's result: its path inside a cluster's folder, its new file for each
    cluster, the clusters that keep the previous render's file, and what was refused. Held
    by cluster, not by path: the clusters share the one relative path, and a fleet's output
    is not a full path a file."""

    relative: str
    """The path inside each cluster's folder (`""`: none can be made; nothing is written)."""
    files: Mapping[str, Data]
    """New files, by cluster."""
    kept: tuple[str, ...]
    """The clusters whose file stays as the previous render wrote it, if it had one."""
    refusals: tuple[Refusal, ...]
    clusters: tuple[str, ...]
    """Every cluster the binding targets (whether or not a manifest was written for it)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Context:
    """What every binding of one render shares.

    `group` names, for each cluster, the set of override rules whose target cluster it
    matches: clusters in the same group receive the same overrides for any manifest, so one
    manifest is built per group and only its cluster label differs between them."""

    clusters: Mapping[str, cluster.Cluster]
    interp: interpreter.Interpreter
    override: Override
    divide: Divide
    group: Callable[[cluster.Cluster], Hashable] = lambda member: member.name
    check: Check = lambda manifest: ()
    author: Author = lambda manifest, member, keys: None


def target_clusters(spec: work.ResourceBindingSpec) -> list[work.TargetCluster]:
    """`spec.clusters`, then the clusters of `spec.requiredBy` not already listed
    (mergeTargetClusters)."""
    targets = list(spec.clusters)
    seen = {t.name for t in targets}
    for snapshot in spec.required_by:
        for t in snapshot.clusters:
            if t.name not in seen:
                seen.add(t.name)
                targets.append(t)
    return targets


def _is_workload(spec: work.ResourceBindingSpec) -> bool:
    return spec.replicas > 0 or spec.replica_requirements is not None or bool(spec.components)


def _divided(placement: policy.Placement | None) -> bool:
    scheduling = placement.replica_scheduling if placement is not None else None
    return (
        scheduling is not None
        and scheduling.replica_scheduling_type is policy.ReplicaSchedulingType.DIVIDED
    )


def _completions(
    template: ResourceTemplate,
    binding: Binding,
    targets: Sequence[work.TargetCluster],
    ctx: Context,
) -> dict[str, int] | None:
    """Per-cluster `spec.completions` of a divided Job, by the clusters' replicas
    (needReviseJobCompletions, divideReplicasByJobCompletions): None when nothing is split (no
    completions, or every cluster's weight 0, where Karmada's dispenser gives nothing out).
    The count is read as Karmada reads it: an integer, cut to an int32 as Go converts it; any
    other value (null, a string, a fraction) raises, which refuses every cluster, as Karmada
    then makes no Work at all (a batch/v1 Job's null is left out of the template as stored,
    `_claimed`)."""
    if template.kind != "Job" or binding.spec.replicas <= 0 or not _divided(binding.spec.placement):
        return None
    spec = template.body.get("spec")
    if spec is None:
        return None
    purpose = "to divide the Job's completions over its clusters"
    if not isinstance(spec, dict):
        raise errors.InterpretError(f"spec must be an object {purpose}, not {spec!r}", ("spec",))
    if "completions" not in spec:
        return None
    total = spec["completions"]
    if not isinstance(total, int) or isinstance(total, bool):
        keys = ("spec", "completions")
        raise errors.InterpretError(
            f"spec.completions must be an integer {purpose}, not {total!r}", keys
        )
    weights = [(t.name, t.replicas) for t in targets]
    shares = dict(ctx.divide(_int32(total), weights, template.uid))
    return shares or None


def _int32(value: int) -> int:
    """`value` converted to a Go int32 (the bits above 32 dropped)."""
    return (value + (1 << 31)) % (1 << 32) - (1 << 31)


def _conflict_resolution(doc: dict[str, Any], binding: Binding) -> str:
    own = (doc.get("metadata") or {}).get("annotations") or {}
    value = own.get(CONFLICT_RESOLUTION_ANNOTATION)
    if value in _CONFLICT_VALUES:
        return str(value)
    overwrite = binding.spec.conflict_resolution is policy.ConflictResolution.OVERWRITE
    return "overwrite" if overwrite else "abort"


def _metadata(doc: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The manifest's labels and annotations maps, created when absent."""
    metadata = doc.get("metadata")
    if not isinstance(metadata, dict):
        metadata = doc["metadata"] = {}
    maps = []
    for key in _MAPS:
        found = metadata.get(key)
        if not isinstance(found, dict):
            found = metadata[key] = {}
        maps.append(found)
    return maps[0], maps[1]


def _claim_of(values: Mapping[Any, Any] | None) -> dict[Any, Any]:
    """The policy claim's entries of a labels or annotations map."""
    return {k: v for k, v in (values or {}).items() if str(k).startswith(_CLAIM_PREFIXES)}


def _claimed(body: RawObject, binding: Binding) -> dict[str, Any]:
    """A copy of the template as Karmada stores it: with numbers as its JSON round trip leaves
    them, a workload's null replica counts left out (`workloadcounts`; the API server's default for
    them is left to each member's, as for a count the template leaves out), and the policy's
    claim the binding records, which Karmada's detector writes on the template itself, in
    place of any claim the template was written with (the detector cleans up a claim it does
    not keep)."""
    doc = _json.normalized(body)
    spec = doc.get("spec")
    if isinstance(spec, dict):
        for field in workloadcounts.of(doc):
            if field in spec and spec[field] is None:
                del spec[field]
    claim = (_claim_of(binding.metadata.labels), _claim_of(binding.metadata.annotations))
    metadata = doc.get("metadata")
    held = [metadata.get(key) if isinstance(metadata, dict) else None for key in _MAPS]
    if any(claim) or any(isinstance(values, dict) and _claim_of(values) for values in held):
        for values, wanted in zip(_metadata(doc), claim, strict=True):
            for key in _claim_of(values):
                del values[key]
            values.update(wanted)
    return doc


def _karmada_metadata(doc: dict[str, Any], binding: Binding) -> None:
    """What Karmada's binding controller adds after the overrides (see the module): the
    binding's permanent id label (empty when the binding has none, as Karmada writes it),
    its name and the conflict resolution."""
    labels, annotations = _metadata(doc)
    if isinstance(binding, work.ResourceBinding):
        labels[RB_ID_LABEL] = (binding.metadata.labels or {}).get(RB_ID_LABEL, "")
        annotations[RB_NAMESPACE_ANNOTATION] = binding.namespace
        annotations[RB_NAME_ANNOTATION] = binding.name
    else:
        labels[CRB_ID_LABEL] = (binding.metadata.labels or {}).get(CRB_ID_LABEL, "")
        annotations[CRB_NAME_ANNOTATION] = binding.name
    annotations[CONFLICT_RESOLUTION_ANNOTATION] = _conflict_resolution(doc, binding)


def _gitfleet_metadata(
    doc: dict[str, Any], target: str, source_path: str | None, preserve: bool
) -> None:
    labels, annotations = _metadata(doc)
    labels[MANAGED_BY_LABEL] = MANAGED_BY
    labels[CLUSTER_LABEL] = target
    if source_path is not None:
        annotations[SOURCE_PATH_ANNOTATION] = source_path
    else:
        annotations[GENERATED_ANNOTATION] = "true"
    if preserve or source_path is None:
        annotations[PRESERVE_ANNOTATION] = "true"


def _finish(doc: RawObject, binding: Binding | None, target: str, source_path: str | None) -> bytes:
    """Numbers, labels and pruning: the manifest's bytes."""
    plain = _json.normalized(doc)
    if binding is not None:
        _karmada_metadata(plain, binding)
    preserve = binding is not None and bool(binding.spec.preserve_resources_on_deletion)
    _gitfleet_metadata(plain, target, source_path, preserve)
    _prune.prune(plain)
    return _yaml.dump(plain)


def _limited(size: int) -> None:
    """Refuse a manifest of `size` bytes over the size a manifest may have (a patch bomb)."""
    if size > MAX_MANIFEST_BYTES:
        raise errors.GitfleetError(
            f"manifest is {size} bytes after overrides, over the limit of {MAX_MANIFEST_BYTES}"
        )


def is_secret(template: ResourceTemplate) -> bool:
    return template.kind == "Secret" and template.api_version == "v1"


def secret_allowed(template: ResourceTemplate) -> bool:
    annotations = template.metadata.get("annotations") or {}
    return annotations.get(PLAINTEXT_SECRET_ANNOTATION) == "true"


def _customized(
    template: ResourceTemplate,
    binding: Binding,
    target: work.TargetCluster,
    member: cluster.Cluster,
    completions: Mapping[str, int] | None,
    ctx: Context,
) -> RawObject:
    """The template revised, its completions split and overridden for `member`; raises what
    makes it impossible."""
    doc: RawObject = template.body
    if _revises(template, binding.spec, ctx):
        doc = ctx.interp.revise_replica(doc, target.replicas)
    if completions is not None:
        doc = _json.with_field(doc, ("spec", "completions"), completions[target.name])
    return _overridden(doc, member, ctx)


def _overridden(doc: RawObject, member: cluster.Cluster, ctx: Context) -> RawObject:
    """`doc` after `member`'s overrides; raises what makes it a manifest to refuse."""
    overridden = ctx.override(doc, member)
    found = ctx.check(overridden)
    if found:
        problems = "; ".join(f"{_dotted(k)}: {m}" for k, m in found)
        author = ctx.author(doc, member, found[0][0])
        if author is not None:
            problems += f" (written by {author[1]})"
        raise _Refused(found[0][0], problems, author[0] if author is not None else None)
    return overridden


def _dotted(keys: Sequence[str | int]) -> str:
    return ".".join(str(key) for key in keys)


class _Refused(errors.GitfleetError):
    """A manifest, as built for one cluster, that its API server would refuse; `keys` locate
    the first field at fault in the template."""

    def __init__(
        self, keys: tuple[str | int, ...], problems: str, written_at: Origin | None = None
    ) -> None:
        super().__init__(f"the manifest built for this cluster would be refused: {problems}")
        self.keys = keys
        self.written_at = written_at
        """The override rule that wrote the field, when one did: where the refusal points."""


def _revises(template: ResourceTemplate, spec: work.ResourceBindingSpec, ctx: Context) -> bool:
    return _is_workload(spec) and ctx.interp.hook_enabled(
        template.api_version, template.kind, interpreter.Operation.REVISE_REPLICA
    )


@dataclasses.dataclass(frozen=True, slots=True)
class SharedBuild:
    """A manifest built once for a group of clusters, with the placeholder cluster label: where
    the placeholder's line is, and how long a cluster's line may be before the manifest is
    over the size limit."""

    text: bytes
    start: int
    room: int

    @classmethod
    def of(cls, built: bytes) -> SharedBuild | None:
        """None when the placeholder's line cannot be told apart in `built`."""
        if built.count(_PLACEHOLDER_LINE) != 1:
            return None
        room = MAX_MANIFEST_BYTES - (len(built) - len(_PLACEHOLDER_LINE))
        return cls(built, built.find(_PLACEHOLDER_LINE), room)


@dataclasses.dataclass(frozen=True, slots=True)
class ClusterManifest:
    """A shared build as one cluster receives it: its bytes are made when asked for
    (`bytes(manifest)`)."""

    build: SharedBuild
    line: bytes
    """The cluster's label line, in place of the placeholder's."""

    def __bytes__(self) -> bytes:
        text, start = self.build.text, self.build.start
        return text[:start] + self.line + text[start + len(_PLACEHOLDER_LINE) :]

    def splice(self) -> tuple[bytes, int, int, bytes]:
        """The shared build, where its placeholder line is, and the line that replaces it: how
        the manifests of a group differ (the object store keeps one whole, deltas for the rest)."""
        start = self.build.start
        return self.build.text, start, start + len(_PLACEHOLDER_LINE), self.line

    def __len__(self) -> int:
        return len(self.build.text) - len(_PLACEHOLDER_LINE) + len(self.line)


Data = bytes | ClusterManifest
"""A rendered file: its bytes, or a manifest that makes them when read."""


@functools.lru_cache(maxsize=65536)
def _label_line(name: str) -> bytes:
    return f"\n    {CLUSTER_LABEL}: {_yaml.scalar_text(name)}\n".encode()


def _for_cluster(build: SharedBuild, name: str) -> ClusterManifest:
    """A shared build for cluster `name`."""
    manifest = ClusterManifest(build, _label_line(name))
    if len(manifest.line) > build.room:
        _limited(len(manifest))
    return manifest


def namespace_manifest(
    template: ResourceTemplate, member: cluster.Cluster, ctx: Context, target: str | None = None
) -> bytes:
    """A Namespace sent to a cluster without a binding, as Karmada's namespace sync controller
    does (pkg/controllers/namespace/namespace_sync_controller.go buildWorks): cluster override
    policies, then the labels of every member object (its cluster label `target`, default the
    member's name). A template without an origin path is one gitfleet generated (annotated
    `gitfleet.io/generated-namespace`)."""
    doc = _overridden(template.body, member, ctx)
    data = _finish(doc, None, target or member.name, template.origin.path or None)
    _limited(len(data))
    return data


class NamespaceBuilds:
    """Namespace manifests built once per template and group of clusters with the same
    overrides, each cluster's copy a `ClusterManifest` (as a binding's manifests are)."""

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx
        self._built: dict[Hashable, SharedBuild | None] = {}

    def manifest(self, template: ResourceTemplate, member: cluster.Cluster) -> Data:
        """`namespace_manifest` of `template` for `member`; raises what refuses it."""
        key = (template.key, self._ctx.group(member))
        if key not in self._built:
            built = namespace_manifest(template, member, self._ctx, _PLACEHOLDER)
            self._built[key] = SharedBuild.of(built)
        found = self._built[key]
        if found is None:
            return namespace_manifest(template, member, self._ctx)
        return _for_cluster(found, member.name)


def _origin_of(template: ResourceTemplate, error: errors.GitfleetError) -> Origin:
    if isinstance(error, errors.InputError):
        return error.origin
    if isinstance(error, _Refused) and error.written_at is not None:
        return error.written_at
    if isinstance(error, (errors.InterpretError, _Refused)) and error.keys:
        return template.origin.at(*error.keys)
    return template.origin


def _message(error: errors.GitfleetError) -> str:
    return (
        error.message
        if isinstance(error, (errors.InputError, errors.InterpretError))
        else str(error)
    )


def claimed(template: ResourceTemplate, binding: Binding) -> ResourceTemplate:
    """The template as Karmada stores it once its binding's policy claimed it (`_claimed`):
    what its binding's manifests, and a Namespace's everywhere else, are made from."""
    return ResourceTemplate(cast(RawObject, _claimed(template.body, binding)), template.origin)


def render_binding(template: ResourceTemplate, binding: Binding, ctx: Context) -> Output:
    """Every target cluster's manifest of `binding` (see the module)."""
    template = claimed(template, binding)
    targets = target_clusters(binding.spec)
    names = tuple(t.name for t in targets)
    resource = str(template.key)
    try:
        relative = _paths.object_path(template.key)
        for name in names:
            _paths.cluster_folder(name)  # a cluster no folder can be named for refuses it all
    except _paths.PathError as error:
        refusal = Refusal(template.origin, resource, "", str(error))
        return Output("", {}, (), (refusal,), names)
    if is_secret(template) and not secret_allowed(template):
        message = (
            "Secrets are not written in plain text to the rendered branch; deliver it another"
            f' way, or annotate the template {PLAINTEXT_SECRET_ANNOTATION}: "true"'
        )
        refusal = Refusal(template.origin.at("metadata"), resource, "", message)
        return Output(relative, {}, names, (refusal,), names)
    files: dict[str, Data] = {}
    kept: list[str] = []
    refusals: list[Refusal] = []
    try:
        completions = _completions(template, binding, targets, ctx)
    except errors.GitfleetError as error:
        refusal = Refusal(_origin_of(template, error), resource, "", _message(error))
        return Output(relative, {}, names, (refusal,), names)
    revises = _revises(template, binding.spec, ctx)
    shared: dict[Hashable, SharedBuild | None] = {}
    """Builds with the placeholder label, by what makes them differ (None: the placeholder
    cannot be told apart in the build, which is made for each cluster instead)."""
    suspension = binding.spec.suspension
    for target in targets:
        member = ctx.clusters.get(target.name)
        if suspension is not None and suspension.suspends_dispatching_to(target.name):
            kept.append(target.name)
            continue
        if member is None:
            message = f"cluster {target.name} is not defined in the source"
            refusals.append(Refusal(template.origin, resource, target.name, message))
            kept.append(target.name)
            continue
        key = (
            target.replicas if revises else None,
            completions.get(target.name) if completions else None,
            ctx.group(member),
        )
        try:
            if key not in shared:
                doc = _customized(template, binding, target, member, completions, ctx)
                built = _finish(doc, binding, _PLACEHOLDER, template.origin.path)
                shared[key] = SharedBuild.of(built)
            found = shared[key]
            if found is not None:
                files[target.name] = _for_cluster(found, target.name)
            else:
                doc = _customized(template, binding, target, member, completions, ctx)
                own = _finish(doc, binding, target.name, template.origin.path)
                _limited(len(own))
                files[target.name] = own
        except errors.GitfleetError as error:
            origin = _origin_of(template, error)
            refusals.append(Refusal(origin, resource, target.name, _message(error)))
            kept.append(target.name)
    return Output(relative, files, tuple(kept), tuple(refusals), names)
