"""The demo's story, step by step, each step waiting (with a time limit) for what the fleet
reports through Git:

1. the fleet converges on the example as committed;
2. a commit scales shop/web; the fleet converges on it;
3. a commit adds an OverridePolicy (the European clusters run the next web image); the fleet
   converges, and the simulated European clusters run that image, the others do not;
4. the Push cluster running most of shop/web goes down: failover notices, its replicas move to
   the other clusters, and its old copy is dropped once they are ready;
5. it comes back: it is ready again, nothing moves back, and the whole fleet converges;
6. a commit adds a progressive rollout (a canary wave, then the rest) and a ConfigMap for
   every cluster: the canary gets it first, the others once it stayed healthy for its bake;
7. a commit ships a release the canary reports unhealthy (a Lua health rule): the rollout
   halts after the wave's timeout and the canary is rolled back; the others never get it.

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


CANARY = "gcp-euw1-gpu"
"""The rollout's first wave: the one cluster of the example that runs no Widget (which no
simulated cluster reports healthy: nothing there sets a Widget's status)."""
RELEASE = ResourceKey("v1", "ConfigMap", "shop", "release")
RELEASE_FILE = "apps/shop/release.yaml"
HEALTH_FILE = "interpreter/configmap-health.yaml"
BAKE, WAVE_TIMEOUT = 1, 5
ROLLOUT = f"""
# Added by `gitfleet demo`: changes reach {CANARY} first, the other clusters once it stayed
# healthy for {BAKE}s; a canary not healthy within {WAVE_TIMEOUT}s is rolled back.
rollout:
  waves:
    - name: canary
      clusterNames: [{CANARY}]
      bake: {BAKE}s
      timeout: {WAVE_TIMEOUT}s
      onFailure: rollback
"""
HEALTH = """\
# Added by `gitfleet demo`: a ConfigMap saying `healthy: "false"` is unhealthy.
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: configmap-health
spec:
  target:
    apiVersion: v1
    kind: ConfigMap
  customizations:
    healthInterpretation:
      luaScript: |
        function InterpretHealth(observedObj)
          return observedObj.data == nil or observedObj.data.healthy ~= "false"
        end
"""


def release(version: int, healthy: bool = True) -> str:
    """The ConfigMap every cluster gets, and its policy."""
    flag = "" if healthy else '\n  healthy: "false"'
    return f"""\
# Added by `gitfleet demo`: a release marker for every cluster, rolled out wave by wave.
apiVersion: v1
kind: ConfigMap
metadata:
  name: release
  namespace: shop
data:
  version: "{version}"{flag}
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: release
  namespace: shop
spec:
  resourceSelectors:
    - apiVersion: v1
      kind: ConfigMap
      name: release
  placement:
    clusterTolerations:
      - key: dedicated
        operator: Exists
        effect: NoSchedule
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
        self.roll_out()
        self.roll_back()

    def _releases(self) -> dict[str, str]:
        """The release version each simulated cluster runs ("" where it has none)."""
        found = {}
        for cluster in self.services.clusters:
            obj = cluster.objects.get(RELEASE.api_version, RELEASE.kind, RELEASE.name, "shop")
            found[cluster.name] = str(((obj or {}).get("data") or {}).get("version", ""))
        return found

    def _until(self, what: str, done: Callable[[dict[str, str]], bool]) -> dict[str, str]:
        """Look (the status table follows the fleet) until the clusters' releases are `done`."""
        found: dict[str, str] = {}

        def check(_: _state.State) -> bool:
            found.update(self._releases())
            return done(found)

        self.wait(what, check)
        return found

    def roll_out(self) -> None:
        message = f"Roll changes out to {CANARY} first, and add release 1"
        self.display.say(f"Committing and pushing: {message}")
        started = time.monotonic()
        settings = self.workspace.read("gitfleet.yaml") + ROLLOUT
        self.workspace.commit({"gitfleet.yaml": settings, RELEASE_FILE: release(1)}, message)
        self._until(
            "release 1 on the canary only",
            lambda r: r[CANARY] == "1" and any(v != "1" for n, v in r.items() if n != CANARY),
        )
        self._step("canary", started, f"release 1 reached {CANARY}; the others wait")
        self._until("release 1 everywhere", lambda r: all(v == "1" for v in r.values()))
        detail = f"{CANARY} stayed healthy {BAKE}s: every cluster runs release 1"
        self._step("rollout", started, detail)

    def roll_back(self) -> None:
        message = "Ship release 2, which the canary finds unhealthy"
        self.display.say(f"Committing and pushing: {message}")
        started = time.monotonic()
        files = {RELEASE_FILE: release(2, healthy=False), HEALTH_FILE: HEALTH}
        self.workspace.commit(files, message)
        self._until("release 2 on the canary", lambda r: r[CANARY] == "2")
        self._until("the canary rolled back", lambda r: r[CANARY] == "1")
        others = self._releases()
        if any(v != "1" for v in others.values()):
            raise Failed(f"release 2 reached a cluster after the canary: {others}")
        detail = f"{CANARY} not healthy within {WAVE_TIMEOUT}s: rolled back to release 1"
        self._step("rolled-back", started, detail)

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
