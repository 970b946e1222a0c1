"""Refusals whose Status body is not shaped as a Kubernetes Status, over real HTTP.

A server, or a proxy in front of it, may answer a server-side apply with a Status whose
`details` is not an object (a string, null) or whose `details.causes` is not a list of
objects. The simulated cluster answers the apply of one Deployment so (`set_answer`).

Aspects covered, for a Deployment changed to the Recreate strategy (whose refusal the applier
reads for the stale `rollingUpdate` and for immutable fields):
- the apply fails with the server's message, as any other refusal, not as an internal error;
- the other objects of the sync are applied, and the refused one is applied by the next sync
  once the server answers again;
- a refusal whose body is no Status at all fails with the HTTP reason;
- a success whose body is no object (a proxy's page, a bare value, nothing) fails the apply
  with what came back, not as an internal error.
"""

from __future__ import annotations

from typing import Any

import pytest
from agent.agent_kit import Sync
from builders import make_configmap, make_deployment, make_object
from simfixture import RunningSim

from gitfleet.agent import apply

NAMESPACE = make_object("v1", "Namespace", "shop")
DEPLOYMENT_PATH = "/apis/apps/v1/namespaces/shop/deployments/web"
MESSAGE = "the proxy refused this request"


def _recreating() -> dict[str, Any]:
    deployment = make_deployment()
    deployment["spec"]["strategy"] = {"type": "Recreate"}
    return deployment


def _refusal(details: Any) -> dict[str, Any]:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": MESSAGE,
        "reason": "Invalid",
        "details": details,
        "code": 422,
    }


def _results(result: apply.SyncResult) -> dict[str, apply.ObjectResult]:
    return {o.ref.name: o for o in result.objects}


@pytest.mark.parametrize(
    "details",
    [
        pytest.param("x", id="details a string"),
        pytest.param(None, id="details null"),
        pytest.param(["x"], id="details a list"),
        pytest.param({"causes": "x"}, id="causes a string"),
        pytest.param({"causes": 7}, id="causes a number"),
        pytest.param({"causes": {"field": "spec.strategy.rollingUpdate"}}, id="causes an object"),
        pytest.param({"causes": ["x", None, 3, ["spec"]]}, id="causes not objects"),
        pytest.param({"causes": ["x", {"field": 5, "message": None}]}, id="causes odd fields"),
    ],
)
def test_a_malformed_refusal_fails_with_the_servers_message(
    sync: Sync, sim_cluster: RunningSim, details: Any
) -> None:
    sim_cluster.cluster.set_answer("PATCH", DEPLOYMENT_PATH, 422, _refusal(details))
    docs = [NAMESPACE, _recreating(), make_configmap()]
    results = _results(sync(docs))
    web = results["web"]
    assert web.action is apply.Action.FAILED
    assert web.message == f"applying Deployment shop/web: {MESSAGE}"
    assert results["settings"].action is apply.Action.CREATED
    sim_cluster.cluster.set_answer("PATCH", DEPLOYMENT_PATH, None)
    assert _results(sync(docs))["web"].action is apply.Action.CREATED


@pytest.mark.parametrize(
    "body",
    [
        pytest.param("x", id="a string"),
        pytest.param(None, id="null"),
        pytest.param([_refusal({})], id="a list"),
    ],
)
def test_a_refusal_without_a_status_fails_with_the_reason(
    sync: Sync, sim_cluster: RunningSim, body: Any
) -> None:
    sim_cluster.cluster.set_answer("PATCH", DEPLOYMENT_PATH, 422, body)
    web = _results(sync([NAMESPACE, _recreating()]))["web"]
    assert (web.action, web.message) == (
        apply.Action.FAILED,
        "applying Deployment shop/web: Unprocessable Entity",
    )


@pytest.mark.parametrize(
    ("body", "shown"),
    [
        pytest.param("<html>proxy</html>", "text (<html>proxy</html>)", id="text"),
        pytest.param([{"kind": "Deployment"}], "a JSON array", id="an array"),
        pytest.param(7, "a JSON number", id="a number"),
        pytest.param(None, "nothing", id="null"),
    ],
)
def test_a_success_that_is_no_object_fails_with_what_came_back(
    sync: Sync, sim_cluster: RunningSim, body: Any, shown: str
) -> None:
    sim_cluster.cluster.set_answer("PATCH", DEPLOYMENT_PATH, 200, body)
    results = _results(sync([NAMESPACE, make_deployment(), make_configmap()]))
    web = results["web"]
    assert (web.action, web.message) == (
        apply.Action.FAILED,
        f"applying Deployment shop/web: the server answered with {shown}, not an object",
    )
    assert results["settings"].action is apply.Action.CREATED
