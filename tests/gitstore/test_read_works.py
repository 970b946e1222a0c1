"""Reading a rendered commit as an agent does.

Aspects covered:
- the commit's trailers and the clusters it has a folder for;
- one cluster's files, and none of another's; a missing folder is empty;
- entries that are not files (symbolic links) are problems, never read;
- root files (render.yaml) and any commit's trailers.
"""

from __future__ import annotations

from typing import Any

from gitfleet.gitstore import rendered, repository, works

GitRepo = Any
"""The `git_repo` fixture's repository (tests/conftest.py): `.path`, `.commit()`, `.git()`."""


def _open(git_repo: GitRepo) -> repository.Repository:
    repo = repository.open_repository(git_repo.path)
    assert repo is not None
    return repo


def _publish(git_repo: GitRepo, files: dict[str, bytes], source: str) -> str:
    repo = _open(git_repo)
    tip = rendered.read_tip(repo, "gitfleet/rendered")
    done = rendered.publish(
        repo,
        "gitfleet/rendered",
        dict(files),
        expected=tip.commit if tip else None,
        source_commit=source,
        version="v1",
    )
    return done.commit


def test_a_rendered_commit(git_repo: GitRepo) -> None:
    source = git_repo.commit({"a.yaml": "x: 1\n"}, "source\n\nGitfleet-Allow-Prune: all")
    commit = _publish(
        git_repo,
        {
            "render.yaml": b"r: 1\n",
            "works/m1/shop/ConfigMap.core/a.yaml": b"a\n",
            "works/m2/shop/ConfigMap.core/b.yaml": b"b\n",
            "bindings/shop/ConfigMap.core/a.yaml": b"x\n",
        },
        source,
    )
    repo = _open(git_repo)
    found = works.read_commit(repo, "gitfleet/rendered")
    assert found.commit == commit
    assert found.clusters == ("m1", "m2")
    assert found.source_commit == source
    folder = works.cluster_folder(repo, commit, "m1")
    assert folder.files == {"works/m1/shop/ConfigMap.core/a.yaml": b"a\n"}
    assert folder.problems == ()
    assert works.cluster_folder(repo, commit, "m3").files == {}
    assert works.root_file(repo, commit, "render.yaml") == b"r: 1\n"
    assert works.root_file(repo, commit, "absent.yaml") is None
    assert rendered.commit_trailers(repo, source) == {"Gitfleet-Allow-Prune": "all"}
    assert rendered.commit_trailers(repo, "0" * 40) is None


def test_symbolic_links_are_problems(git_repo: GitRepo) -> None:
    (git_repo.path / "works/m1/shop").mkdir(parents=True)
    (git_repo.path / "works/m1/shop/link.yaml").symlink_to("/etc/passwd")
    commit = git_repo.commit({"works/m1/shop/ConfigMap.core/a.yaml": "a\n"})
    folder = works.cluster_folder(_open(git_repo), commit, "m1")
    assert list(folder.files) == ["works/m1/shop/ConfigMap.core/a.yaml"]
    assert folder.problems == ("works/m1/shop/link.yaml: symlink is not read",)
