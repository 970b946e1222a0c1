"""Where a cluster's reported capacity comes from.

Aspects covered: no report is the declared capacity; CompleteResourceSummary False keeps the
last known summaries, or the declared capacity when there are none, with the reason; collected
with no nodes is empty; a report without the condition (an agent or Karmada that does not write
it) is collected when it holds summaries and declared when not.
"""

from __future__ import annotations

import pytest

from gitfleet.model import capacity, cluster, meta

NODES = cluster.NodeSummary(total_num=2, ready_num=1)
NONE = cluster.NodeSummary(total_num=0, ready_num=0)


def _status(
    condition: str | None, nodes: cluster.NodeSummary | None = None
) -> cluster.ClusterStatus:
    found = (
        ()
        if condition is None
        else (
            meta.Condition(
                type=capacity.SUMMARY_CONDITION, status=condition, reason="R", message="M"
            ),
        )
    )
    summary = cluster.ResourceSummary() if nodes is not None else None
    return cluster.ClusterStatus(conditions=found, node_summary=nodes, resource_summary=summary)


@pytest.mark.parametrize(
    ("reported", "expected"),
    [
        pytest.param(None, (capacity.Source.DECLARED, None, ""), id="no report"),
        pytest.param(
            _status("True", NODES), (capacity.Source.COLLECTED, NODES, ""), id="collected"
        ),
        pytest.param(_status("True", NONE), (capacity.Source.EMPTY, NONE, ""), id="no nodes"),
        pytest.param(_status("False", NODES), (capacity.Source.LAST_KNOWN, NODES, "R"), id="kept"),
        pytest.param(
            _status("Unknown", NODES), (capacity.Source.LAST_KNOWN, NODES, "R"), id="unknown"
        ),
        pytest.param(_status("False"), (capacity.Source.DECLARED, None, "R"), id="never collected"),
        pytest.param(
            _status(None, NODES), (capacity.Source.COLLECTED, NODES, ""), id="no condition"
        ),
        pytest.param(_status(None), (capacity.Source.DECLARED, None, ""), id="no summaries"),
    ],
)
def test_source(
    reported: cluster.ClusterStatus | None,
    expected: tuple[capacity.Source, cluster.NodeSummary | None, str],
) -> None:
    found = capacity.of(reported)
    assert (found.source, found.nodes, found.reason) == expected
