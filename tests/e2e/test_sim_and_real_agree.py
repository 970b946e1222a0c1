"""The simulated member and a real kube-apiserver, sent the same requests, give the same
answers: each request goes to a simulated cluster claiming the real tier's version and to the
tier's server, and the two answers (status code and body) are compared whole, with only what
legitimately differs between two servers normalised (uids, resourceVersions, timestamps, continue
tokens, and those values where a message quotes them). The simulator plays the API server here:
the kinds compared are ones no controller writes to (the real tier runs none).

Aspects covered:
- create, get, list, merge/JSON/strategic merge patch and delete of ConfigMaps, Secrets,
  Roles, RoleBindings and ClusterRoles;
- a Namespace, a Service and a StatefulSet created: with the defaults and labels of the
  claimed release only (no IP families, internal traffic policy, claim retention policy or
  name label before the releases that brought them);
- keys of ConfigMap and Secret data that are no config keys: 422 Invalid (one bad key an
  object: a real server lists the causes in its map's random order);
- a strategic merge patch of a Service's ports: the list in the order a real server leaves it;
- a binding's roleRef changed: 422, the new one as Go dumps it;
- `force` on a patch that is no apply: 422 on PatchOptions;
- a delete whose uid or resourceVersion precondition fails: 409 naming the kind, the
  field as `UID`/`ResourceVersion`;
- list pagination: `remainingItemCount` without a selector only, the next page through each
  server's own continue token;
- a write without a field manager or User-Agent: the manager `unknown`;
- the columns of Tables (name, type, format, priority): ConfigMaps', Secrets' and
  Deployments' counts typed `string`;
- the Table `kubectl get endpointslices` reads: address type, ports (a nameless unnumbered
  port empty, three at most, `<unset>` for none) and endpoints.

Differences found and left (so not compared here):
- managedFields of an update (create, PUT, patches): a real server's field set holds every map
  and list item the write added, printed with `.` entries (`f:data: {.: {}, f:k: {}}`), where
  the simulator's holds leaves only; list items are keyed by every key field
  (`k:{"containerPort":80,"protocol":"TCP"}`), the simulator's by the first;
- Table columns describe themselves in the API's own field documentation (the Name and Age
  columns of every Table, most printers' others), the simulator's in a line of its own; a
  pod's Restarts is an `integer` column before 1.22; PersistentVolumes, Events,
  ControllerRevisions, CSIDrivers, PriorityClasses, APIServices and RuntimeClasses have
  printers of their own on a real server, the default Name and Created At here;
- a Job's `generation` (a 1.20 server sets none), and the resource versions served
  (`discovery.k8s.io/v1` but no `v1beta1`, on any release);
- an empty list a kind does not omit (a Role's `rules: []`) reads back as `null`;
- a JSON patch replacing a missing key adds it on 1.20;
- a continue token that is no token: the decoder's words after `invalid continue token`.
"""

from __future__ import annotations

import json
import secrets
import urllib.parse
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import realk8s
import realk8s_session
from simfixture import statefulset

pytestmark = pytest.mark.realk8s

TABLE = "application/json;as=Table;g=meta.k8s.io;v=v1"
MERGE = "application/merge-patch+json"
JSON_PATCH = "application/json-patch+json"
SMP = "application/strategic-merge-patch+json"
VOLATILE = frozenset({"uid", "resourceVersion", "creationTimestamp", "time", "continue"})
"""Fields whose values differ between any two servers."""
RULES = [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]


class Server:
    """Raw requests to one API server, as its administrator."""

    def __init__(self, kubeconfig: Path) -> None:
        from kubernetes import config

        self.api = config.new_client_from_config(config_file=str(kubeconfig))
        self.seen: dict[str, str] = {}
        """Volatile values this server answered with, by value: how to normalise them."""
        self.raw: Any = None
        """The last answer's body as the server gave it."""

    def send(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        content_type: str = "application/json",
        accept: str = "application/json",
        user_agent: str | None = None,
    ) -> tuple[int, Any]:
        """(status, body) of one request, with the volatile values in the body normalised and
        managedFields left out (see the differences left, above)."""
        if user_agent is not None:
            self.api.user_agent = user_agent
        request = self.api.param_serialize(
            method, path, body=body, auth_settings=["BearerToken"],
            header_params={"Content-Type": content_type, "Accept": accept},
        )  # fmt: skip
        response = self.api.call_api(*request)
        response.read()
        try:
            self.raw = json.loads(response.data)
        except ValueError:
            self.raw = bytes(response.data).decode()
        self._remember(self.raw)
        return response.status, self._normalised(self.raw)

    def _remember(self, value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key in VOLATILE and isinstance(item, str) and item:
                    self.seen[item] = f"<{key}>"
                self._remember(item)
        elif isinstance(value, list):
            for item in value:
                self._remember(item)

    def _normalised(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {
                key: f"<{key}>"
                if key in VOLATILE and isinstance(item, str)
                else self._normalised(item)
                for key, item in value.items()
                if key != "managedFields"
            }
        if isinstance(value, list):
            return [self._normalised(item) for item in value]
        if isinstance(value, str):
            if value in self.seen:
                return self.seen[value]
            for seen, placeholder in self.seen.items():
                value = value.replace(f"({seen})", f"({placeholder})")
        return value

    def close(self) -> None:
        self.api.close()


class Pair:
    """The simulated server and the real one, sent the same requests."""

    def __init__(self, simulated: Server, real: Server) -> None:
        self.simulated, self.real = simulated, real

    def send(self, method: str, path: str, body: Any = None, **options: Any) -> Any:
        """The answer both servers gave (after normalising); fails where they differ."""
        simulated = self.simulated.send(method, path, body, **options)
        real = self.real.send(method, path, body, **options)
        assert simulated == real, f"{method} {path}"
        return real

    def each(self, send: Callable[[Server], tuple[int, Any]]) -> tuple[int, Any]:
        """A request each server is sent in its own words (a continue token of its own)."""
        simulated, real = send(self.simulated), send(self.real)
        assert simulated == real
        return real


@pytest.fixture(name="pair")
def pair_fixture(
    real_tier: realk8s_session.Kubeconfig, tmp_path: Path
) -> Iterator[tuple[Pair, str]]:
    """Both servers, and a namespace of a new name made on both."""
    from gitfleet import sim

    member = sim.SimCluster("alpha", kubernetes_version=realk8s.KUBERNETES_VERSION)
    member.start()
    simulated = Server(member.kubeconfig(tmp_path / "alpha.yaml"))
    real = Server(real_tier(realk8s_session.CLUSTERS[0], "admin"))
    namespace = f"agree-{secrets.token_hex(4)}"
    simulated.send("POST", "/api/v1/namespaces", {"metadata": {"name": namespace}})
    real.send("POST", "/api/v1/namespaces", {"metadata": {"name": namespace}})
    try:
        yield Pair(simulated, real), namespace
    finally:
        simulated.close()
        real.close()
        member.stop()


KINDS = [
    pytest.param(
        "/api/v1/namespaces/{ns}/configmaps",
        {"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "1"}},
        id="ConfigMap",
    ),
    pytest.param(
        "/api/v1/namespaces/{ns}/secrets",
        {"apiVersion": "v1", "kind": "Secret", "stringData": {"a": "1"}, "type": "Opaque"},
        id="Secret",
    ),
    pytest.param(
        "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles",
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "rules": RULES,
        },
        id="Role",
    ),
    pytest.param(
        "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings",
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"},
            "subjects": [{"kind": "ServiceAccount", "name": "default", "namespace": "x"}],
        },
        id="RoleBinding",
    ),
    pytest.param(
        "/apis/rbac.authorization.k8s.io/v1/clusterroles",
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "rules": [{"nonResourceURLs": ["/healthz"], "verbs": ["get"]}],
        },
        id="ClusterRole",
    ),
]


@pytest.mark.parametrize(("collection", "body"), KINDS)
def test_the_life_of_an_object(
    pair: tuple[Pair, str], collection: str, body: dict[str, Any]
) -> None:
    servers, namespace = pair
    path = collection.format(ns=namespace)
    name = f"{namespace}-life"
    obj = {**body, "metadata": {"name": name, "labels": {"life": namespace}}}
    assert servers.send("POST", path, obj)[0] == 201
    servers.send("POST", path, obj)  # already exists
    servers.send("GET", f"{path}/{name}")
    servers.send("GET", f"{path}?labelSelector=life%3D{namespace}")
    patches = [
        (MERGE, {"metadata": {"annotations": {"merge": "1"}}}),
        (JSON_PATCH, [{"op": "add", "path": "/metadata/annotations/j", "value": "2"}]),
        (SMP, {"metadata": {"labels": {"smp": "3"}}}),
    ]  # fmt: skip
    for content_type, patch in patches:
        servers.send("PATCH", f"{path}/{name}", patch, content_type=content_type)
    stale = {**obj, "metadata": {**obj["metadata"], "resourceVersion": "1"}}
    servers.send("PUT", f"{path}/{name}", stale)  # a resourceVersion conflict
    servers.send("POST", f"{path}?dryRun=All", {**obj, "metadata": {"name": f"{name}-dry"}})
    servers.send("GET", f"{path}/{name}-dry")
    servers.send("DELETE", f"{path}/{name}")
    servers.send("DELETE", f"{path}/{name}")


@pytest.mark.parametrize(
    ("collection", "body"),
    [
        pytest.param("configmaps", {"data": {"bad key": "x", "ok": "y"}}, id="ConfigMap data"),
        pytest.param("configmaps", {"binaryData": {"..dots": "eA=="}}, id="ConfigMap binaryData"),
        pytest.param(
            "configmaps", {"data": {"a": "x"}, "binaryData": {".": "eA=="}}, id="ConfigMap dot"
        ),
        pytest.param("secrets", {"data": {"a b": "eA=="}}, id="Secret"),
        pytest.param("secrets", {"data": {"..": "eA==", "ok": "eA=="}}, id="Secret two dots"),
    ],
)
def test_keys_that_are_no_config_keys(
    pair: tuple[Pair, str], collection: str, body: dict[str, Any]
) -> None:
    servers, namespace = pair
    obj = {"metadata": {"name": "keys"}, **body}
    code, status = servers.send("POST", f"/api/v1/namespaces/{namespace}/{collection}", obj)
    assert (code, status["reason"]) == (422, "Invalid")


CREATED = {
    "Service": (
        "/api/v1/namespaces/{ns}/services",
        {"spec": {"selector": {"app": "x"}, "ports": [{"port": 80, "protocol": "TCP"}]}},
    ),
    "StatefulSet": ("/apis/apps/v1/namespaces/{ns}/statefulsets", statefulset("made")),
}


@pytest.mark.parametrize("kind", list(CREATED))
def test_created_as_the_claimed_release_keeps_them(pair: tuple[Pair, str], kind: str) -> None:
    servers, namespace = pair
    servers.send("GET", f"/api/v1/namespaces/{namespace}")
    collection, body = CREATED[kind]
    answers = []
    for server in (servers.simulated, servers.real):
        made = {**body, "metadata": {"name": "made"}}
        code, created = server.send("POST", collection.format(ns=namespace), made)
        for field in ("clusterIP", "clusterIPs"):  # each server's own service network
            created.get("spec", {}).pop(field, None)
        answers.append((code, created))
    assert answers[0] == answers[1]


@pytest.mark.parametrize(
    "ports",
    [
        pytest.param([{"name": "c", "port": 82, "protocol": "TCP"}], id="a new port"),
        pytest.param(
            [{"name": "b", "port": 81, "protocol": "TCP"}, {"name": "a", "port": 80}],
            id="the patch's order",
        ),
    ],
)
def test_a_strategic_merge_patch_orders_a_list(
    pair: tuple[Pair, str], ports: list[dict[str, Any]]
) -> None:
    servers, namespace = pair
    path = f"/api/v1/namespaces/{namespace}/services"
    listed = [
        {"name": "a", "port": 80, "protocol": "TCP"},
        {"name": "b", "port": 81, "protocol": "TCP"},
    ]
    answers = []
    for server in (servers.simulated, servers.real):
        server.send("POST", path, {"metadata": {"name": "ordered"}, "spec": {"ports": listed}})
        patch = {"spec": {"ports": ports}}
        _, patched = server.send("PATCH", f"{path}/ordered", patch, content_type=SMP)
        answers.append(patched["spec"]["ports"])
    assert answers[0] == answers[1]


def test_a_binding_given_another_role(pair: tuple[Pair, str]) -> None:
    servers, namespace = pair
    path = f"/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}/rolebindings"
    binding = {
        "metadata": {"name": "bound"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"},
    }
    servers.send("POST", path, binding)
    patch = {"roleRef": {"kind": "ClusterRole", "name": "view"}}
    code, status = servers.send("PATCH", f"{path}/bound", patch, content_type=MERGE)
    assert (code, status["details"]["causes"][0]["field"]) == (422, "roleRef")


def test_force_on_a_patch_that_is_no_apply(pair: tuple[Pair, str]) -> None:
    servers, namespace = pair
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    servers.send("POST", path, {"metadata": {"name": "forced"}})
    code, status = servers.send(
        "PATCH", f"{path}/forced?force=false", {"data": {"a": "1"}}, content_type=MERGE
    )
    assert (code, status["details"]["kind"]) == (422, "PatchOptions")


@pytest.mark.parametrize("field", ["uid", "resourceVersion"])
def test_a_delete_whose_precondition_fails(pair: tuple[Pair, str], field: str) -> None:
    servers, namespace = pair
    path = f"/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}/roles"
    servers.send("POST", path, {"metadata": {"name": "kept"}, "rules": RULES})
    options = {"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": {field: "0"}}
    code, status = servers.send("DELETE", f"{path}/kept", options)
    assert (code, status["details"]["kind"]) == (409, "Role")


def test_list_pagination(pair: tuple[Pair, str]) -> None:
    servers, namespace = pair
    path = f"/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}/roles"
    for n in range(5):
        role = {"metadata": {"name": f"r{n}", "labels": {"n": str(n)}}, "rules": RULES}
        servers.send("POST", path, role)
    for query in ("limit=2", "limit=2&labelSelector=n", "limit=2&fieldSelector=metadata.name!=r0"):
        _, first = servers.send("GET", f"{path}?{query}")
        assert first["metadata"]["continue"] == "<continue>"
        servers.each(
            lambda server, q=query: server.send("GET", f"{path}?{q}&continue={_next(server)}")
        )


def _next(server: Server) -> str:
    """The continue token of the page `server` gave last."""
    return urllib.parse.quote(server.raw["metadata"]["continue"])


def test_a_write_without_a_manager_or_user_agent(pair: tuple[Pair, str]) -> None:
    servers, namespace = pair
    path = f"/api/v1/namespaces/{namespace}/configmaps"
    body = {"metadata": {"name": "anonymous"}, "data": {"a": "1"}}
    managers = []
    for server in (servers.simulated, servers.real):
        assert server.send("POST", path, body, user_agent="")[0] == 201
        managers.append([entry["manager"] for entry in server.raw["metadata"]["managedFields"]])
    assert managers == [["unknown"], ["unknown"]]


@pytest.mark.parametrize(
    "collection",
    [
        "/api/v1/namespaces/{ns}/configmaps",
        "/api/v1/namespaces/{ns}/secrets",
        "/apis/apps/v1/namespaces/{ns}/deployments",
        "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings",
    ],
)
def test_table_columns(pair: tuple[Pair, str], collection: str) -> None:
    servers, namespace = pair
    columns = []
    for server in (servers.simulated, servers.real):
        _, table = server.send("GET", collection.format(ns=namespace), accept=TABLE)
        definitions = table["columnDefinitions"]
        columns.append([(c["name"], c["type"], c["format"], c["priority"]) for c in definitions])
    assert columns[0] == columns[1]


def test_endpoint_slice_table(pair: tuple[Pair, str]) -> None:
    servers, namespace = pair
    slices = {
        "one": ([{"name": "http", "port": 80, "protocol": "TCP"}], 1),
        "none": ([], 0),
        "many": ([{"name": f"p{n}", "port": 80 + n, "protocol": "TCP"} for n in range(5)], 5),
        "unnumbered": ([{"name": "named", "protocol": "TCP"}, {"name": "", "protocol": "TCP"}], 2),
    }
    answers = []
    for server in (servers.simulated, servers.real):
        version = "v1" if server.send("GET", "/apis/discovery.k8s.io/v1")[0] == 200 else "v1beta1"
        path = f"/apis/discovery.k8s.io/{version}/namespaces/{namespace}/endpointslices"
        for name, (ports, count) in slices.items():
            endpoints = [{"addresses": [f"10.0.0.{n + 1}"]} for n in range(count)]
            doc = {"metadata": {"name": name}, "addressType": "IPv4", "ports": ports}
            server.send("POST", path, {**doc, "endpoints": endpoints})
        _, table = server.send("GET", path, accept=TABLE)
        columns = [(c["name"], c["type"], c["description"]) for c in table["columnDefinitions"]]
        answers.append((columns[1:4], sorted(row["cells"][:4] for row in table["rows"])))
    assert answers[0] == answers[1]
    many = ["many", "IPv4", "80,81,82 + 2 more...", "10.0.0.1,10.0.0.2,10.0.0.3 + 2 more..."]
    assert answers[1][1][0] == many
