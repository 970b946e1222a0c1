"""Claims: which policy a template belongs to, as Karmada records it in labels and annotations
(pkg/detector/claim.go, pkg/apis/policy/v1alpha1/well_known_constants.go).

Karmada writes the claim on the template and on its binding. gitfleet never writes to the
source, so the claim lives on the binding in the rendered branch, and the next render reads it
back from the previous binding. A template that itself carries a complete claim (e.g. exported
from a Karmada control plane) is read as Karmada would read it, first.

Permanent ids: Karmada's webhooks label every policy and binding with a random UUID on creation.
A render must be deterministic, so gitfleet derives the id: a UUIDv5 over the object's kind,
namespace and name. Re-creating an object with the same name gives the same id, which is what a
user of a Git repository expects ("the same policy").
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Mapping

from gitfleet.model import policy

PP_ID_LABEL = "propagationpolicy.karmada.io/permanent-id"
PP_NAMESPACE_ANNOTATION = "propagationpolicy.karmada.io/namespace"
PP_NAME_ANNOTATION = "propagationpolicy.karmada.io/name"
CPP_ID_LABEL = "clusterpropagationpolicy.karmada.io/permanent-id"
CPP_NAME_ANNOTATION = "clusterpropagationpolicy.karmada.io/name"
RB_ID_LABEL = "resourcebinding.karmada.io/permanent-id"
CRB_ID_LABEL = "clusterresourcebinding.karmada.io/permanent-id"

CLAIM_LABELS = frozenset({PP_ID_LABEL, CPP_ID_LABEL})
CLAIM_ANNOTATIONS = frozenset({PP_NAMESPACE_ANNOTATION, PP_NAME_ANNOTATION, CPP_NAME_ANNOTATION})

_ID_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://gitfleet.io/permanent-id")


def permanent_id(kind: str, namespace: str, name: str) -> str:
    """The deterministic stand-in for the random UUID Karmada's webhooks assign."""
    return str(uuid.uuid5(_ID_NAMESPACE, f"{kind}/{namespace}/{name}"))


@dataclasses.dataclass(frozen=True, slots=True)
class Claim:
    """A policy's claim on a template: the policy by kind, namespace and name, and its id."""

    kind: str
    namespace: str
    name: str
    id: str


def read(labels: Mapping[str, str], annotations: Mapping[str, str]) -> tuple[Claim, ...]:
    """The claims recorded in metadata, in the order Karmada's detector reads them
    (pkg/detector/policy.go propagateResource): a PropagationPolicy claim, then a
    ClusterPropagationPolicy claim; a claim counts only when all of its parts are present. Both
    are there only when written by hand: a PropagationPolicy taking a template drops the cluster
    claim (excludeClusterPolicy), but cleaning up a PropagationPolicy claim whose policy is gone
    or no longer selects the template leaves a cluster claim in place, to be read next."""
    found = []
    pp_namespace = annotations.get(PP_NAMESPACE_ANNOTATION, "")
    pp_name = annotations.get(PP_NAME_ANNOTATION, "")
    pp_id = labels.get(PP_ID_LABEL, "")
    if pp_namespace and pp_name and pp_id:
        found.append(Claim(policy.PropagationPolicy.KIND, pp_namespace, pp_name, pp_id))
    cpp_name = annotations.get(CPP_NAME_ANNOTATION, "")
    cpp_id = labels.get(CPP_ID_LABEL, "")
    if cpp_name and cpp_id:
        found.append(Claim(policy.ClusterPropagationPolicy.KIND, "", cpp_name, cpp_id))
    return tuple(found)


def id_label(kind: str) -> str:
    """The label holding the permanent id of a claim by a policy of `kind`."""
    return PP_ID_LABEL if kind == policy.PropagationPolicy.KIND else CPP_ID_LABEL


def metadata(
    claimer: policy.PropagationPolicy | policy.ClusterPropagationPolicy,
) -> tuple[dict[str, str], dict[str, str]]:
    """The labels and annotations a claim by `claimer` writes (AddPPClaimMetadata,
    AddCPPClaimMetadata)."""
    policy_id = permanent_id(claimer.KIND, claimer.namespace, claimer.name)
    if isinstance(claimer, policy.PropagationPolicy):
        return (
            {PP_ID_LABEL: policy_id},
            {PP_NAMESPACE_ANNOTATION: claimer.namespace, PP_NAME_ANNOTATION: claimer.name},
        )
    return {CPP_ID_LABEL: policy_id}, {CPP_NAME_ANNOTATION: claimer.name}


def without_claim(
    labels: Mapping[str, str], annotations: Mapping[str, str]
) -> tuple[dict[str, str], dict[str, str]]:
    """Labels and annotations with every claim removed (CleanupPPClaimMetadata and
    CleanupCPPClaimMetadata together: a PropagationPolicy claim also drops a cluster one)."""
    return (
        {k: v for k, v in labels.items() if k not in CLAIM_LABELS},
        {k: v for k, v in annotations.items() if k not in CLAIM_ANNOTATIONS},
    )
