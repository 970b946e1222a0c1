"""Simulated member clusters: real HTTPS servers on 127.0.0.1 speaking enough of the Kubernetes
API for the official `kubernetes` client (discovery, CRUD with selectors and watches, CRDs,
finalizers, strategic/merge/JSON patches, server-side apply with managed fields, the scale
subresource, access and self reviews) and for everyday kubectl (Tables for `get`, OpenAPI
documents for validation and `explain`), with small controllers (workload pods and status,
scheduling by node capacity, Jobs, namespaces, garbage collection), empty pod logs,
switchable faults and canned answers.

Tests, benchmarks and `gitfleet demo` use it where a kube-apiserver cannot run:

    with SimCluster("member1", ready_delay=0) as cluster:
        cluster.kubeconfig(tmp / "member1.yaml")
        cluster.objects.put({"apiVersion": "v1", "kind": "Namespace", ...})
        cluster.set_fault(Fault.UNREACHABLE)
        assert cluster.requests.writes == 0

This package imports nothing else of gitfleet but `gitfleet.kubemodels` and
`gitfleet.kubedefaults` (which import nothing of gitfleet; the latter is the table of defaults
a server fills in, which gitfleet's stages may share), and never the kubernetes client: of the
kubernetes package it reads only the models' descriptions of the built-in kinds (`_schemas`).
"""

from gitfleet.sim._cluster import ListenError, Objects, RequestCounts, SimCluster, SimFleet
from gitfleet.sim._http import Fault
from gitfleet.sim._quantity import split as split_capacity

__all__ = [
    "Fault",
    "ListenError",
    "Objects",
    "RequestCounts",
    "SimCluster",
    "SimFleet",
    "split_capacity",
]
