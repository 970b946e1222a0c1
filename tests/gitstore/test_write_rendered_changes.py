"""Publishing a render as changes to the tip, and reading back the tip a publication made.

Aspects covered:
- changes give the very commits publishing the whole tree gives (branch and cluster refs),
  for random trees and change sets: files added, changed, removed, whole folders removed,
  files added into new nested folders, two change sets in a row, onto no tip at all (the
  whole tree); the listing derived for the new tip is the one git gives, and fsck finds
  nothing wrong; a change set that makes a bad tree fails as the whole tree does;
- bad paths in changes (escapes, empty segments, a file where a folder is, a folder where a
  file is) raise the whole tree's PathError and write nothing;
- many changes: their blobs go to git before the trees are built, into a quarantine folder
  of the object database, moved in once the trees are built (fsck finds nothing wrong, no
  folder left behind), deleted when a bad path fails the publication (nothing stored);
- only the changed file's blob and the trees above it are written; no change, no write;
- a cluster folder that the changes empty gets one commit with no files;
- compare-and-swap: a stale expected tip, or a tip read before another writer moved the
  branch, moves nothing;
- after a publication, `read_tip` reads only the ref and returns the listing git gives for
  that commit; tips are kept for a bounded number of commits and repositories;
- publish takes exactly one of files and changes.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from gitstore.rendered_kit import BRANCH, WHO, bare, git, loose_count, render_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitfleet.errors import RefConflictError
from gitfleet.gitstore import objects, refs, rendered, repository

Changes = dict[str, objects.Content | None]


@pytest.fixture(name="repo")
def repo_fixture(tmp_path: Path) -> repository.Repository:
    return bare(tmp_path / "rendered.git")


def _publish(
    repo: repository.Repository,
    n: int,
    files: dict[str, objects.Content] | None = None,
    changes: Changes | None = None,
    tip: rendered.Tip | None = None,
) -> rendered.Published:
    """Publish on the branch's current tip (or the one given), commit `n`'s source."""
    tip = tip or rendered.read_tip(repo, BRANCH)
    return rendered.publish(
        repo, BRANCH, files, changes=changes, expected=tip.commit if tip else None,
        source_commit=f"{n:040x}", version="0.1.0", author=WHO, tip=tip,
    )  # fmt: skip


def _state(repo: repository.Repository) -> dict[str, str]:
    """Every ref of the repository and the commit it names."""
    return {ref: state.commit for ref, state in refs.list_refs(repo, "refs/").items()}


def _whole(tip: rendered.Tip, changes: Changes) -> dict[str, objects.Content]:
    """The whole tree `changes` make of `tip`, kept files as blobs (as a render gives them)."""
    files: dict[str, objects.Content] = {p: objects.Blob(i) for p, i in tip.files.items()}
    for path, content in changes.items():
        if content is None:
            files.pop(path, None)
        else:
            files[path] = content
    return files


def _fresh(repo: repository.Repository) -> rendered.Tip | None:
    """The tip as a process that starts on the branch reads it, checked against every file
    `git ls-tree -r` lists."""
    rendered.forget_tips()
    tip = rendered.read_tip(repo, BRANCH)
    if tip is not None:
        code, out, _ = repo.run("ls-tree", "-r", "-z", "--full-tree", tip.commit)
        assert code == 0
        listed = dict(
            (path.decode(), info.split(b" ")[2].decode())
            for info, _, path in (r.partition(b"\t") for r in out.split(b"\0") if r)
        )
        assert dict(tip.files) == listed
    return tip


def _same_listing(found: rendered.Tip | None, fresh: rendered.Tip | None) -> None:
    assert found is not None and fresh is not None
    assert (found.commit, found.tree) == (fresh.commit, fresh.tree)
    assert dict(found.trailers) == dict(fresh.trailers)
    assert dict(found.files) == dict(fresh.files)
    assert dict(found.folders) == dict(fresh.folders)
    for folder in fresh.folders:
        assert found.base.folder(folder) == fresh.base.folder(folder), folder


# -- random trees and change sets --------------------------------------------------------

NAMES = st.sampled_from(["a", "b", "c.yaml", "e1", "e2"])
PATHS = st.one_of(
    st.lists(NAMES, min_size=1, max_size=4).map("/".join),
    st.builds(lambda cluster, rest: f"works/{cluster}/{rest}", NAMES, NAMES),
)
DATA = st.sampled_from([b"x\n", b"y\n", b"z\n"])


def _valid(files: dict[str, bytes]) -> dict[str, bytes]:
    """The files that do not name another file's folder."""
    return {p: c for p, c in files.items() if not any(q.startswith(p + "/") for q in files)}


def _folders(paths: list[str]) -> list[str]:
    return sorted({p.rsplit("/", depth)[0] for p in paths for depth in range(1, p.count("/") + 1)})


@st.composite
def _change_sets(draw: st.DrawFn, tree: dict[str, bytes]) -> Changes:
    existing = sorted(tree)
    changes: Changes = {}
    if existing:
        for path in draw(st.lists(st.sampled_from(existing), unique=True, max_size=4)):
            kept = objects.Blob(objects.SHA1.object_id(objects.BLOB, tree[existing[0]]))
            changes[path] = draw(st.one_of(st.none(), DATA, st.just(kept)))
    folders = _folders(existing)
    if folders and draw(st.booleans()):
        gone = draw(st.sampled_from(folders))
        changes.update({p: None for p in existing if p.startswith(gone + "/")})
    for path in draw(st.lists(PATHS, max_size=3)):
        changes[path] = draw(DATA)
    return changes


@st.composite
def _scenarios(draw: st.DrawFn) -> tuple[dict[str, bytes], Changes, Changes]:
    tree = _valid(draw(st.dictionaries(PATHS, DATA, max_size=10)))
    first = draw(_change_sets(tree))
    present = {p for p, c in {**tree, **first}.items() if c is not None}
    refused = any(q.startswith(p + "/") for p in present for q in present)
    after = {p: c for p, c in {**tree, **first}.items() if isinstance(c, bytes)}
    # the second change keeps blobs of the tree the first left: the old one if it was refused
    return tree, first, draw(_change_sets(tree if refused else _valid(after)))


def _publish_both(
    whole: repository.Repository, changed: repository.Repository, n: int, changes: Changes
) -> None:
    """The same change published as the whole tree in one repository and as changes in the
    other (both at the same commit): the same commits, or the same PathError and nothing
    moved in either."""
    tip = rendered.read_tip(whole, BRANCH)
    assert tip is not None
    before = _state(whole)
    try:
        expected = _publish(whole, n, files=_whole(tip, changes))
    except objects.PathError as refused:
        with pytest.raises(objects.PathError) as also:
            _publish(changed, n, changes=changes)
        assert str(also.value) == str(refused)
        assert _state(whole) == _state(changed) == before
        return
    assert _publish(changed, n, changes=changes) == expected
    assert _state(changed) == _state(whole)
    _same_listing(rendered.read_tip(changed, BRANCH), _fresh(changed))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_scenarios())
def test_changes_publish_what_the_whole_tree_publishes(
    scenario: tuple[dict[str, bytes], Changes, Changes],
) -> None:
    """Equal commit ids mean equal trees; fsck then checks that the repository publishing
    changes holds every object of them (history included)."""
    tree, first, second = scenario
    with tempfile.TemporaryDirectory() as tmp:
        whole, changed = bare(Path(tmp) / "whole.git"), bare(Path(tmp) / "changed.git")
        made = _publish(whole, 1, files=dict(tree))
        assert _publish(changed, 1, changes=dict(tree)) == made
        _publish_both(whole, changed, 2, first)
        _publish_both(whole, changed, 3, second)
        git(changed, "fsck", "--strict", "--no-dangling")


# -- bad paths ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "changes",
    [
        pytest.param({"../escape.yaml": b"x"}, id="escape"),
        pytest.param({"works/east/../../escape.yaml": b"x"}, id="escape in the middle"),
        pytest.param({"/etc/passwd": b"x"}, id="absolute"),
        pytest.param({"works//east/x.yaml": b"x"}, id="empty segment"),
        pytest.param({"works/east/": b"x"}, id="trailing slash"),
        pytest.param({"works/./east/x.yaml": b"x"}, id="dot"),
        pytest.param({"works/.git/config": b"x"}, id="dot git"),
        pytest.param({"works/east": b"x"}, id="file where a folder is"),
        pytest.param({"render.yaml/x.yaml": b"x"}, id="folder where a file is"),
        pytest.param(
            {"works/west/kustomization.yaml": b"ok", "works/east/kustomization.yaml/x": b"x"},
            id="among good changes",
        ),
    ],
)
def test_bad_paths_fail_as_the_whole_tree_does(
    repo: repository.Repository, changes: Changes
) -> None:
    _publish(repo, 1, files=render_files(east=2, west=3))
    tip = rendered.read_tip(repo, BRANCH)
    assert tip is not None
    before, loose = _state(repo), loose_count(repo)
    with pytest.raises(objects.PathError) as whole:
        _publish(repo, 2, files=_whole(tip, changes))
    with pytest.raises(objects.PathError) as changed:
        _publish(repo, 2, changes=changes)
    assert str(changed.value) == str(whole.value)
    assert _state(repo) == before
    assert loose_count(repo) == loose


def _many(n: int) -> Changes:
    """`n` new ConfigMaps for east, half of them with their ids computed (as a render gives
    them), half as bytes."""
    changes: Changes = {}
    for i in range(n):
        data = f"name: c{i}\n".encode()
        hashed = objects.Hashed(objects.SHA1.object_id(objects.BLOB, data), data)
        changes[f"works/east/shop/ConfigMap.core/c{i}.yaml"] = hashed if i % 2 else data
    return changes


def _stored(repo: repository.Repository) -> tuple[int, list[str], list[str]]:
    """Loose objects, packs, and folders other than git's own in the object database."""
    found = repo.git_dir / "objects"
    packs = sorted(f.name for f in (found / "pack").iterdir())
    folders = sorted(f.name for f in found.iterdir() if f.is_dir() and len(f.name) != 2)
    return loose_count(repo), packs, folders


def test_many_changes_are_checked_aside_then_moved_in(repo: repository.Repository) -> None:
    _publish(repo, 1, files=render_files(east=2, west=3))
    changes = _many(150)
    published = _publish(repo, 2, changes=changes)
    git(repo, "fsck", "--strict", "--no-dangling")
    _, packs, folders = _stored(repo)
    assert folders == ["info", "pack"]
    assert any(p.endswith(".pack") for p in packs)
    tip = _fresh(repo)
    assert tip is not None and tip.commit == published.commit
    assert (
        git(repo, "cat-file", "-p", f"{published.commit}:works/east/shop/ConfigMap.core/c7.yaml")
        == "name: c7"
    )
    assert set(changes) <= set(tip.files)


def test_many_changes_with_a_bad_path_store_nothing(repo: repository.Repository) -> None:
    _publish(repo, 1, files=render_files(east=2, west=3))
    before, stored = _state(repo), _stored(repo)
    changes = {**_many(150), "works/east/shop/ConfigMap.core": b"a file where a folder is"}
    with pytest.raises(objects.PathError, match="both a file and a folder"):
        _publish(repo, 2, changes=changes)
    assert _state(repo) == before
    assert _stored(repo) == stored


def test_a_bad_path_is_refused_even_to_remove(repo: repository.Repository) -> None:
    _publish(repo, 1, files=render_files(east=2))
    before = _state(repo)
    with pytest.raises(objects.PathError, match=r"segment '\.\.'"):
        _publish(repo, 2, changes={"works/../render.yaml": None})
    assert _state(repo) == before


# -- what is written -------------------------------------------------------------------------


def test_only_the_change_is_written(repo: repository.Repository) -> None:
    first = _publish(repo, 1, files=render_files(east=2, west=3))
    loose = loose_count(repo)
    second = _publish(repo, 2, changes={"works/west/shop/Deployment.apps/web.yaml": b"x: 4\n"})
    assert list(second.clusters) == ["west"]
    assert git(repo, "rev-parse", "refs/heads/gitfleet/works/east") == first.clusters["east"]
    # one blob; trees works/west/shop/Deployment.apps, works/west/shop, works/west, works and
    # the root; the cluster ref's two wrapper trees; two commits
    assert loose_count(repo) - loose == 1 + 5 + 2 + 2


@pytest.mark.parametrize(
    "changes",
    [
        pytest.param({}, id="no changes"),
        pytest.param({"render.yaml": b"render\n"}, id="same content"),
        pytest.param({"gone/never.yaml": None}, id="removing what is not there"),
    ],
)
def test_no_change_makes_no_commit_and_writes_nothing(
    repo: repository.Repository, changes: Changes
) -> None:
    first = _publish(repo, 1, files=render_files(east=2))
    loose = loose_count(repo)
    again = _publish(repo, 2, changes=changes)
    assert (again.commit, again.created, again.clusters) == (first.commit, False, {})
    assert loose_count(repo) == loose


def test_a_cluster_emptied_by_changes_gets_an_empty_commit(repo: repository.Repository) -> None:
    _publish(repo, 1, files=render_files(east=2, west=3))
    gone = {p: None for p in render_files(west=3) if p.startswith("works/west/")}
    second = _publish(repo, 2, changes=gone)
    assert list(second.clusters) == ["west"]
    assert git(repo, "ls-tree", "-r", second.clusters["west"]) == ""
    assert "works/west" not in git(repo, "ls-tree", "-r", "-t", "--name-only", second.commit)
    third = _publish(repo, 3, changes={"render.yaml": b"other\n"})
    assert third.created
    assert third.clusters == {}


# -- compare-and-swap ----------------------------------------------------------------------


def test_stale_expected_tip_moves_nothing(repo: repository.Repository) -> None:
    first = _publish(repo, 1, files=render_files(east=2))
    seen = rendered.read_tip(repo, BRANCH)
    _publish(repo, 2, changes={"works/east/kustomization.yaml": b"b\n"})
    before = _state(repo)
    change: Changes = {"works/east/kustomization.yaml": b"c\n"}
    with pytest.raises(RefConflictError, match="moved while rendering"):
        rendered.publish(
            repo, BRANCH, changes=change, expected=first.commit, source_commit=f"{3:040x}",
            version="0.1.0", author=WHO,
        )  # fmt: skip
    with pytest.raises(RefConflictError, match="moved while rendering"):
        _publish(repo, 3, changes=change, tip=seen)
    assert _state(repo) == before


# -- reading the tip back -------------------------------------------------------------------


def test_read_tip_after_publish_reads_only_the_ref(
    repo: repository.Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    _publish(repo, 1, changes=dict(render_files(east=2, west=3)))
    _publish(repo, 2, changes={"works/east/new/x.yaml": b"x\n", "render.yaml": None})
    done = _publish(repo, 3, changes={"works/east/new/y.yaml": b"y\n"})
    commands: list[str] = []
    run = repo.run

    def recorded(*args: str, stdin: bytes | None = None) -> tuple[int, bytes, bytes]:
        commands.append(args[0])
        return run(*args, stdin=stdin)

    monkeypatch.setattr(repo, "run", recorded)
    found = rendered.read_tip(repo, BRANCH)
    assert commands == ["for-each-ref"]
    monkeypatch.undo()
    assert found is not None and found.commit == done.commit
    _same_listing(found, _fresh(repo))


def test_tips_kept_are_bounded(tmp_path: Path) -> None:
    tips = rendered._Tips(repositories=2, per_repository=2)
    repos = [bare(tmp_path / f"r{i}.git") for i in range(3)]

    def tip(commit: str) -> rendered.Tip:
        return rendered.Tip(commit=commit, tree="t", trailers={}, base=objects.EMPTY_BASE)

    for commit in ("c1", "c2", "c3"):
        tips.put(repos[0], tip(commit))
    assert [tips.get(repos[0], c) is not None for c in ("c1", "c2", "c3")] == [False, True, True]
    tips.put(repos[1], tip("d1"))
    assert tips.get(repos[0], "c2") is not None  # repos[0] is now the most recently used
    tips.put(repos[2], tip("e1"))
    assert tips.get(repos[1], "d1") is None
    assert tips.get(repos[0], "c3") is not None
    assert tips.get(repos[2], "e1") is not None


def test_publish_takes_files_or_changes(repo: repository.Repository) -> None:
    arguments: list[dict[str, Any]] = [{}, {"files": render_files(), "changes": {}}]
    for given_ in arguments:
        with pytest.raises(TypeError, match="either files or changes"):
            rendered.publish(
                repo, BRANCH, **given_, expected=None, source_commit="s", version="0.1.0"
            )
    assert _state(repo) == {}
