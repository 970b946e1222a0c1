"""Namespaces on member clusters, and each cluster's kustomization.

Aspects covered:
- a Namespace the source defines without a policy goes to every cluster (Karmada's namespace
  sync), with cluster override policies applied and gitfleet's labels; built once per group
  of clusters with the same overrides, each cluster keeps its own overrides and label;
- a namespace a placed manifest needs but the source does not define is generated, only on
  the clusters that need it, marked as generated and to be preserved when it goes;
- every Namespace carries the label the API server gives it, `kubernetes.io/metadata.name`
  (whatever value the source wrote), and policies and overrides select it by that label;
- never generated: `default`, and namespaces the source defines (even when they are
  labelled to skip propagation);
- a synced Namespace later labelled to skip propagation stays, as it was, on the clusters it
  was sent to (Karmada's controller leaves its Works alone), a full render included; a cluster
  that joins later does not get it; it goes with its template, and syncs again without the
  label;
- every cluster has a kustomization listing its files, Namespaces first, an empty list
  included; clusters that leave the fleet lose their folder.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from builders import make_deployment, make_object, make_policy
from render_builders import Branch, Render, cluster, manifest

CLUSTERS = [cluster("east"), cluster("west")]
ONLY_WEST = {"clusterAffinity": {"clusterNames": ["west"]}}
SKIP_LABEL = "namespace.karmada.io/skip-auto-propagation"


def _label_added(name: str, target: dict[str, Any] | None = None) -> dict[str, Any]:
    """A ClusterOverridePolicy adding the label `x: y`, on the clusters of `target` (default:
    every cluster)."""
    rule: dict[str, Any] = {
        "overriders": {"labelsOverrider": [{"operator": "add", "value": {"x": "y"}}]}
    }
    if target is not None:
        rule["targetCluster"] = target
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "ClusterOverridePolicy",
        "metadata": {"name": name},
        "spec": {"overrideRules": [rule]},
    }


def test_defined_namespace_goes_everywhere_with_cluster_overrides(render_docs: Render) -> None:
    docs = [*CLUSTERS, make_object("v1", "Namespace", "shop"), _label_added("labels")]
    result = render_docs(docs)
    for name in ("east", "west"):
        doc = manifest(result, f"works/{name}/_cluster/Namespace.core/shop.yaml")
        assert doc["metadata"]["labels"] == {
            "x": "y",
            "kubernetes.io/metadata.name": "shop",
            "gitfleet.io/managed-by": "gitfleet",
            "gitfleet.io/cluster": name,
        }
        assert doc["metadata"]["annotations"] == {"gitfleet.io/source-path": "apps.yaml"}


def test_namespace_overrides_follow_each_cluster(render_docs: Render) -> None:
    """A Namespace is built once per group of clusters with the same overrides: a cluster
    outside an override's target gets none of it, and each keeps its own cluster label."""
    only_west = _label_added("west-labels", {"clusterNames": ["west"]})
    clusters = [*CLUSTERS, cluster("north")]
    result = render_docs([*clusters, make_object("v1", "Namespace", "shop"), only_west])
    for name, extra in (("east", {}), ("west", {"x": "y"}), ("north", {})):
        doc = manifest(result, f"works/{name}/_cluster/Namespace.core/shop.yaml")
        assert doc["metadata"]["labels"] == {
            **extra,
            "kubernetes.io/metadata.name": "shop",
            "gitfleet.io/managed-by": "gitfleet",
            "gitfleet.io/cluster": name,
        }


def test_needed_namespace_is_generated_where_needed(render_docs: Render) -> None:
    result = render_docs([*CLUSTERS, make_deployment(), make_policy("web", placement=ONLY_WEST)])
    doc = manifest(result, "works/west/_cluster/Namespace.core/shop.yaml")
    assert doc["metadata"]["name"] == "shop"
    assert doc["metadata"]["annotations"] == {
        "gitfleet.io/generated-namespace": "true",
        # nothing asked for it: its agent lets it go, with whatever others keep in it
        "gitfleet.io/preserve-on-deletion": "true",
    }
    assert doc["metadata"]["labels"]["kubernetes.io/metadata.name"] == "shop"
    assert "works/east/_cluster/Namespace.core/shop.yaml" not in result.files


@pytest.mark.parametrize(
    ("namespace", "extra"),
    [
        pytest.param("default", [], id="default"),
        pytest.param(
            "shop",
            [make_object("v1", "Namespace", "shop", labels={SKIP_LABEL: "true"})],
            id="defined but skipped",
        ),
    ],
)
def test_namespaces_never_generated(
    render_docs: Render, namespace: str, extra: list[dict[str, object]]
) -> None:
    policy = make_policy("web", namespace=namespace, placement=ONLY_WEST)
    result = render_docs([*CLUSTERS, *extra, make_deployment(namespace=namespace), policy])
    assert f"works/west/{namespace}/Deployment.apps/web.yaml" in result.files
    assert not any("/Namespace.core/" in path for path in result.files)


def test_kustomizations(render_docs: Render) -> None:
    docs = [
        *CLUSTERS,
        cluster("idle", role="none"),
        make_object("v1", "Namespace", "shop", labels={SKIP_LABEL: "true"}),
        make_object("v1", "Namespace", "alpha"),
        make_deployment(),
        make_deployment("api"),
        make_policy("web", placement={"clusterAffinity": {"clusterNames": ["east", "west"]}}),
    ]
    result = render_docs(docs)
    listed = yaml.safe_load(bytes(result.files["works/east/kustomization.yaml"]))
    assert listed == {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "resources": [
            "_cluster/Namespace.core/alpha.yaml",
            "shop/Deployment.apps/api.yaml",
            "shop/Deployment.apps/web.yaml",
        ],
    }
    idle = yaml.safe_load(bytes(result.files["works/idle/kustomization.yaml"]))
    assert idle["resources"] == ["_cluster/Namespace.core/alpha.yaml"]
    report = yaml.safe_load(bytes(result.files["render.yaml"]))
    assert report["clusters"] == {
        "east": {"manifests": 3},
        "idle": {"manifests": 1},
        "west": {"manifests": 3},
    }


NAME_LABEL = "kubernetes.io/metadata.name"


def test_policies_and_overrides_select_a_namespace_by_its_name_label(
    render_docs: Render,
) -> None:
    """Karmada's API server labels every Namespace with its name, and its selectors see the
    stored object: a ClusterPropagationPolicy and a ClusterOverridePolicy selecting that label
    find the Namespace, which is then placed by the policy, not sent everywhere."""
    by_label = {"matchLabels": {NAME_LABEL: "team-a"}}
    namespace_selector = {"apiVersion": "v1", "kind": "Namespace", "labelSelector": by_label}
    policy = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "ClusterPropagationPolicy",
        "metadata": {"name": "team-a"},
        "spec": {"resourceSelectors": [namespace_selector], "placement": ONLY_WEST},
    }
    override = _label_added("team-a-labels")
    override["spec"]["resourceSelectors"] = [namespace_selector]
    team_a = make_object("v1", "Namespace", "team-a", labels={SKIP_LABEL: "true"})
    result = render_docs([*CLUSTERS, team_a, policy, override])
    assert "works/east/_cluster/Namespace.core/team-a.yaml" not in result.files
    doc = manifest(result, "works/west/_cluster/Namespace.core/team-a.yaml")
    assert doc["metadata"]["labels"][NAME_LABEL] == "team-a"
    assert doc["metadata"]["labels"]["x"] == "y"


def test_the_name_label_is_the_namespace_s_name_whatever_the_source_wrote(
    render_docs: Render,
) -> None:
    shop = make_object("v1", "Namespace", "shop", labels={NAME_LABEL: "other", "a": "b"})
    result = render_docs([*CLUSTERS, shop])
    doc = manifest(result, "works/east/_cluster/Namespace.core/shop.yaml")
    assert doc["metadata"]["labels"][NAME_LABEL] == "shop"
    assert doc["metadata"]["labels"]["a"] == "b"


def _team_a(**labels: str) -> dict[str, Any]:
    return make_object("v1", "Namespace", "team-a", labels=labels)


HELD_PATH = "works/{}/_cluster/Namespace.core/team-a.yaml"


def test_a_namespace_labelled_to_skip_after_its_sync_stays_as_it_was(
    render_docs: Render,
) -> None:
    branch = Branch()
    synced = branch.commit(render_docs([*CLUSTERS, _team_a(team="a")]))
    held = [*CLUSTERS, _team_a(team="b", **{SKIP_LABEL: "true"}), _label_added("labels")]
    for full in (False, True):
        after = branch.commit(render_docs(held, branch.previous(), full=full))
        for name in ("east", "west"):
            assert after[HELD_PATH.format(name)] == synced[HELD_PATH.format(name)]
    joined = branch.commit(render_docs([*held, cluster("north")], branch.previous()))
    assert HELD_PATH.format("north") not in joined
    assert HELD_PATH.format("east") in joined
    resumed = branch.commit(render_docs([*CLUSTERS, _team_a(team="b")], branch.previous()))
    assert yaml.safe_load(resumed[HELD_PATH.format("east")])["metadata"]["labels"]["team"] == "b"


def test_a_held_namespace_goes_with_its_template(render_docs: Render) -> None:
    branch = Branch()
    branch.commit(render_docs([*CLUSTERS, _team_a()]))
    branch.commit(render_docs([*CLUSTERS, _team_a(**{SKIP_LABEL: "true"})], branch.previous()))
    assert HELD_PATH.format("east") in branch.files
    branch.commit(render_docs(list(CLUSTERS), branch.previous()))
    assert not [p for p in branch.files if "team-a" in p]


CPP_ID_LABEL = "clusterpropagationpolicy.karmada.io/permanent-id"
CPP_NAME_ANNOTATION = "clusterpropagationpolicy.karmada.io/name"


def test_a_synced_namespace_carries_the_claim_of_the_policy_that_also_places_it(
    render_docs: Render,
) -> None:
    """Karmada's detector writes a policy's claim on the Namespace it stores, and its namespace
    sync controller sends that stored Namespace everywhere: the clusters the policy does not
    place it on get the claim too, as the policy's own cluster does."""
    policy = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "ClusterPropagationPolicy",
        "metadata": {"name": "team-a"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "v1", "kind": "Namespace", "name": "team-a"}],
            "placement": ONLY_WEST,
        },
    }
    result = render_docs([*CLUSTERS, _team_a(), policy])
    placed = manifest(result, HELD_PATH.format("west"))["metadata"]
    synced = manifest(result, HELD_PATH.format("east"))["metadata"]
    assert synced["annotations"][CPP_NAME_ANNOTATION] == "team-a"
    assert synced["labels"][CPP_ID_LABEL] == placed["labels"][CPP_ID_LABEL]
    # what the binding controller writes is not there: no binding sent it
    assert "clusterresourcebinding.karmada.io/name" not in synced["annotations"]
