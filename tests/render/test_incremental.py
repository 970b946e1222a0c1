"""Incremental rendering gives the tree a full render gives.

Aspects covered:
- property: over random sequences of source commits (templates added, edited, deleted,
  renamed, moved to another file and to a namespace the source does not define; policies
  switching
  strategy or clusters; override policies added and removed; clusters added, removed and
  relabelled), each rendered on top
  of the previous render, reusing bindings whose inputs did not change gives exactly the
  files of rendering every binding again;
- a commit that changes nothing renders no binding and is not a change; a source commit that
  changes only where the source is (`sourceCommit`) is not a change either;
- one changed template renders only its binding;
- the very commit (and cluster status) the previous render was made from computes nothing,
  unless the render is full;
- a binding whose inputs did not change is neither detected nor scheduled again; it is
  reused only once it has settled (a binding the scheduler would still reorder is placed
  again); a change of the shared inputs (a cluster, a status, failover with an unhealthy
  cluster) places every binding again, and a new status alone makes no commit; a new
  capacity alone places again only the bindings whose schedule reads it, and nodes reported
  with other resources only when one of them changes grade (the render grades them into
  `allocatableModelings`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
import yaml
from builders import make_configmap, make_deployment, make_object, make_policy, object_set, selector
from hypothesis import given, settings
from hypothesis import strategies as st
from render_builders import Branch, cluster

from gitfleet import failover, pipeline
from gitfleet.gitstore import objects
from gitfleet.model import cluster as model_cluster
from gitfleet.model import loaded
from gitfleet.model import objects as model_objects
from gitfleet.render import TEMPLATE_ANNOTATION

Doc = dict[str, Any]
NAMES = ("web", "api", "db")
CLUSTERS = ("east", "west", "eu1", "ap1")
PLACEMENTS: dict[str, Doc] = {
    "duplicated": {},
    "two": {"clusterAffinity": {"clusterNames": ["east", "eu1"]}},
    "divided": {
        "replicaScheduling": {
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
            "weightPreference": {
                "staticWeightList": [
                    {
                        "targetCluster": {"labelSelector": {"matchLabels": {"tier": "a"}}},
                        "weight": 2,
                    },
                    {
                        "targetCluster": {"labelSelector": {"matchLabels": {"tier": "b"}}},
                        "weight": 1,
                    },
                ]
            },
        }
    },
}


@dataclasses.dataclass
class Source:
    """A source repository as files: path to documents."""

    files: dict[str, list[Doc]] = dataclasses.field(default_factory=dict)
    revision: int = 0

    def loaded(self) -> loaded.LoadedSource:
        fields: dict[str, list[Any]] = {}
        for path, docs in sorted(self.files.items()):
            part = object_set(docs, path=path)
            for f in dataclasses.fields(part):
                fields.setdefault(f.name, []).extend(getattr(part, f.name))
        return loaded.LoadedSource(
            objects=model_objects.ObjectSet(**{k: tuple(v) for k, v in fields.items()}),
            documents=(),
            diagnostics=(),
            revision=f"{self.revision:040x}",
            config=loaded.SourceConfig(),
        )


def _start() -> Source:
    source = Source()
    source.files["clusters.yaml"] = [
        cluster(n, tier="a" if i % 2 else "b") for i, n in enumerate(CLUSTERS[:3])
    ]
    source.files["ns.yaml"] = [make_object("v1", "Namespace", "shop")]
    source.files["policy.yaml"] = [make_policy("all", selector(), selector("ConfigMap", "v1"))]
    source.files["apps/web.yaml"] = [make_deployment("web", replicas=3)]
    source.files["apps/settings.yaml"] = [make_configmap()]
    return source


def _override(target_tier: str) -> Doc:
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "metadata": {"name": "tiers", "namespace": "shop"},
        "spec": {
            "resourceSelectors": [selector()],
            "overrideRules": [{
                "targetCluster": {"labelSelector": {"matchLabels": {"tier": target_tier}}},
                "overriders": {
                    "labelsOverrider": [{"operator": "add", "value": {"tier": target_tier}}]
                },
            }],
        },
    }  # fmt: skip


def _file_of(source: Source, name: str) -> str | None:
    """The file holding the Deployment `name`."""
    for path, docs in source.files.items():
        if any(d["kind"] == "Deployment" and d["metadata"]["name"] == name for d in docs):
            return path
    return None


def _apply(source: Source, change: tuple[str, str, int]) -> None:
    what, name, number = change
    path = _file_of(source, name) or f"apps/{name}.yaml"
    if what == "add or edit":
        source.files[path] = [make_deployment(name, replicas=number, labels={"v": str(number)})]
    elif what == "delete":
        source.files.pop(path, None)
    elif what == "rename" and path in source.files:
        new = NAMES[(NAMES.index(name) + 1) % len(NAMES)]
        if _file_of(source, new) is None:
            doc = source.files.pop(path)[0]
            doc["metadata"]["name"] = new
            source.files[f"apps/{new}.yaml"] = [doc]
    elif what == "move" and path in source.files:
        source.files[f"moved/{name}-{number}.yaml"] = source.files.pop(path)
    elif what == "placement":
        placement = list(PLACEMENTS.values())[number % len(PLACEMENTS)]
        policy = make_policy("all", selector(), selector("ConfigMap", "v1"), placement=placement)
        source.files["policy.yaml"] = [policy]
    elif what == "override":
        source.files["override.yaml"] = [_override("ab"[number % 2])]
    elif what == "no override":
        source.files.pop("override.yaml", None)
    elif what == "cluster":
        clusters = source.files["clusters.yaml"]
        names = [c["metadata"]["name"] for c in clusters]
        chosen = CLUSTERS[number % len(CLUSTERS)]
        if chosen in names and len(names) > 1:
            clusters.pop(names.index(chosen))
        elif chosen not in names:
            clusters.append(cluster(chosen, tier="ab"[number % 2]))
    elif what == "namespace" and path in source.files:
        team = f"team{number % 2}"  # not defined: each cluster gets a generated Namespace
        source.files[path][0]["metadata"]["namespace"] = team
        source.files[f"teams/{team}.yaml"] = [make_policy("all", selector(), namespace=team)]
    elif what == "lazy" and "policy.yaml" in source.files:
        spec = source.files["policy.yaml"][0]["spec"]
        spec.pop("activationPreference", None)
        if number % 2:
            spec["activationPreference"] = "Lazy"
    elif what == "policy gone or back":
        if "policy.yaml" in source.files:
            source.files.pop("policy.yaml")
        else:
            lazy = {"activationPreference": "Lazy"} if number % 2 else {}
            source.files["policy.yaml"] = [
                make_policy("all", selector(), selector("ConfigMap", "v1"), **lazy)
            ]
    elif what == "relabel":
        for c in source.files["clusters.yaml"]:
            if c["metadata"]["name"] == CLUSTERS[number % len(CLUSTERS)]:
                c["metadata"]["labels"]["tier"] = "ab"[number % 2]


CHANGES = st.tuples(
    st.sampled_from(
        ["add or edit", "delete", "rename", "move", "placement", "override", "no override",
         "cluster", "relabel", "namespace", "lazy", "policy gone or back", "nothing"]
    ),
    st.sampled_from(NAMES),
    st.integers(min_value=0, max_value=7),
)  # fmt: skip


def _materialise(branch: Branch, result: pipeline.RenderResult) -> dict[str, bytes]:
    return {
        p: branch.blobs[c.id] if isinstance(c, objects.Blob) else c for p, c in result.files.items()
    }


def _render(source: Source, branch: Branch, full: bool = False) -> pipeline.RenderResult:
    result = pipeline.render(source.loaded(), branch.previous(), None, full=full)
    assert result.ok, [str(d) for d in result.diagnostics]
    return result


@settings(max_examples=25, deadline=None)
@given(st.lists(CHANGES, min_size=1, max_size=6))
def test_incremental_equals_full(changes: list[tuple[str, str, int]]) -> None:
    source, branch = _start(), Branch()
    branch.commit(_render(source, branch))
    for change in changes:
        _apply(source, change)
        source.revision += 1
        incremental = _render(source, branch)
        full = _render(source, branch, full=True)
        assert _materialise(branch, incremental) == _materialise(branch, full)
        assert incremental.changed == full.changed
        assert incremental.rendered_bindings <= full.rendered_bindings
        branch.commit(incremental)


def test_unchanged_source_renders_nothing() -> None:
    source, branch = _start(), Branch()
    first = branch.commit(_render(source, branch))
    source.revision += 1
    again = _render(source, branch)
    assert again.rendered_bindings == 0
    assert not again.changed
    assert _materialise(branch, again) == first


def test_one_changed_template_renders_one_binding() -> None:
    source, branch = _start(), Branch()
    branch.commit(_render(source, branch))
    _apply(source, ("add or edit", "web", 5))
    source.revision += 1
    result = _render(source, branch)
    assert result.rendered_bindings == 1
    assert result.changed
    changed = {name: c.changed for name, c in result.clusters.items()}
    assert changed == {n: ("shop/Deployment.apps/web.yaml",) for n in CLUSTERS[:3]}


def test_a_template_gone_takes_its_files_and_its_generated_namespace_with_it() -> None:
    source, branch = _start(), Branch()
    _apply(source, ("namespace", "web", 0))
    branch.commit(_render(source, branch))
    generated = "works/east/_cluster/Namespace.core/team0.yaml"
    assert generated in branch.files
    assert "works/east/team0/Deployment.apps/web.yaml" in branch.files
    _apply(source, ("delete", "web", 0))
    source.revision += 1
    result = _render(source, branch)
    assert result.rendered_bindings == 0  # an incremental render: nothing else changed
    assert "works/east/kustomization.yaml" in result.changes
    files = branch.commit(result)
    assert not any("team0" in path for path in files)
    assert b"team0" not in files["works/east/kustomization.yaml"]
    assert yaml.safe_load(files["render.yaml"])["clusters"]["east"]["manifests"] == sum(
        1 for p in files if p.startswith("works/east/") and not p.endswith("kustomization.yaml")
    )


@pytest.mark.parametrize(
    ("with_binding", "stray"),
    [
        (True, "works/east/shop/Deployment.apps/ghost.yaml"),
        (False, "works/east/shop/Deployment.apps/ghost.yaml"),
        (False, "works/east/ghost.yaml"),
    ],
    ids=["binding unreadable", "file added", "file added beside the kustomization"],
)
def test_a_previous_tree_holding_what_no_binding_made_is_settled_whole(
    with_binding: bool, stray: str
) -> None:
    """A file added to a render commit by hand (or a binding file that cannot be read back,
    whose files no binding names) is seen: the next render removes every file nothing made,
    as a full render does."""
    source, branch = _start(), Branch()
    branch.commit(_render(source, branch))
    previous = branch.previous()
    assert previous is not None and previous.complete
    content = b"kind: ConfigMap\n"
    oid = objects.SHA1.object_id(objects.BLOB, content)
    branch.blobs[oid] = content
    if with_binding:
        branch.files["bindings/shop/Deployment.apps/ghost.yaml"] = oid
    branch.files[stray] = oid
    previous = branch.previous()
    assert previous is not None and not previous.complete
    _apply(source, ("add or edit", "web", 5))
    source.revision += 1
    result = _render(source, branch)
    assert _materialise(branch, result) == _materialise(branch, _render(source, branch, True))
    files = branch.commit(result)
    assert not any("ghost" in path for path in files)


def test_the_commit_already_rendered_computes_nothing() -> None:
    source, branch = _start(), Branch()
    first = branch.commit(_render(source, branch))
    again = _render(source, branch)
    assert not again.changed and again.placement is None
    assert _materialise(branch, again) == first
    full = _render(source, branch, full=True)
    assert not full.changed and full.placement is not None


def _annotations(branch: Branch, path: str) -> dict[str, str]:
    doc = yaml.safe_load(branch.contents()[path])
    return dict(doc["metadata"].get("annotations") or {})


def test_unchanged_bindings_are_neither_detected_nor_scheduled_again() -> None:
    source, branch = _start(), Branch()
    branch.commit(_render(source, branch))
    _apply(source, ("add or edit", "web", 5))
    source.revision += 1
    result = _render(source, branch)
    assert result.placement is not None
    scheduled = [s.binding.name for s in result.placement.schedules]
    assert scheduled == ["web-deployment"]
    full = _render(source, branch, full=True)
    assert full.placement is not None and len(full.placement.schedules) == 2


def test_a_binding_says_what_it_was_made_from_once_it_has_settled() -> None:
    source, branch = _start(), Branch()
    branch.commit(_render(source, branch))
    settings = "bindings/shop/ConfigMap.core/settings.yaml"
    assert TEMPLATE_ANNOTATION in _annotations(branch, settings)
    _apply(source, ("cluster", "web", 3))  # a fourth cluster: the result is reordered next time
    source.revision += 1
    grown = _render(source, branch)
    branch.commit(grown)
    assert TEMPLATE_ANNOTATION not in _annotations(branch, settings)
    source.revision += 1
    again = _render(source, branch)
    assert again.changed and settings in again.changes
    assert again.files == _render(source, branch, full=True).files
    branch.commit(again)
    assert TEMPLATE_ANNOTATION in _annotations(branch, settings)
    source.revision += 1
    assert not _render(source, branch).changed


def test_shared_inputs_changing_places_every_binding_again() -> None:
    source, branch = _start(), Branch()
    branch.commit(_render(source, branch))
    _apply(source, ("relabel", "web", 0))
    source.revision += 1
    result = _render(source, branch)
    assert result.placement is not None and len(result.placement.schedules) == 2


def test_a_new_status_alone_makes_no_commit_but_is_placed_with() -> None:
    source, branch = _start(), Branch()
    branch.commit(_render(source, branch))
    before = yaml.safe_load(branch.contents()["render.yaml"])["inputs"]
    status = {"east": model_cluster.ClusterStatus(kubernetes_version="v1.31.0")}
    source.revision += 1
    result = pipeline.render(source.loaded(), branch.previous(), status)
    assert result.ok and not result.changed
    assert result.placement is not None and len(result.placement.schedules) == 2
    assert yaml.safe_load(branch.contents()["render.yaml"])["inputs"] == before


def _capacity(cpu: str) -> dict[str, model_cluster.ClusterStatus]:
    offered = {"cpu": cpu, "memory": "64Gi", "pods": "110"}
    summary = model_cluster.ResourceSummary(allocatable=offered)
    return {"east": model_cluster.ClusterStatus(resource_summary=summary)}


@pytest.mark.parametrize(
    ("placement", "placed_again"),
    [(0, ["web-deployment"]), (2, [])],
    ids=["duplicated: ordered by capacity", "divided and scheduled: kept whatever capacity"],
)
def test_a_new_capacity_places_again_only_what_reads_it(
    placement: int, placed_again: list[str]
) -> None:
    source, branch = _start(), Branch()
    _apply(source, ("placement", "web", placement))
    first = pipeline.render(source.loaded(), None, _capacity("8"))
    branch.commit(first)
    source.revision += 1
    result = pipeline.render(source.loaded(), branch.previous(), _capacity("4"))
    assert result.placement is not None
    assert [s.binding.name for s in result.placement.schedules] == placed_again
    full = pipeline.render(source.loaded(), branch.previous(), _capacity("4"), full=True)
    assert _materialise(branch, result) == _materialise(branch, full)


def _nodes(*cpus: str) -> dict[str, model_cluster.ClusterStatus]:
    """Nodes of 64Gi with these CPUs available, under an unchanging summary."""
    nodes = tuple(
        model_cluster.NodeAvailable(count=1, resources={"cpu": cpu, "memory": "64Gi"})
        for cpu in cpus
    )
    offered = {"cpu": "16", "memory": "128Gi", "pods": "220"}
    summary = model_cluster.ResourceSummary(allocatable=offered, node_available=nodes)
    return {"east": model_cluster.ClusterStatus(resource_summary=summary)}


@pytest.mark.parametrize(
    ("cpus", "placed_again"),
    [(("5", "3"), []), (("9", "3"), ["web-deployment"])],
    ids=["nodes within their grades", "a node in another grade"],
)
def test_node_resources_place_again_only_when_a_grade_changes(
    cpus: tuple[str, ...], placed_again: list[str]
) -> None:
    """By Karmada's default models 4 and 5 CPUs (with 64Gi) are grade 3, 9 CPUs grade 4."""
    source, branch = _start(), Branch()
    _apply(source, ("placement", "web", 0))
    branch.commit(pipeline.render(source.loaded(), None, _nodes("4", "3")))
    source.revision += 1
    result = pipeline.render(source.loaded(), branch.previous(), _nodes(*cpus))
    assert result.placement is not None
    assert [s.binding.name for s in result.placement.schedules] == placed_again
    full = pipeline.render(source.loaded(), branch.previous(), _nodes(*cpus), full=True)
    assert _materialise(branch, result) == _materialise(branch, full)


def test_failover_with_an_unhealthy_cluster_places_every_binding_again() -> None:
    source, branch = _start(), Branch()
    branch.commit(_render(source, branch))
    source.revision += 1
    at = "2026-01-01T00:10:00Z"
    healthy = failover.Report(heartbeat="2026-01-01T00:09:59Z")
    silent = failover.Report(heartbeat="2026-01-01T00:00:00Z")
    quiet = failover.Observed(at=at, reports={n: healthy for n in CLUSTERS[:3]})
    result = pipeline.render(source.loaded(), branch.previous(), None, observed=quiet)
    assert result.placement is not None and result.placement.schedules == ()
    unhealthy = failover.Observed(at=at, reports={**quiet.reports, "west": silent})
    result = pipeline.render(source.loaded(), branch.previous(), None, observed=unhealthy)
    assert result.placement is not None and len(result.placement.schedules) == 2
