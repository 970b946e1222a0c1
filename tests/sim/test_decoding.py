"""How the simulated server decodes built-in objects it is sent, as a real API server
decodes them into their Go types.

Covers: a value of the wrong JSON type is 400 BadRequest naming the Go field and type (a string
for `spec.replicas`, a number in a ConfigMap's data), and nothing is stored; numbers are taken
for quantities, and stored as the text the server prints (`0.5` as `500m`), but not for a
string field of the same name (an env var's `value`); an unknown field is 400 with
`fieldValidation=Strict`, a warning header with `Warn` (the default), and dropped in every
case, also from the result of a patch; a patch whose result has a value of the wrong type is
422 on the field `patch` (the patched object, or a strategic merge patch as Go prints it); an
empty or null map (`labels: {}`, `data: {}`, the labels a patch removed the last one of) is not
kept, as Go's omitempty leaves it out; an unsupported fieldValidation value is 400; a server-
side apply configuration with an unknown field is 400 `field not declared in schema`; a cluster
claiming 1.20 drops unknown fields silently whatever is asked, and answers an apply with one
with the 500 it gave; kubectl `apply` shows the server's error and exits 1, and
`--validate=warn` prints the warning; NaN and the infinities, which are no JSON, are 400 with
Go's words for them, and an apply configuration reads NaN as YAML does, a string.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from simfixture import (
    RunKubectl,
    RunningSim,
    SimFactory,
    config_map,
    deployment,
    exchange,
    needs_kubectl,
    raw,
)

DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
CONFIG_MAPS = "/api/v1/namespaces/default/configmaps"
APPLY = {"Content-Type": "application/apply-patch+yaml"}


def _with(body: dict[str, Any], *path: str, value: Any) -> dict[str, Any]:
    node = body
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return body


@pytest.mark.parametrize(
    ("path", "body", "message"),
    [
        pytest.param(
            DEPLOYMENTS,
            _with(deployment("web"), "spec", "replicas", value="two"),
            'Deployment in version "v1" cannot be handled as a Deployment: json: cannot '
            "unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32",
            id="string for an integer",
        ),
        pytest.param(
            CONFIG_MAPS,
            config_map("cfg", a=1),
            "cannot unmarshal number into Go struct field ConfigMap.data of type string",
            id="number in data",
        ),
        pytest.param(
            DEPLOYMENTS,
            _with(deployment("web"), "spec", "template", "spec", "containers", value={}),
            "cannot unmarshal object into Go struct field PodSpec.spec.template.spec.containers"
            " of type []v1.Container",
            id="object for a list",
        ),
    ],
)
def test_wrong_types_are_bad_requests(
    sim_cluster: RunningSim, path: str, body: dict[str, Any], message: str
) -> None:
    code, status = raw(sim_cluster, "POST", path, body=body)
    assert (code, status["reason"]) == (400, "BadRequest")
    assert message in status["message"]
    name = body["metadata"]["name"]
    assert sim_cluster.objects.get(body["apiVersion"], body["kind"], name, "default") is None


def test_numbers_are_quantities(sim_cluster: RunningSim) -> None:
    limits = {"cpu": 0.5, "memory": 1000, "ephemeral-storage": 134217728}
    container = {"name": "c", "image": "x", "resources": {"limits": limits}}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}
    pod["spec"] = {"containers": [container]}
    code, stored = raw(sim_cluster, "POST", "/api/v1/namespaces/default/pods", body=pod)
    assert code == 201
    assert stored["spec"]["containers"][0]["resources"]["limits"] == {
        "cpu": "500m",
        "memory": "1k",
        "ephemeral-storage": "134217728",
    }


def test_a_number_is_no_quantity_where_the_field_is_a_string(sim_cluster: RunningSim) -> None:
    """`value` holds a quantity in an HPA's metric target, but a string in an env var."""
    env = [{"name": "SHARE", "value": 0.5}]
    container = {"name": "c", "image": "x", "env": env}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}
    pod["spec"] = {"containers": [container]}
    code, status = raw(sim_cluster, "POST", "/api/v1/namespaces/default/pods", body=pod)
    assert (code, status["reason"]) == (400, "BadRequest")
    assert "cannot unmarshal number into Go struct field EnvVar" in status["message"]


def _unknown(name: str) -> dict[str, Any]:
    return _with(deployment(name), "spec", "bogus", value=1)


def test_unknown_fields_by_field_validation(sim_cluster: RunningSim) -> None:
    strict, _, refused = exchange(
        sim_cluster, "POST", f"{DEPLOYMENTS}?fieldValidation=Strict", body=_unknown("a")
    )
    warned, headers, _ = exchange(sim_cluster, "POST", DEPLOYMENTS, body=_unknown("b"))
    ignored, quiet, _ = exchange(
        sim_cluster, "POST", f"{DEPLOYMENTS}?fieldValidation=Ignore", body=_unknown("c")
    )
    odd, _, unsupported = exchange(
        sim_cluster, "POST", f"{DEPLOYMENTS}?fieldValidation=Loose", body=_unknown("d")
    )
    assert (strict, refused["reason"]) == (400, "BadRequest")
    assert refused["message"].endswith('strict decoding error: unknown field "spec.bogus"')
    assert (warned, ignored) == (201, 201)
    assert ("Warning", '299 - "unknown field \\"spec.bogus\\""') in headers
    assert not [value for name, value in quiet if name == "Warning"]
    assert odd == 400 and "fieldValidation" in unsupported["message"]
    for name in ("b", "c"):
        stored = sim_cluster.objects.get("apps/v1", "Deployment", name, "default")
        assert stored is not None and "bogus" not in stored["spec"]


def test_patch_results_are_decoded(sim_cluster: RunningSim) -> None:
    sim_cluster.objects.put(config_map("cfg", a="1"))
    patch = {"data": {"b": "2"}, "extra": True}
    headers = {"Content-Type": "application/merge-patch+json"}
    code, status = raw(
        sim_cluster,
        "PATCH",
        f"{CONFIG_MAPS}/cfg?fieldValidation=Strict",
        body=patch,
        headers=headers,
    )
    warned, _ = raw(sim_cluster, "PATCH", f"{CONFIG_MAPS}/cfg", body=patch, headers=headers)
    stored = sim_cluster.objects.get("v1", "ConfigMap", "cfg", "default")
    assert code == 400 and 'unknown field "extra"' in status["message"]
    assert warned == 200
    assert stored is not None and "extra" not in stored and stored["data"]["b"] == "2"


@pytest.mark.parametrize(
    ("content_type", "patch", "value", "problem"),
    [
        pytest.param(
            "application/merge-patch+json",
            {"data": {"b": 2}},
            '{"apiVersion":"v1","kind":"ConfigMap",',
            "json: cannot unmarshal number into Go struct field ConfigMap.data of type string",
            id="merge patch",
        ),
        pytest.param(
            "application/json-patch+json",
            [{"op": "add", "path": "/data/b", "value": True}],
            '{"apiVersion":"v1","kind":"ConfigMap",',
            "json: cannot unmarshal bool into Go struct field ConfigMap.data of type string",
            id="json patch",
        ),
        pytest.param(
            "application/strategic-merge-patch+json",
            {"data": {"b": 2, "c": 1e6}},
            "map[data:map[b:2 c:1e+06]]",
            "cannot convert int64 to string",
            id="strategic merge patch",
        ),
        pytest.param(
            "application/strategic-merge-patch+json",
            {"data": ["x", 1.5]},
            "map[data:[x 1.5]]",
            "cannot restore map from slice",
            id="strategic merge patch, list for a map",
        ),
    ],
)
def test_a_wrongly_typed_patch_is_invalid(
    sim_cluster: RunningSim, content_type: str, patch: Any, value: str, problem: str
) -> None:
    """A patch whose result the server cannot decode is 422 on the field `patch` (a create or
    update with the same value is 400)."""
    sim_cluster.objects.put(config_map("cfg", a="1"))
    headers = {"Content-Type": content_type}
    code, status = raw(sim_cluster, "PATCH", f"{CONFIG_MAPS}/cfg", body=patch, headers=headers)
    assert (code, status["reason"]) == (422, "Invalid")
    [cause] = status["details"]["causes"]
    assert status["details"] == {"causes": [cause]}
    assert (cause["field"], cause["reason"]) == ("patch", "FieldValueInvalid")
    assert status["message"] == f' "" is invalid: patch: {cause["message"]}'
    assert cause["message"].endswith(f": {problem}")
    shown = cause["message"].removeprefix("Invalid value: ").removesuffix(f": {problem}")
    assert json.loads(shown).startswith(value)
    stored = sim_cluster.objects.get("v1", "ConfigMap", "cfg", "default")
    assert stored is not None and stored["data"] == {"a": "1"}


def test_apply_with_an_unknown_field(sim_cluster: RunningSim) -> None:
    code, status = raw(
        sim_cluster,
        "PATCH",
        f"{DEPLOYMENTS}/web?fieldManager=me",
        body=_unknown("web"),
        headers=APPLY,
    )
    assert (code, status["reason"]) == (400, "BadRequest")
    assert status["message"] == (
        "failed to create typed patch object (default/web; apps/v1, Kind=Deployment): "
        ".spec.bogus: field not declared in schema"
    )


def test_a_1_20_cluster_drops_unknown_fields_silently(make_sim_cluster: SimFactory) -> None:
    old = make_sim_cluster("old", kubernetes_version="v1.20.2")
    code, headers, _ = exchange(
        old, "POST", f"{DEPLOYMENTS}?fieldValidation=Strict", body=_unknown("web")
    )
    applied, status = raw(
        old, "PATCH", f"{DEPLOYMENTS}/api?fieldManager=me", body=_unknown("api"), headers=APPLY
    )
    assert code == 201
    assert not [value for name, value in headers if name == "Warning"]
    assert applied == 500
    assert status["message"] == (
        "failed to create typed patch object: .spec.bogus: field not declared in schema"
    )


@needs_kubectl
def test_kubectl_shows_the_servers_decoding(run_kubectl: RunKubectl, tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(
        yaml.safe_dump(_with(deployment("bad"), "spec", "replicas", value="two"))
    )
    (tmp_path / "unknown.yaml").write_text(yaml.safe_dump(_unknown("unknown")))
    bad = run_kubectl("apply", "-f", "bad.yaml")
    strict = run_kubectl("apply", "-f", "unknown.yaml")
    warned = run_kubectl("apply", "-f", "unknown.yaml", "--validate=warn")
    assert bad.code == 1
    assert "Error from server (BadRequest)" in bad.err
    assert "cannot be handled as a Deployment" in bad.err
    assert strict.code == 1
    assert 'strict decoding error: unknown field "spec.bogus"' in strict.err
    assert warned.code == 0, warned.err
    assert 'Warning: unknown field "spec.bogus"' in warned.err


def test_empty_maps_are_not_kept(sim_cluster: RunningSim) -> None:
    body = config_map("cfg", labels={})
    body["metadata"]["annotations"] = None
    body["binaryData"] = {}
    _, created = raw(sim_cluster, "POST", CONFIG_MAPS, body=body)
    raw(
        sim_cluster,
        "PATCH",
        f"{CONFIG_MAPS}/cfg",
        body={"metadata": {"labels": {"a": "b"}}},
        headers={"Content-Type": "application/merge-patch+json"},
    )
    _, unlabeled = raw(
        sim_cluster,
        "PATCH",
        f"{CONFIG_MAPS}/cfg",
        body={"metadata": {"labels": {"a": None}}},
        headers={"Content-Type": "application/merge-patch+json"},
    )
    assert {"labels", "annotations"} & set(created["metadata"]) == set()
    assert {"data", "binaryData"} & set(created) == set()
    assert "labels" not in unlabeled["metadata"]
    assert "labels" not in sim_cluster.objects.get("v1", "ConfigMap", "cfg", "default")["metadata"]


@pytest.mark.parametrize(
    ("word", "message"),
    [
        ("NaN", "invalid character 'N' looking for beginning of value"),
        ("Infinity", "invalid character 'I' looking for beginning of value"),
        ("-Infinity", "invalid character 'I' in numeric literal"),
    ],
)
def test_nan_and_infinities_are_no_json(sim_cluster: RunningSim, word: str, message: str) -> None:
    body = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"odd"},"x":%s}' % (
        word.encode()
    )
    code, status = raw(sim_cluster, "POST", CONFIG_MAPS, body=body)
    assert (code, status["reason"]) == (400, "BadRequest")
    assert message in status["message"]
    assert sim_cluster.objects.get("v1", "ConfigMap", "odd", "default") is None


def test_nan_in_an_apply_is_a_string(sim_cluster: RunningSim) -> None:
    body = b'{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"odd"},"data":{"a":NaN}}'
    path = f"{CONFIG_MAPS}/odd?fieldManager=test"
    code, stored = raw(sim_cluster, "PATCH", path, body=body, headers=APPLY)
    assert (code, stored["data"]) == (201, {"a": "NaN"})
