"""Overrider values that are numbers beyond an int64, as Karmada's API server stores them.

Aspects covered:
- Karmada's API server stores an overrider's value through its JSON decoding, which keeps a
  whole number that fits an int64 and makes any other a float64: a value of
  18446744073709551615 (a uint64 to go-yaml) is that float in the policy, and reaches a
  fieldOverrider's JSON and YAML documents written as Go writes it; one that fits stays whole;
- such a number where Kubernetes wants an int32 (`replicas: 1e30`) is refused by the render
  at the override rule that wrote it, naming the field and the policy, and no traceback; the
  last rule to change the field is the one named, not a later one that changed another.
"""

from __future__ import annotations

from pathlib import Path

import builders
import yaml

from gitfleet.model import policy
from gitfleet.model.origin import Origin
from tests.conftest import GitRepo, Invoke

UINT64_MAX = 18446744073709551615
INT64_MAX = 9223372036854775807

POLICIES = """\
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: all}
spec:
  resourceSelectors:
    - {apiVersion: v1, kind: ConfigMap}
    - {apiVersion: apps/v1, kind: Deployment}
  placement: {clusterAffinity: {clusterNames: [member1]}}
---
apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: big}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}, {apiVersion: apps/v1, kind: Deployment}]
  overrideRules:
    - overriders:
"""

CONFIG = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg}
data:
  config.json: '{"limit": 1, "fits": 1}'
  config.yaml: 'limit: 1'
"""

FIELD_OVERRIDERS = f"""\
        fieldOverrider:
          - fieldPath: /data/config.json
            json:
              - {{subPath: /limit, operator: replace, value: {UINT64_MAX}}}
              - {{subPath: /fits, operator: replace, value: {INT64_MAX}}}
          - fieldPath: /data/config.yaml
            yaml: [{{subPath: /limit, operator: replace, value: {UINT64_MAX}}}]
"""


def _render(git_repo: GitRepo, cli: Invoke, tmp_path: Path, source: str) -> tuple[int, str]:
    cluster = yaml.safe_dump(builders.make_cluster("member1"))
    git_repo.commit({"clusters.yaml": cluster, "fleet.yaml": source})
    result = cli("render", "--repo", str(git_repo.path), "--out", str(tmp_path / "out"))
    return result.exit_code, result.output


def test_policy_values_beyond_int64_are_floats() -> None:
    rule = {"overriders": {"plaintext": [{"path": "/a", "operator": "add", "value": None}]}}
    values = {"big": UINT64_MAX, "fits": INT64_MAX, "list": [-(2**63) - 1, True]}
    rule["overriders"]["plaintext"][0]["value"] = values
    doc = builders.make_object("policy.karmada.io/v1alpha1", "OverridePolicy", "p", "default")
    doc["spec"] = {"overrideRules": [rule]}
    loaded = policy.OverridePolicy.from_doc(doc, Origin("p.yaml"))
    value = loaded.spec.override_rules[0].overriders.plaintext[0].value
    assert value == {"big": float(UINT64_MAX), "fits": INT64_MAX, "list": [-(2.0**63), True]}
    assert type(value["big"]) is float
    assert type(value["fits"]) is int
    assert value["list"][1] is True


def test_field_overrider_writes_the_stored_float(
    git_repo: GitRepo, cli: Invoke, tmp_path: Path
) -> None:
    source = f"{CONFIG}---\n{POLICIES}{FIELD_OVERRIDERS}"
    code, output = _render(git_repo, cli, tmp_path, source)
    assert code == 0, output
    rendered = tmp_path / "out/works/member1/default/ConfigMap.core/cfg.yaml"
    data = yaml.safe_load(rendered.read_text())["data"]
    assert data["config.json"] == '{"limit":18446744073709552000,"fits":9223372036854775807}'
    assert data["config.yaml"] == "limit: 1.8446744073709552e+19\n"


def test_replicas_beyond_int32_are_refused(git_repo: GitRepo, cli: Invoke, tmp_path: Path) -> None:
    written = builders.make_deployment("web", replicas=2)
    del written["metadata"]["namespace"]
    deployment = yaml.safe_dump(written)
    plaintext = "        plaintext: [{path: /spec/replicas, operator: replace, value: 1e30}]\n"
    code, output = _render(git_repo, cli, tmp_path, f"{deployment}---\n{POLICIES}{plaintext}")
    assert code != 0, output
    rule_line = f"{deployment}---\n{POLICIES}".splitlines().index("    - overriders:") + 1
    assert (
        f"/fleet.yaml:{rule_line}:7: Deployment/default/web on cluster member1: the manifest built"
        " for this cluster would be refused: spec.replicas: must be at most 2147483647 (int32),"
        " not 1e+30 (written by override policy default/big)"
    ) in output
    assert "Traceback" not in output


def test_the_refusal_names_the_rule_that_wrote_the_field(
    git_repo: GitRepo, cli: Invoke, tmp_path: Path
) -> None:
    """A cluster override policy writes the value, then an override policy changes another
    field: the blame is the cluster policy's."""
    written = builders.make_deployment("web", replicas=2)
    del written["metadata"]["namespace"]
    cluster_policy = """\
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterOverridePolicy
metadata: {name: everywhere}
spec:
  overrideRules:
    - overriders:
        plaintext: [{path: /spec/replicas, operator: replace, value: 1e30}]
"""
    labels = "        labelsOverrider: [{operator: add, value: {tier: web}}]\n"
    source = f"{yaml.safe_dump(written)}---\n{cluster_policy}---\n{POLICIES}{labels}"
    code, output = _render(git_repo, cli, tmp_path, source)
    assert code != 0, output
    rule_line = source.splitlines().index("    - overriders:") + 1
    assert f"/fleet.yaml:{rule_line}:7: Deployment/default/web on cluster member1" in output
    assert "(written by cluster override policy everywhere)" in output
