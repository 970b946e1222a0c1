"""Builders for the failover tests: a three-cluster fleet, a workload divided over it, status
snapshots at given seconds after T0, a placement run through `pipeline.place` with them, and a
rendered branch in a real repository that renders are published on."""

from __future__ import annotations

import dataclasses
import datetime
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml
from builders import make_cluster, make_deployment, make_policy, object_set, previous_map, selector

from gitfleet import failover, interpreter, pipeline, taintpolicy
from gitfleet.detector import detection
from gitfleet.gitstore import rendered, repository
from gitfleet.model import loaded, meta, work
from gitfleet.model.template import ResourceKey

T0 = datetime.datetime(2026, 3, 1, 12, 0, 0, tzinfo=datetime.UTC)
WEB = ResourceKey("apps/v1", "Deployment", "shop", "web")
WEB_REF = detection.BindingRef("ResourceBinding", "shop", "web-deployment")
DIVIDED = {"replicaScheduling": {"replicaSchedulingType": "Divided"}}
SETTINGS = loaded.FailoverSettings()


def at(seconds: float) -> str:
    """T0 plus `seconds`, as RFC 3339."""
    moment = T0 + datetime.timedelta(seconds=seconds)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def web_policy(clusters: tuple[str, ...] = ("m1", "m2", "m3"), **spec: Any) -> dict[str, Any]:
    placement = {"clusterAffinity": {"clusterNames": list(clusters)}, **DIVIDED}
    placement.update(spec.pop("placement", {}))
    return make_policy("web", selector(name="web"), placement=placement, **spec)


def fleet_docs(replicas: int = 3, **policy: Any) -> list[dict[str, Any]]:
    return [
        make_deployment("web", replicas=replicas),
        web_policy(**policy),
        *(make_cluster(n, cpu="8") for n in ("m1", "m2", "m3")),
    ]


def report(
    beat: float,
    *,
    ready: str = "True",
    since: float | None = None,
    current: bool = False,
    health: work.ResourceHealth | None = None,
) -> failover.Report:
    """A report sent at `beat`, its Ready condition `ready` since `since` (default `beat`)."""
    moved = at(beat if since is None else since)
    condition = meta.Condition(type="Ready", status=ready, last_transition_time=moved)
    found = {WEB: health} if health is not None else {}
    return failover.Report(heartbeat=at(beat), ready=condition, current=current, health=found)


def observed(now: float, reports: Mapping[str, failover.Report]) -> failover.Observed:
    return failover.Observed(at=at(now), reports=dict(reports))


def beats(now: float, silent: Mapping[str, float] | None = None, **kw: Any) -> failover.Observed:
    """Every cluster reported at `now`, except those in `silent` (name: last heartbeat)."""
    late = silent or {}
    return observed(now, {n: report(late.get(n, now), **kw) for n in ("m1", "m2", "m3")})


def place(
    docs: list[dict[str, Any]],
    previous: pipeline.Placement | None = None,
    snapshot: failover.Observed | None = None,
    settings: loaded.FailoverSettings = SETTINGS,
    cluster_taints: taintpolicy.Managed | None = None,
) -> pipeline.Placement:
    """`docs` placed on `previous`'s bindings at `snapshot`, starting from the taints an earlier
    render's ClusterTaintPolicies left (`cluster_taints`)."""
    prior = previous_map(previous.bindings if previous else None)
    return pipeline.place(
        object_set(docs),
        interpreter.Interpreter(),
        prior,
        observed=snapshot,
        settings=settings,
        now=snapshot.at if snapshot is not None else None,
        cluster_taints=cluster_taints,
    )


def web(result: pipeline.Placement) -> work.ResourceBinding:
    found = result.binding(WEB_REF)
    assert isinstance(found, work.ResourceBinding)
    return found


def placed(result: pipeline.Placement) -> dict[str, int]:
    return {t.name: t.replicas for t in web(result).spec.clusters}


def tasks(result: pipeline.Placement) -> dict[str, str | None]:
    """The web binding's eviction tasks: cluster to purge mode."""
    return {
        t.from_cluster: str(t.purge_mode) if t.purge_mode else None
        for t in web(result).spec.graceful_eviction_tasks
    }


class RenderedBranch:
    """A rendered branch in a real repository: renders of in-memory sources published on it,
    each read back as the next render's previous one, as `gitfleet render` does."""

    BRANCH = loaded.DEFAULT_RENDERED_BRANCH

    def __init__(self, path: Path, settings: loaded.FailoverSettings = SETTINGS) -> None:
        subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
        found = repository.open_repository(path)
        assert found is not None
        self.repo = found
        self.settings = settings
        self.renders = 0

    def previous(self) -> pipeline.PreviousRender | None:
        tip = rendered.read_tip(self.repo, self.BRANCH)
        if tip is None:
            return None

        def read(paths: Sequence[str]) -> Mapping[str, bytes]:
            return rendered.read_files(self.repo, tip, set(paths).__contains__)

        return pipeline.read_previous(tip.commit, tip.files, read)

    def render(self, docs: list[dict[str, Any]], snapshot: failover.Observed) -> Rendered:
        """Render `docs` at `snapshot` on top of the tip and publish it."""
        self.renders += 1
        source = loaded.LoadedSource(
            objects=object_set(docs),
            documents=(),
            diagnostics=(),
            revision=f"{self.renders:040x}",
            config=loaded.SourceConfig(failover=self.settings),
        )
        previous = self.previous()
        result = pipeline.render(source, previous, None, now=snapshot.at, observed=snapshot)
        assert result.ok, result.diagnostics
        published = rendered.publish(
            self.repo,
            self.BRANCH,
            result.files,
            expected=previous.commit if previous else None,
            source_commit=source.revision or "",
            version="test",
            message=result.message(f"render {source.revision}"),
        )
        tip = rendered.read_tip(self.repo, self.BRANCH)
        assert tip is not None
        files = rendered.read_files(self.repo, tip, lambda p: True)
        message = self.repo.run("log", "-1", "--format=%B", tip.commit)[1].decode()
        return Rendered(result, published.commit, published.created, files, message)


@dataclasses.dataclass(frozen=True)
class Rendered:
    result: pipeline.RenderResult
    commit: str
    created: bool
    files: Mapping[str, bytes]
    message: str

    def replicas(self, cluster: str) -> int | None:
        data = self.files.get(f"works/{cluster}/shop/Deployment.apps/web.yaml")
        return None if data is None else int(yaml.safe_load(data)["spec"]["replicas"])

    @property
    def report(self) -> Any:
        return yaml.safe_load(self.files["render.yaml"])
