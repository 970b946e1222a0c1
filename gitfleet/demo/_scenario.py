"""The demo's story, step by step, each step waiting (with a time limit) for what the fleet
reports through Git:

1. the fleet converges on the example as committed;
2. a commit scales shop/web; the fleet converges on it;
3. a commit adds an OverridePolicy (the European clusters run the next web image); the fleet
   converges, and the simulated European clusters run that image, the others do not;
4. the Push cluster running most of shop/web goes down: failover notices, its replicas move to
   the other clusters, and its old copy is dropped once they are ready;
5. it comes back: it is ready again, nothing moves back, and the whole fleet converges.

Every rendered commit the reconciler makes is told as it appears (its message says why it was
made), and the status table follows the fleet.
"""

from __future__ import annotations

import dataclasses
import re
import threading
import time
from collections.abc import Callable
from typing import Any

from gitfleet import errors
from gitfleet.demo import _display, _services, _state, _workspace
from gitfleet.model.template import ResourceKey

WEB = ResourceKey("apps/v1", "Deployment", "shop", "web")
WEB_FILE = "apps/shop/web.yaml"
SCALE_TO = 9
OVERRIDE_FILE = "policies/overrides/web-next-release-eu.yaml"
NEXT_TAG = "1.5.0"
OVERRIDE = f"""\
# Added by `gitfleet demo`: the European clusters run the next web release first.
apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata:
  name: web-next-release-eu
  namespace: shop
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
      name: web
  overrideRules:
    - targetCluster:
        labelSelector:
          matchLabels:
            geo: eu
      overriders:
        imageOverrider:
          - component: Tag
            operator: replace
            value: "{NEXT_TAG}"
"""


class Failed(errors.GitfleetError):
    """A step of the demo did not happen in time."""


class Stopped(errors.GitfleetError):
    """The demo was asked to stop."""


@dataclasses.dataclass(frozen=True, slots=True)
class Step:
    name: str
    seconds: float
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"step": self.name, "seconds": round(self.seconds, 2), "detail": self.detail}


@dataclasses.dataclass(frozen=True, slots=True)
class Failover:
    """What the failover step did."""

    cluster: str
    before: dict[str, int]
    after: dict[str, int]
    recovered: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "cluster": self.cluster,
            "before": self.before,
            "after": self.after,
            "afterRecovery": self.recovered,
        }


def placement(replicas: dict[str, int]) -> str:
    return ", ".join(f"{name} {n}" for name, n in sorted(replicas.items())) or "nowhere"


class Scenario:
    def __init__(
        self,
        workspace: _workspace.Workspace,
        services: _services.Services,
        display: _display.Display,
        *,
        timeout: float,
        poll: float,
        stop: threading.Event,
    ) -> None:
        self.workspace = workspace
        self.services = services
        self.display = display
        self.timeout = timeout
        self.poll = poll
        self.stop = stop
        self.steps: list[Step] = []
        self.failover: Failover | None = None
        self._told: str | None = None
        self.last: _state.State | None = None

    def _look(self) -> _state.State:
        found = _state.read(self.workspace.remote)
        if found.tip is not None and found.tip != self._told:
            self._told = found.tip
            self.display.say(f"    reconciler rendered {found.tip[:12]}: {found.subject}")
        self.display.table(_display.table(found, WEB))
        self.last = found
        return found

    def wait(self, what: str, done: Callable[[_state.State], bool]) -> _state.State:
        """Look until `done`; `Failed` after the time limit, `Stopped` when asked to stop."""
        deadline = time.monotonic() + self.timeout
        while True:
            found = self._look()
            if done(found):
                return found
            if time.monotonic() > deadline:
                raise Failed(f"{what}: not seen within {self.timeout:g}s")
            if self.stop.wait(self.poll):
                raise Stopped("stopped")

    def _step(self, name: str, started: float, detail: str) -> None:
        seconds = time.monotonic() - started
        self.steps.append(Step(name, seconds, detail))
        self.display.say(f"  {self.display.done} {detail} ({seconds:.1f}s)")
        self.display.settle()

    def _head(self) -> str:
        from gitfleet.gitstore import scaffold

        return scaffold.git(self.workspace.source, "rev-parse", "HEAD")

    def run(self) -> None:
        self.converge_first()
        self.scale()
        self.override()
        self.fail_over()

    def converge_first(self) -> None:
        started = time.monotonic()
        head = self._head()
        self.display.say("Rendering the example and applying it to every cluster")
        found = self.wait("the fleet converging", lambda s: s.converged(head) and s.runs(WEB))
        count = len(found.view.clusters)
        self._step("converge", started, f"{count} clusters run the example fleet")

    def scale(self) -> None:
        text = self.workspace.read(WEB_FILE)
        match = re.search(r"^  replicas: (\d+)$", text, re.MULTILINE)
        if match is None:
            raise Failed(f"{WEB_FILE}: no replicas to scale")
        before = int(match[1])
        changed = text[: match.start(1)] + str(SCALE_TO) + text[match.end(1) :]
        message = f"Scale shop/web from {before} to {SCALE_TO} replicas"
        self.display.say(f"Committing and pushing: {message}")
        started = time.monotonic()
        head = self.workspace.commit({WEB_FILE: changed}, message)
        found = self.wait("the scaled web", lambda s: s.converged(head) and s.runs(WEB))
        placed = placement(found.placed(WEB))
        self._step("scale", started, f"shop/web runs {SCALE_TO} replicas: {placed}")

    def override(self) -> None:
        message = f"Run web {NEXT_TAG} in Europe first"
        self.display.say(f"Committing and pushing: {message} (a new OverridePolicy)")
        started = time.monotonic()
        head = self.workspace.commit({OVERRIDE_FILE: OVERRIDE}, message)
        self.wait("the override", lambda s: s.converged(head) and s.runs(WEB))
        tags = self._tags()
        eu = sorted(n for n, tag in tags.items() if tag == NEXT_TAG)
        others = sorted(n for n, tag in tags.items() if tag != NEXT_TAG)
        if not eu:
            raise Failed(f"no cluster runs web {NEXT_TAG}")
        detail = f"web {NEXT_TAG} runs on {', '.join(eu)}; {', '.join(others) or 'none'} unchanged"
        self._step("override", started, detail)

    def _tags(self) -> dict[str, str]:
        """The image tag of shop/web in each simulated cluster that runs it."""
        tags = {}
        for cluster in self.services.clusters:
            found = cluster.objects.get("apps/v1", "Deployment", "web", "shop")
            containers = (found or {}).get("spec", {}).get("template", {}).get("spec", {})
            for container in containers.get("containers") or []:
                tags[cluster.name] = str(container.get("image", "")).rpartition(":")[2]
        return tags

    def _victim(self, found: _state.State) -> str:
        """The Push cluster running most of shop/web (the first by name on a tie)."""
        push = set(self.services.push_clusters)
        ranked = sorted((-n, name) for name, n in found.placed(WEB).items() if name in push)
        if not ranked:
            raise Failed("shop/web runs on no Push cluster: nothing to fail over")
        return ranked[0][1]

    def fail_over(self) -> None:
        head = self._head()
        found = self._look()
        name = self._victim(found)
        before = found.placed(WEB)
        self.display.say(f"{name} goes down: its API server stops answering")
        started = time.monotonic()
        self.services.fail(name)
        self.wait(f"{name} found unhealthy", lambda s: name in s.unhealthy())
        self._step("unhealthy", started, f"failover found {name} not ready")
        moved = self.wait(
            f"shop/web leaving {name}",
            lambda s: (
                name not in s.placed(WEB)
                and sum(s.placed(WEB).values()) == SCALE_TO
                and s.applied(WEB)
            ),
        )
        after = moved.placed(WEB)
        self._step("moved", started, f"shop/web moved off {name}: {placement(after)}")
        self.wait(
            f"the old copy on {name} dropped",
            lambda s: name not in s.evicting(WEB) and s.runs(WEB),
        )
        detail = f"the other clusters run every web replica; {name}'s old copy is dropped"
        self._step("released", started, detail)
        self.display.say(f"{name} comes back")
        started = time.monotonic()
        self.services.recover(name)
        back = self.wait(
            f"{name} back and the fleet converged",
            lambda s: name not in s.unhealthy() and s.converged(head) and s.runs(WEB),
        )
        recovered = back.placed(WEB)
        detail = f"{name} is ready again; shop/web stays put: {placement(recovered)}"
        self._step("recovered", started, detail)
        self.failover = Failover(name, before, after, recovered)
