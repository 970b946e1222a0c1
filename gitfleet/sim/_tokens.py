"""The `serviceaccounts/token` subresource (TokenRequest, what `kubectl create token` asks
for). A real server signs a token bound to the service account; the simulator has no RBAC
and one bearer token that may do anything, so that is the token it hands out: whoever uses
it reaches the cluster, as with a real token (and can do more).
"""

from __future__ import annotations

import datetime
from typing import Any

from gitfleet.sim import _errors, _json

API_VERSION = "authentication.k8s.io/v1"
DEFAULT_SECONDS = 3600
AUDIENCES = ["https://kubernetes.default.svc"]
RESOURCE = {
    "name": "serviceaccounts/token",
    "singularName": "",
    "namespaced": True,
    "group": "authentication.k8s.io",
    "version": "v1",
    "kind": "TokenRequest",
    "verbs": ["create"],
}
"""Its entry in the core v1 APIResourceList."""


def issue(body: Any, token: str, now: datetime.datetime) -> _json.Obj:
    """The TokenRequest answered to `body` (a TokenRequest, or 400)."""
    if not isinstance(body, dict) or body.get("kind", "TokenRequest") != "TokenRequest":
        raise _errors.bad_request("the body of the request must be a TokenRequest")
    spec = body.get("spec") or {}
    seconds = int(spec.get("expirationSeconds") or DEFAULT_SECONDS)
    expires = now.astimezone(datetime.UTC) + datetime.timedelta(seconds=seconds)
    return {
        "kind": "TokenRequest",
        "apiVersion": API_VERSION,
        "metadata": {"creationTimestamp": None},
        "spec": {
            "audiences": list(spec.get("audiences") or AUDIENCES),
            "expirationSeconds": seconds,
            "boundObjectRef": spec.get("boundObjectRef"),
        },
        "status": {"token": token, "expirationTimestamp": expires.strftime("%Y-%m-%dT%H:%M:%SZ")},
    }
