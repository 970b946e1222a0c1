"""InterpretHealth: whether a member object is healthy, per kind.

Aspects: workloads must have observed their latest generation and rolled it out (updated and
available counts; replicas unset skips the updated check); DaemonSet scheduling; Service and
Ingress addresses; claims bound; Pod phase and readiness; disruption budgets; kinds without a
rule count as healthy; an object whose metadata is not an object is an error naming it; every
field a rule reads is checked (condition times included) before it decides."""

from __future__ import annotations

from typing import Any

import pytest
from interpreter.kube_docs import obj, workload

from gitfleet import errors, interpreter


def live(
    kind: str, status: dict[str, Any], *, generation: int = 5, replicas: int | None = 3
) -> dict[str, Any]:
    doc = workload(kind, replicas=replicas, metadata={"generation": generation})
    doc["status"] = status
    return doc


ROLLED_OUT = {"observedGeneration": 5, "updatedReplicas": 3, "availableReplicas": 3}


@pytest.mark.parametrize(
    ("doc", "healthy"),
    [
        pytest.param(live("Deployment", ROLLED_OUT), True, id="deployment rolled out"),
        pytest.param(
            live("Deployment", {**ROLLED_OUT, "observedGeneration": 4}),
            False,
            id="deployment generation not observed",
        ),
        pytest.param(
            live("Deployment", {**ROLLED_OUT, "updatedReplicas": 2, "availableReplicas": 2}),
            False,
            id="deployment not all updated",
        ),
        pytest.param(
            live("Deployment", {**ROLLED_OUT, "availableReplicas": 2}),
            False,
            id="deployment updated but unavailable",
        ),
        pytest.param(
            live("Deployment", {"observedGeneration": 5}, replicas=None),
            True,
            id="deployment replicas unset",
        ),
        pytest.param(
            live("Deployment", {"observedGeneration": 5}, replicas=0),
            True,
            id="deployment scaled to zero",
        ),
        pytest.param(live("StatefulSet", ROLLED_OUT), True, id="statefulset rolled out"),
        pytest.param(
            live("StatefulSet", {**ROLLED_OUT, "updatedReplicas": 1}),
            False,
            id="statefulset partly updated",
        ),
        pytest.param(
            live("ReplicaSet", {"observedGeneration": 5, "availableReplicas": 3}),
            True,
            id="replicaset available",
        ),
        pytest.param(
            live("ReplicaSet", {"observedGeneration": 5, "availableReplicas": 2}),
            False,
            id="replicaset short",
        ),
        pytest.param(
            live(
                "DaemonSet",
                {
                    "observedGeneration": 5,
                    "desiredNumberScheduled": 4,
                    "updatedNumberScheduled": 4,
                    "numberAvailable": 4,
                },
            ),
            True,
            id="daemonset everywhere",
        ),
        pytest.param(
            live(
                "DaemonSet",
                {
                    "observedGeneration": 5,
                    "desiredNumberScheduled": 4,
                    "updatedNumberScheduled": 3,
                    "numberAvailable": 3,
                },
            ),
            False,
            id="daemonset not on every node",
        ),
        pytest.param(live("DaemonSet", {}, generation=1), False, id="daemonset never observed"),
        pytest.param(obj("Service", spec={"type": "ClusterIP"}), True, id="cluster IP service"),
        pytest.param(
            obj("Service", spec={"type": "LoadBalancer"}, status={"loadBalancer": {}}),
            False,
            id="load balancer pending",
        ),
        pytest.param(
            obj(
                "Service",
                spec={"type": "LoadBalancer"},
                status={"loadBalancer": {"ingress": [{}, {"hostname": "lb.example"}]}},
            ),
            True,
            id="load balancer with hostname",
        ),
        pytest.param(
            obj("Ingress", status={"loadBalancer": {"ingress": [{"ip": "198.51.100.2"}]}}),
            True,
            id="ingress with address",
        ),
        pytest.param(obj("Ingress"), False, id="ingress without status"),
        pytest.param(
            obj("PersistentVolumeClaim", status={"phase": "Bound"}), True, id="claim bound"
        ),
        pytest.param(
            obj("PersistentVolumeClaim", status={"phase": "Pending"}), False, id="claim pending"
        ),
        pytest.param(obj("Pod", status={"phase": "Succeeded"}), True, id="pod succeeded"),
        pytest.param(
            obj(
                "Pod",
                status={"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
            ),
            True,
            id="pod running and ready",
        ),
        pytest.param(
            obj(
                "Pod",
                status={"phase": "Running", "conditions": [{"type": "Ready", "status": "False"}]},
            ),
            False,
            id="pod running not ready",
        ),
        pytest.param(obj("Pod", status={"phase": "Running"}), False, id="pod without conditions"),
        pytest.param(
            obj(
                "Pod",
                status={"phase": "Pending", "conditions": [{"type": "Ready", "status": "True"}]},
            ),
            False,
            id="pod pending",
        ),
        pytest.param(
            obj("PodDisruptionBudget", status={"currentHealthy": 2, "desiredHealthy": 2}),
            True,
            id="budget met",
        ),
        pytest.param(
            obj("PodDisruptionBudget", status={"currentHealthy": 1, "desiredHealthy": 2}),
            False,
            id="budget short",
        ),
        pytest.param(obj("ConfigMap", data={"k": "v"}), True, id="kind without a rule is healthy"),
        pytest.param(live("Job", {"failed": 3}), True, id="job has no native rule"),
    ],
)
def test_health(chain: interpreter.Interpreter, doc: dict[str, Any], healthy: bool) -> None:
    assert chain.interpret_health(doc) is healthy


def test_metadata_not_an_object_is_an_interpret_error(chain: interpreter.Interpreter) -> None:
    # Karmada: converting the Deployment fails ("cannot restore struct from: int64")
    doc = live("Deployment", ROLLED_OUT)
    doc["metadata"] = 3
    with pytest.raises(errors.InterpretError, match=r"^Deployment \(unnamed\): metadata: expected"):
        chain.interpret_health(doc)


@pytest.mark.parametrize(
    ("doc", "match"),
    [
        pytest.param(
            live("StatefulSet", {**ROLLED_OUT, "observedGeneration": 4, "availableReplicas": "3"}),
            r"status\.availableReplicas: expected an integer",
            id="stale workload with a malformed counter",
        ),
        pytest.param(
            live("DaemonSet", {"observedGeneration": 1, "desiredNumberScheduled": {"a": 1}}),
            r"status\.desiredNumberScheduled: expected an integer",
            id="stale daemon set with a malformed counter",
        ),
        pytest.param(
            obj(
                "Service",
                spec={"type": "LoadBalancer"},
                status={"loadBalancer": {"ingress": [{"ip": "192.0.2.1"}, {"hostname": 3}]}},
            ),
            r"ingress\[1\]\.hostname: expected a string",
            id="malformed address after a good one",
        ),
        pytest.param(
            obj("Service", spec={"type": "ClusterIP"}, status={"loadBalancer": {"ingress": ""}}),
            r"status\.loadBalancer\.ingress: expected an array",
            id="malformed addresses of a service of another type",
        ),
        pytest.param(
            obj("Pod", status={"phase": "Pending", "conditions": [{"type": "Ready", "status": 1}]}),
            r"conditions\[0\]\.status: expected a string",
            id="pending pod with a malformed condition",
        ),
        pytest.param(
            obj(
                "Pod",
                status={
                    "phase": "Succeeded",
                    "conditions": [
                        {
                            "type": "Ready",
                            "status": "True",
                            "lastTransitionTime": "2026-01-01T00:00:00z",
                        }
                    ],
                },
            ),
            r"lastTransitionTime: not an RFC 3339 time",
            id="condition time Go cannot read",
        ),
    ],
)
def test_every_field_read_is_checked(
    chain: interpreter.Interpreter, doc: dict[str, Any], match: str
) -> None:
    # Karmada converts the object to its Go type before deciding: a malformed field it reads
    # is an error even when another field already settles the answer
    with pytest.raises(errors.InterpretError, match=match):
        chain.interpret_health(doc)
