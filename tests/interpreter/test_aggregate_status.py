"""AggregateStatus: the template's status from every member cluster's reported status.

Aspects: workload counters summed, into a null template status too; observedGeneration moves
to the template generation only when every member (reported or not) has caught up, with
StatefulSet's own comparison; zero counters dropped or kept as Go writes them; a status equal
to the new one as Karmada compares Go values left alone (times of any spelling, unknown fields,
zero values), one differing only there (a pointer to zero, an empty list, a nanosecond)
rewritten, and the template's status read to compare it; load balancer addresses merged,
deduplicated and sorted; Job conditions, start and completion times, and a finished Job never
touched; CronJob, Pod, PV, PVC, PDB and HPA reductions; errors naming the cluster; the template
never modified."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from interpreter.kube_docs import Doc, item, obj, workload

from gitfleet import errors, interpreter
from gitfleet.model import work


def _aggregate(
    chain: interpreter.Interpreter, template: Doc, items: Sequence[work.AggregatedStatusItem]
) -> Doc:
    before = repr(template)
    out = dict(chain.aggregate_status(template, items))
    assert repr(template) == before
    return out


def deployment(generation: int = 3, status: Doc | None = None) -> Doc:
    doc = workload("Deployment", replicas=4, metadata={"generation": generation})
    if status is not None:
        doc["status"] = status
    return doc


def reported(generation: int, template_generation: int, observed: int, **counters: int) -> Doc:
    return {
        "generation": generation,
        "resourceTemplateGeneration": template_generation,
        "observedGeneration": observed,
        **counters,
    }


LB = {"type": "LoadBalancer"}


def container(ready: bool, state: Doc) -> Doc:
    """A container status as Karmada writes the one it makes of a member's: readiness and
    state, and Go's zero values for the fields it leaves unset."""
    return {
        "name": "",
        "state": state,
        "ready": ready,
        "restartCount": 0,
        "image": "",
        "imageID": "",
    }


@pytest.mark.parametrize(
    ("template", "items", "status"),
    [
        pytest.param(
            deployment(),
            [
                item("east", reported(2, 3, 2, replicas=2, readyReplicas=2, availableReplicas=2)),
                item(
                    "west",
                    reported(
                        7,
                        3,
                        7,
                        replicas=2,
                        readyReplicas=1,
                        availableReplicas=1,
                        unavailableReplicas=1,
                    ),
                ),
            ],
            {
                "observedGeneration": 3,
                "replicas": 4,
                "readyReplicas": 3,
                "availableReplicas": 3,
                "unavailableReplicas": 1,
            },
            id="counters summed, all caught up",
        ),
        pytest.param(
            deployment(status={"observedGeneration": 2}),
            [
                item("east", reported(2, 3, 2, replicas=2)),
                item("west", reported(5, 2, 5, replicas=2)),
            ],
            {"observedGeneration": 2, "replicas": 4},
            id="a member on an older template keeps observedGeneration",
        ),
        pytest.param(
            deployment(status={"observedGeneration": 1}),
            [item("east", reported(2, 3, 1, replicas=2))],
            {"observedGeneration": 1, "replicas": 2},
            id="a member that has not observed its spec keeps observedGeneration",
        ),
        pytest.param(
            deployment(status={"observedGeneration": 1, "replicas": 9}),
            [item("east", reported(2, 3, 2, replicas=2)), item("west")],
            {"observedGeneration": 1, "replicas": 2},
            id="a member not reported yet keeps observedGeneration",
        ),
        pytest.param(
            deployment(status={"replicas": 5, "conditions": [{"type": "Available"}]}),
            [],
            {"observedGeneration": 3, "conditions": [{"type": "Available"}]},
            id="no members: zeros dropped, other fields kept",
        ),
        pytest.param(
            {**deployment(), "status": None},
            [item("east", reported(1, 3, 1, replicas=2, readyReplicas=2))],
            {"observedGeneration": 3, "replicas": 2, "readyReplicas": 2},
            id="a null template status reads as empty",
        ),
        pytest.param(
            workload("ReplicaSet", metadata={"generation": 1}),
            [item("east", reported(1, 1, 1, replicas=0, fullyLabeledReplicas=3))],
            {"replicas": 0, "observedGeneration": 1},
            id="replicaset writes zero replicas",
        ),
        pytest.param(
            workload("StatefulSet", metadata={"generation": 6}),
            [
                item(
                    "east",
                    {
                        "generation": 2,
                        "resourceTemplateGeneration": 6,
                        "replicas": 1,
                        "availableReplicas": 1,
                    },
                )
            ],
            {"replicas": 1, "availableReplicas": 1},
            id="statefulset reports no observedGeneration, so it stays",
        ),
        pytest.param(
            workload("StatefulSet", metadata={"generation": 6}),
            [item("east", {"resourceTemplateGeneration": 1, "replicas": 1, "currentReplicas": 1})],
            {"observedGeneration": 6, "replicas": 1, "currentReplicas": 1, "availableReplicas": 0},
            id="statefulset compares with the member generation",
        ),
        pytest.param(
            workload("DaemonSet", metadata={"generation": 2}),
            [
                item("a", reported(1, 2, 1, desiredNumberScheduled=2, numberReady=2)),
                item("b", reported(1, 2, 1, desiredNumberScheduled=1, numberMisscheduled=1)),
            ],
            {
                "observedGeneration": 2,
                "currentNumberScheduled": 0,
                "desiredNumberScheduled": 3,
                "numberMisscheduled": 1,
                "numberReady": 2,
            },
            id="daemonset counters",
        ),
        pytest.param(
            obj("Service", spec=LB),
            [
                item(
                    "b",
                    {
                        "loadBalancer": {
                            "ingress": [
                                {"ip": "203.0.113.9", "ports": [{"port": 443, "protocol": "TCP"}]}
                            ]
                        }
                    },
                ),
                item(
                    "a",
                    {
                        "loadBalancer": {
                            "ingress": [
                                {
                                    "ip": "203.0.113.9",
                                    "ports": [
                                        {"port": 80, "protocol": "TCP"},
                                        {"port": 443, "protocol": "TCP"},
                                    ],
                                },
                                {"hostname": "z.lb.example"},
                                {"ip": "198.51.100.1", "ipMode": "Proxy"},
                            ]
                        }
                    },
                ),
                item("c"),
            ],
            {
                "loadBalancer": {
                    "ingress": [
                        {"hostname": "z.lb.example"},
                        {"ip": "198.51.100.1", "ipMode": "Proxy"},
                        {
                            "ip": "203.0.113.9",
                            "ports": [
                                {"port": 80, "protocol": "TCP"},
                                {"port": 443, "protocol": "TCP"},
                            ],
                        },
                    ]
                }
            },
            id="service addresses merged and sorted",
        ),
        # an empty ipMode is not none (a pointer to ""): another address, sorted with set ones
        pytest.param(
            obj("Service", spec=LB),
            [
                item(
                    "a",
                    {
                        "loadBalancer": {
                            "ingress": [
                                {"ip": "192.0.2.1"},
                                {"ip": "192.0.2.1", "ipMode": "Proxy"},
                                {"ip": "192.0.2.1", "ipMode": ""},
                            ]
                        }
                    },
                )
            ],
            {
                "loadBalancer": {
                    "ingress": [
                        {"ip": "192.0.2.1", "ipMode": ""},
                        {"ip": "192.0.2.1", "ipMode": "Proxy"},
                        {"ip": "192.0.2.1"},
                    ]
                }
            },
            id="service address with an empty ipMode",
        ),
        pytest.param(
            obj("Service", spec=LB, status={"conditions": [{"type": "x"}]}),
            [item("a", {"loadBalancer": {}})],
            {"loadBalancer": {}},
            id="service without addresses",
        ),
        pytest.param(
            obj("Ingress"),
            [
                item(
                    "a",
                    {"loadBalancer": {"ingress": [{"ip": "192.0.2.1"}, {"hostname": "b.example"}]}},
                ),
                item(
                    "b",
                    {"loadBalancer": {"ingress": [{"hostname": "a.example"}, {"ip": "192.0.2.1"}]}},
                ),
            ],
            {
                "loadBalancer": {
                    "ingress": [
                        {"hostname": "a.example"},
                        {"hostname": "b.example"},
                        {"ip": "192.0.2.1"},
                    ]
                }
            },
            id="ingress addresses",
        ),
        pytest.param(
            obj("CronJob", status={"lastScheduleTime": "2026-01-01T00:00:00Z"}),
            [
                item(
                    "a",
                    {
                        "active": [{"name": "app-1"}],
                        "lastScheduleTime": "2026-02-01T10:00:00Z",
                        "lastSuccessfulTime": "2026-02-01T10:05:00Z",
                    },
                ),
                item(
                    "b", {"active": [{"name": "app-2"}], "lastScheduleTime": "2026-02-01T09:00:00Z"}
                ),
            ],
            {
                "active": [{"name": "app-1"}, {"name": "app-2"}],
                "lastScheduleTime": "2026-02-01T10:00:00Z",
                "lastSuccessfulTime": "2026-02-01T10:05:00Z",
            },
            id="cronjob",
        ),
        pytest.param(
            obj("Pod"),
            [
                item(
                    "a",
                    {
                        "phase": "Running",
                        "containerStatuses": [
                            {
                                "name": "main",
                                "ready": True,
                                "restartCount": 2,
                                "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}},
                            }
                        ],
                    },
                ),
                item(
                    "b",
                    {
                        "phase": "Succeeded",
                        "initContainerStatuses": [
                            {
                                "name": "init",
                                "ready": False,
                                "state": {"terminated": {"exitCode": 0}},
                            }
                        ],
                    },
                ),
            ],
            {
                "phase": "Running",
                "initContainerStatuses": [container(False, {"terminated": {"exitCode": 0}})],
                "containerStatuses": [
                    container(True, {"running": {"startedAt": "2026-01-01T00:00:00Z"}})
                ],
            },
            id="pod running wins over succeeded",
        ),
        pytest.param(
            obj("Pod"),
            [item("a", {"phase": "Running"}), item("b")],
            {"phase": "Pending"},
            id="pod not reported counts as pending",
        ),
        pytest.param(
            obj("Pod"),
            [item("a", {"phase": "Pending"}), item("b", {"phase": "Failed"})],
            {"phase": "Failed"},
            id="pod failed wins",
        ),
        pytest.param(
            obj("PersistentVolume", namespace=""),
            [item("a", {"phase": "Bound"}), item("b", {"phase": "Available"})],
            {"phase": "Available"},
            id="volume available over bound",
        ),
        pytest.param(
            obj("PersistentVolume", namespace=""),
            [item("a", {"phase": "Released"}), item("b")],
            {"phase": "Pending"},
            id="volume not reported counts as pending",
        ),
        pytest.param(
            obj("PersistentVolumeClaim"),
            [item("a", {"phase": "Bound"})],
            {"phase": "Bound"},
            id="claim bound",
        ),
        pytest.param(
            obj("PersistentVolumeClaim"),
            [item("a", {"phase": "Pending"}), item("b", {"phase": "Bound"})],
            {"phase": "Pending"},
            id="claim pending somewhere",
        ),
        pytest.param(
            obj("PersistentVolumeClaim"),
            [item("a", {"phase": "Lost"}), item("b", {"phase": "Pending"})],
            {"phase": "Lost"},
            id="claim lost wins",
        ),
        pytest.param(
            obj("PodDisruptionBudget", status={"observedGeneration": 3}),
            [
                item(
                    "a",
                    {
                        "currentHealthy": 2,
                        "desiredHealthy": 1,
                        "expectedPods": 2,
                        "disruptionsAllowed": 1,
                        "disruptedPods": {"app-x": "2026-01-01T00:00:00Z"},
                    },
                ),
                item("b", {"currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}),
            ],
            {
                "disruptedPods": {"a/app-x": "2026-01-01T00:00:00Z"},
                "disruptionsAllowed": 1,
                "currentHealthy": 3,
                "desiredHealthy": 2,
                "expectedPods": 3,
            },
            id="disruption budget",
        ),
        pytest.param(
            obj("HorizontalPodAutoscaler"),
            [
                item("a", {"currentReplicas": 2, "desiredReplicas": 3}),
                item("b", {"desiredReplicas": 1}),
            ],
            {"currentReplicas": 2, "desiredReplicas": 4},
            id="autoscaler",
        ),
        # rewritten, differing from the new status as Karmada compares their Go values: a
        # pointer to a zero value, or a list there but empty, is not nil to Karmada
        pytest.param(
            obj("HorizontalPodAutoscaler", status={"desiredReplicas": 2, "observedGeneration": 0}),
            [item("a", {"desiredReplicas": 2})],
            {"desiredReplicas": 2},
            id="autoscaler with a zero observed generation",
        ),
        pytest.param(
            obj("HorizontalPodAutoscaler", status={"desiredReplicas": 2, "currentMetrics": []}),
            [item("a", {"desiredReplicas": 2})],
            {"desiredReplicas": 2},
            id="autoscaler with an empty list of metrics",
        ),
        pytest.param(
            obj("PersistentVolumeClaim", status={"phase": "Bound", "accessModes": []}),
            [item("a", {"phase": "Bound"})],
            {"phase": "Bound"},
            id="claim with an empty list of access modes",
        ),
        pytest.param(
            obj(
                "Service",
                spec=LB,
                status={"loadBalancer": {"ingress": [{"ip": "192.0.2.1", "ports": []}]}},
            ),
            [item("a", {"loadBalancer": {"ingress": [{"ip": "192.0.2.1"}]}})],
            {"loadBalancer": {"ingress": [{"ip": "192.0.2.1"}]}},
            id="service address with an empty list of ports",
        ),
        # Karmada's list of container statuses is never nil
        pytest.param(
            obj("Pod", status={"phase": "Running", "hostIP": ""}),
            [item("a", {"phase": "Running"})],
            {"phase": "Running"},
            id="pod without container statuses",
        ),
        # a time differing only past the microsecond
        pytest.param(
            obj("CronJob", status={"lastScheduleTime": "2026-02-01T10:30:00.0000001Z"}),
            [item("a", {"lastScheduleTime": "2026-02-01T10:30:00Z"})],
            {"lastScheduleTime": "2026-02-01T10:30:00Z"},
            id="cron job schedule time a tenth of a microsecond later",
        ),
        pytest.param(
            obj(
                "Job",
                status={
                    "startTime": "2026-02-01T12:30:00+02:00",
                    "completionTime": "2026-02-01T10:40:00Z",
                    "succeeded": 1,
                },
            ),
            [item("a", {"succeeded": 1, "completionTime": "2026-02-01T10:40:00.0000001Z"})],
            {
                "startTime": "2026-02-01T10:30:00Z",
                "completionTime": "2026-02-01T10:40:00Z",
                "succeeded": 1,
            },
            id="job completion time a tenth of a microsecond earlier",
        ),
        # the whole DaemonSet status counts, not only the counters Karmada sums
        pytest.param(
            workload("DaemonSet", metadata={"generation": 1})
            | {
                "status": {
                    "numberReady": 1,
                    "observedGeneration": 1,
                    "numberAvailable": 0,
                    "collisionCount": 0,
                }
            },
            [item("a", reported(1, 1, 1, numberReady=1))],
            {
                "numberReady": 1,
                "observedGeneration": 1,
                "collisionCount": 0,
                **dict.fromkeys(
                    ("currentNumberScheduled", "desiredNumberScheduled", "numberMisscheduled"), 0
                ),
            },
            id="daemon set with a collision count",
        ),
    ],
)
def test_aggregated_status(
    chain: interpreter.Interpreter,
    template: Doc,
    items: list[work.AggregatedStatusItem],
    status: Doc,
) -> None:
    assert _aggregate(chain, template, items)["status"] == status


_INT32_MAX = 2**31 - 1


@pytest.mark.parametrize(
    ("template", "reports", "expected"),
    [
        pytest.param(
            obj("PodDisruptionBudget", spec={}),
            [{"currentHealthy": _INT32_MAX, "expectedPods": _INT32_MAX}] * 3,
            {
                "currentHealthy": 2147483645,
                "desiredHealthy": 0,
                "disruptionsAllowed": 0,
                "expectedPods": 2147483645,
            },
            id="pdb",
        ),
        pytest.param(
            obj("HorizontalPodAutoscaler", spec={}),
            [
                {"currentReplicas": _INT32_MAX, "desiredReplicas": _INT32_MAX},
                {"currentReplicas": _INT32_MAX, "desiredReplicas": 2},
            ],
            {"currentReplicas": -2, "desiredReplicas": -2147483647},
            id="hpa",
        ),
        pytest.param(
            obj("Job", spec={}),
            [{"active": _INT32_MAX}, {"active": 2}],
            {"active": -2147483647},
            id="job",
        ),
        pytest.param(
            workload("ReplicaSet"),
            [{"replicas": _INT32_MAX, "readyReplicas": 1}, {"replicas": _INT32_MAX}],
            {"replicas": -2, "readyReplicas": 1},
            id="workload",
        ),
    ],
)
def test_counters_sum_in_int32(
    chain: interpreter.Interpreter, template: Doc, reports: list[Doc], expected: Doc
) -> None:
    """Karmada adds the members' counters in Go's int32, which wraps; these are the statuses
    Karmada f8fdd02 aggregates."""
    items = [item(f"m{i}", status) for i, status in enumerate(reports)]
    assert _aggregate(chain, template, items)["status"] == expected


def test_times_written_as_go_writes_them(chain: interpreter.Interpreter) -> None:
    # Karmada compares the members' times as instants and writes the latest in UTC, to the second
    items = [
        item("a", {"lastScheduleTime": "2026-02-01T11:30:00.9+01:00"}),
        item("b", {"lastScheduleTime": "2026-02-01T10:20:00Z", "lastSuccessfulTime": None}),
        item("c", {"lastSuccessfulTime": "2026-02-01T04:00:00-05:00"}),
    ]
    assert _aggregate(chain, obj("CronJob"), items)["status"] == {
        "lastScheduleTime": "2026-02-01T10:30:00Z",
        "lastSuccessfulTime": "2026-02-01T09:00:00Z",
    }


def test_active_jobs_read_as_object_references(chain: interpreter.Interpreter) -> None:
    # Karmada decodes the member's CronJob status into its Go type: unknown fields dropped,
    # a null entry an empty reference, a field of the wrong type an error
    active = [{"name": "job-1", "uid": "u", "extra": 1}, None]
    status = _aggregate(chain, obj("CronJob"), [item("a", {"active": active})])["status"]
    assert status["active"] == [{"name": "job-1", "uid": "u"}, {}]
    with pytest.raises(errors.InterpretError, match=r"active\[0\]\.kind: expected a string"):
        chain.aggregate_status(obj("CronJob"), [item("a", {"active": [{"kind": 3}]})])


def test_disrupted_pods_times_written_as_go_writes_them(chain: interpreter.Interpreter) -> None:
    items = [
        item("a", {"disruptedPods": {"app-x": "2026-01-01T02:00:00.5+02:00", "app-y": None}}),
        item("b", {"disruptedPods": {"app-x": "2026-01-01T00:00:00Z"}}),
    ]
    status = _aggregate(chain, obj("PodDisruptionBudget"), items)["status"]
    assert status["disruptedPods"] == {
        "a/app-x": "2026-01-01T00:00:00Z",
        "a/app-y": None,
        "b/app-x": "2026-01-01T00:00:00Z",
    }


def test_container_states_as_go_writes_them(chain: interpreter.Interpreter) -> None:
    # read into the Go type and written back: unknown fields dropped, times in UTC, exitCode kept
    state = {
        "terminated": {"reason": "Error", "startedAt": "2026-01-01T01:00:00+01:00", "x": 1},
        "running": None,
    }
    items = [item("a", {"phase": "Failed", "containerStatuses": [{"name": "m", "state": state}]})]
    status = _aggregate(chain, obj("Pod"), items)["status"]
    terminated = {"exitCode": 0, "reason": "Error", "startedAt": "2026-01-01T00:00:00Z"}
    assert status["containerStatuses"] == [container(False, {"terminated": terminated})]


def test_up_to_date_status_is_left_alone(chain: interpreter.Interpreter) -> None:
    status = {"availableReplicas": 2, "replicas": 2, "observedGeneration": 3, "extra": "kept"}
    template = deployment(status=status)
    out = _aggregate(
        chain, template, [item("east", reported(1, 3, 1, replicas=2, availableReplicas=2))]
    )
    assert out == template
    assert list(out["status"]) == list(status)


@pytest.mark.parametrize(
    ("template", "items"),
    [
        pytest.param(
            obj("Service", spec={"type": "NodePort"}, status={"x": 1}),
            [item("a", {"loadBalancer": {"ingress": [{"ip": "192.0.2.1"}]}})],
            id="non load balancer service",
        ),
        pytest.param(obj("Pod", status={"phase": "Unknown"}), [], id="pod without items"),
        pytest.param(
            obj("HorizontalPodAutoscaler"),
            [item("a", {"currentReplicas": 0}), item("b")],
            id="autoscaler without a status, none reported",
        ),
        pytest.param(obj("PersistentVolume", namespace=""), [], id="volume without items"),
        pytest.param(
            obj("ConfigMap", data={"a": "b"}), [item("a", {"x": 1})], id="kind without a rule"
        ),
        # an empty phase is Go's zero value, as the one Karmada computes from none reported
        pytest.param(
            obj("PersistentVolume", namespace="", status={"phase": ""}),
            [item("a", {"phase": ""})],
            id="volume with an empty phase",
        ),
        pytest.param(
            obj("PersistentVolumeClaim", status={"phase": ""}),
            [item("a", {"phase": ""})],
            id="claim with an empty phase",
        ),
        # Karmada's new status holds an empty (not nil) map of disrupted pods: equal to this one
        pytest.param(
            obj("PodDisruptionBudget", status={"currentHealthy": 0, "disruptedPods": {}}),
            [item("a", {})],
            id="budget with zero counters and no disrupted pods",
        ),
        # equal to the new status as Karmada compares Go values: times as instants to the
        # nanosecond, Go's zero values and unknown fields not counting, 2.0 the integer 2
        pytest.param(
            obj("CronJob", status={"lastScheduleTime": "2026-02-01T12:30:00+02:00"}),
            [item("a", {"lastScheduleTime": "2026-02-01T10:30:00Z"})],
            id="cron job schedule time with an offset",
        ),
        pytest.param(
            obj("CronJob", status={"lastSuccessfulTime": "2026-02-01T10:30:00.5Z"}),
            [item("a", {"lastSuccessfulTime": "2026-02-01T11:30:00.500+01:00"})],
            id="cron job success time with a fraction",
        ),
        pytest.param(
            obj("Ingress", status={"loadBalancer": {"ingress": [{"ip": ""}]}}),
            [item("a", {"loadBalancer": {"ingress": [{}]}})],
            id="ingress address with an empty ip",
        ),
        pytest.param(
            obj(
                "Service",
                spec=LB,
                status={
                    "loadBalancer": {"ingress": [{"ip": "192.0.2.1", "ports": [{"port": 80.0}]}]}
                },
            ),
            [
                item(
                    "a",
                    {"loadBalancer": {"ingress": [{"ip": "192.0.2.1", "ports": [{"port": 80}]}]}},
                )
            ],
            id="service port written with a fraction",
        ),
        pytest.param(
            obj(
                "PodDisruptionBudget",
                status={"disruptedPods": {"a/p": "2026-01-01T02:00:00+02:00"}, "currentHealthy": 1},
            ),
            [item("a", {"currentHealthy": 1, "disruptedPods": {"p": "2026-01-01T00:00:00Z"}})],
            id="budget disruption time with an offset",
        ),
        pytest.param(
            obj("Pod", status={"phase": "Running", "hostIP": "", "containerStatuses": []}),
            [item("a", {"phase": "Running"})],
            id="pod with an empty list of container statuses",
        ),
        pytest.param(
            obj(
                "Pod",
                status={
                    "phase": "Running",
                    "containerStatuses": [
                        {
                            "ready": True,
                            "lastState": {},
                            "state": {"running": {"startedAt": "2026-01-01T01:00:00+01:00"}},
                        }
                    ],
                },
            ),
            [
                item(
                    "a",
                    {
                        "phase": "Running",
                        "containerStatuses": [
                            {
                                "name": "c",
                                "ready": True,
                                "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}},
                            }
                        ],
                    },
                )
            ],
            id="pod container start time with an offset",
        ),
        pytest.param(
            obj("HorizontalPodAutoscaler", status={"desiredReplicas": 2.0, "currentMetrics": None}),
            [item("a", {"desiredReplicas": 2})],
            id="autoscaler with null metrics",
        ),
        pytest.param(
            obj("PersistentVolume", namespace="", status={"phase": "Bound", "message": "", "x": 1}),
            [item("a", {"phase": "Bound"})],
            id="volume with an empty message and an unknown field",
        ),
        # a DaemonSet's status is compared semantically: an empty list is nil
        pytest.param(
            workload("DaemonSet", metadata={"generation": 1})
            | {"status": {"numberReady": 1, "observedGeneration": 1, "conditions": []}},
            [item("a", reported(1, 1, 1, numberReady=1))],
            id="daemon set with an empty list of conditions",
        ),
    ],
)
def test_left_alone(
    chain: interpreter.Interpreter, template: Doc, items: list[work.AggregatedStatusItem]
) -> None:
    out = _aggregate(chain, template, items)
    assert out == template
    assert out is not template


def test_budget_without_disrupted_pods_is_rewritten(chain: interpreter.Interpreter) -> None:
    # Karmada's new status holds an empty map of disrupted pods, never equal to a missing one
    template = obj("PodDisruptionBudget", status={"currentHealthy": 0})
    out = _aggregate(chain, template, [item("a", {})])
    counters = ("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods")
    assert out["status"] == dict.fromkeys(counters, 0)


COMPLETE = {"type": "Complete", "status": "True", "lastTransitionTime": "2026-05-01T10:00:00Z"}
FAILED = {"type": "Failed", "status": "True", "lastTransitionTime": "2026-05-01T11:00:00Z"}
MET = {"type": "SuccessCriteriaMet", "status": "True", "lastTransitionTime": "2026-05-01T09:59:00Z"}


def job_status(conditions: list[Doc], start: str = "", end: str = "", **counts: int) -> Doc:
    status: Doc = {"conditions": conditions, **counts}
    if start:
        status["startTime"] = start
    if end:
        status["completionTime"] = end
    return status


@pytest.mark.parametrize(
    ("template_status", "items", "status"),
    [
        pytest.param(
            None,
            [
                item(
                    "a",
                    job_status(
                        [MET, COMPLETE], "2026-05-01T08:00:00Z", "2026-05-01T09:00:00Z", succeeded=2
                    ),
                ),
                item(
                    "b",
                    job_status(
                        [{**COMPLETE, "lastTransitionTime": "2026-05-01T10:30:00Z"}, MET],
                        "2026-05-01T07:00:00Z",
                        "2026-05-01T10:30:00Z",
                        succeeded=1,
                    ),
                ),
            ],
            {
                "conditions": [
                    {
                        "type": "Complete",
                        "status": "True",
                        "lastProbeTime": "2026-05-01T10:30:00Z",
                        "lastTransitionTime": "2026-05-01T10:30:00Z",
                        "reason": "Completed",
                        "message": "Job completed",
                    },
                    {
                        "type": "SuccessCriteriaMet",
                        "status": "True",
                        "lastProbeTime": "2026-05-01T09:59:00Z",
                        "lastTransitionTime": "2026-05-01T09:59:00Z",
                        "reason": "CompletionsReached",
                        "message": "All member clusters have met success criteria",
                    },
                ],
                "startTime": "2026-05-01T07:00:00Z",
                "completionTime": "2026-05-01T10:30:00Z",
                "succeeded": 3,
            },
            id="complete everywhere",
        ),
        pytest.param(
            None,
            [
                item("a", job_status([COMPLETE], "2026-05-01T08:00:00Z", succeeded=1)),
                item("b", job_status([FAILED], "2026-05-01T08:00:00Z", failed=2)),
                item("c", job_status([FAILED], failed=1)),
            ],
            {
                "conditions": [
                    {
                        "type": "Failed",
                        "status": "True",
                        "lastProbeTime": "2026-05-01T11:00:00Z",
                        "lastTransitionTime": "2026-05-01T11:00:00Z",
                        "reason": "JobFailed",
                        "message": "Job executed failed in member clusters b,c",
                    },
                ],
                "succeeded": 1,
                "failed": 3,
            },
            id="failed in some clusters, not all started",
        ),
        pytest.param(
            {"startTime": "2026-04-01T00:00:00Z", "active": 9},
            [item("a", job_status([], "2026-05-01T08:00:00Z", active=1)), item("b")],
            {"startTime": "2026-04-01T00:00:00Z", "active": 1},
            id="running: template start time kept, not all reported",
        ),
        pytest.param(
            None,
            [
                item(
                    "a",
                    job_status(
                        [COMPLETE], "2026-05-01T08:00:00Z", "2026-05-01T09:00:00Z", succeeded=1
                    ),
                ),
                item("b", job_status([], "2026-05-01T08:30:00Z", active=1)),
            ],
            {"startTime": "2026-05-01T08:00:00Z", "active": 1, "succeeded": 1},
            id="complete in one cluster only",
        ),
    ],
)
def test_job(
    chain: interpreter.Interpreter,
    template_status: Doc | None,
    items: list[work.AggregatedStatusItem],
    status: Doc,
) -> None:
    template = workload("Job", spec_extra={"completions": 3})
    if template_status is not None:
        template["status"] = template_status
    assert _aggregate(chain, template, items)["status"] == status


@pytest.mark.parametrize(
    "status",
    [
        pytest.param({"failed": 0}, id="zero counter"),
        pytest.param({"startTime": "2026-05-01T10:00:00+02:00"}, id="start time with an offset"),
        pytest.param({"startTime": "2026-05-01T08:00:00.5Z"}, id="start time with a fraction"),
    ],
)
def test_job_status_equal_as_go_compares_it_is_left_alone(
    chain: interpreter.Interpreter, status: Doc
) -> None:
    # the template's own start time is carried over as it is, so nothing differs
    template = obj("Job", status=status)
    assert _aggregate(chain, template, []) == template


@pytest.mark.parametrize(
    "status",
    [
        pytest.param({"ready": 0}, id="a pointer Karmada's new status leaves nil"),
        pytest.param({"conditions": []}, id="an empty list, not nil"),
    ],
)
def test_job_status_differing_as_go_compares_it_is_rewritten(
    chain: interpreter.Interpreter, status: Doc
) -> None:
    assert _aggregate(chain, obj("Job", status=status), [])["status"] == {}


def test_finished_job_is_never_updated(chain: interpreter.Interpreter) -> None:
    template = workload("Job")
    template["status"] = job_status([FAILED], failed=1)
    assert _aggregate(chain, template, [item("a", job_status([], active=4))]) == template


@pytest.mark.parametrize(
    ("template", "items", "match"),
    [
        pytest.param(
            deployment(),
            [item("east", ["not", "an", "object"])],
            r"status reported by cluster 'east': status: expected an object",
            id="status not an object",
        ),
        pytest.param(
            deployment(),
            [item("east", {"replicas": "2"})],
            r"cluster 'east': status\.replicas: expected an integer",
            id="counter not a number",
        ),
        pytest.param(
            deployment(),
            [item("east", {"replicas": 2.0})],
            r"cluster 'east': status\.replicas: expected an integer, got",
            id="counter written with a fraction",
        ),
        pytest.param(
            deployment(),
            # behind a member that has not observed its generation: still read, as Karmada
            # decodes the whole reported status ("cannot unmarshal bool into ... int64")
            [item("east", {"generation": 2, "resourceTemplateGeneration": True})],
            r"cluster 'east': status\.resourceTemplateGeneration: expected an integer",
            id="template generation read behind a lagging member",
        ),
        pytest.param(
            obj("Service", spec=LB),
            [
                item(
                    "east",
                    {"loadBalancer": {"ingress": [{"ip": "192.0.2.1", "ports": [{"port": 80.0}]}]}},
                )
            ],
            r"ingress\[0\]\.ports\[0\]\.port: expected an integer",
            id="port written with a fraction",
        ),
        pytest.param(
            obj("CronJob"),
            [
                item("a", {"lastScheduleTime": "yesterday"}),
                item("b", {"lastScheduleTime": "2026-01-01T00:00:00Z"}),
            ],
            r"cluster 'a'.*not an RFC 3339 time",
            id="bad time",
        ),
    ],
)
def test_errors_name_the_cluster(
    chain: interpreter.Interpreter,
    template: Doc,
    items: list[work.AggregatedStatusItem],
    match: str,
) -> None:
    with pytest.raises(errors.InterpretError, match=match) as raised:
        chain.aggregate_status(template, items)
    assert raised.value.keys == ()


def test_template_status_must_be_an_object(chain: interpreter.Interpreter) -> None:
    with pytest.raises(errors.InterpretError) as raised:
        chain.aggregate_status(deployment(status="broken"), [])
    assert raised.value.keys == ("status",)


@pytest.mark.parametrize(
    ("template", "match"),
    [
        pytest.param(
            obj("Ingress", status={"loadBalancer": {"ingress": [{"ip": 3}]}}),
            r"status\.loadBalancer\.ingress\[0\]\.ip: expected a string",
            id="address of the wrong type",
        ),
        pytest.param(
            obj("HorizontalPodAutoscaler", status={"currentMetrics": {}}),
            r"status\.currentMetrics: expected an array",
            id="metrics not a list",
        ),
        pytest.param(
            obj("Job", status={"ready": False}),
            r"status\.ready: expected an integer",
            id="job counter of the wrong type",
        ),
    ],
)
def test_template_status_is_read_to_compare_it(
    chain: interpreter.Interpreter, template: Doc, match: str
) -> None:
    # Karmada compares the new status with the template's as Go values, converting it first
    with pytest.raises(errors.InterpretError, match=match):
        chain.aggregate_status(template, [item("a", {})])


def test_service_type_must_be_a_string(chain: interpreter.Interpreter) -> None:
    # Karmada converts the Service to its Go type before looking at the type
    with pytest.raises(errors.InterpretError, match=r"spec\.type: expected a string"):
        chain.aggregate_status(obj("Service", spec={"type": 3}), [item("a", {})])


def test_result_shares_nothing_with_the_members(chain: interpreter.Interpreter) -> None:
    reported_status: dict[str, Any] = {"active": [{"name": "app-1"}]}
    out = chain.aggregate_status(obj("CronJob"), [item("a", reported_status)])
    out["status"]["active"][0]["name"] = "changed"
    assert reported_status["active"][0]["name"] == "app-1"
