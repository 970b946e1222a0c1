"""The rollout stage, one look at a time: which cluster refs move, and what is recorded.

Aspects covered:
- clusters with no ref, clusters that left the source and clusters already running the
  rollout's source commit move at once; the others wait for their wave;
- the first wave is released at once; the next only once every cluster of the one before is
  healthy on its ref (applied, every manifest healthy, a recent heartbeat) for its bake time;
  a wave this rollout did not change needs no bake;
- maxUnavailable releases a wave a few clusters at a time, counting only the clusters the
  rollout changed that are not healthy yet;
- a wave not healthy within its timeout halts the rollout (nothing more moves); with
  onFailure rollback its clusters go back to the render last healthy on them;
- Pause watches health but releases nothing and runs no timeout; Abort rolls back; Run after
  Abort starts over; the skip trailer releases everything;
- the recorded state reads back as it was written.
"""

from __future__ import annotations

import dataclasses
import datetime

import pytest
from builders import make_cluster

from gitfleet import rollout
from gitfleet.model import cluster, policy
from gitfleet.model import rollout as rollout_model

OLD, NEW = "s-old", "s-new"
T0 = 1_000_000.0


def _cluster(name: str, wave: str) -> cluster.Cluster:
    return cluster.Cluster.from_doc(make_cluster(name, labels={"wave": wave}))


CLUSTERS = (_cluster("a1", "one"), _cluster("a2", "one"), _cluster("b1", "two"))


def _wave(name: str, **settings: object) -> rollout_model.Wave:
    selector = policy.ClusterAffinity(
        label_selector=policy.meta.LabelSelector(match_labels={"wave": name})
    )
    return rollout_model.Wave(name=name, affinity=selector, **settings)  # type: ignore[arg-type]


class World:
    """Refs, reports and the time, moved as the reconciler and agents would."""

    def __init__(self, *waves: rollout_model.Wave, control: str = "Run") -> None:
        self.settings = rollout_model.RolloutSettings(
            waves=waves, control=rollout_model.Control(control)
        )
        self.refs = {c.name: rollout.Ref(commit=f"{c.name}-0", folder="old", source_commit=OLD)
                     for c in CLUSTERS}  # fmt: skip
        self.reports: dict[str, rollout.Report] = {}
        self.state: rollout.State | None = None
        self.now = T0
        self.folders = {c.name: "new" for c in CLUSTERS}
        self.source = NEW
        self.healthy_everywhere()

    def report(self, name: str, problem: str = "") -> None:
        beat = datetime.datetime.fromtimestamp(self.now, datetime.UTC)
        folder = self.refs[name].folder if name in self.refs else None
        self.reports[name] = rollout.Report(
            applied_folder=folder, applied=True, heartbeat=beat, problem=problem
        )

    def healthy_everywhere(self, *unhealthy: str) -> None:
        for name in self.refs:
            self.report(name, "Deployment web: Unhealthy" if name in unhealthy else "")

    def look(self, skip: bool = False) -> list[str]:
        """One step; the refs move as decided; the moved clusters, `name:folder`."""
        decision = rollout.step(
            rollout.Inputs(
                settings=self.settings, clusters=CLUSTERS,
                desired=rollout.Desired(
                    commit="tip", source_commit=self.source, folders=self.folders
                ),
                refs=self.refs, reports=self.reports, state=self.state, now=self.now,
                grace=40.0, skip=skip,
            )
        )  # fmt: skip
        self.state = rollout.from_doc(rollout.to_doc(decision.state))
        moved = []
        for r in decision.releases:
            count = (
                int(self.refs[r.cluster].commit.rpartition("-")[2]) + 1
                if r.cluster in self.refs
                else 0
            )
            self.refs[r.cluster] = rollout.Ref(
                commit=f"{r.cluster}-{count}", folder=r.folder, source_commit=r.source_commit
            )
            moved.append(f"{r.cluster}:{r.folder}")
        return moved

    def wave(self, name: str) -> rollout.WaveState:
        assert self.state is not None
        return next(w for w in self.state.waves if w.name == name)


def test_a_wave_goes_only_after_the_one_before_baked() -> None:
    world = World(_wave("one", bake_seconds=10), _wave("two"))
    assert world.look() == ["a1:new", "a2:new"]
    assert world.wave("two").phase is rollout.WavePhase.WAITING
    world.now += 1
    world.healthy_everywhere()
    assert world.look() == [], "healthy from now on: the bake begins"
    assert world.wave("one").phase is rollout.WavePhase.BAKING
    world.now += 9.5
    world.healthy_everywhere()
    assert world.look() == []
    world.now += 0.5
    world.healthy_everywhere()
    assert world.look() == ["b1:new"]
    world.now += 1
    world.healthy_everywhere()
    assert world.look() == []
    assert world.state is not None and world.state.phase is rollout.Phase.COMPLETE


@pytest.mark.parametrize(
    ("report", "why"),
    [
        pytest.param(
            {"problem": "ConfigMap c: Unhealthy"}, "ConfigMap c: Unhealthy", id="unhealthy"
        ),
        pytest.param({"applied_folder": "old"}, "its agent has not applied", id="not applied yet"),
        pytest.param({"heartbeat": None}, "no recent heartbeat", id="no heartbeat"),
    ],
)
def test_a_wave_not_healthy_holds_the_next(report: dict[str, object], why: str) -> None:
    world = World(_wave("one"), _wave("two"))
    world.look()
    world.now += 1
    world.healthy_everywhere()
    world.reports["a2"] = dataclasses.replace(world.reports["a2"], **report)  # type: ignore[arg-type]
    assert world.look() == []
    assert why in world.wave("one").waiting_for


def test_max_unavailable_releases_a_few_at_a_time() -> None:
    world = World(_wave("one", max_unavailable=rollout_model.Budget(count=1)), _wave("two"))
    assert world.look() == ["a1:new"]
    assert "1 more to release (maxUnavailable 1)" in world.wave("one").waiting_for
    world.now += 1
    assert world.look() == [], "a1 has not reported healthy on it yet"
    world.healthy_everywhere()
    assert world.look() == ["a2:new"]


def test_free_clusters_move_at_once() -> None:
    world = World(_wave("one"), _wave("two"))
    world.refs["b1"] = dataclasses.replace(world.refs["b1"], source_commit=NEW)
    del world.refs["a2"]
    world.refs["gone"] = rollout.Ref(commit="gone-0", folder="old", source_commit=OLD)
    world.folders["gone"] = None
    assert sorted(world.look()) == ["a1:new", "a2:new", "b1:new", "gone:None"]


def test_a_wave_this_rollout_did_not_change_needs_no_bake() -> None:
    world = World(_wave("one", bake_seconds=60), _wave("two"))
    world.refs["a1"] = dataclasses.replace(world.refs["a1"], folder="new")
    world.refs["a2"] = dataclasses.replace(world.refs["a2"], folder="new")
    world.healthy_everywhere()
    assert world.look() == ["b1:new"]


@pytest.mark.parametrize(
    ("on_failure", "expected"),
    [
        pytest.param(rollout_model.OnFailure.HALT, [], id="halt"),
        pytest.param(rollout_model.OnFailure.ROLLBACK, ["a1:old", "a2:old"], id="rollback"),
    ],
)
def test_a_wave_past_its_timeout_halts(
    on_failure: rollout_model.OnFailure, expected: list[str]
) -> None:
    world = World(_wave("one", timeout_seconds=30, on_failure=on_failure), _wave("two"))
    world.look()
    world.now += 31
    world.healthy_everywhere("a1")
    assert world.look() == expected
    assert world.state is not None and world.state.phase is rollout.Phase.HALTED
    assert "wave one not healthy within 30s (a1: Deployment web: Unhealthy)" in world.state.message
    assert world.wave("one").phase is rollout.WavePhase.FAILED
    world.now += 100
    world.healthy_everywhere()
    assert world.look() == [], "a halted rollout releases nothing"


def test_pause_watches_and_holds_and_abort_rolls_back() -> None:
    world = World(_wave("one", bake_seconds=10, timeout_seconds=5), _wave("two"), control="Pause")
    assert world.look() == [], "paused before anything was released"
    world.settings = dataclasses.replace(world.settings, control=rollout_model.Control.RUN)
    assert world.look() == ["a1:new", "a2:new"]
    world.settings = dataclasses.replace(world.settings, control=rollout_model.Control.PAUSE)
    world.now += 1
    world.healthy_everywhere()
    world.look()
    world.now += 20
    world.healthy_everywhere()
    assert world.look() == [], "baked, but paused"
    assert world.state is not None and world.state.phase is rollout.Phase.PAUSED
    world.settings = dataclasses.replace(world.settings, control=rollout_model.Control.ABORT)
    assert world.look() == ["a1:old", "a2:old"]
    assert world.state is not None and world.state.phase is rollout.Phase.ABORTED
    world.healthy_everywhere()
    assert world.look() == [], "aborted: nothing moves while Abort is set"
    world.settings = dataclasses.replace(world.settings, control=rollout_model.Control.RUN)
    assert world.look() == ["a1:new", "a2:new"], "Run starts the rollout over"


def test_the_skip_trailer_releases_everything() -> None:
    world = World(_wave("one"), _wave("two"))
    assert sorted(world.look(skip=True)) == ["a1:new", "a2:new", "b1:new"]
    assert world.state is not None and world.state.phase is rollout.Phase.SKIPPED


def test_a_new_source_commit_starts_over_from_the_first_wave() -> None:
    world = World(_wave("one", bake_seconds=10), _wave("two"))
    world.look()
    world.now += 1
    world.healthy_everywhere()
    world.look()
    world.source, world.folders = "s-newer", {c.name: "newer" for c in CLUSTERS}
    assert world.look() == ["a1:newer", "a2:newer"]
    assert world.state is not None and world.state.source_commit == "s-newer"
    assert world.state.last_healthy["b1"].folder == "old"


def test_the_recorded_state_reads_back() -> None:
    world = World(_wave("one", bake_seconds=0.25), _wave("two"))
    world.look()
    world.now += 1.5
    world.healthy_everywhere()
    world.look()
    assert world.state is not None
    assert rollout.from_doc(rollout.to_doc(world.state)) == world.state
    assert rollout.from_doc({"kind": "Other"}) is None


def test_clusters_unhealthy_before_the_rollout_do_not_use_up_max_unavailable() -> None:
    world = World(_wave("one", max_unavailable=rollout_model.Budget(count=1)), _wave("two"))
    world.healthy_everywhere("a1", "a2")
    assert world.look() == ["a1:new"]
    world.now += 1
    world.healthy_everywhere("a2")
    assert world.look() == ["a2:new"], "a2 was unhealthy on the old render: it does not count"
