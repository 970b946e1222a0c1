"""ReflectStatus: what each kind reports back from a member cluster.

Aspects: workload counters with the member generation and the template generation taken from
the manifest annotation; which counters appear even when zero; StatefulSet without
observedGeneration; an empty Deployment status is nothing to report; Services only when of type
LoadBalancer (a malformed spec reports nothing); Job fields, their times as Go writes them (UTC,
to the second; a time Go cannot read refused); PDB and HPA fields; whole status for Ingress and
kinds without a rule; no status at all; a malformed annotation or status, a null one included."""

from __future__ import annotations

from typing import Any

import pytest
from interpreter.kube_docs import obj, workload

from gitfleet import errors, interpreter

GENERATION = "resourcetemplate.karmada.io/generation"


def member(
    kind: str,
    status: Any,
    generation: int = 4,
    template_generation: str | None = "2",
    **fields: Any,
) -> dict[str, Any]:
    """A member object as the agent reads it: rendered from template generation 2."""
    metadata: dict[str, Any] = {"generation": generation}
    if template_generation is not None:
        metadata["annotations"] = {GENERATION: template_generation}
    doc = (
        workload(kind, metadata=metadata, **fields)
        if kind in ("Deployment", "ReplicaSet", "DaemonSet", "StatefulSet")
        else obj(kind, metadata=metadata, **fields)
    )
    if status is not None:
        doc["status"] = status
    return doc


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        pytest.param(
            member(
                "Deployment",
                {
                    "observedGeneration": 4,
                    "replicas": 3,
                    "updatedReplicas": 3,
                    "readyReplicas": 2,
                    "availableReplicas": 2,
                    "unavailableReplicas": 1,
                    "conditions": [{"type": "Available"}],
                },
            ),
            {
                "generation": 4,
                "resourceTemplateGeneration": 2,
                "observedGeneration": 4,
                "replicas": 3,
                "updatedReplicas": 3,
                "readyReplicas": 2,
                "availableReplicas": 2,
                "unavailableReplicas": 1,
            },
            id="deployment counters",
        ),
        pytest.param(
            member("Deployment", {}, generation=0, template_generation=None),
            None,
            id="deployment empty status",
        ),
        pytest.param(
            member("Deployment", {"replicas": 1}, template_generation=None),
            {"generation": 4, "replicas": 1},
            id="deployment without generation annotation",
        ),
        pytest.param(member("Deployment", None), None, id="deployment without status"),
        pytest.param(
            member("ReplicaSet", {"availableReplicas": 0, "fullyLabeledReplicas": 5}),
            {"generation": 4, "resourceTemplateGeneration": 2, "replicas": 0},
            id="replicaset replicas always present",
        ),
        pytest.param(
            member(
                "DaemonSet",
                {
                    "desiredNumberScheduled": 3,
                    "numberAvailable": 3,
                    "updatedNumberScheduled": 3,
                    "observedGeneration": 4,
                },
            ),
            {
                "generation": 4,
                "resourceTemplateGeneration": 2,
                "currentNumberScheduled": 0,
                "numberMisscheduled": 0,
                "desiredNumberScheduled": 3,
                "numberReady": 0,
                "observedGeneration": 4,
                "updatedNumberScheduled": 3,
                "numberAvailable": 3,
            },
            id="daemonset counters",
        ),
        pytest.param(
            member(
                "StatefulSet",
                {
                    "observedGeneration": 4,
                    "replicas": 2,
                    "currentReplicas": 2,
                    "currentRevision": "web-1",
                },
            ),
            {
                "generation": 4,
                "resourceTemplateGeneration": 2,
                "replicas": 2,
                "currentReplicas": 2,
                "availableReplicas": 0,
            },
            id="statefulset without observedGeneration",
        ),
        pytest.param(
            obj(
                "Service",
                spec={"type": "LoadBalancer"},
                status={
                    "loadBalancer": {
                        "ingress": [
                            {"ip": "192.0.2.7", "ports": [{"port": 443, "protocol": "TCP"}]}
                        ]
                    },
                    "conditions": [],
                },
            ),
            {
                "loadBalancer": {
                    "ingress": [{"ip": "192.0.2.7", "ports": [{"port": 443, "protocol": "TCP"}]}]
                }
            },
            id="load balancer service",
        ),
        pytest.param(
            obj("Service", spec={"type": "LoadBalancer"}, status={}),
            {"loadBalancer": {}},
            id="load balancer without address",
        ),
        # an ipMode is a pointer: there, even empty, as Go writes it back
        pytest.param(
            obj(
                "Service",
                spec={"type": "LoadBalancer"},
                status={"loadBalancer": {"ingress": [{"ip": "192.0.2.7", "ipMode": ""}]}},
            ),
            {"loadBalancer": {"ingress": [{"ip": "192.0.2.7", "ipMode": ""}]}},
            id="load balancer address with an empty ipMode",
        ),
        pytest.param(
            obj("Service", spec={"type": "ClusterIP"}, status={"loadBalancer": {}}),
            None,
            id="cluster IP service",
        ),
        pytest.param(
            obj("Service", spec={}, status={"loadBalancer": {}}), None, id="service without type"
        ),
        pytest.param(
            obj("Service", spec="LoadBalancer", status={"loadBalancer": {}}),
            None,
            id="service spec not an object",
        ),
        pytest.param(
            obj("Service", spec={"type": 3}, status={"loadBalancer": {}}),
            None,
            id="service type not a string",
        ),
        pytest.param(
            obj(
                "Job",
                status={
                    "active": 1,
                    "ready": 1,
                    "startTime": "2026-03-01T10:00:00Z",
                    "conditions": [
                        {"type": "Suspended", "status": "False", "reason": "Resumed", "extra": "x"}
                    ],
                },
            ),
            {
                "conditions": [{"type": "Suspended", "status": "False", "reason": "Resumed"}],
                "startTime": "2026-03-01T10:00:00Z",
                "active": 1,
            },
            id="job",
        ),
        pytest.param(
            obj(
                "PodDisruptionBudget",
                status={"currentHealthy": 2, "desiredHealthy": 2, "observedGeneration": 1},
            ),
            {"disruptionsAllowed": 0, "currentHealthy": 2, "desiredHealthy": 2, "expectedPods": 0},
            id="pod disruption budget",
        ),
        pytest.param(
            obj(
                "HorizontalPodAutoscaler",
                status={"desiredReplicas": 5, "currentMetrics": [{"type": "Resource"}]},
            ),
            {"desiredReplicas": 5},
            id="horizontal pod autoscaler",
        ),
        pytest.param(
            obj("Ingress", status={"loadBalancer": {"ingress": [{"hostname": "lb.example"}]}}),
            {"loadBalancer": {"ingress": [{"hostname": "lb.example"}]}},
            id="ingress whole status",
        ),
        pytest.param(
            obj("Widget", status={"phase": "Ready", "n": 1}),
            {"phase": "Ready", "n": 1},
            id="kind without a rule",
        ),
        pytest.param(obj("ConfigMap", data={}), None, id="no status"),
    ],
)
def test_reflected_status(
    chain: interpreter.Interpreter, doc: dict[str, Any], expected: Any
) -> None:
    assert chain.reflect_status(doc) == expected


def test_field_order_follows_go(chain: interpreter.Interpreter) -> None:
    doc = member("Deployment", {"availableReplicas": 1, "replicas": 1, "observedGeneration": 4})
    assert list(chain.reflect_status(doc)) == [
        "generation",
        "resourceTemplateGeneration",
        "observedGeneration",
        "replicas",
        "availableReplicas",
    ]


@pytest.mark.parametrize("generation", ["x", 2.0, None, [1]])
def test_generation_not_an_integer_reads_as_zero(
    chain: interpreter.Interpreter, generation: Any
) -> None:
    # Karmada reads it with GetGeneration, which gives 0 for anything but an int64
    doc = member("Deployment", {"replicas": 1})
    doc["metadata"]["generation"] = generation
    assert chain.reflect_status(doc) == {"resourceTemplateGeneration": 2, "replicas": 1}


def test_null_annotation_reads_as_empty(chain: interpreter.Interpreter) -> None:
    # Karmada reads annotations with GetAnnotations, which turns a null value into ""
    doc = member("ReplicaSet", {"replicas": 1})
    doc["metadata"]["annotations"]["note"] = None
    assert chain.reflect_status(doc) == {
        "generation": 4,
        "resourceTemplateGeneration": 2,
        "replicas": 1,
    }


def test_job_times_written_as_go_writes_them(chain: interpreter.Interpreter) -> None:
    # Karmada reads the member's Job status into its Go type and writes it back: times in UTC
    # to the second, the fraction dropped
    status = {
        "startTime": "2026-03-01T12:00:00.75+02:00",
        "completionTime": "2026-03-01T10:05:00,5Z",
        "conditions": [
            {
                "type": "Complete",
                "status": "True",
                "lastTransitionTime": "2026-03-01T05:05:00-05:00",
            }
        ],
    }
    assert chain.reflect_status(obj("Job", status=status)) == {
        "conditions": [
            {"type": "Complete", "status": "True", "lastTransitionTime": "2026-03-01T10:05:00Z"}
        ],
        "startTime": "2026-03-01T10:00:00Z",
        "completionTime": "2026-03-01T10:05:00Z",
    }


@pytest.mark.parametrize(
    ("when", "utc"),
    [
        pytest.param("2026-03-01T10:00:00+24:00", "2026-02-28T10:00:00Z", id="offset of a day"),
        pytest.param("2026-03-01T10:00:00+05:60", "2026-03-01T04:00:00Z", id="sixty minutes"),
        pytest.param("2026-03-01T10:00:00-00:00", "2026-03-01T10:00:00Z", id="minus zero"),
    ],
)
def test_time_zone_offsets_go_accepts(chain: interpreter.Interpreter, when: str, utc: str) -> None:
    assert chain.reflect_status(obj("Job", status={"startTime": when})) == {"startTime": utc}


@pytest.mark.parametrize(
    "when",
    [
        "2026-03-01T10:00:00+25:00",
        "2026-03-01T10:00:00z",
        "2026-03-01 10:00:00Z",
        "2026-03-01",
        "",
        "2026-02-30T10:00:00Z",
    ],
)
def test_job_time_go_cannot_read_is_an_error(chain: interpreter.Interpreter, when: str) -> None:
    with pytest.raises(errors.InterpretError, match=r"status\.startTime: not"):
        chain.reflect_status(obj("Job", status={"startTime": when}))


@pytest.mark.parametrize("kind", ["Ingress", "Widget", "Job", "HorizontalPodAutoscaler"])
def test_null_status_is_an_error(chain: interpreter.Interpreter, kind: str) -> None:
    # Karmada reads it with NestedMap, which refuses a null (an absent status is no status)
    doc = obj(kind)
    doc["status"] = None
    with pytest.raises(errors.InterpretError, match=r"status: expected an object, got null"):
        chain.reflect_status(doc)


def test_reflected_status_is_a_copy(chain: interpreter.Interpreter) -> None:
    doc = obj("Widget", status={"items": [1]})
    chain.reflect_status(doc)["items"].append(2)
    assert doc["status"]["items"] == [1]


@pytest.mark.parametrize(
    ("doc", "match"),
    [
        pytest.param(
            member("Deployment", {}, template_generation="two"),
            "not an integer",
            id="annotation not a number",
        ),
        pytest.param(
            member("ReplicaSet", {}, template_generation="9223372036854775808"),
            "out of the int64 range",
            id="annotation beyond int64",
        ),
        pytest.param(
            member("ReplicaSet", {}, template_generation="9" * 5000),
            "out of the int64 range",
            id="annotation of 5000 digits",
        ),
        pytest.param(
            member("DaemonSet", "broken"), r"status: expected an object", id="status not an object"
        ),
        pytest.param(
            member("StatefulSet", {"replicas": "2"}),
            r"status\.replicas: expected an integer",
            id="counter not a number",
        ),
    ],
)
def test_errors(chain: interpreter.Interpreter, doc: dict[str, Any], match: str) -> None:
    with pytest.raises(errors.InterpretError, match=match):
        chain.reflect_status(doc)
