"""Objects computed in Python and written straight into the object database.

Aspects covered:
- tree ids equal those git computes for the same files, entry order included (`a.b` before
  the folder `a`, `a-b`, `a0`), nested folders, identical files stored once;
- a tree built on a base reuses unchanged folders and equals the tree built from scratch,
  through additions, changes, deletions, and folders appearing and disappearing; so does
  the tree made by applying only the changes to the base, whose listing (every file,
  folder, and folder's entries) equals the new tree's own;
- paths that cannot be files of a tree are refused: empty, absolute, `//`, `.`, `..`,
  `.git` in any case, NUL, backslash, a name that is both a file and a folder; as changes
  to a base too, with the same message;
- SHA-256 repositories get SHA-256 ids;
- a few objects become loose objects, many become one pack; git verifies both (fsck);
  new blobs handed over without their ids are kept and read back, one given twice included;
  objects of every size, up to over one piece of the stream, read back whole;
- files spliced from one shared text (a manifest and its cluster's label line) get the ids
  git gives them and are stored as deltas against the first of them, and read back whole:
  the span at the start, at the end, longer than one insert instruction, empty, other spans
  of the same text, texts larger than one copy's two-byte size and bases further back than
  64 KiB;
- commit objects carry their trailers as git itself parses them.
"""

from __future__ import annotations

import dataclasses
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gitfleet.gitstore import objects, repository, store


def _git(path: Path, *args: str, data: bytes | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=path, input=data, capture_output=True, check=True)
    return done.stdout.decode().strip()


def _bare(tmp_path: Path, *options: str) -> repository.Repository:
    path = tmp_path / "rendered.git"
    subprocess.run(["git", "init", "-q", "--bare", *options, str(path)], check=True)
    opened = repository.open_repository(path)
    assert opened is not None
    return opened


FILES = {
    "a.b": b"dot\n",
    "a/x.yaml": b"x: 1\n",
    "a-b": b"dash\n",
    "a0": b"zero\n",
    "works/c1/shop/Deployment.apps/web.yaml": b"same\n",
    "works/c2/shop/Deployment.apps/web.yaml": b"same\n",
    "works/c2/_cluster/Namespace.core/shop.yaml": b"ns\n",
    "render.yaml": b"r: 1\n",
}


def test_tree_ids_match_git(git_repo: Any) -> None:
    git_repo.commit({path: data.decode() for path, data in FILES.items()})
    built = objects.build_tree(FILES)
    assert built.id == git_repo.git("rev-parse", "HEAD^{tree}")
    assert built.folders["works/c2"] == git_repo.git("rev-parse", "HEAD:works/c2")
    blobs = [o for o in built.objects if o.kind == objects.BLOB]
    assert len(blobs) == len(set(FILES.values()))


def _base(files: dict[str, bytes]) -> objects.Base:
    return objects.apply_changes(objects.EMPTY_BASE, files).base


@pytest.mark.parametrize(
    "change",
    [
        pytest.param({"a/x.yaml": b"x: 2\n"}, id="changed file"),
        pytest.param({"a/y.yaml": b"y\n"}, id="added file"),
        pytest.param({"a/x.yaml": None}, id="deleted last file of a folder"),
        pytest.param({"new/deep/f": b"f\n"}, id="new folders"),
        pytest.param({"works/c1/shop/Deployment.apps/web.yaml": None}, id="deleted subtree"),
        pytest.param({"a/x.yaml": None, "a": b"a\n"}, id="folder replaced by a file"),
        pytest.param({"a0": None, "a0/f": b"f\n"}, id="file replaced by a folder"),
        pytest.param({"a/x.yaml": b"x: 1\n"}, id="same content again"),
        pytest.param({}, id="nothing"),
    ],
)
def test_build_on_a_base_equals_full_build(change: dict[str, bytes | None]) -> None:
    base = _base(FILES)
    files: dict[str, objects.Content] = {p: objects.Blob(i) for p, i in base.files.items()}
    final = dict(FILES)
    for path, data in change.items():
        if data is None:
            del files[path], final[path]
        else:
            files[path] = final[path] = data
    full = objects.build_tree(final)
    incremental = objects.build_tree(files, base=base)
    assert incremental.id == full.id
    assert incremental.folders == full.folders
    changed = objects.apply_changes(base, change)
    assert changed.tree.id == full.id
    assert changed.tree.folders == full.folders
    fresh = _base(final)
    assert changed.base.files == fresh.files
    assert changed.base.folders == fresh.folders
    for folder in {*FILES, *final, *base.folders, *fresh.folders}:
        assert changed.base.folder(folder) == fresh.folder(folder), folder
    if not change:
        assert incremental.objects == ()
        assert changed.tree.missing(changed.held.__contains__) == []


def test_a_listing_is_read_from_the_folders_entries() -> None:
    """A base lists every file by path without holding one: looked up through its folder,
    listed folder by folder, each folder's files read from the tree object built for it."""
    base = _base(FILES)
    listing = base.files
    ids = {p: objects.SHA1.object_id(objects.BLOB, d) for p, d in FILES.items()}
    assert len(listing) == len(FILES)
    assert dict(listing.items()) == ids
    assert list(listing) == [p for p, _ in listing.items()]
    assert list(listing.values()) == [i for _, i in listing.items()]
    web = ids["works/c2/shop/Deployment.apps/web.yaml"]
    assert listing.folder("works/c2/shop/Deployment.apps") == {"web.yaml": web}
    assert listing.folder("nowhere") == {}
    assert (
        listing["works/c2/shop/Deployment.apps/web.yaml"]
        == ids["works/c1/shop/Deployment.apps/web.yaml"]
    )
    assert "a/x.yaml" in listing and "a/y.yaml" not in listing and "nowhere/x" not in listing
    assert 1 not in listing
    with pytest.raises(KeyError):
        listing["a/y.yaml"]
    entries = base.folder("works/c1/shop/Deployment.apps").files
    assert isinstance(entries, objects.Entries)  # no dictionary of names
    assert list(entries) == ["web.yaml"] and len(entries) == 1
    assert entries["web.yaml"] == ids["works/c1/shop/Deployment.apps/web.yaml"]


def test_changes_onto_no_tree_make_the_whole_tree() -> None:
    changed = objects.apply_changes(objects.EMPTY_BASE, FILES)
    assert changed.tree.id == objects.build_tree(FILES).id
    assert changed.held == frozenset()
    assert objects.apply_changes(objects.EMPTY_BASE, {}).tree.id == objects.build_tree({}).id


@pytest.mark.parametrize(
    "path",
    [
        pytest.param("", id="empty"),
        pytest.param("/etc/passwd", id="absolute"),
        pytest.param("a//b", id="empty segment"),
        pytest.param("a/./b", id="dot"),
        pytest.param("a/../b", id="dot dot"),
        pytest.param("..", id="only dot dot"),
        pytest.param(".git/config", id="dot git"),
        pytest.param("a/.GIT/hooks", id="dot git any case"),
        pytest.param("a/b\0c", id="nul"),
        pytest.param("a\\..\\b", id="backslash"),
        pytest.param("a/", id="trailing slash"),
    ],
)
def test_bad_paths_are_refused(path: str) -> None:
    with pytest.raises(objects.PathError) as whole:
        objects.build_tree({path: b"x"})
    for content in (b"x", None):
        with pytest.raises(objects.PathError) as changed:
            objects.apply_changes(_base(FILES), {path: content})
        assert str(changed.value) == str(whole.value)


@pytest.mark.parametrize(
    ("files", "change"),
    [
        pytest.param({"a/b": b"y"}, {"a": b"x"}, id="file where a folder is"),
        pytest.param({"a": b"x"}, {"a/b": b"y"}, id="folder where a file is"),
        pytest.param({"a/b/c": b"y"}, {"a/b/c": None, "a/b/d/e": b"z", "a/b": b"x"}, id="deep"),
    ],
)
def test_a_name_cannot_be_file_and_folder(
    files: dict[str, bytes], change: dict[str, bytes | None]
) -> None:
    final = {**files, **change}
    with pytest.raises(objects.PathError, match="both a file and a folder") as whole:
        objects.build_tree({p: c for p, c in final.items() if c is not None})
    with pytest.raises(objects.PathError) as changed:
        objects.apply_changes(_base(files), change)
    assert str(changed.value) == str(whole.value)


def test_sha256_repository(tmp_path: Path) -> None:
    repo = _bare(tmp_path, "--object-format=sha256")
    fmt = store.object_format(repo)
    assert fmt is objects.SHA256
    built = objects.build_tree({"f": b"x\n"}, fmt)
    store.write(repo, built.objects, fmt)
    assert len(built.id) == 64
    assert _git(repo.git_dir, "cat-file", "-p", f"{built.id}:f") == "x"


@pytest.mark.parametrize("count", [pytest.param(3, id="loose"), pytest.param(300, id="pack")])
def test_written_objects_are_verified_by_git(tmp_path: Path, count: int) -> None:
    repo = _bare(tmp_path)
    files = {f"d{i % 7}/f{i}.yaml": f"i: {i}\n".encode() for i in range(count)}
    built = objects.build_tree(files)
    store.write(repo, built.objects, objects.SHA1)
    _git(repo.git_dir, "fsck", "--strict", "--no-dangling")
    packs = list((repo.git_dir / "objects" / "pack").glob("*.pack"))
    assert bool(packs) == (count >= store.UNPACK_LIMIT)
    listed = _git(repo.git_dir, "ls-tree", "-r", "--name-only", built.id).splitlines()
    assert listed == sorted(files)
    assert _git(repo.git_dir, "cat-file", "-p", f"{built.id}:d1/f1.yaml") == "i: 1"


def test_objects_of_every_size_read_back_whole(tmp_path: Path) -> None:
    """Each object is compressed with a window fitted to its size, from empty to larger
    than zlib's largest window, and across several pieces of the stream."""
    repo = _bare(tmp_path)
    sizes = [0, 1, 249, 250, 251, 1800, 4000, 40_000, 3 * store.PIECE_BYTES // 2]
    files = {f"f{n}": bytes(i * 7 % 251 for i in range(n)) for n in sizes}
    files.update({f"many/g{i}": b"g: %d\n" % i for i in range(store.UNPACK_LIMIT)})
    built = objects.build_tree(files)
    store.write(repo, built.objects, objects.SHA1)
    _git(repo.git_dir, "fsck", "--strict", "--no-dangling")
    for n in sizes:
        found = subprocess.run(
            ["git", "cat-file", "blob", f"{built.id}:f{n}"], cwd=repo.git_dir,
            capture_output=True, check=True,
        ).stdout  # fmt: skip
        assert found == files[f"f{n}"]


@dataclasses.dataclass(frozen=True)
class _Spliced:
    shared: bytes
    start: int
    cut: int
    middle: bytes

    def __bytes__(self) -> bytes:
        return self.shared[: self.start] + self.middle + self.shared[self.cut :]

    def splice(self) -> tuple[bytes, int, int, bytes]:
        return self.shared, self.start, self.cut, self.middle


def test_spliced_files_are_stored_as_deltas_and_read_back_whole(tmp_path: Path) -> None:
    repo = _bare(tmp_path)
    text = b"".join(b"line %d of a manifest\n" % i for i in range(40))
    large = random.Random(7).randbytes(200_000)
    spans = {
        "middle": (text, 100, 140),
        "start": (text, 0, 30),
        "end": (text, len(text) - 25, len(text)),
        "large": (large, 150_000, 150_010),
    }
    files: dict[str, objects.Content] = {}
    for name, (shared, start, cut) in spans.items():
        for i in range(60):
            middle = b"cluster-%d" % i if i % 3 else b"c%d-" % i * 40
            middle = b"a span larger than a stored block " * 2000 if i == 11 else middle
            files[f"{name}/c{i}"] = _Spliced(shared, start, cut, middle if i != 7 else b"")
    files["other/span"] = _Spliced(text, 5, 9, b"another span")
    files["other/plain"] = b"not spliced\n"
    ids = objects.BlobIds(objects.SHA1)
    built = objects.build_tree({p: objects.Hashed(ids.of(c), c) for p, c in files.items()})
    store.write(repo, built.objects, objects.SHA1)
    _git(repo.git_dir, "fsck", "--strict", "--no-dangling")
    listed = _git(repo.git_dir, "ls-tree", "-r", "--name-only", built.id).splitlines()
    assert listed == sorted(files)
    for path, content in files.items():
        found = subprocess.run(
            ["git", "cat-file", "blob", f"{built.id}:{path}"], cwd=repo.git_dir,
            capture_output=True, check=True,
        ).stdout  # fmt: skip
        assert found == bytes(content), path
    (pack,) = (repo.git_dir / "objects" / "pack").glob("*.pack")
    assert pack.stat().st_size < 2 * len(large), "each large file but one a delta, not a copy"


def test_new_blobs_received_unhashed_are_checked_and_kept(tmp_path: Path) -> None:
    """A render's new blobs go to git without their ids, spliced manifests among them (one
    given twice is a pack holding it twice, which git takes)."""
    repo = _bare(tmp_path)
    text = b"".join(b"line %d\n" % i for i in range(30))
    spliced = [_Spliced(text, 20, 26, b"cluster-%d" % i) for i in range(store.UNPACK_LIMIT)]
    twice = [*spliced, spliced[0]]
    blobs = store.Blobs([b"whole\n", *twice])
    assert len(blobs) == len(twice) + 1
    incoming = store.receive(repo, blobs, objects.SHA1)
    incoming.keep()
    _git(repo.git_dir, "fsck", "--strict")
    ids = objects.BlobIds(objects.SHA1)
    for content in [*spliced, b"whole\n"]:
        oid = ids.of(content)
        found = subprocess.run(
            ["git", "cat-file", "blob", oid], cwd=repo.git_dir, capture_output=True, check=True
        ).stdout
        assert found == bytes(content)


def test_commit_trailers_as_git_reads_them(tmp_path: Path) -> None:
    repo = _bare(tmp_path)
    built = objects.build_tree({"f": b"x\n"})
    who = objects.Signature("gitfleet", "gitfleet@localhost", 1767225600)
    trailers = [("Source-Commit", "a" * 40), ("Gitfleet-Render", "0.1.0")]
    commit = objects.commit_object(built.id, [], who, "render a\n", trailers)
    store.write(repo, [*built.objects, commit], objects.SHA1)
    parsed = _git(repo.git_dir, "log", "-1", "--format=%(trailers:only,unfold)%an %at", commit.id)
    assert parsed.splitlines() == [
        f"Source-Commit: {'a' * 40}",
        "Gitfleet-Render: 0.1.0",
        "gitfleet 1767225600",
    ]
    assert objects.trailers_of(commit.data) == dict(trailers)
    assert objects.tree_of_commit(commit.data) == built.id
