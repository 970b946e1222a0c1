"""Score plugins and the plugin registry (Karmada's clusterlocality tests, runtime/registry.go,
plugins/registry.go).

Aspects covered:
- ClusterLocality: clusters of the previous result score 100, others 0, all 0 without one;
- the registry refuses a name twice; IN_TREE lists Karmada's default plugins;
- the framework splits plugins into filters and scorers, keeping registry order.
"""

from __future__ import annotations

import pytest
from scheduler_builders import make_binding, make_cluster

from gitfleet.scheduler import framework
from gitfleet.scheduler.plugins import IN_TREE, cluster_locality


@pytest.mark.parametrize(
    ("previous", "name", "expected"),
    [
        pytest.param(None, "a", 0, id="no previous result"),
        pytest.param({"a": 1}, "a", 100, id="in the previous result"),
        pytest.param({"a": 1}, "b", 0, id="not in the previous result"),
    ],
)
def test_cluster_locality(previous: dict[str, int] | None, name: str, expected: int) -> None:
    spec = make_binding(clusters=previous).spec
    info = framework.ClusterInfo(make_cluster(name))
    assert cluster_locality.ClusterLocality().score(spec, info) == expected


def test_registry_refuses_a_name_twice() -> None:
    registry = framework.Registry([(cluster_locality.NAME, cluster_locality.new)])
    with pytest.raises(ValueError, match="a plugin named ClusterLocality already exists"):
        registry.register(cluster_locality.NAME, cluster_locality.new)


def test_in_tree_plugins_and_their_roles() -> None:
    assert list(IN_TREE) == [
        "APIEnablement",
        "TaintToleration",
        "ClusterAffinity",
        "SpreadConstraint",
        "ClusterLocality",
        "ClusterEviction",
    ]
    fw = framework.Framework.from_registry(IN_TREE)
    assert [p.NAME for p in fw.filters] == [
        "APIEnablement",
        "TaintToleration",
        "ClusterAffinity",
        "SpreadConstraint",
        "ClusterEviction",
    ]
    assert [(p.NAME, n is not None) for p, n in fw.scorers] == [
        ("ClusterAffinity", True),
        ("ClusterLocality", False),
    ]
