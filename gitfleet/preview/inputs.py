"""What a change does beyond the rendered tree: the parts of the source that the agents and
the reconciler read when they run, which no rendered file holds. Pure: it compares two loaded
sources.

A rendered tree shows what each cluster is sent, not how it is reached nor how what is sent
is treated there. The push agent reads the source commit a render names: each Push Cluster's
`syncMode` and `secretRef` decide whether it serves the cluster and with which kubeconfig
(`agent.fleet.kubeconfig_for`), and the ResourceInterpreterCustomizations (and third-party
rules) run in it, Retain on every apply and health and status on every report. gitfleet.yaml
decides which branch the reconciler renders after a merge (`sourceBranch`), where it writes
(`renderedBranch`), and when it fails over, deschedules and scales. A pull request changing only
these renders the same tree, so the manifest diff alone would call it no change. So does a
ClusterTaintPolicy whose conditions no cluster meets yet, or a FederatedHPA whose metrics ask
for the replicas there are: they act later, when the clusters' and workloads' status moves.

Each change names its object (or `gitfleet.yaml`) and the fields that differ, a value shown
when it is short (`diff.differences`).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Mapping
from typing import Any

from gitfleet.model import loaded, meta
from gitfleet.preview import diff

_DEPTH = 3
"""Fields are compared this many levels down (`spec.customizations.retention`); a difference
deeper than that is shown at this depth."""
_SETTINGS = {
    "include": "include",
    "exclude": "exclude",
    "source_branch": "sourceBranch",
    "rendered_branch": "renderedBranch",
    "max_file_size": "maxFileSize",
    "max_source_size": "maxSourceSize",
    "third_party_customizations": "thirdPartyCustomizations",
    "failover": "failover",
    "descheduler": "descheduler",
    "autoscaling": "autoscaling",
    "rollout": "rollout",
    "default_namespace": "defaultNamespace",
}
"""gitfleet.yaml's keys by SourceConfig field; a field missing here is shown by its own name."""
_SECTION_KEYS = {
    "enabled": "enabled",
    "heartbeat_grace_seconds": "heartbeatGracePeriod",
    "failure_threshold_seconds": "clusterFailureThreshold",
    "default_toleration_seconds": "defaultTolerationSeconds",
    "purge_mode": "purgeMode",
    "graceful_eviction_timeout_seconds": "gracefulEvictionTimeout",
    "allow_no_execute_taint_policy": "allowNoExecuteTaintPolicy",
    "interval_seconds": "deschedulingInterval",
    "unschedulable_threshold_seconds": "unschedulableThreshold",
    "sync_period_seconds": "syncPeriod",
    "tolerance": "tolerance",
    "downscale_stabilization_seconds": "downscaleStabilization",
    "cpu_initialization_period_seconds": "cpuInitializationPeriod",
    "initial_readiness_delay_seconds": "initialReadinessDelay",
}
"""The keys of the failover, descheduler and autoscaling sections, by settings field."""
SETTINGS_FILE = loaded.CONFIG_FILE


@dataclasses.dataclass(frozen=True, slots=True, order=True)
class InputChange:
    """One object (or gitfleet.yaml) that differs; `fields` say how."""

    subject: str
    """`Cluster aws-euw1`, `ResourceInterpreterCustomization widgets`, `gitfleet.yaml`."""
    change: str
    """`added`, `changed` or `removed`."""
    fields: tuple[str, ...] = ()
    """Each field that differs: `spec.secretRef.name: "a" → "b"`."""

    def __str__(self) -> str:
        said = f"{self.subject}: {self.change}"
        return f"{said}: {'; '.join(self.fields)}" if self.fields else said


def _objects(
    kind: str, base: Iterable[meta.ApiObject], head: Iterable[meta.ApiObject]
) -> list[InputChange]:
    def by_name(objects: Iterable[meta.ApiObject]) -> dict[str, dict[str, Any]]:
        found = {}
        for obj in objects:
            name = f"{obj.namespace}/{obj.name}" if obj.namespace else obj.name
            doc = obj.to_doc()
            found[name] = {k: v for k, v in doc.items() if k not in ("apiVersion", "kind")}
        return found

    before, after = by_name(base), by_name(head)
    changes = []
    for name in sorted(before.keys() | after.keys()):
        subject = f"{kind} {diff.key(name)}"
        if name not in before:
            changes.append(InputChange(subject, "added"))
        elif name not in after:
            changes.append(InputChange(subject, "removed"))
        elif before[name] != after[name]:
            fields = tuple(diff.differences(before[name], after[name], _DEPTH))
            changes.append(InputChange(subject, "changed", fields))
    return changes


def _plain(value: Any) -> Any:
    """A setting as JSON values, without the places it was read from."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            _SECTION_KEYS.get(f.name, f.name): _plain(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if f.name != "origin"
        }
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, enum.Enum):
        return value.value
    return value


def _settings(base: loaded.SourceConfig, head: loaded.SourceConfig) -> list[InputChange]:
    def plain(config: loaded.SourceConfig) -> Mapping[str, Any]:
        return {
            _SETTINGS.get(f.name, f.name): _plain(getattr(config, f.name))
            for f in dataclasses.fields(config)
            if f.name != "origin"
        }

    fields = tuple(diff.differences(plain(base), plain(head), 2))
    return [InputChange(SETTINGS_FILE, "changed", fields)] if fields else []


def compare(base: loaded.LoadedSource, head: loaded.LoadedSource) -> tuple[InputChange, ...]:
    """What differs from `base` to `head` in the Clusters, the interpreter customizations (the
    user's and the third-party rules), gitfleet.yaml's settings, and the objects that act on
    what the clusters and the workloads report later: ClusterTaintPolicies (a taint when a
    condition holds) and FederatedHPAs (replicas as metrics move)."""
    return (
        *_settings(base.config, head.config),
        *_objects("Cluster", base.objects.clusters, head.objects.clusters),
        *_objects(
            "ResourceInterpreterCustomization",
            base.objects.customizations,
            head.objects.customizations,
        ),
        *_objects(
            "third-party rule",
            base.third_party_customizations,
            head.third_party_customizations,
        ),
        *_objects(
            "ClusterTaintPolicy",
            base.objects.cluster_taint_policies,
            head.objects.cluster_taint_policies,
        ),
        *_objects("FederatedHPA", base.objects.federated_hpas, head.objects.federated_hpas),
    )
