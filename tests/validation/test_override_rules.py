"""Karmada's webhook rules for (Cluster)OverridePolicies, and pointers that cannot apply.

Aspects covered (pkg/util/validation/validation.go ValidateOverrideSpec and below):
- deprecated targetCluster/overriders next to overrideRules (a deprecated fieldOverrider
  alone does not count, as in Karmada);
- labels and annotations: key and value syntax (annotation keys of any case); a `value`,
  which Karmada's CRD requires (kubectl apply refuses the policy without one);
- JSON pointers: image predicate paths, fieldOverrider fieldPath and subPath, plaintext paths;
- fieldOverrider: json XOR yaml; add/replace need a value, remove takes none;
- command/args overriders: add or remove only;
- target clusters' selectors; selectors stay in an OverridePolicy's namespace;
- the deprecated spec-level overriders, which Karmada's webhook does not check: its checks
  are warnings there saying what happens; gitfleet's own rules stay errors.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from validation.documents import FLEET, variant

Check = Callable[[dict[str, str]], list[str]]
WEB = "policies/web-override.yaml"
PREFIX = "error: OverridePolicy shop/web: spec."
RULE = "spec.overrideRules.0.overriders."

CASES = [
    pytest.param(
        "  overrideRules:\n", "  targetCluster: {clusterNames: [member2]}\n  overrideRules:\n",
        "11:3", "targetCluster: cannot be used together with overrideRules",
        id="deprecated target cluster",
    ),
    pytest.param(
        "  overrideRules:\n",
        "  overriders:\n    labelsOverrider: [{operator: add, value: {a: b}}]\n  overrideRules:\n",
        "11:3", "overriders: cannot be used together with overrideRules",
        id="deprecated overriders",
    ),
    pytest.param(
        "{path: /spec/replicas, operator: replace, value: 3}",
        "{path: spec/replicas, operator: replace, value: 3}",
        "16:14", RULE + "plaintext.0.path: 'spec/replicas' is not a JSON pointer",
        id="plaintext path",
    ),
    pytest.param(
        "{path: /spec/template/spec/containers/0/image}",
        "{path: /spec/containers/~2/image}",
        "18:25", RULE + "imageOverrider.0.predicate.path: '/spec/containers/~2/image' is not",
        id="image predicate path",
    ),
    pytest.param(
        "fieldPath: /data/config.json", "fieldPath: data/config.json",
        "29:13", RULE + "fieldOverrider.0.fieldPath: 'data/config.json' is not a JSON pointer",
        id="field path",
    ),
    pytest.param(
        "{subPath: /log/level, operator: replace, value: debug}",
        "{subPath: /log/level, operator: replace}",
        "31:17", RULE + "fieldOverrider.0.json.0.value: a value is required for replace",
        id="replace without value",
    ),
    pytest.param(
        "{subPath: /log/level, operator: replace, value: debug}",
        "{subPath: /log/level, operator: remove, value: debug}",
        "31:57", RULE + "fieldOverrider.0.json.0.value: remove takes no value",
        id="remove with value",
    ),
    pytest.param(
        "            json:\n",
        "            yaml: [{subPath: /a, operator: remove}]\n            json:\n",
        "29:13", RULE + "fieldOverrider.0: set json or yaml, not both", id="json and yaml",
    ),
    pytest.param(
        "{containerName: web, operator: add, value: [--verbose]}",
        "{containerName: web, operator: replace, value: [--verbose]}",
        "23:34",
        RULE + "argsOverrider.0.operator: unsupported value 'replace': "
        "expected one of 'add', 'remove'",
        id="args replace",
    ),
    pytest.param(
        "{operator: add, value: {team: shop}}", "{operator: add, value: {team: 'shop floor'}}",
        "25:37", RULE + "labelsOverrider.0.value.team: 'shop floor' must be empty or consist",
        id="label value",
    ),
    pytest.param(
        "{operator: add, value: {team: shop}}", "{operator: add}",
        "25:13", RULE + "labelsOverrider.0.value: required field is missing",
        id="label overrider without value",
    ),
    pytest.param(
        "{example.com/owner: shop}", "{/owner: shop}",
        "27:37", RULE + "annotationsOverrider.0.value./owner: '/owner': prefix part must not",
        id="annotation key",
    ),
    pytest.param(
        "        clusterNames: [member1]\n",
        "        clusterNames: [member1]\n        fieldSelector:\n"
        "          matchExpressions: [{key: zone, operator: Exists}]\n",
        "15:42", "spec.overrideRules.0.targetCluster.fieldSelector.matchExpressions.0.operator: "
        "unsupported operator 'Exists'",
        id="target cluster selector",
    ),
    pytest.param(
        "      kind: Deployment\n", "      kind: Deployment\n      namespace: default\n",
        "10:7", "resourceSelectors.0.namespace: must be the policy's own namespace 'shop'",
        id="selector namespace",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new", "where", "message"), CASES)
def test_override_rule(check: Check, old: str, new: str, where: str, message: str) -> None:
    found = [line for line in check(variant(WEB, old, new)) if "error" in line]
    assert len(found) == 1, found
    head = f"{WEB}:{where}: error: OverridePolicy shop/web: "
    assert found[0].startswith(head), found[0]
    assert message in found[0]


def test_annotation_keys_are_checked_lower_cased(check: Check) -> None:
    """As ValidateAnnotations checks them: a prefix in capitals is a DNS subdomain there."""
    found = check(variant(WEB, "{example.com/owner: shop}", "{Example.COM/Owner: shop}"))
    assert found == []


@pytest.mark.parametrize("path", ["/data/x", "/metadata/name"])
def test_deprecated_field_overrider_may_stay_next_to_rules(check: Check, path: str) -> None:
    """Karmada applies the rules only; the deprecated overriders are then never checked, nor
    applied, however they would change the object."""
    deprecated = f"  overriders:\n    fieldOverrider:\n      - fieldPath: {path}\n"
    found = check(variant(WEB, "  overrideRules:\n", deprecated + "  overrideRules:\n"))
    assert found == [
        f"{WEB}:12:5: warning: OverridePolicy shop/web: spec.overriders.fieldOverrider: "
        "ignored, as overrideRules are set (as Karmada ignores the deprecated overriders)"
    ]


DEPRECATED = """\
  targetCluster: {clusterNames: [member1]}
  overriders:
    labelsOverrider:
      - {operator: add, value: {team: 'shop floor'}}
    annotationsOverrider:
      - {operator: add, value: {/owner: shop}}
    fieldOverrider:
      - fieldPath: /data/config.json
      - fieldPath: /data/config.json
        json:
          - {subPath: /log/level, operator: replace}
        yaml:
          - {subPath: /log/level, operator: remove, value: x}
"""
OUTCOME = "(Karmada does not check the deprecated overriders): "


def test_deprecated_overriders_karmada_does_not_check_are_warnings(check: Check) -> None:
    """Karmada's webhook checks the overrideRules only, and applies the deprecated form as a
    rule: each problem is a warning saying what then happens (the overrides stage and the
    render's manifest check do the same; tests/overrides covers the field overriders)."""
    rules = FLEET[WEB][FLEET[WEB].index("  overrideRules:\n") :]
    found = check({**FLEET, WEB: FLEET[WEB].replace(rules, DEPRECATED)})
    assert [line.split(": ", 4)[3:] for line in found] == [
        ["spec.overriders.labelsOverrider.0.value.team",
         "'shop floor' must be empty or consist of alphanumeric characters, '-', '_' or '.', "
         f"and start and end with an alphanumeric character {OUTCOME}the member's API "
         "server refuses the manifest, and so does the render"],
        ["spec.overriders.annotationsOverrider.0.value./owner",
         f"'/owner': prefix part must not be empty {OUTCOME}the member's API server refuses "
         "the manifest, and so does the render"],
        ["spec.overriders.fieldOverrider.0", f"set json or yaml {OUTCOME}the field is emptied"],
        ["spec.overriders.fieldOverrider.1",
         f"set json or yaml, not both {OUTCOME}the yaml operations apply, not json"],
        ["spec.overriders.fieldOverrider.1.json.0.value",
         f"a value is required for replace {OUTCOME}null is written there"],
        ["spec.overriders.fieldOverrider.1.yaml.0.value",
         f"remove takes no value {OUTCOME}the value is ignored"],
    ]  # fmt: skip
    assert all(": warning: " in line for line in found), found


def test_deprecated_overrider_keys_are_checked_as_written(check: Check) -> None:
    """A deprecated labels overrider's key holding `~1` reaches the label the JSON patch reads
    it as (Karmada escapes only `/` into the path): a warning names it, and that label is the
    one checked (valid here); in overrideRules the webhook refuses the key as written."""
    rules = FLEET[WEB][FLEET[WEB].index("  overrideRules:\n") :]
    deprecated = (
        "  targetCluster: {clusterNames: [member1]}\n  overriders:\n"
        "    labelsOverrider:\n      - {operator: add, value: {x.io~1tier: web}}\n"
    )
    found = check({**FLEET, WEB: FLEET[WEB].replace(rules, deprecated)})
    assert [line.split(": ", 4)[1:] for line in found] == [
        ["warning", "OverridePolicy shop/web", "spec.overriders.labelsOverrider.0.value.x.io~1tier",
         "Karmada's overriders escape only / into the JSON-patch path, which reads ~1 and ~0 "
         "back: this sets 'x.io/tier'"],
    ]  # fmt: skip
    ruled = "  overrideRules:\n    - overriders:\n        labelsOverrider:\n"
    ruled += "          - {operator: add, value: {x.io~1tier: web}}\n"
    found = check({**FLEET, WEB: FLEET[WEB].replace(rules, ruled)})
    assert [line.split(": ", 2)[1] for line in found] == ["error"], found


def test_deprecated_overriders_keep_gitfleets_own_rules(check: Check) -> None:
    """Pointers that are no JSON pointer, and changes to what an object is, are refused in
    every form (docs/karmada-compatibility.md says why)."""
    rules = FLEET[WEB][FLEET[WEB].index("  overrideRules:\n") :]
    deprecated = (
        "  overriders:\n    plaintext:\n      - {path: spec/replicas, operator: remove}\n"
        "      - {path: /metadata/name, operator: replace, value: other}\n"
    )
    found = check({**FLEET, WEB: FLEET[WEB].replace(rules, deprecated)})
    assert [line.split(": ", 2)[1] for line in found] == ["error", "error"], found


def test_cluster_override_without_selectors_is_valid(check: Check) -> None:
    assert "policies/fleet.yaml" in FLEET
    assert check(FLEET) == []
