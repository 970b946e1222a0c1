"""One loaded source revision as values: its settings, its documents and its typed objects.

`gitfleet.source.load` builds these (it reads Git and files); every later stage, validation
included, reads them without knowing where they came from. They live in the model so that pure
stages can take them without importing the loader.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

from gitfleet.model import config, diagnostic, meta, objects, policy, scope, template
from gitfleet.model import rollout as rollout_model
from gitfleet.model.origin import UNKNOWN, Origin

CONFIG_FILE = "gitfleet.yaml"
"""The settings file, at the root of the source; never read as a document."""
DEFAULT_RENDERED_BRANCH = "gitfleet/rendered"
DEFAULT_MAX_FILE_SIZE = 5 * 1024 * 1024
DEFAULT_MAX_SOURCE_SIZE = 64 * 1024 * 1024
Customization = config.ResourceInterpreterCustomization


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class FailoverSettings:
    """`gitfleet.yaml`'s `failover`: when a cluster counts as failed and what happens then, as
    the flags of Karmada's controller manager set it (cmd/controller-manager/app/options:
    cluster-monitor-grace-period, cluster-failure-threshold, enable-no-execute-taint-eviction,
    no-execute-taint-eviction-purge-mode, graceful-eviction-timeout; the not-ready and
    unreachable tolerations Karmada's webhook used to add to every policy)."""

    enabled: bool = True
    """Evict bindings from clusters with untolerated NoExecute taints (Karmada's
    `--enable-no-execute-taint-eviction`, off by default there)."""
    heartbeat_grace_seconds: int = 40
    """A cluster whose last heartbeat is older than this is unreachable."""
    failure_threshold_seconds: int = 30
    """How long an agent must keep reporting its cluster not Ready before failover counts it
    failed (Karmada's `--cluster-failure-threshold`)."""
    default_toleration_seconds: int | None = 300
    """How long every policy tolerates the not-ready and unreachable NoExecute taints unless it
    says otherwise; None: no default toleration, eviction is immediate."""
    purge_mode: policy.PurgeMode = policy.PurgeMode.GRACEFULLY
    """How a failed cluster's copy goes when the policy has no `failover.cluster`."""
    graceful_eviction_timeout_seconds: int = 600
    """How long a failed cluster keeps its copy while the replacement is not healthy yet."""
    allow_no_execute_taint_policy: bool = False
    """Whether a ClusterTaintPolicy may add NoExecute taints (Karmada's webhook flag
    `--allow-no-execute-taint-policy`, off by default: such a taint evicts every workload
    that does not tolerate it)."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class DeschedulerSettings:
    """`gitfleet.yaml`'s `descheduler`: how often replicas a cluster cannot run are moved, and
    how long a pod must be unschedulable to count (karmada-descheduler's flags, with their
    defaults: cmd/descheduler/app/options)."""

    enabled: bool = True
    interval_seconds: int = 120
    """Karmada's `--descheduling-interval`: the descheduler acts at each multiple of it."""
    unschedulable_threshold_seconds: int = 300
    """Karmada's `--unschedulable-threshold`: a pod counts once it has been unschedulable for
    longer than this."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class AutoscalingSettings:
    """`gitfleet.yaml`'s `autoscaling`: how FederatedHPAs are evaluated, as the flags of
    Karmada's controller manager set it (horizontal-pod-autoscaler-sync-period, -tolerance,
    -downscale-stabilization, -cpu-initialization-period, -initial-readiness-delay)."""

    sync_period_seconds: int = 15
    """How often the reconciler evaluates every FederatedHPA."""
    tolerance: float = 0.1
    """The smallest change of the metric-to-target ratio (from 1.0) that scales."""
    downscale_stabilization_seconds: int = 300
    """The scale-down window of a FederatedHPA whose behaviour does not set one."""
    cpu_initialization_period_seconds: int = 300
    """After a pod starts, CPU samples taken before it turned ready are skipped."""
    initial_readiness_delay_seconds: int = 30
    """After a pod starts, readiness changes count as its initial readiness."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class SourceConfig:
    """The settings of `gitfleet.yaml`; every one is optional.

    `include`/`exclude` are globs over paths from the source's root (`*`, `?`, `[...]` inside
    one path segment, `**` across segments; a pattern without `/` matches at any depth; a
    pattern that matches a folder covers everything below it). With `include` empty every
    `*.yaml`/`*.yml` file is read; `exclude` wins over `include`.
    """

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    source_branch: str | None = None
    """The branch rendered from; None: the commit HEAD names."""
    rendered_branch: str = DEFAULT_RENDERED_BRANCH
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    """Larger files are an error (bytes)."""
    max_source_size: int = DEFAULT_MAX_SOURCE_SIZE
    """The most the files read may weigh together (bytes); more make the revision invalid."""
    third_party_customizations: str | None = None
    """A folder of Karmada's third-party interpreter rules (`<group>/<version>/<Kind>/
    customizations.yaml`), loaded as built-in rules below the user's own; not read as documents."""
    failover: FailoverSettings = FailoverSettings()
    descheduler: DeschedulerSettings = DeschedulerSettings()
    autoscaling: AutoscalingSettings = AutoscalingSettings()
    rollout: rollout_model.RolloutSettings | None = None
    """Progressive rollout across clusters (None: every cluster ref moves with the render)."""
    default_namespace: str = scope.DEFAULT_NAMESPACE
    """The namespace of every namespaced object that names none (`model.scope`)."""
    origin: Origin = UNKNOWN
    """Where the settings were read (the whole file), for errors about them."""


def describe(kind: str, namespace: str, name: str) -> str:
    """How messages name an object: `Deployment shop/web`, `Cluster m1`."""
    return f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"


def subject(obj: meta.ApiObject | template.ResourceTemplate) -> str:
    """`describe` for a loaded object."""
    kind = obj.kind if isinstance(obj, template.ResourceTemplate) else obj.KIND
    return describe(kind, obj.namespace, obj.name)


class Role(enum.StrEnum):
    """What a document is to gitfleet."""

    KARMADA = "karmada"
    """A Karmada API object gitfleet reads (Cluster, policies, interpreter customizations)."""
    TEMPLATE = "template"
    """A resource template: any other Kubernetes object."""
    IGNORED = "ignored"
    """A Karmada kind gitfleet does not read (Karmada never propagates it either)."""
    INVALID = "invalid"
    """Not a Kubernetes object: no usable apiVersion, kind or name."""


@dataclasses.dataclass(frozen=True, slots=True)
class Document:
    """One YAML document as written, where it was written, and what it is."""

    body: dict[str, Any]
    origin: Origin
    role: Role
    error: diagnostic.Diagnostic | None = None
    """Why the document is not among the loaded objects (None when it is, or is ignored)."""

    @property
    def api_version(self) -> str:
        value = self.body.get("apiVersion")
        return value if isinstance(value, str) else ""

    @property
    def kind(self) -> str:
        value = self.body.get("kind")
        return value if isinstance(value, str) else ""

    @property
    def subject(self) -> str:
        """How messages name the document's object (`describe`)."""
        metadata = self.body.get("metadata")
        metadata = metadata if isinstance(metadata, dict) else {}
        namespace, name = metadata.get("namespace"), metadata.get("name")
        return describe(
            self.kind,
            namespace if isinstance(namespace, str) else "",
            name if isinstance(name, str) else "",
        )


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class LoadedSource:
    """Everything one source revision holds, and everything that went wrong reading it."""

    objects: objects.ObjectSet
    documents: tuple[Document, ...]
    diagnostics: tuple[diagnostic.Diagnostic, ...]
    """Problems found while loading (YAML, files, schema of Karmada kinds), sorted."""
    revision: str | None
    """The commit read, or None for a folder."""
    working_tree: bool = False
    """The folder was a repository's working tree: its files as they are now, tracked or not,
    ignored ones left out."""
    config: SourceConfig
    third_party_customizations: tuple[Customization, ...] = ()
    """Rules from `config.third_party_customizations`, sorted by name."""

    @property
    def ok(self) -> bool:
        return not any(d.severity is diagnostic.Severity.ERROR for d in self.diagnostics)
