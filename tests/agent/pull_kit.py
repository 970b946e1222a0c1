"""What the pull agent's tests share: a bare remote that allows filters (`Remote`: publish
rendered commits on it, read its status refs), Work documents, the agent's settings for tests
(no waiting, fast pace), and `until` to wait for the agent's threads. Imported as
`agent.pull_kit` (tests/ is on the path); the `remote` fixture is imported by the test modules
that use it."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest
import workfiles
import yaml
from agent.agent_kit import FAST
from builders import make_configmap, make_deployment, make_object
from conftest import git

from gitfleet.agent import kube, pull, worker
from gitfleet.gitstore import rendered, status

Doc = dict[str, Any]
NAMESPACE = make_object("v1", "Namespace", "shop")


def app(replicas: int = 2, configs: int = 2, image: str = "nginx", lines: int = 12) -> list[Doc]:
    """A namespace, a Deployment and `configs` ConfigMaps of `lines` settings each (about
    the size of rendered manifests, which carry labels and annotations)."""
    web = make_deployment(replicas=replicas)
    web["spec"]["template"]["spec"]["containers"][0]["image"] = image
    maps = []
    for i in range(configs):
        data = {
            f"setting-{n}": f"value {n} of configuration c{i} for the app" for n in range(lines)
        }
        maps.append(make_configmap(f"c{i}", data=data))
    return [NAMESPACE, web, *maps]


@dataclasses.dataclass
class Remote:
    """A bare repository serving rendered commits, as a Git host would."""

    path: Path

    @property
    def url(self) -> str:
        return f"file://{self.path}"

    def git(self, *args: str, input: str | None = None) -> str:
        """git in the remote (with `input` on stdin); its output."""
        if input is None:
            return git(self.path, *args)
        done = subprocess.run(
            ["git", *args], cwd=self.path, input=input, capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    def publish(self, clusters: Mapping[str, Iterable[Doc]], source_commit: str = "s1") -> str:
        """A render of these Work folders on the rendered branch and the cluster refs."""
        return workfiles.publish(self.path, clusters, source_commit=source_commit)

    def cluster_ref(self, cluster: str) -> str:
        return self.git("rev-parse", rendered.cluster_ref(cluster))

    def status_file(self, cluster: str, name: str) -> dict[str, Any]:
        found: dict[str, Any] = yaml.safe_load(
            self.git("show", f"{status.status_ref(cluster)}:{name}")
        )
        return found

    def status_commit(self, cluster: str) -> str | None:
        done = subprocess.run(
            ["git", "rev-parse", "--verify", "--quiet", status.status_ref(cluster)],
            cwd=self.path,
            capture_output=True,
            text=True,
            check=False,
        )
        return done.stdout.strip() or None

    def refs(self) -> list[str]:
        return self.git("for-each-ref", "--format=%(refname)").splitlines()


@pytest.fixture(name="remote")
def remote_fixture(tmp_path: Path) -> Remote:
    """An empty bare remote that allows partial fetches."""
    path = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(path))
    git(path, "config", "uploadpack.allowFilter", "true")
    return Remote(path)


WAIT = 20.0
"""Seconds a test waits, at most, for what the agent's threads do."""


def until(check: Callable[[], bool], what: str) -> None:
    """Wait (at most `WAIT`) until `check()` holds."""
    deadline = time.monotonic() + WAIT
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.02)


PACE = worker.Pace(interval=0.05, heartbeat=3600, backoff=worker.Backoff(base=0.05, cap=0.1))


def settings(remote: Remote, cluster: str, tmp_path: Path, **changes: Any) -> pull.Settings:
    """The agent of `cluster` on `remote`, its copy in tmp_path/cache, without waits."""
    changes.setdefault("kubeconfig", tmp_path / "kubeconfigs" / f"{cluster}.yaml")
    changes.setdefault("cache_dir", tmp_path / "cache")
    changes.setdefault("retry", kube.NO_WAIT)
    changes.setdefault("pace", PACE)
    changes.setdefault("options", FAST)
    return pull.Settings(repo=remote.url, cluster=cluster, **changes)


def blobs(copy: Path) -> set[str]:
    """Ids of the blobs a repository holds (never fetching one)."""
    done = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)"],
        env={**os.environ, "GIT_DIR": str(copy), "GIT_NO_LAZY_FETCH": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    return {line.split()[0] for line in done.stdout.splitlines() if line.endswith(" blob")}


def folder_blobs(remote: Remote, cluster: str, rev: str = workfiles.BRANCH) -> dict[str, str]:
    """Blob id of every file of `works/<cluster>/` at `rev` of the remote, by path."""
    listing = remote.git("ls-tree", "-r", rev, "--", f"works/{cluster}/")
    found = {}
    for line in listing.splitlines():
        info, _, path = line.partition("\t")
        found[path] = info.split()[2]
    return found


def folder_size(remote: Remote, cluster: str) -> int:
    """Bytes of the files of `works/<cluster>/` on the rendered branch."""
    sizes = remote.git("ls-tree", "-r", "-l", workfiles.BRANCH, "--", f"works/{cluster}/")
    return sum(int(line.split()[3]) for line in sizes.splitlines())
