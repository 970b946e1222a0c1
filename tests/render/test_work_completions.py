"""A divided Job's completions, split by the clusters' replicas as Karmada's binding controller
splits them (divideReplicasByJobCompletions), called on `render_binding` directly so that the
binding can hold what the scheduler rarely makes.

Aspects covered:
- every cluster's share 0: nothing is split, each cluster keeps the template's count;
- a count that is no integer (null, a string) refuses every cluster, located at the field,
  except a batch/v1 Job's null, which its API server stores as no count: the manifests leave
  it out;
- a count beyond an int32 is cut to one, as Go converts it.
"""

from __future__ import annotations

from typing import Any

import pytest
from builders import make_cluster

from gitfleet import interpreter
from gitfleet import render as rendering
from gitfleet.model import cluster, work
from gitfleet.model.origin import Origin
from gitfleet.model.template import RawObject, ResourceTemplate
from gitfleet.render import _yamlread
from gitfleet.scheduler import webster

NAMES = ("east", "west")


def _context() -> rendering.Context:
    def divide(total: int, weights: Any, uid: str) -> Any:
        return webster.dispense(total, weights, (), uid)

    def override(doc: RawObject, member: cluster.Cluster) -> RawObject:
        return doc

    clusters = {n: cluster.Cluster.from_doc(make_cluster(n)) for n in NAMES}
    return rendering.Context(clusters, interpreter.Interpreter(), override, divide)


def _render(job: dict[str, Any], shares: tuple[int, int]) -> rendering.Output:
    binding = work.ResourceBinding.from_doc(
        {
            "apiVersion": "work.karmada.io/v1alpha2",
            "kind": "ResourceBinding",
            "metadata": {"name": "batch-job", "namespace": "shop"},
            "spec": {
                "resource": {"apiVersion": job["apiVersion"], "kind": "Job", "name": "batch"},
                "replicas": 3,
                "placement": {"replicaScheduling": {"replicaSchedulingType": "Divided"}},
                "clusters": [
                    {"name": n, "replicas": s} for n, s in zip(NAMES, shares, strict=True)
                ],
            },
        }
    )
    return rendering._work.render_binding(
        ResourceTemplate(job, Origin("jobs.yaml", 1, 1)), binding, _context()
    )


def _job(completions: Any, api_version: str = "batch/v1") -> dict[str, Any]:
    return {
        "apiVersion": api_version,
        "kind": "Job",
        "metadata": {"name": "batch", "namespace": "shop"},
        "spec": {
            "completions": completions,
            "template": {"spec": {"containers": [{"name": "c", "image": "busybox"}]}},
        },
    }


def _completions(output: rendering.Output) -> dict[str, Any]:
    found = {}
    for name, data in output.files.items():
        doc = _yamlread.load(bytes(data))
        assert doc is not None
        found[name] = doc["spec"].get("completions")
    return found


def test_shares_of_zero_split_nothing() -> None:
    assert _completions(_render(_job(6), (0, 0))) == {"east": 6, "west": 6}


def test_split_by_the_shares() -> None:
    assert _completions(_render(_job(6), (2, 1))) == {"east": 4, "west": 2}


def test_count_beyond_an_int32_is_cut_to_one() -> None:
    found = _completions(_render(_job((1 << 32) + 6, "example.io/v1"), (2, 1)))
    assert found == {"east": 4, "west": 2}


@pytest.mark.parametrize("completions", [None, "6", 1.5])
def test_count_that_is_no_integer_refuses_every_cluster(completions: Any) -> None:
    output = _render(_job(completions, "example.io/v1"), (2, 1))
    assert not output.files
    (refusal,) = output.refusals
    assert refusal.cluster == ""
    assert "spec.completions must be an integer" in refusal.message


def test_null_count_of_a_batch_job_is_no_count() -> None:
    output = _render(_job(None), (2, 1))
    assert _completions(output) == {"east": None, "west": None}
    assert not any(b"completions" in bytes(data) for data in output.files.values())
