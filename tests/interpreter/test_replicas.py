"""Replicas and replica requirements (GetReplicas), and writing a cluster's share back
(ReviseReplica), through the chain with native rules only.

Aspects: which field each kind counts (absent, zero, Job parallelism capped by completions, Pod
always one); requests summed over containers, limits standing in for missing requests, init
containers taking the max, overhead added; a null quantity read as zero; which resources count;
node constraints, a null nodeSelector value read as empty; no requirements at all; revising only
an existing field; errors naming the field (replica counts outside int32 or negative, which no
API server holds, included); unknown kinds."""

from __future__ import annotations

from typing import Any

import pytest
from interpreter.kube_docs import container, obj, pod_spec, workload

from gitfleet import errors, interpreter
from gitfleet.model import meta, work


@pytest.mark.parametrize(
    ("doc", "replicas"),
    [
        pytest.param(workload("Deployment", replicas=4), 4, id="deployment"),
        pytest.param(workload("Deployment"), 0, id="deployment without replicas"),
        pytest.param(workload("Deployment", replicas=0), 0, id="deployment scaled to zero"),
        pytest.param(workload("StatefulSet", replicas=2), 2, id="statefulset"),
        pytest.param(workload("ReplicaSet", replicas=6), 6, id="replicaset"),
        pytest.param(
            workload("Job", spec_extra={"parallelism": 5, "completions": 3}),
            3,
            id="job capped by completions",
        ),
        pytest.param(
            workload("Job", spec_extra={"parallelism": 2, "completions": 9}),
            2,
            id="job parallelism below completions",
        ),
        pytest.param(
            workload("Job", spec_extra={"parallelism": 4}), 4, id="job without completions"
        ),
        pytest.param(
            workload("Job", spec_extra={"completions": 4}), 0, id="job without parallelism"
        ),
        pytest.param(obj("Pod", spec=pod_spec()), 1, id="pod is one replica"),
        pytest.param(workload("DaemonSet"), 0, id="daemonset has no replica rule"),
        pytest.param(obj("ConfigMap", data={"a": "b"}), 0, id="configmap"),
    ],
)
def test_replica_count(chain: interpreter.Interpreter, doc: dict[str, Any], replicas: int) -> None:
    assert chain.get_replicas(doc)[0] == replicas


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        pytest.param(
            pod_spec(
                container("a", {"cpu": "300m", "memory": "100Mi"}),
                container("b", {"cpu": "1200m", "memory": "1Gi"}),
            ),
            {"cpu": "1500m", "memory": "1124Mi"},
            id="containers are summed",
        ),
        pytest.param(
            pod_spec(container("a", {"cpu": "100m"}, {"cpu": "2", "memory": "256Mi"})),
            {"cpu": "100m", "memory": "256Mi"},
            id="limits stand in for missing requests",
        ),
        pytest.param(
            pod_spec(
                container("a", {"cpu": "500m", "memory": "64Mi"}),
                initContainers=[container("init", {"cpu": "2", "memory": "32Mi"})],
            ),
            {"cpu": "2", "memory": "64Mi"},
            id="init containers raise to their own request",
        ),
        pytest.param(
            pod_spec(container("a", {"cpu": "250m"}), overhead={"cpu": "50m", "memory": "10Mi"}),
            {"cpu": "300m", "memory": "10Mi"},
            id="overhead is added",
        ),
        pytest.param(
            pod_spec(container("a", {"cpu": "1m"}), container("b", {"cpu": "0.0001"})),
            {"cpu": "2m"},
            id="cpu rounds up per container",
        ),
        pytest.param(
            pod_spec(container("a", {"memory": "1.5"}), container("b", {"memory": "1.5"})),
            {"memory": "4"},
            id="memory rounds up to whole bytes per container",
        ),
        pytest.param(
            pod_spec(container("a", {"cpu": "1", "memory": None}, {"memory": "1Gi"})),
            {"cpu": "1"},
            id="a null request is zero and keeps its limit from standing in",
        ),
        pytest.param(
            pod_spec(
                container(
                    "a",
                    {
                        "example.com/fpga": "2",
                        "hugepages-2Mi": "4Mi",
                        "ephemeral-storage": "1G",
                        "pods": "1",
                        "widgets": "3",
                        "kubernetes.io/batteries": "2",
                    },
                )
            ),
            {
                "ephemeral-storage": "1000000000",
                "example.com/fpga": "2",
                "hugepages-2Mi": "4Mi",
                "kubernetes.io/batteries": "2",
                "pods": "1",
            },
            id="scalar resources count, unprefixed unknown ones do not",
        ),
    ],
)
def test_resource_request(
    chain: interpreter.Interpreter, spec: dict[str, Any], expected: dict[str, str]
) -> None:
    _, requirements = chain.get_replicas(workload("Deployment", spec, replicas=1))
    assert requirements is not None
    assert requirements.resource_request == expected


def test_node_claim(chain: interpreter.Interpreter) -> None:
    spec = pod_spec(
        nodeSelector={"disk": "ssd"},
        tolerations=[
            {
                "key": "dedicated",
                "operator": "Equal",
                "value": "db",
                "effect": "NoSchedule",
                "tolerationSeconds": 30,
            }
        ],
        affinity={
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {"key": "zone", "operator": "In", "values": ["z1", "z2"]}
                            ]
                        }
                    ]
                },
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 1, "preference": {}}
                ],
            }
        },
    )
    _, requirements = chain.get_replicas(workload("StatefulSet", spec, replicas=1))
    assert requirements == work.ReplicaRequirements(
        node_claim=work.NodeClaim(
            node_selector={"disk": "ssd"},
            tolerations=(
                meta.Toleration(
                    key="dedicated",
                    operator="Equal",
                    value="db",
                    effect="NoSchedule",
                    toleration_seconds=30,
                ),
            ),
            hard_node_affinity=meta.NodeSelector(
                node_selector_terms=(
                    meta.NodeSelectorTerm(
                        match_expressions=(
                            meta.NodeSelectorRequirement(
                                key="zone", operator="In", values=("z1", "z2")
                            ),
                        )
                    ),
                )
            ),
        ),
        resource_request=None,
    )


@pytest.mark.parametrize(
    "doc",
    [
        pytest.param(workload("Deployment", replicas=2), id="no requests, no constraints"),
        pytest.param(
            workload("Deployment", pod_spec(container("a", {"cpu": "0"})), replicas=2),
            id="zero request",
        ),
        pytest.param(obj("ConfigMap"), id="kind without replicas"),
    ],
)
def test_no_requirements(chain: interpreter.Interpreter, doc: dict[str, Any]) -> None:
    assert chain.get_replicas(doc)[1] is None


@pytest.mark.parametrize(
    ("requests", "count", "expected"),
    [
        pytest.param({"memory": "1e19"}, 1, None, id="an int64 amount that overflows reads as 0"),
        pytest.param({"cpu": "8Ei"}, 1, None, id="millicores of a capped decimal wrap"),
        pytest.param(
            {"memory": "18446744073709551617"}, 2, {"memory": "2"}, id="a decimal keeps low bits"
        ),
        pytest.param(
            {"cpu": "123456789012345678"}, 2, {"cpu": "7105905066467184992m"}, id="sums wrap"
        ),
        pytest.param(
            {"pods": "9223372036854776k"}, 2, {"pods": "384"}, id="a scaled product wraps"
        ),
        pytest.param({"memory": "8Ei"}, 1, {"memory": "9223372036854775807"}, id="the cap"),
        pytest.param(
            {"cpu": 1e20, "memory": 1e20},
            1,
            {"cpu": "200376420520689664m", "memory": "7406501418545Mi"},
            id="a number read as Go's JSON spells it (100000000000000000000, a decimal)",
        ),
        pytest.param(
            {"cpu": 1.5e19}, 1, {"cpu": "2797068074134536192m"}, id="a number beyond int64"
        ),
    ],
)
def test_requests_beyond_int64_read_as_go_reads_them(
    chain: interpreter.Interpreter,
    requests: dict[str, Any],
    count: int,
    expected: dict[str, str] | None,
) -> None:
    """Karmada keeps amounts in Go int64s (Quantity.Value/MilliValue, then `+=`), so absurd
    requests overflow; these are the requirements Karmada f8fdd02 gives for `count` such
    containers in a Pod."""
    doc = obj("Pod", spec=pod_spec(*(container(f"c{i}", requests) for i in range(count))))
    _, requirements = chain.get_replicas(doc)
    assert (None if requirements is None else requirements.resource_request) == expected


def test_null_node_selector_value_reads_as_empty(chain: interpreter.Interpreter) -> None:
    # Karmada converts the pod template to its Go type, where a null string is ""
    spec = pod_spec(nodeSelector={"disk": "ssd", "zone": None})
    _, requirements = chain.get_replicas(workload("Deployment", spec, replicas=1))
    assert requirements == work.ReplicaRequirements(
        node_claim=work.NodeClaim(node_selector={"disk": "ssd", "zone": ""})
    )


def test_pod_requirements_come_from_its_own_spec(chain: interpreter.Interpreter) -> None:
    doc = obj("Pod", spec=pod_spec(container("a", {"cpu": "700m"}), nodeSelector={}))
    _, requirements = chain.get_replicas(doc)
    assert requirements is not None
    assert requirements.resource_request == {"cpu": "700m"}
    assert requirements.node_claim == work.NodeClaim(node_selector={})


@pytest.mark.parametrize(
    ("doc", "keys"),
    [
        pytest.param(
            workload("Deployment", replicas="three"),
            ("spec", "replicas"),
            id="replicas not a number",
        ),
        pytest.param(
            workload("Deployment", pod_spec(container("a", {"cpu": "lots"}))),
            ("spec", "template", "spec", "containers", 0, "resources", "requests", "cpu"),
            id="malformed quantity",
        ),
        pytest.param(
            workload("Deployment", pod_spec(container("a"), nodeSelector={"zone": 1})),
            ("spec", "template", "spec", "nodeSelector", "zone"),
            id="node selector value not a string",
        ),
        pytest.param(
            obj("Pod", spec=pod_spec(overhead=["cpu"])),
            ("spec", "overhead"),
            id="overhead not an object",
        ),
        pytest.param(
            obj("Pod", spec=pod_spec({"name": "a", "resources": []})),
            ("spec", "containers", 0, "resources"),
            id="empty list for resources",
        ),
        pytest.param(
            obj("Pod", spec=pod_spec({"name": "a", "resources": {"limits": 0}})),
            ("spec", "containers", 0, "resources", "limits"),
            id="zero for limits",
        ),
        pytest.param(
            obj("Pod", spec=pod_spec({"name": "a", "resources": {"requests": ""}})),
            ("spec", "containers", 0, "resources", "requests"),
            id="empty string for requests",
        ),
        pytest.param(workload("Deployment", replicas=10**29), ("spec", "replicas"),
                     id="replicas past int64"),
        pytest.param(workload("StatefulSet", replicas=2**31), ("spec", "replicas"),
                     id="replicas past int32"),
        pytest.param(workload("Deployment", replicas=-1), ("spec", "replicas"),
                     id="negative replicas"),
        pytest.param(workload("Job", spec_extra={"parallelism": 2, "completions": 2**40}),
                     ("spec", "completions"), id="completions past int32"),
    ],
)  # fmt: skip
def test_errors_name_the_field(
    chain: interpreter.Interpreter, doc: dict[str, Any], keys: tuple[Any, ...]
) -> None:
    with pytest.raises(errors.InterpretError) as raised:
        chain.get_replicas(doc)
    assert raised.value.keys == keys
    assert str(raised.value).startswith(f"{doc['kind']} store/app: ")


@pytest.mark.parametrize(
    ("doc", "field", "expected"),
    [
        pytest.param(workload("Deployment", replicas=9), "replicas", 4, id="deployment"),
        pytest.param(workload("StatefulSet", replicas=1), "replicas", 4, id="statefulset"),
        pytest.param(workload("ReplicaSet", replicas=0), "replicas", 4, id="replicaset from zero"),
        pytest.param(
            workload("Job", spec_extra={"parallelism": 8, "completions": 8}),
            "parallelism",
            4,
            id="job parallelism",
        ),
        pytest.param(workload("Deployment"), "replicas", None, id="absent field stays absent"),
    ],
)
def test_revise_replica(
    chain: interpreter.Interpreter, doc: dict[str, Any], field: str, expected: int | None
) -> None:
    before = repr(doc)
    revised = chain.revise_replica(doc, 4)
    assert revised["spec"].get(field) == expected
    assert repr(doc) == before
    revised["spec"]["template"]["metadata"]["labels"]["changed"] = "yes"
    assert "changed" not in doc["spec"]["template"]["metadata"]["labels"]


def test_revise_rejects_a_non_integer_field(chain: interpreter.Interpreter) -> None:
    with pytest.raises(errors.InterpretError, match=r"spec\.replicas: expected an integer"):
        chain.revise_replica(workload("Deployment", replicas=2.5), 3)


def test_revise_leaves_other_kinds_alone(chain: interpreter.Interpreter) -> None:
    doc = workload("DaemonSet", replicas=2)
    revised = chain.revise_replica(doc, 7)
    assert revised == doc
    assert revised is not doc
