"""Bad input never crashes `gitfleet validate` and never changes anything.

Each case is a committed source (a real Git repository, read as its working tree, or at a
commit with --rev) or a missing folder;
each must give exit 1, the expected one-line `path:line:col: ...` problem, no traceback, and
leave every file and the repository as they were.

Aspects covered: YAML syntax errors; documents that are lists or scalars; missing apiVersion
or kind; duplicate keys (at the second key); alias bombs; files over maxFileSize; symbolic
links; named pipes and sockets named as source files (never opened; in a working tree, where
git never lists them, unless git ignores them); binary and non-UTF-8 files named .yaml; `..`
and absolute globs in gitfleet.yaml;
nesting 100,000 levels deep; Python and unknown tags; integers past int64 in Karmada objects
(which Go's decoder refuses), as large ints and as floats; a Lua syntax error naming one byte of a
character; crafted tree entries named `..` and `.git`; file names holding a new line or a
terminal escape, and object names holding them (one line a problem, the name escaped); a
file of 600,000 empty documents (its first 1,000 errors, then where checking stopped); an
unknown revision; an empty
repository; a folder that does not exist. And what is
fine: empty files, byte order marks, CRLF line endings, and a committed bare repository
whose configuration would run a command (it never runs).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

Invoke = Callable[..., Result]

OK = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n"
BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{name}: &{name} [{', '.join([f'*{prev}'] * 9)}]\n"
    for prev, name in zip("abcdefg", "bcdefgh", strict=True)
)

POLICY = (
    "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\n"
    "metadata: {name: p, namespace: default}\nspec:\n"
    "  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]\n  placement:\n"
)
CLUSTER = (
    "apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: c1}\n"
    "spec: {syncMode: Pull}\n"
)

LUA_BYTE_ERROR = (
    "apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\n"
    "metadata: {name: widgets}\nspec:\n  target: {apiVersion: example.io/v1, kind: Widget}\n"
    '  customizations:\n    healthInterpretation: {luaScript: "function InterpretHealth(o)'
    ' return \\u00e9 end"}\n'
)


def snapshot(root: Path) -> dict[str, bytes | str]:
    """Every file below `root` (the repository's own files included), by path."""
    found: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            found[rel] = "-> " + os.readlink(path)
        elif path.is_file():
            found[rel] = path.read_bytes()
    return found


def run(cli: Invoke, repo: Path, *args: str) -> Result:
    before = snapshot(repo) if repo.exists() else {}
    result = cli("validate", "--repo", str(repo), *args)
    assert "Traceback" not in result.output
    assert (snapshot(repo) if repo.exists() else {}) == before
    return result


BAD_FILES = [
    pytest.param({"a.yaml": "a: [1, 2\nb: 3\n"}, "a.yaml:2:2: error: invalid YAML: ", id="syntax"),
    pytest.param({"a.yaml": "- a\n- b\n"}, "a.yaml:1:1: error: document is a list", id="list"),
    pytest.param({"a.yaml": "hello\n"}, "a.yaml:1:1: error: document is a scalar", id="scalar"),
    pytest.param(
        {"a.yaml": "kind: ConfigMap\nmetadata: {name: a}\n"},
        "a.yaml:1:1: error: document has no apiVersion", id="no apiVersion",
    ),
    pytest.param(
        {"a.yaml": "apiVersion: v1\nmetadata: {name: a}\n"},
        "a.yaml:1:1: error: document has no kind", id="no kind",
    ),
    pytest.param(
        {"a.yaml": OK + "data:\n  k: 1\n  k: 2\n"},
        "a.yaml:7:3: error: duplicate key 'k'", id="duplicate key",
    ),
    pytest.param(
        {"a.yaml": BOMB}, "a.yaml:7:4: error: aliases and merge keys expand to more than",
        id="alias bomb",
    ),
    pytest.param(
        {"gitfleet.yaml": "maxFileSize: 64\n", "a.yaml": OK + "data: {k: " + "v" * 64 + "}\n"},
        "a.yaml: error: file is 128 bytes, over the limit of 64 (maxFileSize)", id="too large",
    ),
    pytest.param(
        {"a.yaml": b"apiVersion: v1\nkind: \x00\n"},
        "a.yaml:2:7: error: binary file (NUL byte) is not YAML", id="binary",
    ),
    pytest.param(
        {"a.yaml": b"apiVersion: v1\nkind: Caf\xe9\n"},
        "a.yaml:2:10: error: file is not UTF-8 text", id="latin-1",
    ),
    pytest.param(
        {"gitfleet.yaml": "include: ['../secrets/**']\n", "a.yaml": OK},
        "gitfleet.yaml:1:11: error: include[0]: pattern '../secrets/**' has a '..' segment",
        id="parent glob",
    ),
    pytest.param(
        {"gitfleet.yaml": "exclude: [/etc/passwd]\n", "a.yaml": OK},
        "gitfleet.yaml:1:11: error: exclude[0]: pattern '/etc/passwd' is absolute",
        id="absolute glob",
    ),
    pytest.param(
        {"a.yaml": "[" * 100_000},
        "a.yaml:1:201: error: nesting deeper than 200 levels", id="100k brackets",
    ),
    pytest.param(
        {"a.yaml": OK + "data: !!python/object/apply:os.system [touch pwned]\n"},
        "a.yaml:5:7: error: unsupported tag '!!python/object/apply:os.system'", id="python tag",
    ),
    pytest.param(
        {"a.yaml": OK + "data: !secret x\n"},
        "a.yaml:5:7: error: unsupported tag '!secret'", id="unknown tag",
    ),
    pytest.param(
        {"a.yaml": POLICY + "    clusterTolerations: [{key: k, operator: Exists,"
                   " tolerationSeconds: 9223372036854775808}]\n"},
        "a.yaml:7:53: error: PropagationPolicy default/p: spec.placement.clusterTolerations.0."
        "tolerationSeconds: 9223372036854775808 does not fit in a 64-bit integer",
        id="integer one past int64",
    ),
    pytest.param(
        {"a.yaml": CLUSTER + "status: {nodeSummary: {totalNum: -1e19}}\n"},
        "a.yaml:5:24: error: Cluster c1: status.nodeSummary.totalNum: -1e+19 does not fit in "
        "a 64-bit integer",
        id="float below int64",
    ),
    pytest.param(
        {"a.yaml": LUA_BYTE_ERROR},
        "a.yaml:7:28: error: ResourceInterpreterCustomization widgets: healthInterpretation: "
        "lua line 1: unexpected symbol near '\ufffd'",
        id="lua syntax error naming one byte of a character",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("files", "expected"), BAD_FILES)
def test_bad_file(cli: Invoke, git_repo: Any, files: dict[str, str | bytes], expected: str) -> None:
    for rel, content in files.items():
        target = git_repo.path / rel
        target.write_bytes(content if isinstance(content, bytes) else content.encode())
    git_repo.commit({})
    result = run(cli, git_repo.path)
    assert result.exit_code == 1
    problems = [line for line in result.stdout.splitlines() if ": error: " in line]
    assert len(problems) == 1, result.stdout
    assert problems[0].startswith(f"{git_repo.path}/{expected}"), problems[0]


def test_file_names_with_control_characters(cli: Invoke, git_repo: Any) -> None:
    """A file name may hold a new line or a terminal escape: each problem stays on one line,
    the name written with Python escapes (the JSON keeps the name as it is)."""
    for name in ("a\nb.yaml", "c\x1b[31m.yaml", "d\u2028.yaml"):
        (git_repo.path / name).write_text("a: [1\n")
    git_repo.commit({})
    result = run(cli, git_repo.path)
    assert result.exit_code == 1
    problems = result.stdout.splitlines()
    assert [line.split(":")[0].removeprefix(f"{git_repo.path}/") for line in problems] == [
        "a\\nb.yaml", "c\\x1b[31m.yaml", "d\\u2028.yaml",
    ]  # fmt: skip
    paths = [d["path"] for d in json.loads(run(cli, git_repo.path, "-o", "json").stdout)]
    assert sorted(paths) == [
        f"{git_repo.path}/{n}" for n in ("a\nb.yaml", "c\x1b[31m.yaml", "d\u2028.yaml")
    ]


def test_object_names_with_control_characters(cli: Invoke, git_repo: Any) -> None:
    """A name the source gives is refused; its problem names the object, and stays one line
    with the name escaped, whatever the name holds (the JSON keeps the message as it is)."""
    names = ("a\nb", "c\x1b[31m", "d\u2028e")
    written = ("a\\nb", "c\\e[31m", "d\\u2028e")  # YAML's escapes, in double quotes
    docs = [f'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "{n}"\n' for n in written]
    git_repo.commit({"maps.yaml": "---\n".join(docs)})
    result = run(cli, git_repo.path)
    assert result.exit_code == 1
    problems = result.stdout.splitlines()
    assert len(problems) == 3
    for line, escaped in zip(problems, ("a\\nb", "c\\x1b[31m", "d\\u2028e"), strict=True):
        assert line.startswith(f"{git_repo.path}/maps.yaml:")
        assert f"ConfigMap default/{escaped}: metadata.name:" in line
    messages = [d["message"] for d in json.loads(run(cli, git_repo.path, "-o", "json").stdout)]
    assert [m.split(": ")[0] for m in messages] == [f"ConfigMap default/{n}" for n in names]


def test_symbolic_link(cli: Invoke, git_repo: Any) -> None:
    (git_repo.path / "secret.txt").write_text(OK)
    os.symlink("secret.txt", git_repo.path / "a.yaml")
    git_repo.commit({})
    result = run(cli, git_repo.path)
    assert result.exit_code == 1
    assert result.stdout == f"{git_repo.path}/a.yaml: error: symbolic link is not followed\n"


def test_named_pipes_and_sockets_are_reported_never_opened(
    cli: Invoke, git_repo: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Git never lists them, so a working tree's are found beside the files it lists: those
    named as source files are errors (opening a named pipe would wait for a writer forever),
    others and those git ignores are passed over; a tracked file replaced by one too."""
    git_repo.commit({"a.yaml": OK, "b.yaml": OK, ".gitignore": "ignored.yaml\n"})
    (git_repo.path / "b.yaml").unlink()
    for name in ("x.yaml", "b.yaml", "ignored.yaml", "notes.txt"):
        os.mkfifo(git_repo.path / name)
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(git_repo.path / "s.yml"))
        monkeypatch.chdir(git_repo.path.parent)
        result = run(cli, Path("source"))
    assert result.exit_code == 1
    assert result.stdout == (
        "source/b.yaml: error: named pipe (FIFO) is not read: not a regular file\n"
        "source/s.yml: error: socket is not read: not a regular file\n"
        "source/x.yaml: error: named pipe (FIFO) is not read: not a regular file\n"
    )


def test_a_named_pipe_in_a_plain_folder_is_reported(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "fleet").mkdir()
    os.mkfifo(tmp_path / "fleet" / "gitfleet.yaml")
    os.mkfifo(tmp_path / "fleet" / "x.yaml")
    monkeypatch.chdir(tmp_path)
    result = run(cli, Path("fleet"))
    assert result.exit_code == 1
    assert result.stdout == (
        "fleet/gitfleet.yaml: error: named pipe (FIFO) is not read: not a regular file\n"
        "fleet/x.yaml: error: named pipe (FIFO) is not read: not a regular file\n"
    )


@pytest.mark.parametrize("name", ["..", ".git"])
def test_crafted_tree_entry(cli: Invoke, git_repo: Any, name: str) -> None:
    git_repo.commit({"a.yaml": OK})
    blob = git_repo.git("rev-parse", "HEAD:a.yaml")
    listing = f"100644 blob {blob}\t{name}\n100644 blob {blob}\ta.yaml\n"
    tree = subprocess.run(
        ["git", "mktree"], cwd=git_repo.path, input=listing, text=True, capture_output=True,
        check=True,
    ).stdout.strip()  # fmt: skip
    commit = git_repo.git("commit-tree", tree, "-p", "HEAD", "-m", "crafted")
    git_repo.git("update-ref", "refs/heads/main", commit)
    result = run(cli, git_repo.path, "--rev", "main")
    assert result.exit_code == 1
    assert result.stderr == (
        f"{git_repo.path}: invalid revision {commit}: tree entry {name!r} in the root folder\n"
    )


@pytest.mark.parametrize(
    ("committed", "expected"),
    [
        pytest.param(True, "unknown revision 'nope'", id="unknown revision"),
        pytest.param(False, "empty repository: no commits yet", id="empty repository"),
    ],
)
def test_no_commit_to_read(cli: Invoke, git_repo: Any, committed: bool, expected: str) -> None:
    if committed:
        git_repo.commit({"a.yaml": OK})
    result = run(cli, git_repo.path, "--rev", "nope")
    assert result.exit_code == 1
    assert result.stderr == f"{git_repo.path}: {expected}\n"


def test_missing_folder(cli: Invoke, tmp_path: Path) -> None:
    result = run(cli, tmp_path / "nowhere")
    assert result.exit_code == 1
    assert result.stderr == f"{tmp_path / 'nowhere'}: no such folder\n"


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(b"", id="empty file"),
        pytest.param(b"\xef\xbb\xbf" + OK.encode(), id="byte order mark"),
        pytest.param(OK.replace("\n", "\r\n").encode(), id="CRLF"),
    ],
)
def test_fine_files(cli: Invoke, git_repo: Any, content: bytes) -> None:
    (git_repo.path / "a.yaml").write_bytes(content)
    git_repo.commit({})
    result = run(cli, git_repo.path)
    assert (result.exit_code, result.stdout) == (0, "")


def test_committed_bare_repository_never_runs_its_config(
    cli: Invoke, git_repo: Any, tmp_path: Path
) -> None:
    marker = tmp_path / "marker"
    inner = git_repo.path / "vendor.git"
    git_repo.git("init", "-q", "--bare", str(inner))
    git_repo.git("--git-dir", str(inner), "config", "core.fsmonitor", f"touch {marker}")
    git_repo.commit({"vendor.git/a.yaml": OK, "vendor.git/refs/heads/.keep": ""})
    assert run(cli, git_repo.path).exit_code == 0
    assert run(cli, inner).exit_code == 1  # named explicitly: read, but it has no commits
    assert not marker.exists()


def test_a_file_of_many_documents_stops_at_its_thousandth_error(
    cli: Invoke, git_repo: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """600,000 empty mappings (4 MB, within maxFileSize): the first 1,000 errors, then where
    checking stopped; the documents past it are never built (the file is read in file order)."""
    git_repo.commit({"many.yaml": "{}\n---\n" * 600_000})
    monkeypatch.chdir(git_repo.path.parent)
    result = run(cli, Path("source"))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert len(lines) == 1001
    assert lines[:2] == [
        "source/many.yaml:1:1: error: document has no apiVersion",
        "source/many.yaml:3:1: error: document has no apiVersion",
    ]
    assert lines[-1] == (
        "source/many.yaml:2001:1: error: over 1000 errors in this file: it is not checked from "
        "here on"
    )
