"""Per-cluster manifests, as Karmada's binding controller builds Works.

Aspects covered:
- replicas come from the schedule (duplicated and divided), never from the template;
- a divided Job's completions are split by its per-cluster parallelism;
- overrides apply per cluster, and clusters sharing overrides still get their own label;
- labels and annotations: Karmada's (binding ids, claim, binding name, conflict resolution
  from the template or the policy) and gitfleet's; no `karmada.io/managed`, no source commit;
- a binding that preserves resources on deletion marks its manifests so (for the agent), a
  dependency too when one of its workloads does; others are not marked;
- numbers as Karmada's JSON round trip leaves them (`2.0` is `2`, `1.5` stays);
- dependencies follow their workload to its clusters;
- a failing override refuses that cluster's manifest only, located at the policy, and the
  cluster keeps its previous manifest;
- a Secret is refused unless its template opts in; a manifest over 1.5 MiB is refused,
  one of a ConfigMap holding 1 MiB of values is not;
- suspended dispatching writes nothing new and keeps what the cluster had;
- clusters sharing overrides share one build, even when the manifest holds text like the
  label filled in per cluster.
"""

from __future__ import annotations

from typing import Any

import pytest
from builders import make_configmap, make_deployment, make_object, make_policy, selector
from render_builders import Branch, Render, cluster, manifest

from gitfleet.gitstore import objects

CLUSTERS = [cluster("east", region="us"), cluster("west", region="us"), cluster("eu1", region="eu")]
NS = make_object("v1", "Namespace", "shop")
DIVIDED = {
    "replicaScheduling": {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted",
        "weightPreference": {
            "staticWeightList": [
                {"targetCluster": {"clusterNames": ["east"]}, "weight": 2},
                {"targetCluster": {"clusterNames": ["west", "eu1"]}, "weight": 1},
            ]
        },
    }
}


def _path(cluster_name: str, name: str = "web", kind: str = "Deployment.apps") -> str:
    return f"works/{cluster_name}/shop/{kind}/{name}.yaml"


def _override(name: str, rules: list[dict[str, Any]], namespace: str = "shop") -> dict[str, Any]:
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"resourceSelectors": [selector()], "overrideRules": rules},
    }


@pytest.mark.parametrize(
    ("placement", "expected"),
    [
        pytest.param({}, {"east": 5, "west": 5, "eu1": 5}, id="duplicated"),
        pytest.param(DIVIDED, {"east": 3, "west": 1, "eu1": 1}, id="divided by weight"),
    ],
)
def test_replicas_come_from_the_schedule(
    render_docs: Render, placement: dict[str, Any], expected: dict[str, int]
) -> None:
    docs = [*CLUSTERS, NS, make_deployment(replicas=5), make_policy("web", placement=placement)]
    result = render_docs(docs)
    got = {c: manifest(result, _path(c))["spec"]["replicas"] for c in expected}
    assert got == expected


def test_divided_job_completions_follow_parallelism(render_docs: Render) -> None:
    job = make_object("batch/v1", "Job", "batch", "shop")
    job["spec"] = {
        "parallelism": 4,
        "completions": 8,
        "template": {"spec": {"containers": [{"name": "c", "image": "busybox"}]}},
    }
    policy = make_policy("batch", selector("Job", "batch/v1"), placement=DIVIDED)
    result = render_docs([*CLUSTERS, NS, job, policy])
    specs = {
        c: manifest(result, _path(c, "batch", "Job.batch"))["spec"] for c in ("east", "west", "eu1")
    }
    assert {c: s["parallelism"] for c, s in specs.items()} == {"east": 2, "west": 1, "eu1": 1}
    assert {c: s["completions"] for c, s in specs.items()} == {"east": 4, "west": 2, "eu1": 2}


def test_overrides_per_cluster_with_own_labels(render_docs: Render) -> None:
    rule = {
        "targetCluster": {"labelSelector": {"matchLabels": {"region": "eu"}}},
        "overriders": {
            "imageOverrider": [
                {"component": "Registry", "operator": "replace", "value": "eu.example.com"}
            ]
        },
    }
    docs = [*CLUSTERS, NS, make_deployment(), make_policy("web"), _override("eu-registry", [rule])]
    result = render_docs(docs)
    for name, image in (("east", "nginx"), ("west", "nginx"), ("eu1", "eu.example.com/nginx")):
        doc = manifest(result, _path(name))
        assert doc["spec"]["template"]["spec"]["containers"][0]["image"] == image
        assert doc["metadata"]["labels"]["gitfleet.io/cluster"] == name


@pytest.mark.parametrize(
    ("template_value", "policy_value", "expected"),
    [
        pytest.param(None, None, "abort", id="default abort"),
        pytest.param(None, "Overwrite", "overwrite", id="from the policy"),
        pytest.param("overwrite", None, "overwrite", id="from the template"),
        pytest.param("sometimes", "Overwrite", "overwrite", id="invalid template value ignored"),
    ],
)
def test_labels_and_annotations(
    render_docs: Render, template_value: str | None, policy_value: str | None, expected: str
) -> None:
    annotations = {"work.karmada.io/conflict-resolution": template_value} if template_value else {}
    deployment = make_deployment(annotations={"team": "a", **annotations}, labels={"app": "web"})
    spec = {"conflictResolution": policy_value} if policy_value else {}
    result = render_docs([*CLUSTERS, NS, deployment, make_policy("web", **spec)])
    metadata = manifest(result, _path("east"))["metadata"]
    labels, notes = metadata["labels"], metadata["annotations"]
    assert labels["app"] == "web"
    assert labels["gitfleet.io/managed-by"] == "gitfleet"
    assert labels["gitfleet.io/cluster"] == "east"
    assert set(labels) >= {
        "resourcebinding.karmada.io/permanent-id",
        "propagationpolicy.karmada.io/permanent-id",
    }
    assert "karmada.io/managed" not in labels
    assert notes["team"] == "a"
    assert notes["work.karmada.io/conflict-resolution"] == expected
    assert notes["resourcebinding.karmada.io/name"] == "web-deployment"
    assert notes["resourcebinding.karmada.io/namespace"] == "shop"
    assert notes["propagationpolicy.karmada.io/name"] == "web"
    assert notes["gitfleet.io/source-path"] == "apps.yaml"
    assert "gitfleet.io/source-commit" not in notes
    assert "policy.karmada.io/applied-placement" not in notes


@pytest.mark.parametrize("preserve", [True, False, None])
def test_preserving_on_deletion_marks_every_manifest(
    render_docs: Render, preserve: bool | None
) -> None:
    spec: dict[str, Any] = {"propagateDeps": True}
    if preserve is not None:
        spec["preserveResourcesOnDeletion"] = preserve
    config = make_configmap("web-config")
    deployment = make_deployment()
    volume = {"name": "config", "configMap": {"name": "web-config"}}
    deployment["spec"]["template"]["spec"]["volumes"] = [volume]
    result = render_docs([*CLUSTERS, NS, deployment, config, make_policy("web", **spec)])
    paths = [_path(name) for name in ("east", "west", "eu1")]
    paths.append("works/east/shop/ConfigMap.core/web-config.yaml")
    for path in paths:
        notes = manifest(result, path)["metadata"]["annotations"]
        assert ("gitfleet.io/preserve-on-deletion" in notes) is bool(preserve), path
        assert notes.get("gitfleet.io/preserve-on-deletion", "true") == "true"


def test_overrides_see_the_policy_claim_as_part_of_the_template(render_docs: Render) -> None:
    """Karmada's detector writes the claim on the stored template, so an override may change
    or remove it; the binding's own id and name are written after the overrides."""
    rule = {
        "targetCluster": {"clusterNames": ["eu1"]},
        "overriders": {
            "labelsOverrider": [
                {"operator": "remove", "value": {"propagationpolicy.karmada.io/permanent-id": ""}},
                {"operator": "add", "value": {"resourcebinding.karmada.io/permanent-id": "x"}},
            ],
            "annotationsOverrider": [
                {"operator": "replace", "value": {"propagationpolicy.karmada.io/name": "other"}}
            ],
        },
    }
    docs = [*CLUSTERS, NS, make_deployment(), make_policy("web"), _override("claim", [rule])]
    result = render_docs(docs)
    east, eu1 = (manifest(result, _path(c))["metadata"] for c in ("east", "eu1"))
    assert "propagationpolicy.karmada.io/permanent-id" in east["labels"]
    assert "propagationpolicy.karmada.io/permanent-id" not in eu1["labels"]
    assert eu1["annotations"]["propagationpolicy.karmada.io/name"] == "other"
    assert east["annotations"]["propagationpolicy.karmada.io/name"] == "web"
    binding_id = east["labels"]["resourcebinding.karmada.io/permanent-id"]
    assert eu1["labels"]["resourcebinding.karmada.io/permanent-id"] == binding_id != "x"


def test_a_claim_the_template_was_written_with_gives_way_to_the_bindings(
    render_docs: Render,
) -> None:
    """Karmada's detector cleans a claim it does not keep from the stored template."""
    stale = {"clusterpropagationpolicy.karmada.io/permanent-id": "old"}
    deployment = make_deployment(
        labels={"app": "web", **stale},
        annotations={"clusterpropagationpolicy.karmada.io/name": "gone", "team": "a"},
    )
    result = render_docs([*CLUSTERS, NS, deployment, make_policy("web")])
    metadata = manifest(result, _path("east"))["metadata"]
    assert not [k for k in metadata["labels"] if k.startswith("clusterpropagationpolicy")]
    assert not [k for k in metadata["annotations"] if k.startswith("clusterpropagationpolicy")]
    assert metadata["annotations"]["propagationpolicy.karmada.io/name"] == "web"
    assert metadata["annotations"]["team"] == "a"


def test_numbers_as_karmada_ships_them(render_docs: Render) -> None:
    deployment = make_deployment()
    deployment["spec"]["replicas"] = 2.0
    deployment["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] = 30.0
    deployment["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = 1.5
    result = render_docs([*CLUSTERS, NS, deployment, make_policy("web")])
    content = result.files[_path("east")]
    assert not isinstance(content, objects.Blob)
    data = bytes(content)
    assert b"replicas: 2\n" in data
    assert b"terminationGracePeriodSeconds: 30\n" in data
    assert b"cpu: 1.5\n" in data


def test_dependencies_follow_their_workload(render_docs: Render) -> None:
    deployment = make_deployment()
    deployment["spec"]["template"]["spec"]["containers"][0]["envFrom"] = [
        {"configMapRef": {"name": "settings"}}
    ]
    placement = {"clusterAffinity": {"clusterNames": ["west"]}}
    policy = make_policy("web", placement=placement, propagateDeps=True)
    result = render_docs([*CLUSTERS, NS, deployment, make_configmap(), policy])
    assert _path("west", "settings", "ConfigMap.core") in result.files
    assert _path("east", "settings", "ConfigMap.core") not in result.files


def _broken_rule(target: str) -> dict[str, Any]:
    return {
        "targetCluster": {"clusterNames": [target]},
        "overriders": {
            "plaintext": [{"path": "/spec/missing/field", "operator": "replace", "value": 1}]
        },
    }


def test_failing_override_refuses_one_cluster_and_keeps_its_previous_manifest(
    render_docs: Render,
) -> None:
    branch = Branch()
    docs = [*CLUSTERS, NS, make_deployment(), make_policy("web")]
    branch.commit(render_docs(docs))
    broken = render_docs([*docs, _override("broken", [_broken_rule("west")])], branch.previous())
    (refusal,) = broken.refusals
    assert refusal.cluster == "west"
    assert (refusal.origin.path, refusal.origin.line) == ("apps.yaml", 7)  # the policy
    assert refusal.origin.keys[-3:] == ("plaintext", 0, "path")
    assert "override policy shop/broken" in refusal.message
    assert broken.files[_path("west")] == objects.Blob(branch.files[_path("west")])
    assert broken.rendered_bindings == 1 and _path("east") in broken.files
    fresh = render_docs([*docs, _override("broken", [_broken_rule("west")])])
    assert _path("west") not in fresh.files
    assert [r.cluster for r in fresh.refusals] == ["west"]


SECRET_NOTE = "gitfleet.io/allow-plaintext-secret"


@pytest.mark.parametrize(
    ("annotations", "written"),
    [
        pytest.param({}, False, id="refused"),
        pytest.param({SECRET_NOTE: "yes"}, False, id="only true opts in"),
        pytest.param({SECRET_NOTE: "true"}, True, id="opted in"),
    ],
)
def test_secrets_need_an_explicit_opt_in(
    render_docs: Render, annotations: dict[str, str], written: bool
) -> None:
    secret = make_object("v1", "Secret", "creds", "shop", annotations=annotations)
    secret["stringData"] = {"password": "hunter2"}
    policy = make_policy("creds", selector("Secret", "v1"))
    result = render_docs([*CLUSTERS, NS, secret, policy])
    assert (_path("east", "creds", "Secret.core") in result.files) is written
    if not written:
        (refusal,) = result.refusals
        assert refusal.cluster == "" and SECRET_NOTE in refusal.message
        written_files = [c for c in result.files.values() if not isinstance(c, objects.Blob)]
        assert all(b"hunter2" not in bytes(c) for c in written_files)


def test_manifest_over_one_and_a_half_mebibyte_is_refused(render_docs: Render) -> None:
    chunk = "x" * (200 * 1024)
    path = "/spec/template/spec/containers/0/args"
    bomb = {"overriders": {"plaintext": [{"path": path, "operator": "add", "value": [chunk] * 8}]}}
    docs = [*CLUSTERS, NS, make_deployment(), make_policy("web"), _override("bomb", [bomb])]
    result = render_docs(docs)
    assert not any(p.startswith("works/") and p.endswith("/web.yaml") for p in result.files)
    assert {r.cluster for r in result.refusals} == {"east", "west", "eu1"}
    assert all("over the limit of 1572864" in r.message for r in result.refusals)


def test_a_configmap_of_one_mebibyte_is_rendered(render_docs: Render) -> None:
    """Kubernetes takes up to 1 MiB of values in a ConfigMap: its manifest is more than that."""
    config = make_object("v1", "ConfigMap", "full", "shop")
    config["data"] = {"blob": "x" * (1024 * 1024)}
    result = render_docs([*CLUSTERS, NS, config, make_policy("full", selector("ConfigMap", "v1"))])
    assert not result.refusals
    assert _path("east", "full", "ConfigMap.core") in result.files


def test_suspended_dispatching_keeps_what_clusters_have(render_docs: Render) -> None:
    branch = Branch()
    docs = [*CLUSTERS, NS, make_deployment(replicas=2), make_policy("web")]
    branch.commit(render_docs(docs))
    suspended = make_policy("web", suspension={"dispatchingOnClusters": {"clusterNames": ["west"]}})
    docs = [*CLUSTERS, NS, make_deployment(replicas=4), suspended]
    result = render_docs(docs, branch.previous())
    assert isinstance(result.files[_path("west")], objects.Blob)
    assert manifest(result, _path("east"))["spec"]["replicas"] == 4
    assert _path("west") not in render_docs(docs).files


def test_manifest_text_like_the_shared_label_is_kept(render_docs: Render) -> None:
    tricky = "gitfleet.io/cluster: gitfleet-cluster-label-placeholder-6b1f0c3a\n"
    config = make_configmap(labels={"extra": "yes"})
    config["data"] = {"config": tricky}
    policy = make_policy("settings", selector("ConfigMap", "v1"))
    result = render_docs([*CLUSTERS, NS, config, policy])
    for name in ("east", "west"):
        doc = manifest(result, _path(name, "settings", "ConfigMap.core"))
        assert doc["data"] == {"config": tricky}
        assert doc["metadata"]["labels"]["gitfleet.io/cluster"] == name
