"""The review APIs, as kubectl's `auth` commands and the kubernetes client use them.

Covers: discovery lists authorization.k8s.io and authentication.k8s.io; a
SelfSubjectAccessReview is allowed, as for a real server's administrator, and comes back with
its spec and no reason; one with neither resource nor non-resource attributes, and a
SubjectAccessReview naming no subject, are 422 Invalid (worded as the API server words them,
with no kind); a LocalSubjectAccessReview for another namespace is 422; a
SelfSubjectRulesReview lists every verb on every resource and URL after the discovery rules
every user has; a SelfSubjectReview names the user; nothing is stored (reviews cannot be read
back); kubectl `auth can-i` answers yes with exit 0 (also for a URL), `auth can-i --list`
prints the rules, and `auth whoami` the user and groups.
"""

from __future__ import annotations

from typing import Any

import pytest
from simfixture import RunKubectl, RunningSim, needs_kubectl, raw


def _apis(sim: RunningSim) -> tuple[Any, Any]:
    from kubernetes import client

    return client.AuthorizationV1Api(sim.api_client), client.AuthenticationV1Api(sim.api_client)


def test_discovery_lists_the_review_groups(sim_cluster: RunningSim) -> None:
    code, document = raw(sim_cluster, "GET", "/apis/authorization.k8s.io/v1")
    assert code == 200
    assert {(r["name"], r["namespaced"], tuple(r["verbs"])) for r in document["resources"]} == {
        ("localsubjectaccessreviews", True, ("create",)),
        ("selfsubjectaccessreviews", False, ("create",)),
        ("selfsubjectrulesreviews", False, ("create",)),
        ("subjectaccessreviews", False, ("create",)),
    }
    code, document = raw(sim_cluster, "GET", "/apis/authentication.k8s.io/v1")
    assert [r["name"] for r in document["resources"]] == ["selfsubjectreviews"]


def test_the_administrator_may_do_anything(sim_cluster: RunningSim) -> None:
    from kubernetes import client

    authorization, authentication = _apis(sim_cluster)
    answer = authorization.create_self_subject_access_review(
        client.V1SelfSubjectAccessReview(
            spec=client.V1SelfSubjectAccessReviewSpec(
                resource_attributes=client.V1ResourceAttributes(
                    verb="create", group="apps", resource="deployments", namespace="default"
                )
            )
        )
    )
    assert answer.status.allowed is True
    assert answer.status.reason is None
    assert answer.spec.resource_attributes.resource == "deployments"
    rules = authorization.create_self_subject_rules_review(
        client.V1SelfSubjectRulesReview(
            spec=client.V1SelfSubjectRulesReviewSpec(namespace="default")
        )
    )
    shown = sim_cluster.api_client.sanitize_for_serialization(rules.status)
    assert {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]} in shown["resourceRules"]
    assert shown["nonResourceRules"][-1] == {"verbs": ["*"], "nonResourceURLs": ["*"]}
    assert shown["incomplete"] is False
    me = authentication.create_self_subject_review(client.V1SelfSubjectReview())
    assert me.status.user_info.username == "admin"
    assert "system:masters" in me.status.user_info.groups


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        pytest.param(
            "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
            {"kind": "SelfSubjectAccessReview", "spec": {}},
            "spec.resourceAttributes",
            id="no attributes",
        ),
        pytest.param(
            "/apis/authorization.k8s.io/v1/subjectaccessreviews",
            {"kind": "SubjectAccessReview", "spec": {"nonResourceAttributes": {"path": "/"}}},
            "spec.user",
            id="no subject",
        ),
        pytest.param(
            "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews",
            {
                "kind": "LocalSubjectAccessReview",
                "spec": {"user": "u", "resourceAttributes": {"namespace": "other"}},
            },
            "spec.resourceAttributes.namespace",
            id="another namespace",
        ),
    ],
)
def test_invalid_reviews(sim_cluster: RunningSim, path: str, body: Any, field: str) -> None:
    code, status = raw(
        sim_cluster, "POST", path, body={"apiVersion": "authorization.k8s.io/v1", **body}
    )
    assert code == 422
    assert status["reason"] == "Invalid"
    assert status["details"]["causes"][0]["field"] == field
    assert status["message"].startswith('.authorization.k8s.io "" is invalid: ')


def test_reviews_are_not_stored(sim_cluster: RunningSim) -> None:
    path = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
    created, _ = raw(
        sim_cluster,
        "POST",
        path,
        body={"kind": "SelfSubjectAccessReview", "spec": {"nonResourceAttributes": {}}},
    )
    listed, status = raw(sim_cluster, "GET", path)
    assert created == 201
    assert (listed, status["reason"]) == (405, "MethodNotAllowed")


@needs_kubectl
def test_kubectl_auth(run_kubectl: RunKubectl) -> None:
    can = run_kubectl("auth", "can-i", "create", "deployments")
    url = run_kubectl("auth", "can-i", "get", "/healthz")
    rules = run_kubectl("auth", "can-i", "--list")
    whoami = run_kubectl("auth", "whoami", "-o", "jsonpath={.status.userInfo.username}")
    assert (can.code, can.out) == (0, "yes\n"), can.err
    assert (url.code, url.out) == (0, "yes\n"), url.err
    assert rules.code == 0, rules.err
    assert ["*.*", "[]", "[]", "[*]"] in [line.split() for line in rules.out.splitlines()]
    assert (whoami.code, whoami.out) == (0, "admin"), whoami.err
