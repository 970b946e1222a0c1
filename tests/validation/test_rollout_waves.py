"""gitfleet.yaml's `rollout` section: read into waves, and checked against the clusters.

Aspects covered:
- every key of a wave is read (cluster selection as a Karmada ClusterAffinity, maxUnavailable
  as a count or a percent, bake and timeout with units down to milliseconds, onFailure) and
  the control;
- wrong values, unknown keys, a missing or duplicate wave name and a wave named like the
  implicit last one are errors located at the key, with defaults kept;
- a cluster two waves select is an error at the second wave; a wave that selects nothing is
  a warning; a label selector Kubernetes would refuse is an error;
- `gitfleet validate` reports them as a user types it, from another folder, with exit 1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from builders import make_cluster

from gitfleet import source
from gitfleet.model import rollout

CLUSTERS = yaml.safe_dump_all(
    [make_cluster("m1", labels={"tier": "canary"}), make_cluster("m2"), make_cluster("m3")]
)


def test_every_key_is_read(tmp_path: Path) -> None:
    settings = """\
rollout:
  control: Pause
  waves:
  - name: canary
    clusterNames: [m1]
    maxUnavailable: 1
    bake: 250ms
    timeout: 2m
    onFailure: rollback
  - name: europe
    labelSelector: {matchLabels: {region: eu}}
    fieldSelector: {matchExpressions: [{key: provider, operator: In, values: [aws]}]}
    exclude: [m3]
    maxUnavailable: 50%
"""
    (tmp_path / "gitfleet.yaml").write_text(settings)
    config = source.load(tmp_path).config.rollout
    assert config is not None and config.control is rollout.Control.PAUSE
    canary, europe = config.waves
    assert canary.affinity.cluster_names == ("m1",)
    assert (canary.max_unavailable.limit(10), canary.bake_seconds) == (1, 0.25)
    assert (canary.timeout_seconds, canary.on_failure) == (120.0, rollout.OnFailure.ROLLBACK)
    assert europe.affinity.exclude == ("m3",)
    assert europe.affinity.label_selector is not None
    assert europe.max_unavailable.limit(5) == 2
    assert (europe.bake_seconds, europe.on_failure) == (0.0, rollout.OnFailure.HALT)


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        pytest.param(
            "rollout:\n  waves: []\n",
            "gitfleet.yaml:2:3: error: rollout.waves: expected a list of at least one wave",
            id="no waves",
        ),
        pytest.param(
            "rollout:\n  waves:\n  - name: a\n    bake: soon\n",
            "gitfleet.yaml:4:5: error: rollout.waves.0.bake: 'soon': expected a duration"
            " such as 30s, 500ms, 5m or 1h",
            id="bad duration",
        ),
        pytest.param(
            "rollout:\n  waves:\n  - name: a\n    maxUnavailable: 0%\n",
            "gitfleet.yaml:4:5: error: rollout.waves.0.maxUnavailable: '0%': expected a number"
            " >= 1 or a percent (1% to 100%)",
            id="bad budget",
        ),
        pytest.param(
            "rollout:\n  waves:\n  - name: a\n    onFailure: retry\n",
            "gitfleet.yaml:4:5: error: rollout.waves.0.onFailure: 'retry' is not halt or rollback",
            id="bad failure action",
        ),
        pytest.param(
            "rollout:\n  control: Stop\n  waves:\n  - name: a\n",
            "gitfleet.yaml:2:3: error: rollout.control: 'Stop' is not one of Run, Pause, Abort",
            id="bad control",
        ),
        pytest.param(
            "rollout:\n  waves:\n  - name: a\n    clusters: [m1]\n",
            "gitfleet.yaml:4:5: error: rollout.waves.0.clusters: unknown setting 'clusters'",
            id="unknown key",
        ),
        pytest.param(
            "rollout:\n  waves:\n  - name: a\n  - name: a\n",
            "gitfleet.yaml:4:5: error: rollout.waves.1.name: wave 'a' is named twice",
            id="duplicate name",
        ),
        pytest.param(
            "rollout:\n  waves:\n  - name: rest\n",
            "gitfleet.yaml:3:5: error: rollout.waves.0.name: 'rest' names the implicit last"
            " wave; choose another",
            id="reserved name",
        ),
        pytest.param(
            "rollout:\n  waves:\n  - name: a\n    clusterNames: m1\n",
            "gitfleet.yaml:4:5: error: rollout.waves.0.clusterNames: expected an array, got string",
            id="affinity field of the wrong type",
        ),
        pytest.param(
            "rollout:\n  waves:\n  - name: a\n    clusterNames: [m1]\n  - name: b\n"
            "    labelSelector: {}\n",
            "gitfleet.yaml:5:5: error: rollout wave b: cluster m1 is also in wave a: one wave"
            " per cluster",
            id="overlapping waves",
        ),
        pytest.param(
            "rollout:\n  waves:\n  - name: a\n    clusterNames: [m9]\n",
            "gitfleet.yaml:3:5: warning: rollout wave a: selects no cluster",
            id="empty wave",
        ),
        pytest.param(
            "rollout:\n  waves:\n  - name: a\n    labelSelector:\n      matchLabels: {'a b': x}\n",
            "gitfleet.yaml:5:21: error: rollout wave a: labelSelector.matchLabels.a b:",
            id="label selector Kubernetes refuses",
        ),
    ],
)
def test_problems_are_located(check: Any, settings: str, expected: str) -> None:
    found = check({"gitfleet.yaml": settings, "clusters.yaml": CLUSTERS})
    assert any(line.startswith(expected) for line in found), found


def test_validate_reports_waves_as_a_user_types_it(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "fleet"
    repo.mkdir()
    (repo / "clusters.yaml").write_text(CLUSTERS)
    waves = "rollout:\n  waves:\n  - name: a\n    clusterNames: [m1, m2]\n  - name: b\n"
    (repo / "gitfleet.yaml").write_text(waves + "    clusterNames: [m2]\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    done = cli("validate", "--repo", "../fleet")
    assert done.exit_code == 1
    assert "gitfleet.yaml:5:5: error: rollout wave b: cluster m2 is also in wave a" in done.output
