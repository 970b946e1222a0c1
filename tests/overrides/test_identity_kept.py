"""An override never changes what an object is: its apiVersion, kind, namespace, name and
generateName stay the template's, whichever overrider tries.

Aspects covered:
- plaintext: replacing /kind (a ConfigMap made a Secret), /apiVersion, /metadata/name, adding
  /metadata/namespace (moving it to kube-system), removing it, adding /metadata/generateName,
  replacing /metadata or the whole object with another identity; each is an `OverrideError`
  located at the plaintext entry that did it, naming the policy, the field and the cluster;
- the other overriders that can reach a field: imageOverrider through its predicate path,
  fieldOverrider at /metadata/name (without operations, which empties the field); located at
  the entry;
- what stays allowed: writing an identity field with the value it has, replacing /metadata
  with the same name and namespace, labels and annotations;
- a ClusterOverridePolicy and an OverridePolicy: the error names the one that changed it.
"""

from __future__ import annotations

from typing import Any

import pytest
from overrides.conftest import make_cluster, make_policy

from gitfleet import overrides
from gitfleet.errors import OverrideError

CONFIGMAP: Any = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
    "data": {"password": "hunter2", "image": "nginx:1.25"},
}


def _plain(*ops: tuple[str, str, Any]) -> dict[str, Any]:
    return {
        "plaintext": [{"operator": op, "path": path, "value": value} for op, path, value in ops]
    }


CHANGED = [
    pytest.param(_plain(("replace", "/kind", "Secret")), ("plaintext", 0, "path"),
                 "kind 'ConfigMap' became 'Secret'", id="kind"),
    pytest.param(_plain(("replace", "/apiVersion", "v2")), ("plaintext", 0, "path"),
                 "apiVersion 'v1' became 'v2'", id="apiVersion"),
    pytest.param(_plain(("replace", "/metadata/name", "db")), ("plaintext", 0, "path"),
                 "metadata.name 'web' became 'db'", id="name"),
    pytest.param(_plain(("add", "/metadata/namespace", "kube-system")), ("plaintext", 0, "path"),
                 "metadata.namespace 'default' became 'kube-system'", id="namespace"),
    pytest.param(_plain(("remove", "/metadata/namespace", None)), ("plaintext", 0, "path"),
                 "metadata.namespace 'default' became ''", id="namespace removed"),
    pytest.param(_plain(("add", "/metadata/generateName", "web-")), ("plaintext", 0, "path"),
                 "metadata.generateName '' became 'web-'", id="generateName"),
    pytest.param(
        _plain(("add", "/metadata/labels/tier", "x"), ("replace", "/metadata", {"name": "db"})),
        ("plaintext", 1, "path"), "metadata.namespace 'default' became ''", id="metadata",
    ),
    pytest.param(
        _plain(("replace", "", {**CONFIGMAP, "kind": "Secret"})), ("plaintext", 0, "path"),
        "kind 'ConfigMap' became 'Secret'", id="whole object",
    ),
    pytest.param(
        {"imageOverrider": [{"predicate": {"path": "/metadata/name"}, "component": "Registry",
                             "operator": "add", "value": "evil.io"}]},
        ("imageOverrider", 0), "metadata.name 'web' became 'evil.io/web'", id="image predicate",
    ),
    pytest.param(
        {"fieldOverrider": [{"fieldPath": "/metadata/name"}]},
        ("fieldOverrider", 0), "metadata.name 'web' became ''", id="field document",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("overriders", "keys", "change"), CHANGED)
def test_a_change_of_identity_is_refused_at_its_overrider(
    overriders: dict[str, Any], keys: tuple[Any, ...], change: str
) -> None:
    policy = make_policy("sneaky", {"overrideRules": [{"overriders": overriders}]})
    with pytest.raises(OverrideError) as caught:
        overrides.apply(CONFIGMAP, make_cluster("member1"), [policy], [])  # type: ignore[list-item]
    assert caught.value.origin.path == "policies.yaml"
    assert caught.value.origin.keys == ("spec", "overrideRules", 0, "overriders", *keys)
    assert caught.value.message.startswith("override policy default/sneaky: ")
    assert f"{change}: overriders must not change what an object is" in caught.value.message
    assert caught.value.message.endswith("(ConfigMap/default/web on cluster member1)")


@pytest.mark.parametrize(
    "overriders",
    [
        pytest.param(_plain(("replace", "/kind", "ConfigMap")), id="same kind"),
        pytest.param(_plain(("add", "/metadata/namespace", "default")), id="same namespace"),
        pytest.param(
            _plain(("replace", "/metadata", {"name": "web", "namespace": "default"})),
            id="same metadata",
        ),
        pytest.param(_plain(("add", "/metadata/labels/tier", "front")), id="labels"),
        pytest.param(
            {"annotationsOverrider": [{"operator": "add", "value": {"a": "b"}}]}, id="annotations"
        ),
    ],
)
def test_the_same_object_may_be_customised(overriders: dict[str, Any]) -> None:
    policy = make_policy("fine", {"overrideRules": [{"overriders": overriders}]})
    result = overrides.apply(CONFIGMAP, make_cluster("member1"), [policy], [])  # type: ignore[list-item]
    assert result.manifest["kind"] == "ConfigMap"
    assert result.manifest["metadata"]["name"] == "web"
    assert result.manifest["metadata"]["namespace"] == "default"


def test_the_policy_that_changed_it_is_named() -> None:
    labels = {"overrideRules": [{"overriders": _plain(("add", "/metadata/labels/a", "b"))}]}
    moves = {"overrideRules": [{"overriders": _plain(("add", "/metadata/namespace", "x"))}]}
    cluster_policy = make_policy("labels", labels, namespace=None)
    policy = make_policy("moves", moves, path="moves.yaml")
    with pytest.raises(OverrideError) as caught:
        overrides.apply(CONFIGMAP, make_cluster("member1"), [policy], [cluster_policy])  # type: ignore[list-item]
    assert caught.value.origin.path == "moves.yaml"
    assert caught.value.message.startswith("override policy default/moves: ")
