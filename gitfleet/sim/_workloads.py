"""What the workload controllers compute from a workload and its pods: how many pods it
wants, how they are named, and the status the real controllers would report (the fields
Karmada's interpreters aggregate: replicas, readyReplicas, updatedReplicas,
availableReplicas, observedGeneration, conditions; for Jobs active/succeeded/completion).

Pods are owned by the workload directly, except a Deployment's: they belong to its
ReplicaSets (`replica_set`), as on a real cluster. Zero counters are left out, as the API's
`omitempty` fields are.
"""

from __future__ import annotations

from typing import Any

from gitfleet.sim import _errors, _json, _pods

DEPLOYMENTS = ("apps", "deployments")
STATEFULSETS = ("apps", "statefulsets")
REPLICASETS = ("apps", "replicasets")
DAEMONSETS = ("apps", "daemonsets")
JOBS = ("batch", "jobs")
KINDS = {
    "Deployment": DEPLOYMENTS,
    "StatefulSet": STATEFULSETS,
    "ReplicaSet": REPLICASETS,
    "DaemonSet": DAEMONSETS,
    "Job": JOBS,
}
HASH_LABEL = {
    DEPLOYMENTS: "pod-template-hash",
    REPLICASETS: "pod-template-hash",
    STATEFULSETS: "controller-revision-hash",
    DAEMONSETS: "controller-revision-hash",
    JOBS: "batch.kubernetes.io/controller-uid",
}


def replica_set(deployment: _json.Obj, name: str, revision: str) -> _json.Obj:
    """The ReplicaSet running a Deployment's pod template, as the Deployment controller makes
    it: named after the template's hash, which labels its selector, template and pods."""
    metadata = deployment["metadata"]
    template = _json.clone(_json.dig(deployment, "spec", "template") or {})
    labels = {
        **(_json.dig(template, "metadata", "labels") or {}),
        HASH_LABEL[DEPLOYMENTS]: revision,
    }
    template.setdefault("metadata", {})["labels"] = labels
    selector = _json.clone(_json.dig(deployment, "spec", "selector") or {})
    selector["matchLabels"] = {
        **(selector.get("matchLabels") or {}),
        HASH_LABEL[DEPLOYMENTS]: revision,
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": name,
            "namespace": metadata["namespace"],
            "labels": labels,
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "name": metadata["name"],
                    "uid": metadata["uid"],
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {"replicas": replicas(deployment), "selector": selector, "template": template},
    }


REVISION = "deployment.kubernetes.io/revision"
CHANGE_CAUSE = "kubernetes.io/change-cause"


def revision_number(replica_set: _json.Obj) -> int:
    """The revision a ReplicaSet runs for its Deployment (0: none recorded)."""
    text = (_json.dig(replica_set, "metadata", "annotations") or {}).get(REVISION, "")
    return int(text) if str(text).isdigit() else 0


def set_revision(replica_set: _json.Obj, deployment: _json.Obj, number: int) -> None:
    """Record `number` on a ReplicaSet, with the Deployment's change cause, as the
    Deployment controller does."""
    annotations = _json.ensure(replica_set, "metadata", "annotations")
    annotations[REVISION] = str(number)
    cause = (_json.dig(deployment, "metadata", "annotations") or {}).get(CHANGE_CAUSE)
    if cause:
        annotations[CHANGE_CAUSE] = cause


def replicas(obj: _json.Obj) -> int:
    value = _json.dig(obj, "spec", "replicas")
    return 1 if value is None else int(value)


def job_wanted_active(obj: _json.Obj, succeeded: int) -> int:
    """How many pods a Job runs at once now: parallelism, capped by what is left to do."""
    spec = obj.get("spec") or {}
    if spec.get("suspend") or is_complete(obj):
        return 0
    completions = int(spec.get("completions") or 1)
    parallelism = int(spec.get("parallelism") or 1)
    return max(0, min(parallelism, completions - succeeded))


def is_complete(obj: _json.Obj) -> bool:
    return any(
        c.get("type") == "Complete" and c.get("status") == "True"
        for c in _json.dig(obj, "status", "conditions") or []
    )


def condition(
    existing: list[_json.Obj],
    kind: str,
    status: str,
    reason: str,
    message: str,
    now: str,
    *,
    update_time: bool = False,
) -> _json.Obj:
    """A condition that keeps its times while nothing about it changes."""
    old = next((c for c in existing if c.get("type") == kind), None)
    same = old is not None and old.get("status") == status
    result = {
        "type": kind,
        "status": status,
        "lastTransitionTime": old.get("lastTransitionTime", now) if same and old else now,
        "reason": reason,
        "message": message,
    }
    if update_time:
        unchanged = same and old is not None and old.get("reason") == reason
        result["lastUpdateTime"] = old.get("lastUpdateTime", now) if unchanged and old else now
    return result


def _drop_zeros(status: dict[str, Any], *fields: str) -> _json.Obj:
    return {k: v for k, v in status.items() if not (k in fields and v == 0)}


def status(
    key: tuple[str, str],
    obj: _json.Obj,
    pods: list[_json.Obj],
    revision: str,
    now: str,
    *,
    desired: int,
) -> _json.Obj:
    """The workload's status for its active `pods` (and, for Jobs, its finished ones)."""
    active = [p for p in pods if _pods.is_active(p)]
    ready = sum(1 for p in active if _pods.is_ready(p))
    label = HASH_LABEL[key]
    updated = sum(1 for p in active if _json.dig(p, "metadata", "labels", label) == revision)
    generation = _json.dig(obj, "metadata", "generation") or 1
    existing = _json.dig(obj, "status", "conditions") or []
    if key == JOBS:
        return _job_status(obj, pods, ready, now)
    if key == DAEMONSETS:
        return {
            "observedGeneration": generation,
            "currentNumberScheduled": len(active),
            "desiredNumberScheduled": desired,
            "numberMisscheduled": 0,
            "numberReady": ready,
            "numberAvailable": ready,
            "updatedNumberScheduled": updated,
            **({"numberUnavailable": desired - ready} if desired > ready else {}),
        }
    counters = {
        "observedGeneration": generation,
        "replicas": len(active),
        "readyReplicas": ready,
        "availableReplicas": ready,
    }
    if key == STATEFULSETS:
        return _drop_zeros(
            {
                **counters,
                "currentReplicas": updated,
                "updatedReplicas": updated,
                "currentRevision": f"{obj['metadata']['name']}-{revision}",
                "updateRevision": f"{obj['metadata']['name']}-{revision}",
                "collisionCount": 0,
            },
            "readyReplicas",
            "currentReplicas",
            "updatedReplicas",
        )
    if key == REPLICASETS:
        return _drop_zeros(
            {**counters, "fullyLabeledReplicas": len(active)},
            "replicas",
            "readyReplicas",
            "availableReplicas",
            "fullyLabeledReplicas",
        )
    done = updated >= desired and ready >= desired and len(active) == desired
    conditions = [
        condition(
            existing,
            "Available",
            "True" if ready >= desired else "False",
            "MinimumReplicasAvailable" if ready >= desired else "MinimumReplicasUnavailable",
            "Deployment has minimum availability."
            if ready >= desired
            else "Deployment does not have minimum availability.",
            now,
            update_time=True,
        ),
        condition(
            existing,
            "Progressing",
            "True",
            "NewReplicaSetAvailable" if done else "ReplicaSetUpdated",
            f'ReplicaSet "{obj["metadata"]["name"]}-{revision}" has successfully progressed.'
            if done
            else f'ReplicaSet "{obj["metadata"]["name"]}-{revision}" is progressing.',
            now,
            update_time=True,
        ),
    ]
    return _drop_zeros(
        {
            **counters,
            "updatedReplicas": updated,
            "unavailableReplicas": max(0, desired - ready),
            "conditions": conditions,
        },
        "replicas",
        "readyReplicas",
        "availableReplicas",
        "updatedReplicas",
        "unavailableReplicas",
    )


def _job_status(obj: _json.Obj, pods: list[_json.Obj], ready: int, now: str) -> _json.Obj:
    active = sum(1 for p in pods if _pods.is_active(p))
    succeeded = sum(1 for p in pods if _json.dig(p, "status", "phase") == "Succeeded")
    old = obj.get("status") or {}
    completions = int(_json.dig(obj, "spec", "completions") or 1)
    result: _json.Obj = {
        "startTime": old.get("startTime", now),
        "active": active,
        "succeeded": succeeded,
        "ready": ready,
        "terminating": 0,
        "uncountedTerminatedPods": {},
    }
    result = _drop_zeros(result, "active", "succeeded")
    if succeeded >= completions:
        existing = old.get("conditions") or []
        result["completionTime"] = old.get("completionTime", now)
        result["conditions"] = [
            condition(
                existing,
                "SuccessCriteriaMet",
                "True",
                "CompletionsReached",
                "Reached expected number of succeeded pods",
                now,
            ),
            condition(
                existing,
                "Complete",
                "True",
                "CompletionsReached",
                "Reached expected number of succeeded pods",
                now,
            ),
        ]
    return result


PREFIXED_JOB_LABELS = (1, 27)
"""From this release the Job registry writes `batch.kubernetes.io/`-prefixed labels beside
the old ones and selects by the prefixed uid; before, only `controller-uid` and `job-name`."""


def select_job_pods(job: _json.Obj, release: tuple[int, int] | None) -> None:
    """What the Job registry adds on create, unless `manualSelector`: a selector on the Job's
    uid, the labels it matches in the pod template, and those labels on the Job itself if it
    has none. A selector or a uid label the request gives is kept and must be the generated
    one (a Job's from another Job's uid is refused), as the server validates it."""
    spec = _json.ensure(job, "spec")
    if spec.get("manualSelector"):
        return
    uid, name = job["metadata"]["uid"], job["metadata"]["name"]
    labels = {"controller-uid": uid, "job-name": name}
    key = "controller-uid"
    if release is None or release >= PREFIXED_JOB_LABELS:
        labels = {
            "batch.kubernetes.io/controller-uid": uid,
            "batch.kubernetes.io/job-name": name,
            **labels,
        }
        key = "batch.kubernetes.io/controller-uid"
    template_labels = _json.ensure(spec, "template", "metadata", "labels")
    for label, value in labels.items():
        template_labels.setdefault(label, value)
    given = spec.get("selector")
    selector: _json.Obj = given if isinstance(given, dict) else {}
    given = selector.get("matchLabels")
    matching: _json.Obj = given if isinstance(given, dict) else {}
    spec["selector"] = {**selector, "matchLabels": {key: uid, **matching}}
    causes: list[tuple[str, str]] = []
    if template_labels[key] != uid:
        causes.append((f"spec.template.metadata.labels[{key}]", f"Invalid value: must be '{uid}'"))
    if spec["selector"] != {"matchLabels": {key: uid}}:
        causes.append(("spec.selector", "Invalid value: `selector` not auto-generated"))
    if causes:
        raise _errors.invalid("batch", "Job", name, causes)
    if not job["metadata"].get("labels"):
        job["metadata"]["labels"] = dict(template_labels)
