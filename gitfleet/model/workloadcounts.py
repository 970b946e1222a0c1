"""The replica counts the built-in workloads hold as Go pointers (k8s.io/api apps/v1 and
batch/v1). Left out or written `null`, a count decodes to the same nil, so a template an API
server stores never holds one as null; its defaulting then sets the first count of each kind to
1 (and a Job's completions to 1 too when it has neither: the detector's `replica_fields`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

POINTER_COUNTS: dict[tuple[str, str], tuple[str, ...]] = {
    ("apps/v1", "Deployment"): ("replicas",),
    ("apps/v1", "ReplicaSet"): ("replicas",),
    ("apps/v1", "StatefulSet"): ("replicas",),
    ("batch/v1", "Job"): ("parallelism", "completions"),
}


def of(doc: Mapping[str, Any]) -> tuple[str, ...]:
    """The pointer counts of the kind of object `doc` (none for any other kind)."""
    return POINTER_COUNTS.get((str(doc.get("apiVersion", "")), str(doc.get("kind", ""))), ())
