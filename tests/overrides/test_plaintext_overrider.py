"""plaintext overriders as raw RFC 6902 operations with evanphx/json-patch v5's reading of
indices (negative from the end, Atoi forms, `-` to append), add on an existing key replacing
it, per-cluster rules, values never shared between results, failures explained and located at
the failing entry's path (indices of thousands of digits too), and empty keys read as v5 reads
them."""

from __future__ import annotations

from typing import Any

import pytest

from gitfleet import overrides
from gitfleet.errors import OverrideError


def _plain(*ops: tuple[str, str, Any]) -> dict[str, Any]:
    return {
        "plaintext": [{"operator": op, "path": path, "value": value} for op, path, value in ops]
    }


SERVICE: Any = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
    "spec": {"ports": [{"port": 80}, {"port": 443}], "type": "ClusterIP"},
}


@pytest.mark.parametrize(
    ("overriders", "pointer", "expected"),
    [
        pytest.param(
            _plain(("add", "/metadata/labels/app", "api")),
            "/metadata/labels",
            {"app": "api"},
            id="add replaces an existing key",
        ),
        pytest.param(
            _plain(("replace", "/spec/type", "NodePort")),
            "/spec/type",
            "NodePort",
            id="replace",
        ),
        pytest.param(
            _plain(("remove", "/spec/type", None)),
            "/spec",
            {"ports": SERVICE["spec"]["ports"]},
            id="remove",
        ),
        pytest.param(
            _plain(("replace", "/spec/ports/-1/port", 8443)),
            "/spec/ports",
            [{"port": 80}, {"port": 8443}],
            id="negative index counts from the end",
        ),
        pytest.param(
            _plain(("add", "/spec/ports/-", {"port": 8080})),
            "/spec/ports",
            [{"port": 80}, {"port": 443}, {"port": 8080}],
            id="dash appends",
        ),
        pytest.param(
            _plain(("add", "/spec/ports/2", {"port": 8080})),
            "/spec/ports/2",
            {"port": 8080},
            id="add at the length appends",
        ),
        pytest.param(
            _plain(("add", "/spec/ports/-3", {"port": 1})),
            "/spec/ports/0",
            {"port": 1},
            id="negative add index before the first",
        ),
        pytest.param(
            _plain(("remove", "/spec/ports/01", None)),
            "/spec/ports",
            [{"port": 80}],
            id="leading zero index read as a number",
        ),
        pytest.param(
            _plain(("add", "/spec/sessionAffinity", None)),
            "/spec/sessionAffinity",
            None,
            id="value absent adds null",
        ),
        pytest.param(
            _plain(("add", "/spec/x", 1), ("replace", "/spec/x", 2)),
            "/spec/x",
            2,
            id="operations in order",
        ),
    ],
)
def test_plaintext(
    overriders: dict[str, Any], pointer: str, expected: Any, apply_block: Any, pointer_get: Any
) -> None:
    assert pointer_get(apply_block(SERVICE, overriders), pointer) == expected


@pytest.mark.parametrize(
    ("overriders", "index", "message"),
    [
        pytest.param(
            _plain(("replace", "/spec/clusterIP", "None")),
            0,
            'cannot replace "/spec/clusterIP": /spec has no field "clusterIP"',
            id="replace needs the target",
        ),
        pytest.param(
            _plain(("add", "/spec/x", 1), ("remove", "/status/conditions", None)),
            1,
            'cannot remove "/status/conditions": the document root has no field "status"',
            id="remove needs the target",
        ),
        pytest.param(
            _plain(("add", "/spec/selector/app", "web")),
            0,
            'cannot add "/spec/selector/app": /spec has no field "selector"',
            id="add needs the parent",
        ),
        pytest.param(
            _plain(("replace", "/spec/ports/5/port", 1)),
            0,
            '/spec/ports has 2 items, "5" is not an index in it',
            id="index out of range",
        ),
        pytest.param(
            _plain(("replace", "/spec/ports/" + "9" * 5000 + "/port", 1)),
            0,
            '/spec/ports has 2 items, "' + "9" * 5000 + '" is not an index in it',
            id="index of 5000 digits",
        ),
        pytest.param(
            _plain(("replace", "/spec/ports/-" + "0" * 5000 + "5/port", 1)),
            0,
            "is not an index in it",
            id="index of 5000 leading zeros, from the end",
        ),
        pytest.param(
            _plain(("add", "/spec/type/x", 1)),
            0,
            "/spec/type is a string, not an object or array",
            id="through a scalar",
        ),
        pytest.param(
            _plain(("add", "spec/type", 1)),
            0,
            'a path must start with "/"',
            id="path without a leading slash",
        ),
    ],
)
def test_plaintext_failures(
    overriders: dict[str, Any], index: int, message: str, apply_block: Any
) -> None:
    with pytest.raises(OverrideError) as caught:
        apply_block(SERVICE, overriders)
    assert caught.value.origin.keys[-3:] == ("plaintext", index, "path")
    assert message in caught.value.message


def test_rule_for_one_cluster(make_cluster: Any, make_policy: Any) -> None:
    """Karmada's namespace sync case: a ClusterOverridePolicy on a Namespace for cluster1."""
    namespace: Any = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "test-namespace", "labels": {"overridden": "false"}},
    }
    cop = make_policy(
        "test-override",
        {
            "resourceSelectors": [
                {"apiVersion": "v1", "kind": "Namespace", "name": "test-namespace"}
            ],
            "overrideRules": [
                {
                    "targetCluster": {"clusterNames": ["cluster1"]},
                    "overriders": _plain(("add", "/metadata/labels/overridden", "true")),
                }
            ],
        },
        namespace=None,
    )
    for name, expected in (("cluster1", "true"), ("cluster2", "false")):
        result = overrides.apply(namespace, make_cluster(name), [], [cop])
        assert result.manifest["metadata"]["labels"]["overridden"] == expected


def test_values_are_not_shared(make_cluster: Any, make_policy: Any) -> None:
    cop = make_policy(
        "p", {"overrideRules": [{"overriders": _plain(("add", "/spec/extra", {"k": ["v"]}))}]}, None
    )
    first = overrides.apply(SERVICE, make_cluster("a"), [], [cop])
    first.manifest["spec"]["extra"]["k"].append("changed")
    second = overrides.apply(SERVICE, make_cluster("b"), [], [cop])
    assert second.manifest["spec"]["extra"] == {"k": ["v"]}
    assert cop.spec.override_rules[0].overriders.plaintext[0].value == {"k": ["v"]}


CONFIGMAP: Any = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
    "data": {"": {"k": "v"}, "j": '{"a": {}, "b": [1]}'},
}


@pytest.mark.parametrize(
    ("overriders", "expected"),
    [
        # Karmada's answers (its override manager run on these blocks)
        pytest.param(
            _plain(("replace", "/metadata/labels/", "v")),
            {"labels": {"app": "web", "": "v"}},
            id="replace of an empty last key sets it, present or not",
        ),
        pytest.param(
            {"fieldOverrider": [{"fieldPath": "/data/j", "json": [
                {"subPath": "/a/", "operator": "replace", "value": 1}]}]},
            {"j": '{"a":{"":1},"b":[1]}'},
            id="in a field document too",
        ),
        pytest.param(_plain(("replace", "/data//k", "w")), None, id="empty key inside: replace"),
        pytest.param(_plain(("remove", "/data//k", None)), None, id="empty key inside: remove"),
        pytest.param(_plain(("add", "/data//z", "w")), None, id="empty key inside: add"),
        pytest.param(
            _plain(("remove", "/metadata/labels/", None)), None, id="remove needs the empty key"
        ),
        pytest.param(
            {"fieldOverrider": [{"fieldPath": "/data/j", "json": [
                {"subPath": "/b/", "operator": "replace", "value": 1}]}]},
            None,
            id="an empty key is no index in an array",
        ),
    ],
)  # fmt: skip
def test_empty_keys_as_json_patch_v5_reads_them(
    overriders: dict[str, Any], expected: dict[str, Any] | None, apply_block: Any
) -> None:
    """evanphx/json-patch v5 looks an empty key up as the object itself: a `replace` always
    finds it, and inside a path it leads nowhere (nested objects have no self)."""
    if expected is None:
        with pytest.raises(OverrideError):
            apply_block(CONFIGMAP, overriders)
        return
    result = apply_block(CONFIGMAP, overriders)
    for field, value in expected.items():
        assert (result["metadata"] if field == "labels" else result["data"])[field] == value


@pytest.mark.parametrize(
    "overriders",
    [
        pytest.param(_plain(("add", "//z", "w")), id="add"),
        pytest.param(_plain(("remove", "//data", None)), id="remove"),
        pytest.param(_plain(("replace", "//", "w")), id="replace of the empty key"),
        pytest.param(
            {"fieldOverrider": [{"fieldPath": "/data/j", "json": [
                {"subPath": "//a", "operator": "remove"}]}]},
            id="in a field document too",
        ),
    ],
)  # fmt: skip
def test_a_leading_empty_key_patches_a_copy(overriders: dict[str, Any], apply_block: Any) -> None:
    """At the top of a path json-patch v5 looks the empty key up as the document itself, a copy
    it patches and drops: the override succeeds and changes nothing but the spelling of a field
    document, written back compact (Karmada's answers)."""
    written = {**CONFIGMAP, "data": {**CONFIGMAP["data"], "j": '{"a":{},"b":[1]}'}}
    assert apply_block(CONFIGMAP, overriders) in (CONFIGMAP, written)


@pytest.mark.parametrize("path", ["//", "//nothing/k", "///data"])
def test_a_leading_empty_key_fails_where_the_copy_does(path: str, apply_block: Any) -> None:
    """The copy has no key `""`, and within it an empty key leads nowhere (Karmada fails)."""
    with pytest.raises(OverrideError):
        apply_block(CONFIGMAP, _plain(("remove", path, None)))
