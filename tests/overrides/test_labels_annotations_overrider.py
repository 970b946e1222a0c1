"""labelsOverrider and annotationsOverrider: add creates the map (and metadata) when missing,
replace and remove skip absent keys, remove ignores the value, a key reaches what Karmada's
patch reaches (only its `/` escaped into the path, so a key holding `~1` or `~0` adds the key
with `/` or `~`), an empty value changes nothing, entries apply one after another; a map
holding something other than strings (left by a plaintext overrider) is no map to them: add
starts it anew, replace and remove change nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

from gitfleet import overrides

DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment"}


def _manifest(**metadata: Any) -> dict[str, Any]:
    return {**DEPLOYMENT, "metadata": {"name": "test", "namespace": "default", **metadata}}


@pytest.mark.parametrize(
    ("metadata", "overriders", "field", "expected"),
    [
        # ported from Karmada's labelannotationoverrider tests
        pytest.param(
            {},
            {"labelsOverrider": [{"operator": "add", "value": {"test2": "test2"}}]},
            "labels",
            {"test2": "test2"},
            id="add creates the labels map",
        ),
        pytest.param(
            {"labels": {"foo": "foo", "bar": "bar"}},
            {"labelsOverrider": [{"operator": "replace", "value": {"foo": "exist", "nx": "nx"}}]},
            "labels",
            {"foo": "exist", "bar": "bar"},
            id="replace skips absent keys",
        ),
        pytest.param(
            {"labels": {"foo": "foo", "bar": "bar"}},
            {"labelsOverrider": [{"operator": "add", "value": {"test": "test"}}]},
            "labels",
            {"test": "test", "foo": "foo", "bar": "bar"},
            id="add to existing labels",
        ),
        pytest.param(
            {"labels": {"foo": "foo", "bar": "bar"}},
            {"labelsOverrider": [{"operator": "remove", "value": {"foo": "foo", "nx": "nx"}}]},
            "labels",
            {"bar": "bar"},
            id="remove skips absent keys",
        ),
        pytest.param(
            {"annotations": {"foo": "foo", "bar": "bar"}},
            {"annotationsOverrider": [{"operator": "add", "value": {"team/id": "c-m:p-v"}}]},
            "annotations",
            {"foo": "foo", "bar": "bar", "team/id": "c-m:p-v"},
            id="add an annotation whose key has a slash",
        ),
        pytest.param(
            {"annotations": {"team/id": "c-m:p-v", "foo": "foo"}},
            {"annotationsOverrider": [{"operator": "remove", "value": {"team/id": "c-m:p-v"}}]},
            "annotations",
            {"foo": "foo"},
            id="remove an annotation whose key has a slash",
        ),
        # gitfleet's own cases
        pytest.param(
            {"labels": {"foo": "old"}},
            {"labelsOverrider": [{"operator": "add", "value": {"foo": "new"}}]},
            "labels",
            {"foo": "new"},
            id="add overwrites an existing value",
        ),
        pytest.param(
            {"labels": {"foo": "foo"}},
            {"labelsOverrider": [{"operator": "remove", "value": {"foo": "other"}}]},
            "labels",
            {},
            id="remove matches the key whatever the value",
        ),
        pytest.param(
            {"labels": None},
            {"labelsOverrider": [{"operator": "add", "value": {"a": "1"}}]},
            "labels",
            {"a": "1"},
            id="add replaces null labels with a map",
        ),
        pytest.param(
            {"annotations": {"a~b": "1"}},
            {"annotationsOverrider": [{"operator": "replace", "value": {"a~b": "2"}}]},
            "annotations",
            {"a~b": "2"},
            id="a tilde alone in a key stays",
        ),
        pytest.param(
            {"labels": {"a": "1"}},
            {"labelsOverrider": [{"operator": "add", "value": {"x.io~1tier": "web", "b~0c": "2"}}]},
            "labels",
            {"a": "1", "x.io/tier": "web", "b~c": "2"},
            id="a key holding ~1 or ~0 adds what the patch reads",
        ),
        pytest.param(
            {"labels": {"a": "1"}},
            {
                "labelsOverrider": [
                    {"operator": "add", "value": {"b": "2"}},
                    {"operator": "replace", "value": {"b": "3"}},
                ]
            },
            "labels",
            {"a": "1", "b": "3"},
            id="entries apply in order, each seeing the last",
        ),
        pytest.param(
            {"annotations": {"keep": "x"}},
            {"labelsOverrider": [{"operator": "add", "value": {"a": "1"}}]},
            "annotations",
            {"keep": "x"},
            id="labels overrider leaves annotations alone",
        ),
    ],
)
def test_labels_and_annotations(
    metadata: dict[str, Any],
    overriders: dict[str, Any],
    field: str,
    expected: dict[str, str],
    apply_block: Any,
) -> None:
    result = apply_block(_manifest(**metadata), overriders)
    assert result["metadata"][field] == expected


@pytest.mark.parametrize(
    ("metadata", "overriders", "expected_ops"),
    [
        pytest.param(
            {"annotations": {"foo": "foo"}},
            {"annotationsOverrider": [{"operator": "add", "value": {"team/id": "c-m:p-v"}}]},
            [{"op": "add", "path": "/metadata/annotations/team~1id", "value": "c-m:p-v"}],
            id="slash escaped as ~1 (Karmada)",
        ),
        pytest.param(
            {"labels": {"x": "1"}},
            {"labelsOverrider": [{"operator": "replace", "value": {"y": "2"}}]},
            [],
            id="replace of absent keys generates nothing",
        ),
        pytest.param(
            {},
            {"labelsOverrider": [{"operator": "add", "value": {}}]},
            [],
            id="empty value generates nothing, not even the map",
        ),
        pytest.param(
            {},
            {"labelsOverrider": [{"operator": "add", "value": {"b": "2", "a": "1"}}]},
            [
                {"op": "add", "path": "/metadata/labels", "value": {}},
                {"op": "add", "path": "/metadata/labels/a", "value": "1"},
                {"op": "add", "path": "/metadata/labels/b", "value": "2"},
            ],
            id="map created first, keys in sorted order",
        ),
    ],
)
def test_generated_operations(
    metadata: dict[str, Any],
    overriders: dict[str, Any],
    expected_ops: list[dict[str, Any]],
    block_ops: Any,
) -> None:
    assert block_ops(_manifest(**metadata), overriders) == expected_ops


def test_add_creates_metadata_when_missing(apply_block: Any) -> None:
    manifest = {**DEPLOYMENT}
    overriders = {"annotationsOverrider": [{"operator": "add", "value": {"a": "1"}}]}
    assert apply_block(manifest, overriders)["metadata"] == {"annotations": {"a": "1"}}


@pytest.mark.parametrize(
    ("labels", "overriders", "expected"),
    [
        # Karmada's answers (its override manager run on these blocks)
        pytest.param(
            {"app": "web", "n": 1},
            {"labelsOverrider": [{"operator": "add", "value": {"tier": "db"}}]},
            {"tier": "db"},
            id="add replaces a map holding a number",
        ),
        pytest.param(
            {"app": "web", "n": None},
            {"labelsOverrider": [{"operator": "remove", "value": {"app": ""}}]},
            {"app": "web", "n": None},
            id="remove leaves a map holding null",
        ),
        pytest.param(
            {"app": "web", "n": 1},
            {"labelsOverrider": [{"operator": "replace", "value": {"app": "db"}}]},
            {"app": "web", "n": 1},
            id="replace leaves a map holding a number",
        ),
        pytest.param(
            {"app": "web"},
            {
                "plaintext": [{"operator": "add", "path": "/metadata/labels/team"}],
                "labelsOverrider": [{"operator": "add", "value": {"tier": "db"}}],
            },
            {"app": "web", "team": None, "tier": "db"},
            id="plaintext comes after the labels of its block",
        ),
    ],
)
def test_a_map_not_of_strings(
    labels: dict[str, Any], overriders: dict[str, Any], expected: Any, apply_block: Any
) -> None:
    result = apply_block(_manifest(labels=labels), overriders)
    assert result["metadata"]["labels"] == expected


def test_a_null_label_left_by_one_policy_resets_the_map_for_the_next(
    make_cluster: Any, make_policy: Any
) -> None:
    """Karmada's answer: policy `a` adds a label without a value (null), so `b`'s add finds
    no map of strings and starts a new one."""
    first = make_policy(
        "a",
        {
            "overrideRules": [
                {
                    "overriders": {
                        "plaintext": [{"operator": "add", "path": "/metadata/labels/team"}]
                    }
                }
            ]
        },
    )
    second = make_policy(
        "b",
        {
            "overrideRules": [
                {"overriders": {"labelsOverrider": [{"operator": "add", "value": {"tier": "db"}}]}}
            ]
        },
    )
    result = overrides.apply(
        _manifest(labels={"app": "web"}), make_cluster("m"), [first, second], []
    )
    assert result.manifest["metadata"]["labels"] == {"tier": "db"}
