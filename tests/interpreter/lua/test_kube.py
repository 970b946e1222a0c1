"""The `kube` library (Karmada: luavm/kube.go) as scripts call it.

Aspects covered:
- `resourceAdd`: canonical sums, the format of the first operand added to a zero sum, nil as
  zero, numbers and bad quantities refused (a space too, as resource.MustParse refuses it);
- `getResourceQuantity`: apimachinery's AsApproximateFloat64 to the bit (`2048m` is 2048 * 1e-3),
  nil as zero, negative quantities, spaces and wrong arguments refused; a number it returns, put
  in a requirement, comes back as Go prints the quantity it parses;
- `accuratePodRequirements`: containers summed, limits standing in for requests, init
  containers by maximum, overhead added, node claim from nodeSelector, tolerations and required
  node affinity, nil when there is nothing;
- `getPodDependencies`: ConfigMaps, Secrets, the ServiceAccount and PVCs from volumes (also
  projected), env, envFrom, imagePullSecrets and every kind of container, deduplicated; nil
  when there are none; the namespace defaults to `default`, a number is printed as gopher-lua
  prints it;
- both pod template functions refuse a template Go cannot convert (a bad quantity anywhere; a
  field of the wrong type anywhere in corev1.PodTemplateSpec, read or not, and an integer out
  of its field's range, as Karmada's answers show) and read keys as encoding/json does, in any
  case, ignoring unknown ones;
- `require("kube")` is the only way in, as in Karmada.
"""

from __future__ import annotations

from typing import Any

import pytest

from gitfleet.interpreter import lua
from gitfleet.interpreter.lua._sandbox import ScriptError
from tests.interpreter.lua.conftest import Run, deployment, make_customization

CALL = 'local kube = require("kube")\nfunction F(a, b, c) return kube.{call} end'

RESOURCE_ADD = [
    pytest.param("resourceAdd('4G', '4G')", "8G", id="decimal"),
    pytest.param("resourceAdd('13Gi', '512Mi')", "13824Mi", id="binary"),
    pytest.param("resourceAdd('100m', '900m')", "1", id="milli to whole"),
    pytest.param("resourceAdd(nil, '1500m')", "1500m", id="nil is zero"),
    pytest.param("resourceAdd()", "0", id="nothing"),
    pytest.param("resourceAdd('0', '1Gi')", "1Gi", id="format of first non-zero"),
    pytest.param("resourceAdd('1', '-1', '2Gi')", "2Gi", id="format taken again at zero"),
    pytest.param("resourceAdd('1Gi', '1')", "1073741825", id="binary not a power of 1024"),
    # past the largest suffix Go prints no suffix at all (values from running apimachinery)
    pytest.param("resourceAdd('1000E')", "1", id="1e21 decimal"),
    pytest.param("resourceAdd('999E', '1E')", "1", id="sum reaching 1e21"),
    pytest.param("resourceAdd('500E', '500E', '500E')", "1500E", id="sum of E"),
    pytest.param("resourceAdd('1e21')", "1e21", id="exponent format keeps its exponent"),
    pytest.param(
        "resourceAdd('1n', '1000E')", "1000000000000000000000000000001n", id="nano past E"
    ),
    pytest.param("resourceAdd('4Ei', '4Ei')", "8Ei", id="binary sum past the int64 cap"),
    pytest.param("resourceAdd(unpack(a))", "1", id="binary 2^70 has no suffix"),
    pytest.param("resourceAdd('5e-10')", "1e-9", id="below nano rounds up"),
]


@pytest.mark.parametrize(("call", "expected"), RESOURCE_ADD)
def test_resource_add(run: Run, call: str, expected: str) -> None:
    assert run(CALL.replace("{call}", call), ["4Ei"] * 256) == [expected]


QUANTITY = [
    pytest.param("getResourceQuantity('100m')", 0.1, id="milli"),
    pytest.param("getResourceQuantity('2048m')", 2048 * 0.001, id="scaled int64"),
    pytest.param("getResourceQuantity('2.048')", 2048 * 0.001, id="fraction"),
    pytest.param("getResourceQuantity('1Gi')", 1073741824, id="binary"),
    pytest.param("getResourceQuantity('1e3')", 1000, id="exponent"),
    pytest.param("getResourceQuantity('0.5n')", 1e-9, id="rounded up to nano"),
    pytest.param("getResourceQuantity(nil)", 0, id="nil"),
]


@pytest.mark.parametrize(("call", "expected"), QUANTITY)
def test_get_resource_quantity(run: Run, call: str, expected: float) -> None:
    assert run(CALL.replace("{call}", call)) == [expected]


REFUSED = [
    pytest.param("resourceAdd('1', 2)", "bad argument #2 to resourceAdd", id="add a number"),
    pytest.param("resourceAdd('lots')", "cannot parse 'lots'", id="add a bad quantity"),
    pytest.param("resourceAdd('1', '2 ')", "cannot parse '2 '", id="add a quantity with a space"),
    pytest.param(
        "getResourceQuantity(' 2048m')",
        "cannot parse ' 2048m': quantities must match the regular expression",
        id="a space is no quantity, as resource.MustParse reads it",
    ),
    pytest.param("getResourceQuantity('-1')", "negative value", id="negative"),
    pytest.param("getResourceQuantity('1', '2')", "only accepts one argument", id="two arguments"),
    pytest.param("getResourceQuantity(1)", "string expected, got number", id="a number"),
    pytest.param("accuratePodRequirements()", "only accepts one argument", id="no template"),
    pytest.param("accuratePodRequirements('x')", "table expected, got string", id="not a table"),
    pytest.param(
        "accuratePodRequirements({spec = {containers = 'x'}})",
        "fail to convert lua value to PodTemplateSpec",
        id="wrong field type",
    ),
    pytest.param("getPodDependencies({})", "only accepts two argument", id="one argument"),
    pytest.param(
        "getPodDependencies({spec = {containers = {{resources = {limits = {cpu = ''}}}}}}, 'ns')",
        "fail to convert lua value to corev1.PodTemplateSpec",
        id="dependencies of a template with a bad limit",
    ),
    pytest.param(
        "accuratePodRequirements({spec = {volumes = {{emptyDir = {sizeLimit = 'x'}}}}})",
        "fail to convert lua value to PodTemplateSpec",
        id="requirements of a template with a bad size limit",
    ),
]


UNCONVERTIBLE = [
    pytest.param("{spec = {containers = {{name = 5}}}}", id="container name a number"),
    pytest.param("{spec = {Containers = {{name = 5}}}}", id="a key in another case"),
    pytest.param('{spec = {containers = {{ports = {{containerPort = "80"}}}}}}', id="port text"),
    pytest.param('{spec = {priority = "high"}}', id="priority text"),
    pytest.param("{metadata = {labels = {a = 1}}}", id="label a number"),
    pytest.param("{spec = {containers = {{env = {{name = 'a', value = 1}}}}}}", id="env value"),
    pytest.param("{spec = {hostNetwork = 'yes'}}", id="boolean text"),
    pytest.param("{spec = {tolerations = {{tolerationSeconds = 1.5}}}}", id="fraction"),
    pytest.param("{spec = {containers = {{ports = {{containerPort = 2^32}}}}}}", id="past int32"),
    pytest.param("{spec = {terminationGracePeriodSeconds = 2^63}}", id="past int64"),
    pytest.param("{metadata = {creationTimestamp = 'bad'}}", id="time text"),
    pytest.param("{metadata = {creationTimestamp = 5}}", id="time number"),
    pytest.param(
        "{spec = {containers = {{livenessProbe = {httpGet = {port = 1.5}}}}}}",
        id="int-or-string fraction",
    ),
    pytest.param("{spec = {containers = {name = 'c'}}}", id="object for an array"),
]
"""Templates Karmada (f8fdd02, bench/karmada_lua.go) fails to convert."""


@pytest.mark.parametrize("template", UNCONVERTIBLE)
def test_templates_go_cannot_convert(run: Run, template: str) -> None:
    for call in (f"accuratePodRequirements({template})", f"getPodDependencies({template}, 'ns')"):
        with pytest.raises(ScriptError, match="fail to convert lua value to"):
            run(CALL.replace("{call}", call))


CONVERTIBLE = [
    pytest.param(
        "{spec = {CONTAINERS = {{name = 'c', resources = {requests = {cpu = '2'}}}}}}",
        {"resourceRequest": {"cpu": "2"}},
        id="a key in another case is read",
    ),
    pytest.param(
        "{unknown = {a = 1}, spec = {unknownField = 5, nodeSelector = {a = 'b'}}}",
        {"nodeClaim": {"nodeSelector": {"a": "b"}}},
        id="unknown keys ignored",
    ),
    pytest.param(
        "{metadata = {creationTimestamp = '2024-01-02T03:04:05Z',"
        " managedFields = {{fieldsV1 = 5}}}, spec = {terminationGracePeriodSeconds = 2^62,"
        " containers = {{livenessProbe = {httpGet = {port = 'http'}}}}}}",
        None,
        id="times, raw fields, int64 and int-or-string as Go takes them",
    ),
]
"""Templates Karmada converts, and the requirements it answers."""


@pytest.mark.parametrize(("template", "expected"), CONVERTIBLE)
def test_templates_go_converts(run: Run, template: str, expected: Any) -> None:
    call = f"accuratePodRequirements({template})"
    assert run(CALL.replace("{call}", call)) == [expected]


@pytest.mark.parametrize(("call", "message"), REFUSED)
def test_refused_arguments(run: Run, call: str, message: str) -> None:
    with pytest.raises(ScriptError, match=message):
        run(CALL.replace("{call}", call))


def _container(name: str, requests: dict[str, str] | None = None, **more: Any) -> dict[str, Any]:
    resources = {"requests": requests} if requests else {}
    return {"name": name, "resources": {**resources, **more}}


REQUIREMENTS = [
    pytest.param({"spec": {"containers": [{"name": "a"}]}}, None, id="nothing"),
    pytest.param(
        {
            "spec": {
                "containers": [
                    _container("a", {"cpu": "100m", "memory": "64Mi"}),
                    _container("b", {"cpu": "150m"}, limits={"cpu": "1", "memory": "64Mi"}),
                ]
            }
        },
        {"resourceRequest": {"cpu": "250m", "memory": "128Mi"}},
        id="sum, limits stand in",
    ),
    pytest.param(
        {
            "spec": {
                "initContainers": [_container("i", {"cpu": "2", "memory": "1Mi"})],
                "containers": [_container("a", {"cpu": "500m", "memory": "64Mi"})],
                "overhead": {"cpu": "10m"},
            }
        },
        {"resourceRequest": {"cpu": "2010m", "memory": "64Mi"}},
        id="init containers by maximum, overhead added",
    ),
    pytest.param(
        {
            "spec": {
                "containers": [{"name": "a"}],
                "nodeSelector": {"disk": "ssd"},
                "tolerations": [{"key": "gpu", "operator": "Exists"}],
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchExpressions": [
                                        {"key": "z", "operator": "In", "values": ["a"]}
                                    ]
                                }
                            ]
                        }
                    }
                },
            }
        },
        {
            "nodeClaim": {
                "hardNodeAffinity": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "z", "operator": "In", "values": ["a"]}]}
                    ]
                },
                "nodeSelector": {"disk": "ssd"},
                "tolerations": [{"key": "gpu", "operator": "Exists"}],
            }
        },
        id="node claim",
    ),
    pytest.param(
        {"spec": {"containers": [{"name": "a", "resources": {"requests": {"cpu": 1e20}}}]}},
        {"resourceRequest": {"cpu": "200376420520689664m"}},
        id="a number request read as Go's JSON spells it, then wrapped in int64 millicores",
    ),
]


@pytest.mark.parametrize(("template", "expected"), REQUIREMENTS)
def test_accurate_pod_requirements(run: Run, template: Any, expected: Any) -> None:
    assert run(CALL.replace("{call}", "accuratePodRequirements(a)"), template) == [expected]


def _dep(kind: str, name: str, namespace: str = "ns") -> dict[str, str]:
    return {"apiVersion": "v1", "kind": kind, "namespace": namespace, "name": name}


POD_SPEC: dict[str, Any] = {
    "serviceAccountName": "runner",
    "imagePullSecrets": [{"name": "registry"}],
    "initContainers": [{"name": "i", "envFrom": [{"configMapRef": {"name": "init-env"}}]}],
    "containers": [
        {
            "name": "a",
            "envFrom": [{"secretRef": {"name": "app-secret"}}],
            "env": [
                {"name": "X", "valueFrom": {"configMapKeyRef": {"name": "cm-key", "key": "k"}}},
                {"name": "Y", "valueFrom": {"secretKeyRef": {"name": "app-secret", "key": "k"}}},
                {"name": "Z", "value": "plain"},
            ],
        }
    ],
    "ephemeralContainers": [{"name": "e", "envFrom": [{"secretRef": {"name": "debug"}}]}],
    "volumes": [
        {"name": "v1", "configMap": {"name": "config"}},
        {"name": "v2", "secret": {"secretName": "tls"}},
        {"name": "v3", "persistentVolumeClaim": {"claimName": "data"}},
        {
            "name": "v4",
            "projected": {
                "sources": [{"configMap": {"name": "projected-cm"}}, {"secret": {"name": "proj"}}]
            },
        },
    ],
}


def test_get_pod_dependencies(run: Run) -> None:
    (found,) = run(CALL.replace("{call}", "getPodDependencies(a, b)"), {"spec": POD_SPEC}, "ns")
    assert found == [
        _dep("ConfigMap", "cm-key"),
        _dep("ConfigMap", "config"),
        _dep("ConfigMap", "init-env"),
        _dep("ConfigMap", "projected-cm"),
        _dep("Secret", "app-secret"),
        _dep("Secret", "debug"),
        _dep("Secret", "proj"),
        _dep("Secret", "registry"),
        _dep("Secret", "tls"),
        _dep("ServiceAccount", "runner"),
        _dep("PersistentVolumeClaim", "data"),
    ]


@pytest.mark.parametrize(
    ("spec", "namespace", "expected"),
    [
        pytest.param({"serviceAccountName": "default"}, "ns", None, id="none: nil"),
        pytest.param(
            {"serviceAccountName": "sa"},
            None,
            [_dep("ServiceAccount", "sa", "default")],
            id="nil namespace",
        ),
        pytest.param(
            {"serviceAccountName": "sa"},
            2**53,
            [_dep("ServiceAccount", "sa", "9007199254740992")],
            id="number namespace printed as gopher-lua prints it (CheckString)",
        ),
        pytest.param(
            {"serviceAccountName": "sa"},
            1e20,
            [_dep("ServiceAccount", "sa", "1e+20")],
            id="number namespace beyond int64 in Go's shortest digits",
        ),
    ],
)
def test_get_pod_dependencies_edges(run: Run, spec: Any, namespace: Any, expected: Any) -> None:
    call = "getPodDependencies(a, b)" if namespace is not None else "getPodDependencies(a, nil)"
    assert run(CALL.replace("{call}", call), {"spec": spec}, namespace or "") == [expected]


def test_kube_needs_require(run: Run) -> None:
    with pytest.raises(ScriptError, match="global 'kube'"):
        run("function F() return kube.resourceAdd('1') end")


def test_approximate_quantity_round_trips_into_a_requirement(sandbox: lua.Sandbox) -> None:
    script = """
    local kube = require("kube")
    function GetReplicas(obj)
      return 1, {resourceRequest = {memory = kube.getResourceQuantity("2048m"), cpu = 0.25}}
    end
    """
    layer = lua.LuaLayer([make_customization(replicaResource=script)], sandbox=sandbox)
    handled, (count, requirements) = layer.get_replicas(deployment())
    assert handled and count == 1 and requirements is not None
    # apimachinery keeps the text 2.048 (canonical enough), and rewrites 0.25 as 250m
    assert requirements.resource_request == {"cpu": "250m", "memory": "2.048"}
