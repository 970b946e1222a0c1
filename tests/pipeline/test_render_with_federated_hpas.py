"""A render with FederatedHPAs (gitfleet.pipeline.render with `measured`).

Aspects: templates no FederatedHPA targets are rendered byte for byte as without one; the
target's binding takes the decided replicas and the scheduler divides them, its manifests carry
the annotation the agents measure by; the FederatedHPA's file is in the tree and read back as
the previous render's; measurements of clusters the binding does not use are left out; a
damaged file on the rendered branch restarts the autoscaler's memory instead of failing.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from builders import make_cluster, make_deployment, make_federated_hpa, make_object, make_policy

from gitfleet import autoscaling, failover, pipeline, source
from gitfleet.model.template import ResourceKey

DIVIDED = {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"}
PLACEMENT = {"clusterAffinity": {"clusterNames": ["m1", "m2"]}, "replicaScheduling": DIVIDED}
KEY = ResourceKey("apps/v1", "Deployment", "shop", "web")
HPA_FILE = "autoscaling/shop/web.yaml"
OBSERVED = failover.Observed(at="2026-01-01T12:00:00Z")


def _load(tmp_path: Path, name: str, docs: list[dict[str, Any]]) -> Any:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "fleet.yaml").write_text(yaml.safe_dump_all(docs))
    return source.load(folder)


def _docs(*extra: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        make_cluster("m1"),
        make_cluster("m2"),
        make_object("v1", "Namespace", "shop"),
        make_deployment("web", replicas=2),
        make_deployment("api", replicas=3),
        make_policy("all", placement=PLACEMENT),
        *extra,
    ]


def _pods(cluster: str, count: int, used: int) -> autoscaling.Workload:
    pods = tuple(
        autoscaling.Pod(
            name=f"web-{i}", phase="Running", ready=True, started="2026-01-01T10:00:00Z",
            ready_changed="2026-01-01T10:00:05Z", requests={"cpu": 100}, usage={"cpu": used},
        )
        for i in range(count)
    )  # fmt: skip
    return autoscaling.Workload(cluster=cluster, spec_replicas=count, pods=pods)


def _contents(changes: Mapping[str, Any]) -> dict[str, bytes]:
    """The bytes of every file a render wrote (its changes may make them on demand)."""
    return {p: bytes(d) for p, d in changes.items() if d is not None}


def _previous(result: pipeline.RenderResult) -> pipeline.PreviousRender:
    files = {p: str(i) for i, p in enumerate(result.changes)}
    contents = _contents(result.changes)
    return pipeline.read_previous("c1", files, lambda paths: {p: contents[p] for p in paths})


def test_other_templates_are_untouched(tmp_path: Path) -> None:
    plain = pipeline.render(_load(tmp_path, "plain", _docs()))
    scaled = pipeline.render(_load(tmp_path, "scaled", _docs(make_federated_hpa())))
    written = _contents(scaled.changes)
    others = {
        p: d
        for p, d in _contents(plain.changes).items()
        if "/web.yaml" not in p and "render" not in p
    }
    assert others and all(written[p] == d for p, d in others.items())
    web = yaml.safe_load(written["works/m1/shop/Deployment.apps/web.yaml"])
    assert web["metadata"]["annotations"]["gitfleet.io/federated-hpa"] == "shop/web"
    assert HPA_FILE not in scaled.changes, "nothing evaluated yet"


def test_decided_replicas_are_divided_and_remembered(tmp_path: Path) -> None:
    loaded_source = _load(tmp_path, "fleet", _docs(make_federated_hpa()))
    first = pipeline.render(loaded_source)
    measured = {KEY: [_pods("m1", 1, 90), _pods("m2", 1, 90), _pods("m9", 5, 900)]}
    second = pipeline.render(loaded_source, _previous(first), observed=OBSERVED, measured=measured)
    assert second.message("render x").startswith(
        "autoscale: FederatedHPA shop/web: cpu 90% of 50% target, 2 -> 4 replicas"
    ), "m9 does not run the workload"
    assert second.placement is not None
    (binding,) = [b for b in second.placement.bindings if b.spec.resource.name == "web"]
    assert binding.spec.replicas == 4
    assert sum(c.replicas for c in binding.spec.clusters) == 4
    assert HPA_FILE in second.changes
    kept = pipeline.render(loaded_source, _previous(second))
    assert kept.placement is not None
    (binding,) = [b for b in kept.placement.bindings if b.spec.resource.name == "web"]
    assert binding.spec.replicas == 4, "a render without measurements keeps the decision"


def test_a_damaged_file_starts_afresh(tmp_path: Path) -> None:
    loaded_source = _load(tmp_path, "fleet", _docs(make_federated_hpa()))
    first = pipeline.render(loaded_source)
    changes = {**first.changes, HPA_FILE: b"status: [\n"}
    files = {p: str(i) for i, p in enumerate(changes)}
    contents = _contents(changes)
    previous = pipeline.read_previous("c1", files, lambda paths: {p: contents[p] for p in paths})
    result = pipeline.render(loaded_source, previous, observed=OBSERVED, measured={})
    assert result.ok
    assert yaml.safe_load(_contents(result.changes)[HPA_FILE])["status"]["desiredReplicas"] == 2
