"""When a binding must leave a cluster with NoExecute taints (gitfleet.failover._taints, after
Karmada's taint manager and pkg/util/helper/taint.go).

Aspects: no NoExecute taint (NoSchedule ones do not count) is never; an untolerated taint is
at once; a tolerated one with seconds is its timeAdded plus the seconds, the earliest over the
taints, and one past what a datetime holds (seconds up to int64, as Karmada allows) the last
moment there is, not an overflow; a taint without timeAdded or a toleration without seconds
is tolerated for good; the first tolerating toleration is the one used; default tolerations
are added only when the policy has no identical one; the purge mode comes from the policy,
then the setting.
"""

from __future__ import annotations

import datetime

import pytest

from gitfleet.failover import _taints
from gitfleet.model import loaded, meta, policy, work

NOW = datetime.datetime(2026, 3, 1, 12, 0, 0, tzinfo=datetime.UTC)
UNREACHABLE = "cluster.karmada.io/unreachable"
NOT_READY = "cluster.karmada.io/not-ready"
LATEST = datetime.datetime.max.replace(tzinfo=datetime.UTC)
"""A deadline past what a datetime holds: never reached."""


def taint(
    key: str, effect: str = "NoExecute", added: str | None = "2026-03-01T11:59:00Z"
) -> meta.Taint:
    return meta.Taint(key=key, effect=effect, time_added=added)


def tolerate(
    key: str = "", seconds: int | None = None, operator: str = "Exists"
) -> meta.Toleration:
    return meta.Toleration(
        key=key, operator=operator, effect="NoExecute", toleration_seconds=seconds
    )


def minute(m: float) -> datetime.datetime:
    return datetime.datetime(2026, 3, 1, 11, 59, 0, tzinfo=datetime.UTC) + datetime.timedelta(
        minutes=m
    )


@pytest.mark.parametrize(
    ("taints", "tolerations", "expected"),
    [
        pytest.param([], [], None, id="no taint"),
        pytest.param([taint(UNREACHABLE, "NoSchedule")], [], None, id="NoSchedule only"),
        pytest.param([taint(UNREACHABLE)], [], NOW, id="untolerated"),
        pytest.param([taint(UNREACHABLE)], [tolerate(NOT_READY, 60)], NOW, id="other key"),
        pytest.param([taint(UNREACHABLE)], [tolerate(UNREACHABLE, 120)], minute(2), id="seconds"),
        pytest.param([taint(UNREACHABLE)], [tolerate(UNREACHABLE)], None, id="forever"),
        pytest.param(
            [taint(UNREACHABLE), taint(NOT_READY, added="2026-03-01T11:58:00Z")],
            [tolerate(UNREACHABLE, 120), tolerate(NOT_READY, 120)],
            minute(1),
            id="earliest trigger",
        ),
        pytest.param(
            [taint(UNREACHABLE), taint(NOT_READY)], [tolerate(UNREACHABLE, 120)], NOW,
            id="one of two untolerated",
        ),
        pytest.param(
            [taint(UNREACHABLE, added=None)], [tolerate(UNREACHABLE, 1)], None,
            id="no timeAdded",
        ),
        pytest.param(
            [taint(UNREACHABLE)], [tolerate("", None), tolerate(UNREACHABLE, 1)], None,
            id="first tolerating toleration is used",
        ),
        pytest.param(
            [taint(UNREACHABLE)], [tolerate(UNREACHABLE, 10**23)], LATEST,
            id="seconds past any date",
        ),
        pytest.param(
            [taint(UNREACHABLE)], [tolerate(UNREACHABLE, 2**63 - 1)], LATEST,
            id="int64 seconds",
        ),
        pytest.param(
            [taint(UNREACHABLE, added="9999-12-31T23:59:00Z")], [tolerate(UNREACHABLE, 120)],
            LATEST, id="added at the end of time",
        ),
    ],
)  # fmt: skip
def test_eviction_time(
    taints: list[meta.Taint],
    tolerations: list[meta.Toleration],
    expected: datetime.datetime | None,
) -> None:
    assert _taints.eviction_time(taints, tolerations, NOW) == expected


def test_default_tolerations_join_the_policy_ones_unless_the_same() -> None:
    """corev1 MatchToleration compares key, operator, value and effect, not the seconds."""
    settings = loaded.FailoverSettings(default_toleration_seconds=300)
    same = meta.Toleration(
        key=NOT_READY, operator="Exists", effect="NoExecute", toleration_seconds=5
    )
    found = _taints.tolerations(policy.Placement(cluster_tolerations=(same,)), settings)
    assert [(t.key, t.toleration_seconds) for t in found] == [(NOT_READY, 5), (UNREACHABLE, 300)]
    none = loaded.FailoverSettings(default_toleration_seconds=None)
    assert _taints.tolerations(None, none) == ()


@pytest.mark.parametrize(
    ("failover", "setting", "expected"),
    [
        pytest.param(None, policy.PurgeMode.GRACEFULLY, "Gracefully", id="setting"),
        pytest.param(None, policy.PurgeMode.DIRECTLY, "Directly", id="setting Directly"),
        pytest.param(
            policy.FailoverBehavior(cluster=policy.ClusterFailoverBehavior()),
            policy.PurgeMode.DIRECTLY, "Gracefully", id="policy default",
        ),
        pytest.param(
            policy.FailoverBehavior(
                cluster=policy.ClusterFailoverBehavior(purge_mode=policy.PurgeMode.DIRECTLY)
            ),
            policy.PurgeMode.GRACEFULLY, "Directly", id="policy Directly",
        ),
    ],
)  # fmt: skip
def test_purge_mode(
    failover: policy.FailoverBehavior | None, setting: policy.PurgeMode, expected: str
) -> None:
    spec = work.ResourceBindingSpec(
        resource=work.ObjectReference(api_version="v1", kind="ConfigMap", name="x"),
        failover=failover,
    )
    settings = loaded.FailoverSettings(purge_mode=setting)
    assert _taints.purge_mode(spec, settings) == expected
