"""What the rendered-branch tests share: an empty bare repository, git run on it, a small
render's files. Imported as `gitstore.rendered_kit` (tests/ is on the path)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from conftest import GIT_ENV

from gitfleet.gitstore import objects, repository

BRANCH = "gitfleet/rendered"
WHO = objects.Signature("gitfleet", "gitfleet@localhost", 1767225600)


def bare(path: Path) -> repository.Repository:
    """A new, empty bare repository at `path`, opened."""
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    opened = repository.open_repository(path)
    assert opened is not None
    return opened


def git(repo: repository.Repository, *args: str) -> str:
    done = subprocess.run(
        ["git", "--git-dir", str(repo.git_dir), *args],
        capture_output=True,
        check=True,
        env={**os.environ, **GIT_ENV},
    )
    return done.stdout.decode().strip()


def loose_count(repo: repository.Repository) -> int:
    return int(git(repo, "count-objects").split()[0])


def render_files(**clusters: int) -> dict[str, objects.Content]:
    """render.yaml, and per cluster a Deployment with that many replicas and a kustomization."""
    files: dict[str, objects.Content] = {"render.yaml": b"render\n"}
    for name, replicas in clusters.items():
        files[f"works/{name}/shop/Deployment.apps/web.yaml"] = f"replicas: {replicas}\n".encode()
        files[f"works/{name}/kustomization.yaml"] = b"resources: []\n"
    return files
