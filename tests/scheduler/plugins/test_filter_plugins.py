"""The in-tree filter plugins, one table each (Karmada's plugins/*/..._test.go cases plus the
rules they port).

Aspects covered:
- APIEnablement: the kind under its group/version, complete or partial lists, clusters of the
  previous result pass, group/version text from an apiVersion;
- TaintToleration: NoSchedule/NoExecute taints need a toleration (Kubernetes matching rules),
  PreferNoSchedule never blocks, clusters of the previous result pass, the reason names the
  first untolerated taint;
- ClusterAffinity: clusterAffinity, the clusterAffinities term in use, overflow affinities for
  workloads only, no affinity;
- SpreadConstraint: provider/region/zones must be set when spread by (a lone deprecated
  `zone` is stored as a zone);
- ClusterEviction: a cluster being evicted from takes nothing new;
- verdict keys: bindings that differ only in what a plugin does not read share its key, and a
  difference it reads gives another key.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from scheduler_builders import make_binding, make_cluster

from gitfleet.model import cluster, meta, work
from gitfleet.scheduler import framework
from gitfleet.scheduler.plugins import (
    api_enablement,
    cluster_affinity,
    cluster_eviction,
    spread_constraint,
    taint_toleration,
)

OK = None


def _verdict(
    plugin: framework.FilterPlugin,
    binding: work.ResourceBinding,
    c: cluster.Cluster,
    observed: str = "",
) -> str | None:
    status = work.ResourceBindingStatus(scheduler_observed_affinity_name=observed)
    result = plugin.filter(binding.spec, status, framework.ClusterInfo(c))
    return None if result.success else "; ".join(result.reasons)


NO_API = api_enablement.REASON
WIDGETS = [
    {"groupVersion": "example.io/v1alpha1", "resources": [{"name": "widgets", "kind": "Widget"}]}
]


@pytest.mark.parametrize(
    ("binding", "apis", "complete", "expected"),
    [
        pytest.param(make_binding(), None, False, OK, id="API is enabled in cluster"),
        pytest.param(make_binding(), [], False, NO_API, id="API is not enabled in cluster"),
        pytest.param(
            make_binding(clusters={"member": 1}),
            [],
            True,
            OK,
            id="cluster in target list with API not enabled",
        ),
        pytest.param(
            make_binding(), [], True, NO_API, id="complete list without the kind: disabled"
        ),
        pytest.param(
            make_binding(kind="ConfigMap", api_version="v1"), None, False, OK, id="core group"
        ),
        pytest.param(
            make_binding(kind="Widget", api_version="example.io/v1alpha1"),
            WIDGETS,
            False,
            OK,
            id="custom resource",
        ),
        pytest.param(
            make_binding(kind="Widget", api_version="example.io/v1"),
            WIDGETS,
            False,
            NO_API,
            id="other version",
        ),
        pytest.param(
            make_binding(kind="Deployment", api_version="extensions/v1beta1"),
            None,
            False,
            NO_API,
            id="kind under another group",
        ),
    ],
)
def test_api_enablement(
    binding: work.ResourceBinding, apis: list[Any] | None, complete: bool, expected: str | None
) -> None:
    c = make_cluster("member", apis=apis, complete_apis=complete)
    assert _verdict(api_enablement.APIEnablement(), binding, c) == expected


@pytest.mark.parametrize(
    ("api_version", "expected"),
    [
        pytest.param("apps/v1", "apps/v1", id="group/version"),
        pytest.param("v1", "v1", id="core"),
        pytest.param("", "", id="empty"),
        pytest.param("/", "", id="slash"),
        pytest.param("/v1", "v1", id="empty group"),
        pytest.param("a/b/c", "", id="unparsable"),
    ],
)
def test_group_version_text(api_version: str, expected: str) -> None:
    assert api_enablement.group_version(api_version) == expected


def _taint(key: str, value: str = "", effect: str = "NoSchedule") -> dict[str, str]:
    return {"key": key, "value": value, "effect": effect}


def _tolerate(**toleration: str) -> dict[str, Any]:
    return {"clusterTolerations": [toleration]}


@pytest.mark.parametrize(
    ("taints", "placement", "targets", "expected"),
    [
        pytest.param(
            [_taint("k", "v")], {}, {"member": 1}, OK, id="cluster already in target clusters"
        ),
        pytest.param([], {}, None, OK, id="no taints"),
        pytest.param(
            [_taint("k", "v")],
            _tolerate(key="k", operator="Equal", value="v", effect="NoSchedule"),
            None,
            OK,
            id="tolerated taint",
        ),
        pytest.param(
            [_taint("k", "v")],
            {},
            None,
            "cluster(s) had untolerated taint {k=v:NoSchedule}",
            id="untolerated taint",
        ),
        pytest.param(
            [_taint("k", "v")],
            _tolerate(key="k", value="v"),
            None,
            OK,
            id="empty operator means Equal",
        ),
        pytest.param(
            [_taint("k", "v")],
            _tolerate(key="k", value="w"),
            None,
            "cluster(s) had untolerated taint {k=v:NoSchedule}",
            id="other value",
        ),
        pytest.param(
            [_taint("k", "v")],
            _tolerate(key="k", operator="Exists"),
            None,
            OK,
            id="Exists ignores the value",
        ),
        pytest.param(
            [_taint("k", "v"), _taint("j")],
            _tolerate(operator="Exists"),
            None,
            OK,
            id="empty key and Exists tolerate all",
        ),
        pytest.param(
            [_taint("k", "v")],
            _tolerate(key="k", operator="Exists", effect="NoExecute"),
            None,
            "cluster(s) had untolerated taint {k=v:NoSchedule}",
            id="other effect",
        ),
        pytest.param(
            [_taint("k", effect="NoExecute")],
            {},
            None,
            "cluster(s) had untolerated taint {k:NoExecute}",
            id="NoExecute blocks, no value",
        ),
        pytest.param(
            [_taint("k", effect="PreferNoSchedule")],
            {},
            None,
            OK,
            id="PreferNoSchedule never blocks",
        ),
        pytest.param(
            [_taint("a"), _taint("b")],
            _tolerate(key="a", operator="Exists"),
            None,
            "cluster(s) had untolerated taint {b:NoSchedule}",
            id="first untolerated reported",
        ),
        pytest.param(
            [_taint("k", "1")],
            _tolerate(key="k", operator="Gt", value="0"),
            None,
            "cluster(s) had untolerated taint {k=1:NoSchedule}",
            id="Gt not enabled",
        ),
    ],
)
def test_taint_toleration(
    taints: list[Any],
    placement: dict[str, Any],
    targets: dict[str, int] | None,
    expected: str | None,
) -> None:
    binding = make_binding(placement=placement, clusters=targets)
    c = make_cluster("member")
    # built field by field: a Cluster document refuses PreferNoSchedule, the plugin ignores it
    spec = dataclasses.replace(c.spec, taints=tuple(meta.Taint(**t) for t in taints))
    c = dataclasses.replace(c, spec=spec)
    assert _verdict(taint_toleration.TaintToleration(), binding, c) == expected


NO_MATCH = cluster_affinity.REASON
TERMS = {
    "clusterAffinities": [
        {"affinityName": "first", "clusterNames": ["a"]},
        {
            "affinityName": "second",
            "clusterNames": ["b"],
            "overflowAffinities": [{"affinityName": "spill", "clusterNames": ["c"]}],
        },
    ]
}


@pytest.mark.parametrize(
    ("placement", "name", "observed", "replicas", "expected"),
    [
        pytest.param(
            {"clusterAffinity": {"clusterNames": ["a"]}}, "a", "", 0, OK, id="matching affinity"
        ),
        pytest.param(
            {"clusterAffinity": {"clusterNames": ["a"]}},
            "b",
            "",
            0,
            NO_MATCH,
            id="non-matching affinity",
        ),
        pytest.param(TERMS, "b", "second", 0, OK, id="matching affinity from ClusterAffinities"),
        pytest.param(TERMS, "a", "second", 0, NO_MATCH, id="only the term in use counts"),
        pytest.param(TERMS, "c", "second", 2, OK, id="overflow affinity for a workload"),
        pytest.param(TERMS, "c", "second", 0, NO_MATCH, id="no overflow without replicas"),
        pytest.param(TERMS, "z", "unknown", 2, OK, id="term not found: no restriction"),
        pytest.param({}, "z", "", 0, OK, id="no affinity specified"),
        pytest.param({"clusterAffinity": {"exclude": ["a"]}}, "a", "", 0, NO_MATCH, id="excluded"),
    ],
)
def test_cluster_affinity(
    placement: dict[str, Any], name: str, observed: str, replicas: int, expected: str | None
) -> None:
    binding = make_binding(placement=placement, replicas=replicas)
    plugin = cluster_affinity.ClusterAffinity()
    assert _verdict(plugin, binding, make_cluster(name), observed) == expected
    assert plugin.score(binding.spec, framework.ClusterInfo(make_cluster(name))) == 0


@pytest.mark.parametrize(
    ("field", "properties", "expected"),
    [
        pytest.param(None, {}, OK, id="no spread constraints"),
        pytest.param(
            "provider", {"provider": "aws"}, OK, id="spread by provider - provider present"
        ),
        pytest.param(
            "provider",
            {},
            "cluster(s) did not have provider property",
            id="spread by provider - provider missing",
        ),
        pytest.param("region", {"region": "eu"}, OK, id="spread by region - region present"),
        pytest.param(
            "region",
            {},
            "cluster(s) did not have region property",
            id="spread by region - region missing",
        ),
        pytest.param("zone", {"zones": ["eu-1"]}, OK, id="spread by zone - zones present"),
        pytest.param("zone", {"zone": "eu-1"}, OK, id="spread by zone - a lone deprecated zone"),
        pytest.param(
            "zone",
            {},
            "cluster(s) did not have zones property",
            id="spread by zone - zones missing",
        ),
        pytest.param("cluster", {}, OK, id="spread by cluster needs nothing"),
    ],
)
def test_spread_constraint(
    field: str | None, properties: dict[str, Any], expected: str | None
) -> None:
    placement = {"spreadConstraints": [{"spreadByField": field, "minGroups": 1}]} if field else {}
    binding = make_binding(placement=placement)
    assert (
        _verdict(
            spread_constraint.SpreadConstraint(), binding, make_cluster("member", **properties)
        )
        == expected
    )


@pytest.mark.parametrize(
    ("evictions", "expected"),
    [
        pytest.param(["member"], cluster_eviction.REASON, id="being evicted"),
        pytest.param(["other"], OK, id="another cluster being evicted"),
        pytest.param([], OK, id="no eviction"),
    ],
)
def test_cluster_eviction(evictions: list[str], expected: str | None) -> None:
    binding = make_binding(evictions=evictions)
    assert _verdict(cluster_eviction.ClusterEviction(), binding, make_cluster("member")) == expected


AFFINITY_A = {"clusterAffinity": {"labelSelector": {"matchLabels": {"env": "a"}}}}
AFFINITY_B = {"clusterAffinity": {"labelSelector": {"matchLabels": {"env": "b"}}}}
TOLERATION = {"clusterTolerations": [{"key": "dedicated", "operator": "Exists"}]}
REGION = {"spreadConstraints": [{"spreadByField": "region", "minGroups": 1}]}


@pytest.mark.parametrize(
    ("plugin", "first", "second", "same"),
    [
        pytest.param(
            api_enablement.new(), make_binding(placement=AFFINITY_A),
            make_binding(placement=AFFINITY_B, name="api"), True, id="APIEnablement: placement",
        ),
        pytest.param(
            api_enablement.new(), make_binding(), make_binding(kind="StatefulSet"), False,
            id="APIEnablement: kind",
        ),
        pytest.param(
            taint_toleration.new(), make_binding(placement=AFFINITY_A),
            make_binding(placement=AFFINITY_B), True, id="TaintToleration: affinity",
        ),
        pytest.param(
            taint_toleration.new(), make_binding(), make_binding(placement=TOLERATION), False,
            id="TaintToleration: tolerations",
        ),
        pytest.param(
            cluster_affinity.new(), make_binding(placement=AFFINITY_A),
            make_binding(placement={**AFFINITY_A, **TOLERATION}, kind="StatefulSet"), True,
            id="ClusterAffinity: tolerations and kind",
        ),
        pytest.param(
            cluster_affinity.new(), make_binding(placement=AFFINITY_A),
            make_binding(placement=AFFINITY_B), False, id="ClusterAffinity: selector",
        ),
        pytest.param(
            spread_constraint.new(), make_binding(placement=AFFINITY_A),
            make_binding(placement=AFFINITY_B), True, id="SpreadConstraint: affinity",
        ),
        pytest.param(
            spread_constraint.new(), make_binding(), make_binding(placement=REGION), False,
            id="SpreadConstraint: spread field",
        ),
        pytest.param(
            cluster_eviction.new(), make_binding(placement=AFFINITY_A),
            make_binding(placement=AFFINITY_B), True, id="ClusterEviction: affinity",
        ),
        pytest.param(
            cluster_eviction.new(), make_binding(), make_binding(evictions=["member"]), False,
            id="ClusterEviction: evictions",
        ),
    ],
)  # fmt: skip
def test_verdict_keys(
    plugin: framework.FilterPlugin,
    first: work.ResourceBinding,
    second: work.ResourceBinding,
    same: bool,
) -> None:
    status = work.ResourceBindingStatus()
    keys = (plugin.verdict_key(first.spec, status), plugin.verdict_key(second.spec, status))
    assert (keys[0] == keys[1]) is same
