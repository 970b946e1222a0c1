"""A remote repository, worked with through a bare copy in a cache folder.

`Mirror.fetch` brings every branch of the remote into the copy (branches the remote deleted are
deleted too), so everything else reads the copy with the usual local functions. `Mirror.push`
moves one ref of the remote by compare-and-swap (`git push --force-with-lease=<ref>:<expected>`),
which is how an agent replaces its status ref without ever overwriting someone else's write;
`Mirror.push_many` moves several in one atomic push (a render and its per-cluster refs).

The copy is named after a hash of the URL, so one cache folder serves several remotes. git runs
with the same protective configuration as for local repositories.

A password (a token) written into a URL (`https://user:TOKEN@host/fleet.git`) is never given
to git as part of the URL: git passes the URL on to its helpers' command lines (`git
remote-https`, `git send-pack`), where anyone on the host can read it (`ps`), and a copy would
keep it in its configuration. `address` takes it out; a credential helper in the git process's
own configuration hands it to git from the environment, which only the process's user can read.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import subprocess
import urllib.parse
from collections.abc import Mapping, Sequence
from pathlib import Path

from gitfleet.errors import RefConflictError, SourceError, UsageError
from gitfleet.gitstore import refs, repository
from gitfleet.model.origin import Origin

_FETCH_REFSPEC = "+refs/heads/*:refs/heads/*"
_USERNAME = "GITFLEET_GIT_USERNAME"
_PASSWORD = "GITFLEET_GIT_PASSWORD"
_HELPER = (
    '!f() { test "$1" = get || exit 0; '
    f'printf \'username=%s\\npassword=%s\\n\' "${_USERNAME}" "${_PASSWORD}"; }}; f'
)
"""A credential helper answering with what the environment holds (`printf` is the shell's
own, so the password is on no command line)."""
_REJECTED = ("stale info", "[rejected]", "non-fast-forward", "fetch first")


def is_remote(location: str) -> bool:
    """Whether `location` names a remote (a URL or `host:path`) rather than a local folder."""
    if "://" in location:
        return True
    head, sep, _ = location.partition(":")
    return bool(sep) and "/" not in head and not Path(location).exists() and len(head) > 1


def locate(location: str) -> str:
    """`location` as a git process can take it from any folder: a local path made absolute
    (git runs in the copy's folder, not the user's; and a copy is named after its location), a
    URL as given. `UsageError` for a `file://` URL naming a host: git would read the host as
    part of the path, or find no path at all."""
    if not is_remote(location):
        return os.path.abspath(location)
    parsed = urllib.parse.urlsplit(location)
    if parsed.scheme == "file" and parsed.netloc not in ("", "localhost"):
        raise UsageError(
            f"{location}: a file:// URL takes an absolute path (file:///path/to/repo);"
            " give a relative path without file://"
        )
    return location


def shown(location: str) -> str:
    """`location` as messages and logs show it: a URL's user information, where a token or a
    password goes (`https://user:TOKEN@host/fleet.git`), replaced by `***`, as git leaves it
    out of its own messages. Logs and reports reach more people than the credential should."""
    if "://" not in location:
        return location
    try:
        parsed = urllib.parse.urlsplit(location)
    except ValueError:
        return location.partition("://")[0] + "://***"
    _, at, host = parsed.netloc.rpartition("@")
    if not at:
        return location
    return urllib.parse.urlunsplit(parsed._replace(netloc=f"***@{host}"))


@dataclasses.dataclass(frozen=True, slots=True)
class Address:
    """A remote as git is given it: the URL without its password, and what hands git the
    password (see the module docstring)."""

    url: str
    settings: tuple[tuple[str, str], ...] = ()
    """git configuration: a credential helper for the URL's host, alone."""
    secrets: Mapping[str, str] = dataclasses.field(default_factory=dict)
    """Environment the helper reads."""

    def environment(self, git_dir: Path) -> dict[str, str]:
        """The environment of a git process on `git_dir` that talks to this remote."""
        return {**repository.safe_environment(git_dir, self.settings), **self.secrets}


@dataclasses.dataclass(frozen=True, slots=True)
class Credential:
    """The user and password written into a URL, and the URL without the password."""

    url: str
    user: str
    password: str
    scope: str
    """`scheme://host[:port]`: where git may send them."""


def credential(location: str) -> Credential | None:
    """The credential written into `location`, when it is a URL with a password."""
    if "://" not in location:
        return None
    try:
        parsed = urllib.parse.urlsplit(location)
        password = parsed.password
    except ValueError:
        return None
    if password is None:
        return None
    userinfo, _, host = parsed.netloc.rpartition("@")
    user = userinfo.partition(":")[0]
    url = urllib.parse.urlunsplit(parsed._replace(netloc=f"{user}@{host}" if user else host))
    unquote = urllib.parse.unquote
    return Credential(url, unquote(user), unquote(password), f"{parsed.scheme}://{host}")


def address(location: str) -> Address:
    """How git is given `location` (a URL or a path): a URL's password taken out of it."""
    found = credential(location)
    if found is None:
        return Address(location)
    scope = f"credential.{found.scope}.helper"
    return Address(
        found.url,
        ((scope, ""), (scope, _HELPER)),  # "" first: no other helper answers for this host
        {_USERNAME: found.user, _PASSWORD: found.password},
    )


def tip(repo: repository.Repository, url: str, ref: str) -> str | None:
    """The commit `ref` (a full ref name, or HEAD) names in the repository at `url`, None when
    it names none; `SourceError` when `url` cannot be reached (with git's first line: the
    rest is advice). One round trip, no objects."""
    where = address(url)
    code, out, err = repo.run(
        "ls-remote", "--end-of-options", where.url, ref, env=where.environment(repo.git_dir)
    )
    if code != 0:
        lines = err.decode(errors="replace").strip().splitlines()
        why = lines[0] if lines else f"git exited {code}"
        raise repo.fail(f"cannot reach {shown(url)}: {why}")
    for line in repository.output_lines(out):
        oid, _, name = line.partition("\t")
        if name == ref:
            return oid
    return None


class Mirror:
    """A bare copy of the repository at `url`, kept in `cache`."""

    def __init__(self, url: str, cache: Path) -> None:
        located = locate(url)
        self.address = address(located)
        self.url = self.address.url
        """The URL without its password."""
        self.shown = shown(self.url)
        # Named after the URL as given, as ever: a copy made before passwords were taken out
        # of URLs is found again, and its configuration rewritten (`_fetch.ClusterRemote`).
        digest = hashlib.sha256(located.encode()).hexdigest()[:16]
        self.path = cache / f"{digest}.git"
        if not (self.path / "HEAD").is_file():
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:  # a file in the cache where a folder goes, say
                reason = error.strerror or error
                raise SourceError(
                    Origin(self.shown), f"cannot create a copy in {cache}: {reason}"
                ) from None
            self._git_init()
        opened = repository.open_repository(self.path)
        if opened is None:
            raise SourceError(Origin(self.shown), f"cannot create a copy in {self.path}")
        self.repo = opened

    def _git_init(self) -> None:
        done = subprocess.run(
            ["git", "init", "-q", "--bare", str(self.path)],
            env={**os.environ, **repository.safe_environment(self.path)},
            capture_output=True,
            check=False,
        )
        if done.returncode != 0:
            message = done.stderr.decode(errors="replace").strip()
            raise SourceError(Origin(self.shown), f"cannot create a copy: {message}")

    def fetch(self) -> None:
        """Bring the copy's branches in line with the remote's."""
        code, _, err = self.repo.run(
            "fetch", "--quiet", "--prune", "--no-tags", self.url, _FETCH_REFSPEC, env=self._env()
        )
        if code != 0:
            message = err.decode(errors="replace").strip()
            raise SourceError(Origin(self.shown), f"cannot fetch: {message}")

    def push(self, ref: str, new: str, expected: str | None, *, thin: bool = True) -> None:
        """Set the remote's `ref` to `new` (an object of the copy) if it is still at `expected`
        (None: it must not exist); the copy's ref follows. `RefConflictError` if it moved."""
        self.push_many([refs.Move(ref, new, expected)], thin=thin)

    def push_many(self, moves: Sequence[refs.Move], *, thin: bool = True) -> None:
        """`push` for several refs in one atomic push: the remote takes every move or none.
        git reports a lost lease on stdout (`--porcelain`), the failure on stderr.

        `thin=False` sends whole objects only: git then never reads the trees of the commits
        the remote already has, which a partial copy (a pull agent's) does not hold."""
        if not moves:
            return
        leases = [f"--force-with-lease={m.ref}:{m.old or ''}" for m in moves]
        specs = [f"{m.new}:{m.ref}" for m in moves]
        atomic = ["--atomic"] if len(moves) > 1 else []
        thinness = [] if thin else ["--no-thin"]
        code, out, err = self.repo.run(
            "push", "--quiet", "--porcelain", *atomic, *thinness, *leases, self.url, *specs,
            env=self._env(),
        )  # fmt: skip
        if code != 0:
            message = (out + err).decode(errors="replace").strip()
            names = ", ".join(m.ref for m in moves)
            if any(marker in message for marker in _REJECTED):
                raise RefConflictError(f"{names} moved on {self.shown}; fetch and try again")
            blocked = refs.blocked_move(self.repo, moves)  # the copy has the remote's branches
            raise SourceError(Origin(self.shown), blocked or f"cannot push {names}: {message}")
        for m in moves:
            now = refs.read_ref(self.repo, m.ref)
            at = now.commit if now else None
            if at != m.new:
                refs.update(self.repo, [refs.Move(m.ref, m.new, at)], f"pushed {m.ref}")

    def _env(self) -> dict[str, str]:
        return self.address.environment(self.path)

    def close(self) -> None:
        self.repo.close()
