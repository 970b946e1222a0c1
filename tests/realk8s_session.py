"""The real API server tier in a test session: tests marked `realk8s` run last, and the
binaries they need are built in the background while the rest of the suite runs.

Where the tier comes from, in order:
- `GITFLEET_REALK8S=off`: left out, each such test skipped with that reason;
- `GITFLEET_REALK8S=DIR`: clusters someone else runs (kind on GitHub), a kubeconfig each;
- else the binaries of `realk8s.py`, built on first use and cached.

A machine that cannot build them (not Debian 12, no root) skips these tests with a one-line
reason; under `CI=true` that is a failure instead, so CI never passes without the tier.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import realk8s

MARK = "realk8s"
CLUSTERS = ("aws-euw1", "aws-use1-a", "aws-use1-b", "gcp-euw1-a", "gcp-euw1-gpu")
"""The tier's clusters: the example fleet's."""
PULL_AGENT = realk8s.ServiceAccount("gitfleet-system", "gitfleet-agent")
"""The pull agent's identity in its printed manifests."""
OBSERVER = realk8s.ServiceAccount("default", "observer")
"""An identity with no permissions until a test grants some."""
SERVER_KINDS = [
    pytest.param("sim", id="sim"),
    pytest.param("real", id="real", marks=pytest.mark.realk8s),
]
"""Parameters of a fixture that gives a simulated API server, then a real one."""

Kubeconfig = Callable[[str, str], Path]
"""`kubeconfig(cluster, user)`: a kubeconfig for the administrator ("admin") or a service
account's user name (`ServiceAccount.user`)."""
_BUILD = pytest.StashKey[subprocess.Popen[bytes]]()
_BUILD_LOG = pytest.StashKey[Path]()


def configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{MARK}: runs against real kube-apiservers (tests/realk8s.py); runs last"
    )


def _chosen() -> str:
    return os.environ.get(realk8s.ENV_CLUSTERS, "")


def schedule(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Move the tier's tests to the end and start the build they wait for, if one is due."""
    real = [item for item in items if item.get_closest_marker(MARK)]
    if not real:
        return
    items[:] = [item for item in items if not item.get_closest_marker(MARK)] + real
    if _chosen() or realk8s.built() is not None or realk8s.why_not_buildable():
        return
    cache = realk8s.cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    log = cache / "build.log"
    with open(log, "wb") as out:
        config.stash[_BUILD] = subprocess.Popen(
            [sys.executable, str(Path(realk8s.__file__)), "build"],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    config.stash[_BUILD_LOG] = log


def finish(config: pytest.Config) -> None:
    """A build still running when the session ends (it stopped early) is stopped with it;
    the next build goes on from the last finished step."""
    build = config.stash.get(_BUILD, None)
    if build is not None and build.poll() is None:
        os.killpg(build.pid, signal.SIGTERM)
        build.wait()


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"the real API server tier is required under CI=true: {reason}")
    pytest.skip(reason)


def binaries(config: pytest.Config) -> realk8s.Binaries:
    """The tier's binaries, once the session's build (if any) finished; fails or skips the
    calling test when there are none."""
    build = config.stash.get(_BUILD, None)
    if build is not None and build.wait() != 0:
        log = config.stash[_BUILD_LOG]
        tail = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-5:]
        _unavailable(f"building kube-apiserver failed (see {log}): {' | '.join(tail)}")
    found = realk8s.built()
    if found is None:
        _unavailable(realk8s.why_not_buildable() or "kube-apiserver is not built")
        raise AssertionError("unreachable")
    return found


def external() -> Path | None:
    """The folder of kubeconfigs the tier is taken from, if the environment names one;
    skips the calling test when the tier is turned off."""
    chosen = _chosen()
    if chosen == "off":
        pytest.skip(f"{realk8s.ENV_CLUSTERS}=off")
    return Path(chosen) if chosen else None


def member_kubeconfig(request: pytest.FixtureRequest, folder: Path, cluster: str) -> Path:
    """An administrator's kubeconfig of a member, for a fixture parametrized with
    `SERVER_KINDS`: a simulated cluster claiming the real tier's version (its kubeconfig
    written into `folder`, stopped after the test), or the tier's server `cluster`."""
    if request.param == "sim":
        from gitfleet import sim

        member = sim.SimCluster("alpha", kubernetes_version=realk8s.KUBERNETES_VERSION)
        member.start()
        request.addfinalizer(member.stop)
        kubeconfig = folder / "alpha.yaml"
        member.kubeconfig(kubeconfig)
        return kubeconfig
    tier: Kubeconfig = request.getfixturevalue("real_tier")
    return tier(cluster, "admin")


@pytest.fixture(name="real_tier", scope="session")
def real_tier_fixture(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Kubeconfig]:
    """Real API servers, one per cluster of `CLUSTERS`, for the whole session."""
    given = external()
    if given is not None:
        out = tmp_path_factory.mktemp("tier-credentials")
        yield lambda cluster, user: realk8s.external_kubeconfig(given, out, cluster, user)
        return
    tier = realk8s.start(
        tmp_path_factory.mktemp("tier"), CLUSTERS, binaries(request.config), [PULL_AGENT, OBSERVER]
    )
    try:
        yield tier.kubeconfig
    finally:
        tier.stop()
