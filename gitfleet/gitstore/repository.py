"""Open a repository and run git for it, without ever trusting what the source contains.

Every git process gitfleet starts gets the repository named explicitly (`GIT_DIR`), so git never
discovers a repository by itself, plus configuration that outranks the repository's own:
`safe.bareRepository=explicit` (a bare repository committed inside a source is never picked up
implicitly) and `core.fsmonitor=false` (no repository setting can make git start a command).
Only the object database is read.
"""

from __future__ import annotations

import datetime
import os
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import git

from gitfleet.errors import SourceError
from gitfleet.model import times
from gitfleet.model.origin import Origin

SAFE_CONFIG = (("safe.bareRepository", "explicit"), ("core.fsmonitor", "false"))


def output_lines(out: bytes) -> list[str]:
    """The lines git printed, split at newlines only: `str.splitlines` also splits at U+2028,
    U+0085 and others, which a ref name, a path or an object name git echoes may hold."""
    return [line for line in out.decode(errors="replace").split("\n") if line]


def safe_environment(git_dir: Path, settings: Sequence[tuple[str, str]] = ()) -> dict[str, str]:
    """Environment for git processes working on `git_dir`, with `SAFE_CONFIG` and then
    `settings` as configuration (git reads it as given on its command line, but no other
    process sees it). The path is made absolute: git runs
    in whatever folder its caller chose (gitpython: the work tree), not necessarily the one a
    relative `git_dir` was given from. Objects are read as their ids name them, never through
    `refs/replace/`: anyone who can push can push such a ref, and a commit checked (its
    signature, its Source-Commit) would otherwise be read with other trees and files."""
    config = [*SAFE_CONFIG, *settings]
    env = {
        "GIT_DIR": os.path.abspath(git_dir),
        "GIT_NO_REPLACE_OBJECTS": "1",
        "GIT_CONFIG_COUNT": str(len(config)),
    }
    for index, (key, value) in enumerate(config):
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value
    return env


def common_dir(git_dir: Path) -> Path:
    """Where the objects and refs of `git_dir` live: itself, or for a linked worktree's git
    directory the common folder its `commondir` file names."""
    if (git_dir / "commondir").is_file():
        return (git_dir / (git_dir / "commondir").read_text(encoding="utf-8").strip()).resolve()
    return git_dir


def _is_git_dir(path: Path) -> bool:
    """What git itself checks: a HEAD file, and objects/ and refs/ folders (in the common
    folder)."""
    if not (path / "HEAD").is_file():
        return False
    common = common_dir(path)
    return (common / "objects").is_dir() and (common / "refs").is_dir()


def find_git_dir(path: Path) -> Path | None:
    """The git directory when `path` is the top of a repository or a bare repository itself."""
    dot_git = path / ".git"
    if dot_git.is_dir():
        return dot_git if _is_git_dir(dot_git) else None
    if dot_git.is_file():  # a linked worktree or submodule: "gitdir: <path>"
        text = dot_git.read_text(encoding="utf-8", errors="replace").strip()
        if text.startswith("gitdir:"):
            target = (path / text.removeprefix("gitdir:").strip()).resolve()
            return target if _is_git_dir(target) else None
        return None
    return path if _is_git_dir(path) else None


class Running:
    """A git process under way, its input written (or to be written by `finish`). It holds
    gitpython's handle too: dropping that handle ends the process."""

    def __init__(self, handle: git.cmd.Git.AutoInterrupt, stdin: bytes | None) -> None:
        self._handle = handle
        self._stdin = stdin

    def finish(self) -> tuple[int, bytes, bytes]:
        """Wait for git to end: (exit code, stdout, stderr)."""
        proc = self._handle.proc
        assert proc is not None
        out, err = proc.communicate(self._stdin)
        return proc.returncode, out, err


class Repository:
    """One repository's object database, read through gitpython's git command wrapper."""

    def __init__(self, git_dir: Path, display: str, *, work_tree: Path | None = None) -> None:
        self.git_dir = Path(os.path.abspath(git_dir))
        self.display = display
        """How the user named the repository, for messages."""
        self.work_tree = Path(os.path.abspath(work_tree)) if work_tree is not None else None
        """The folder checked out from it (None: a bare repository); read only by `worktree`."""
        try:
            self._repo = git.Repo(self.git_dir)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
            raise SourceError(Origin(display), "not a Git repository") from exc
        self._repo.git.update_environment(**safe_environment(git_dir))

    def close(self) -> None:
        self._repo.close()

    def fail(self, message: str) -> SourceError:
        return SourceError(Origin(self.display), message)

    def run(
        self,
        *args: str,
        stdin: bytes | Iterable[bytes] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> tuple[int, bytes, bytes]:
        """Run `git ARGS` (with `env` added to the environment); returns (exit code, stdout,
        stderr). `stdin` given in pieces is written a piece at a time, all of it before any
        output is read: only for commands that answer once their input has ended."""
        return self.start(*args, stdin=stdin, env=env).finish()

    def start(
        self,
        *args: str,
        stdin: bytes | Iterable[bytes] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Running:
        """`run`, returning once `stdin` given in pieces is written: git may still be at work
        when the caller goes on (`Running.finish` waits for it)."""
        try:
            process = self._repo.git.execute(
                ["git", *args],
                as_process=True,
                istream=subprocess.PIPE if stdin is not None else None,
                env=env,
            )
        except git.GitCommandNotFound as exc:
            raise self.fail("cannot run git: is it installed?") from exc
        if stdin is None or isinstance(stdin, bytes):
            return Running(process, stdin)
        proc = process.proc
        assert proc is not None and proc.stdin is not None
        try:
            for piece in stdin:
                proc.stdin.write(piece)
        except BrokenPipeError:
            pass  # git stopped reading: it says why on stderr
        except BaseException:
            Running(process, None).finish()
            raise
        return Running(process, None)

    def commit_of(self, rev: str) -> str | None:
        """The commit `rev` names (branch, tag, sha, `HEAD~2`, ...), None if it names none;
        `SourceError` when git cannot read the repository at all (it was removed, say), which
        is no answer about `rev`: a caller would report the ref missing, and act on that."""
        if not rev or rev.startswith("-"):
            return None
        code, out, err = self.run(
            "rev-parse", "--verify", "--quiet", "--end-of-options", rev + "^{commit}"
        )
        if code == 0:
            return out.decode().strip()
        problem = [line for line in output_lines(err) if line.startswith("fatal:")]
        if code != 1 or problem:
            reason = problem[0] if problem else f"git rev-parse exited with {code}"
            raise self.fail(f"git cannot read the repository: {reason}")
        return None

    def commit_time(self, commit: str) -> str | None:
        """The committer date of `commit` (RFC 3339 in UTC, as Kubernetes writes its times,
        whatever zone the committer was in), None if unreadable: what stamps a render's
        schedules, so that a render depends on its inputs only."""
        code, out, _ = self.run("show", "-s", "--format=%ct", "--end-of-options", commit)
        seconds = out.decode().strip()
        if code != 0 or not seconds.isdigit():
            return None
        return times.text(datetime.datetime.fromtimestamp(int(seconds), datetime.UTC))

    def has_refs(self) -> bool:
        """Whether any branch or tag exists; `SourceError` when git cannot read the repository
        at all (e.g. it refuses one owned by another user)."""
        code, out, err = self.run("for-each-ref", "--count=1", "--format=%(refname)")
        if code != 0:
            problem = err.decode(errors="replace").strip().splitlines()
            raise self.fail(f"git cannot read the repository: {problem[0] if problem else code}")
        return bool(out.strip())

    def sizes(self, shas: Iterable[str]) -> dict[str, int]:
        """Object sizes in bytes, without reading the objects."""
        request = "".join(f"{sha}\n" for sha in shas).encode()
        if not request:
            return {}
        code, out, err = self.run("cat-file", "--batch-check", stdin=request)
        if code != 0:
            raise self.fail(f"cannot read objects: {err.decode(errors='replace').strip()}")
        sizes = {}
        for line in output_lines(out):
            sha, _, rest = line.partition(" ")
            kind, _, size = rest.partition(" ")
            if kind != "missing" and size.isdigit():
                sizes[sha] = int(size)
        return sizes

    def read(self, shas: Iterable[str], kind: str) -> Mapping[str, bytes]:
        """The contents of objects of one type (blob, tree, commit); missing ones are absent."""
        request = "".join(f"{sha}\n" for sha in shas).encode()
        if not request:
            return {}
        code, out, err = self.run("cat-file", "--batch", stdin=request)
        if code != 0:
            raise self.fail(f"cannot read objects: {err.decode(errors='replace').strip()}")
        objects: dict[str, bytes] = {}
        at = 0
        while at < len(out):
            end = out.index(b"\n", at)
            header = out[at:end].decode().split(" ")
            at = end + 1
            if len(header) != 3:
                continue  # "<sha> missing"
            sha, found, size = header[0], header[1], int(header[2])
            if found == kind:
                objects[sha] = out[at : at + size]
            at += size + 1
        return objects


NOT_A_REPOSITORY = "not a Git repository (its top must hold .git)"


def not_a_repository(path: str | os.PathLike[str], message: str = NOT_A_REPOSITORY) -> SourceError:
    """The error for a folder that is no repository's top (or for a path that is no folder). A
    folder inside a repository's work tree (where `git` itself would work) gets the `--repo`
    that names the top, as seen from the current directory when `path` is relative."""
    where = os.fspath(path)
    if not os.path.isdir(where):
        return SourceError(
            Origin(where), "not a folder" if os.path.exists(where) else "no such folder"
        )
    hint = inside_repository(where)
    return SourceError(Origin(where), f"{message}; {hint}" if hint else message)


def inside_repository(path: str | os.PathLike[str]) -> str | None:
    """`it is inside the repository at TOP (--repo TOP)` when the folder `path` lies in a
    repository's work tree below its top (where `git` itself would work, and gitfleet reads
    only the folder, or nothing), TOP as seen from the current directory when `path` is
    relative; None otherwise. The one hint every command gives for a --repo that is not a
    repository's top."""
    where = os.fspath(path)
    inside = Path(os.path.abspath(where))
    top = next((p for p in inside.parents if (p / ".git").exists() and find_git_dir(p)), None)
    if top is None:
        return None
    named = os.fspath(top) if os.path.isabs(where) else os.path.relpath(top)
    return f"it is inside the repository at {named} (--repo {named})"


def work_tree_of(path: str) -> str | None:
    """The work tree `path` is the `.git` of (`fleet` for `fleet/.git`), as `path` spells it;
    None for any other path. Git reads such a path as that repository (`git -C fleet/.git log`):
    read as a bare repository instead, it would lose the work tree and put `.git` in every path
    a message prints."""
    normal = os.path.normpath(path)
    if os.path.basename(normal) != ".git":
        return None
    parent = os.path.dirname(normal) or "."
    return parent if find_git_dir(Path(parent)) is not None else None


def open_repository(path: str | os.PathLike[str]) -> Repository | None:
    """The repository whose top (or bare repository) `path` is; None for any other folder."""
    top = Path(path)
    git_dir = find_git_dir(top)
    if git_dir is None:
        return None
    return Repository(git_dir, os.fspath(path), work_tree=top if git_dir != top else None)
