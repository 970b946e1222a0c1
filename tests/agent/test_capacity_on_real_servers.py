"""What an agent reports of a real cluster's capacity (tier of real API servers).

Aspects covered:
- an identity that may not list nodes: the cluster is still Ready, CompleteResourceSummary is
  False with the server's reason, and no capacity is invented: none on a first report (so the
  Cluster's declared capacity stays in force), the previous summaries on a later one;
- once the identity may list nodes and pods, the summaries are collected again and the
  condition turns True; the node count is the server's.
"""

from __future__ import annotations

import pytest
from realk8s_session import OBSERVER, Kubeconfig

from gitfleet import pipeline
from gitfleet.agent import clusterinfo, kube
from gitfleet.model import cluster

pytestmark = pytest.mark.realk8s

T1, T2, T3 = "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"
CLUSTER = "aws-euw1"


def _summary_condition(status: cluster.ClusterStatus) -> tuple[str, str, str]:
    (found,) = [c for c in status.conditions if c.type == clusterinfo.SUMMARY_CONDITION]
    return found.status, found.reason, found.message


def _grant_nodes_and_pods(admin: kube.KubeClient) -> None:
    role = kube.ResourceType("rbac.authorization.k8s.io/v1", "ClusterRole", "clusterroles", False)
    binding = kube.ResourceType(
        "rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "clusterrolebindings", False
    )
    rules = [{"apiGroups": [""], "resources": ["nodes", "pods"], "verbs": ["list"]}]
    admin.apply(
        role,
        {
            "apiVersion": role.api_version, "kind": role.kind,
            "metadata": {"name": "observer-capacity"}, "rules": rules,
        },
        manager="test",
    )  # fmt: skip
    admin.apply(
        binding,
        {
            "apiVersion": binding.api_version, "kind": binding.kind,
            "metadata": {"name": "observer-capacity"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                        "name": "observer-capacity"},
            "subjects": [{"kind": "ServiceAccount", "name": OBSERVER.name,
                          "namespace": OBSERVER.namespace}],
        },
        manager="test",
    )  # fmt: skip


def test_capacity_that_cannot_be_listed_is_not_invented(real_tier: Kubeconfig) -> None:
    admin = kube.KubeClient(real_tier(CLUSTER, "admin"), retry=kube.NO_WAIT)
    observer = kube.KubeClient(real_tier(CLUSTER, OBSERVER.user), retry=kube.NO_WAIT)
    try:
        first = clusterinfo.collect(observer, None, T1)
        assert next((c.type, c.status) for c in first.conditions) == ("Ready", "True")
        status, reason, message = _summary_condition(first)
        assert (status, reason) == ("False", clusterinfo.SUMMARY_UNAVAILABLE)
        assert "forbidden" in message.lower()
        assert first.node_summary is None and first.resource_summary is None
        declared = cluster.ClusterStatus(
            resource_summary=cluster.ResourceSummary(allocatable={"cpu": "48", "pods": "330"})
        )
        assert pipeline.merge_status(declared, first).resource_summary == declared.resource_summary

        known = cluster.ClusterStatus(
            node_summary=cluster.NodeSummary(total_num=2, ready_num=2),
            resource_summary=cluster.ResourceSummary(allocatable={"cpu": "8", "pods": "20"}),
        )
        later = clusterinfo.collect(observer, known, T2)
        assert later.node_summary == known.node_summary
        assert later.resource_summary == known.resource_summary

        _grant_nodes_and_pods(admin)
        granted = clusterinfo.collect(observer, later, T3)
        assert _summary_condition(granted)[:2] == ("True", clusterinfo.SUMMARY_COLLECTED)
        nodes = admin.list_objects(clusterinfo.NODES)
        assert granted.node_summary is not None
        assert granted.node_summary.total_num == len(nodes)
    finally:
        observer.close()
        admin.close()
