"""The review APIs a client asks what it may do and who it is: authorization.k8s.io's
SelfSubjectAccessReview (`kubectl auth can-i`), SelfSubjectRulesReview (`kubectl auth can-i
--list`), SubjectAccessReview and LocalSubjectAccessReview, and authentication.k8s.io's
SelfSubjectReview (`kubectl auth whoami`).

Reviews are never stored: a create answers with the request and its `status`. The simulator
has no RBAC and lets its one bearer token do anything, so it answers as a real API server
answers its administrator, user `admin` in group `system:masters`: every access is allowed,
with no reason (the privileged-group authorizer that allows `system:masters` gives none), and
the rules are everything on every resource and URL.
"""

from __future__ import annotations

from gitfleet.sim import _errors, _json, _resources

AUTHORIZATION = "authorization.k8s.io"
AUTHENTICATION = "authentication.k8s.io"
GROUPS = frozenset({AUTHORIZATION, AUTHENTICATION})
USER = "admin"
USER_GROUPS = ("system:masters", "system:authenticated")

_ACCESS_REVIEWS = frozenset(
    {"SelfSubjectAccessReview", "SubjectAccessReview", "LocalSubjectAccessReview"}
)


_ADMIN_RULES: _json.Obj = {
    "resourceRules": [
        {
            "verbs": ["create"],
            "apiGroups": [AUTHORIZATION],
            "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
        },
        {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]},
    ],
    "nonResourceRules": [
        {
            "verbs": ["get"],
            "nonResourceURLs": ["/healthz", "/livez", "/readyz", "/version", "/version/"],
        },
        {
            "verbs": ["get"],
            "nonResourceURLs": [
                *("/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez"),
                *("/openapi", "/openapi/*", "/readyz", "/version", "/version/"),
            ],
        },
        {"verbs": ["*"], "nonResourceURLs": ["*"]},
    ],
    "incomplete": False,
}
"""The rules of `system:masters` on kube-apiserver 1.20: those of the basic-user,
public-info-viewer and discovery roles every authenticated user has, then cluster-admin's."""


def _invalid(field: str, value: str, why: str) -> _errors.ApiError:
    """422 as the API server words it for a review: the review's type has no kind there
    (`.authorization.k8s.io "" is invalid`)."""
    return _errors.invalid(AUTHORIZATION, "", "", [(field, f"Invalid value: {value}: {why}")])


def _check_access_review(kind: str, spec: _json.Obj, namespace: str) -> None:
    """The checks of pkg/apis/authorization/validation: exactly one kind of attributes, a
    subject for a review about somebody else, and a namespace that matches the URL's."""
    resource, non_resource = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
    if (resource is None) == (non_resource is None):
        raise _invalid(
            "spec.resourceAttributes",
            '"null"' if resource is None else "…",
            "exactly one of nonResourceAttributes or resourceAttributes must be specified",
        )
    if kind != "SelfSubjectAccessReview" and not spec.get("user") and not spec.get("groups"):
        raise _invalid(
            "spec.user",
            '""',
            "at least one of user or group must be specified",
        )
    if kind == "LocalSubjectAccessReview":
        given = (resource or {}).get("namespace", "") if isinstance(resource, dict) else ""
        if given != namespace:
            raise _invalid(
                "spec.resourceAttributes.namespace",
                f'"{given}"',
                "must match metadata.namespace",
            )


def _status(kind: str) -> _json.Obj:
    if kind in _ACCESS_REVIEWS:
        return {"allowed": True}
    if kind == "SelfSubjectRulesReview":
        rules: _json.Obj = _json.clone(_ADMIN_RULES)
        return rules
    return {"userInfo": {"username": USER, "groups": list(USER_GROUPS)}}


def review(resource: _resources.ResourceType, body: _json.Obj, namespace: str) -> _json.Obj:
    """The answer to creating a review: the request, named as sent, with its status."""
    kind = resource.kind
    spec = body.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    if kind in _ACCESS_REVIEWS:
        _check_access_review(kind, spec, namespace)
    metadata = body.get("metadata")
    metadata = dict(metadata) if isinstance(metadata, dict) else {}
    metadata.setdefault("creationTimestamp", None)
    if namespace:
        metadata.setdefault("namespace", namespace)
    answer: _json.Obj = {
        "kind": kind,
        "apiVersion": resource.api_version(),
        "metadata": metadata,
    }
    if kind != "SelfSubjectReview":
        answer["spec"] = spec
    answer["status"] = _status(kind)
    return answer
