"""The pull agent's Git: fetch one cluster's Work folder and its status ref, and count the bytes.

The agent keeps a bare copy of its remote in a cache folder (`remote.Mirror`, named after the
URL; it also pushes the status ref). Each look asks the remote where the two refs the agent
cares about are (`git ls-remote`: one round trip, and nothing more when neither moved; git
sends no prefix for the names it is given, so the answer lists every ref of the repository,
as a push's does), then fetches what is new:

- the cluster's own ref (`refs/heads/gitfleet/works/<cluster>`, the default) at depth 1: the
  server sends the new commit and only the objects the previous commit did not have, so a
  render that changed one manifest costs about one manifest;
- any other ref (the shared rendered branch) sparsely: the commit alone (`--filter=tree:0`),
  then exactly the root tree and the `works` tree, each by id, then the cluster's folder: its
  trees (`--filter=blob:none`), then only the blobs the copy lacks. Of the other clusters'
  folders only their names and ids (in the `works` tree, about 40 bytes a cluster) arrive.
  Fetches by id send no "have" lines (`fetch.negotiationAlgorithm=noop`), as git's own lazy
  fetches do: a sparse copy cannot vouch for everything below the commits it holds. The server
  must allow filters (`uploadpack.allowFilter`) and speak protocol version 2, which lets a
  client ask for any object by id.

To tell whether a commit follows the one last applied (`follows`, for `verify`), the copy
fetches that one by id when it lacks it, then deepens the history of the new commit (`git
fetch --deepen`, by id; commits alone on a sparse copy), doubling the depth each time, until it
reaches that commit or holds the whole history. A new commit on top of the last is one small
fetch; a ref moved to an older render costs its history, once.

Whatever was fetched, the folder is then checked object by object (`git rev-list --objects
--missing=print`, lazy fetching off): a folder with an object missing is `complete=False`, and
the agent does not take it as its desired state (see `pull`).

Bytes received are the packs the fetches brought (`GIT_TRACE_PACKFILE`), summed per call.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

from gitfleet.errors import RefConflictError, SourceError
from gitfleet.gitstore import lineage, remote, rendered, repository, status
from gitfleet.model.origin import Origin

log = logging.getLogger(__name__)

REMOTE = "origin"
_NOOP = ("-c", "fetch.negotiationAlgorithm=noop")
_BY_ID = ("fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--stdin")


@dataclasses.dataclass(frozen=True, slots=True)
class Tips:
    """Where the remote's Work ref and status ref are (None: absent)."""

    works: str | None
    status: str | None


@dataclasses.dataclass(frozen=True, slots=True)
class Fetched:
    """The outcome of fetching one commit's Work folder for the cluster."""

    commit: str
    complete: bool
    """Every object of `works/<cluster>/` is in the copy (an absent folder counts as complete;
    reading it says it is absent)."""
    received: int
    """Bytes of the packs fetched for it."""
    folder: bool = True
    """The commit has a `works/<cluster>/` folder."""
    missing: tuple[str, ...] = ()
    """Ids of objects still missing."""


class ClusterRemote:
    """The copy of the remote `url` one cluster's agent works with."""

    def __init__(
        self,
        url: str,
        cluster: str,
        works_ref: str,
        cache: Path,
        *,
        sparse: bool,
        settings: Sequence[tuple[str, str]] = (),
    ) -> None:
        """`settings`: more git configuration for the copy (the credential)."""
        self.cluster = cluster
        self.works_ref = works_ref
        self.status_ref = status.status_ref(cluster)
        self.sparse = sparse
        self.mirror = remote.Mirror(url, cache)
        self.path = self.mirror.path
        self._fetching = threading.Lock()
        """One fetch at a time: the agent's looks and its worker's history checks."""
        self._configure([("remote.origin.url", self.mirror.url), *settings])

    def _configure(self, settings: list[tuple[str, str]]) -> None:
        if self.sparse:  # objects the sparse fetches leave out are promised by the remote
            settings += [
                ("core.repositoryFormatVersion", "1"),
                ("extensions.partialClone", REMOTE),
                ("remote.origin.promisor", "true"),
            ]
        seen: set[str] = set()
        for key, value in settings:
            how = "--add" if key in seen else "--replace-all"
            seen.add(key)
            self._check(self._git("config", how, key, value), f"cannot configure {key}")

    def open(self) -> repository.Repository:
        """A handle of the copy for one thread."""
        return repository.Repository(self.path, self.mirror.shown)

    # ---- running git ---------------------------------------------------------------------

    def _git(
        self, *args: str, stdin: bytes | None = None, trace: Path | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        """git on the copy: never prompting, never fetching an object behind our back."""
        env = {
            **os.environ,
            **self.mirror.address.environment(self.path),
            "GIT_NO_LAZY_FETCH": "1",
            "GIT_TERMINAL_PROMPT": "0",
        }
        if trace is not None:
            env["GIT_TRACE_PACKFILE"] = str(trace)
        return subprocess.run(
            ["git", *args], input=stdin, env=env, capture_output=True, check=False
        )

    def _check(self, done: subprocess.CompletedProcess[bytes], what: str) -> bytes:
        """git's output, or `SourceError` with the first line of its complaint: the cause
        (`error: RPC failed; HTTP 500`, a connection closed early); what follows is its
        consequences (`fatal: early EOF`) or advice."""
        if done.returncode != 0:
            lines = repository.output_lines(done.stderr)
            said = [line for line in lines if not line.startswith(("warning:", "hint:"))]
            reason = (said or lines or ["?"])[0]
            raise SourceError(Origin(self.mirror.shown), f"{what}: {reason}")
        return done.stdout

    def _fetch(self, *args: str, stdin: bytes | None = None) -> int:
        """Run one fetch; the bytes of the pack it received."""
        with self._fetching, tempfile.TemporaryDirectory(prefix="gitfleet-fetch-") as folder:
            trace = Path(folder) / "pack"
            done = self._git(*args, stdin=stdin, trace=trace)
            self._check(done, "cannot fetch")
            return trace.stat().st_size if trace.exists() else 0

    def _fetch_ref(self, ref: str, *options: str) -> int:
        """Fetch the remote's `ref` into the copy's ref of the same name, at depth 1."""
        return self._fetch(
            "fetch", "--quiet", "--no-tags", "--depth=1", *options, REMOTE, f"+{ref}:{ref}"
        )

    def _fetch_ids(self, ids: list[str], filter_spec: str) -> int:
        stdin = "".join(f"{oid}\n" for oid in ids).encode()
        return self._fetch(*_NOOP, *_BY_ID, f"--filter={filter_spec}", REMOTE, stdin=stdin)

    def _has(self, oid: str) -> bool:
        return self._git("cat-file", "-e", oid).returncode == 0

    def _local(self, ref: str) -> str | None:
        done = self._git("rev-parse", "--verify", "--quiet", ref)
        return done.stdout.decode().strip() if done.returncode == 0 else None

    # ---- what the agent calls --------------------------------------------------------------

    def tips(self) -> Tips:
        """Where the remote's refs are now; `SourceError` when it cannot be reached."""
        done = self._git("ls-remote", REMOTE, self.works_ref, self.status_ref)
        found = {}
        for line in repository.output_lines(self._check(done, "cannot reach the repository")):
            oid, _, name = line.partition("\t")
            found[name] = oid
        return Tips(works=found.get(self.works_ref), status=found.get(self.status_ref))

    def fetch_status(self, tip: str | None) -> int:
        """Bring the status ref in line with the remote's `tip` (None: it has none)."""
        if self._local(self.status_ref) == tip:
            return 0
        if tip is None:
            self._check(self._git("update-ref", "-d", self.status_ref), "cannot drop status ref")
            return 0
        return self._fetch_ref(self.status_ref)

    def fetch_works(self, tip: str) -> Fetched:
        """Fetch the Work ref at `tip` and the cluster's folder in it."""
        received = 0
        if self._local(self.works_ref) != tip:
            received += self._fetch_ref(
                self.works_ref, *(["--filter=tree:0"] if self.sparse else [])
            )
        commit = self._local(self.works_ref) or tip
        folder, got = self._folder(commit)
        received += got
        missing: list[str] = []
        if folder is not None:
            missing, got = self._complete(folder)
            received += got
        return Fetched(commit, not missing, received, folder is not None, tuple(missing))

    def _folder(self, commit: str) -> tuple[str | None, int]:
        """The tree id of `works/<cluster>` in `commit` (fetching the two trees above it,
        alone, when missing); None when there is no such folder."""
        received = 0
        data = self._check(self._git("cat-file", "commit", commit), f"cannot read {commit}")
        oid = data[5 : data.index(b"\n")].decode()  # "tree <id>"
        for name in (rendered.WORKS, self.cluster):
            if not self._has(oid):
                received += self._fetch_ids([oid], "tree:0")
            done = self._git("rev-parse", "--verify", "--quiet", f"{oid}:{name}")
            if done.returncode != 0:
                return None, received
            oid = done.stdout.decode().strip()
        return oid, received

    def _complete(self, folder: str) -> tuple[list[str], int]:
        """Fetch what the folder lacks, trees first (without blobs), then blobs; the ids
        still missing afterwards."""
        received = 0
        for _ in range(4):  # the folder, its trees, their blobs, and one more look
            missing = [folder] if not self._has(folder) else self._missing(folder)
            if not missing:
                return [], received
            received += self._fetch_ids(missing, "blob:none")
        return ([folder] if not self._has(folder) else self._missing(folder)), received

    def _missing(self, folder: str) -> list[str]:
        done = self._git("rev-list", "--objects", "--missing=print", folder)
        listing = repository.output_lines(self._check(done, f"cannot list {self.cluster}'s folder"))
        return sorted(line[1:] for line in listing if line.startswith("?"))

    def follows(self, commit: str, base: str) -> bool:
        """`lineage.follows` on the copy, once it holds `base` and enough of the history of
        `commit` (see the module docstring); `SourceError` when that cannot be fetched."""
        only = ["--filter=tree:0"] if self.sparse else []
        by_id = ("fetch", "--quiet", "--no-tags", "--no-write-fetch-head", *only)
        if not self._has(base):
            try:
                self._fetch(*by_id, "--depth=1", REMOTE, base)
            except SourceError as exc:  # gone from the remote: `lineage` says it is unreadable
                log.info("cluster %s: %s not fetched: %s", self.cluster, base, exc)
        depth = 1
        while self._has(base) and self._git("merge-base", "--is-ancestor", base, commit).returncode:
            before = self._count(commit)
            self._fetch(*by_id, f"--deepen={depth}", REMOTE, commit)
            if self._count(commit) == before:
                break
            depth *= 2
        repo = self.open()
        try:
            return lineage.follows(repo, commit, base)
        finally:
            repo.close()

    def _count(self, commit: str) -> int:
        """How many commits of the history of `commit` the copy holds."""
        done = self._git("rev-list", "--count", commit)
        return int(self._check(done, f"cannot read the history of {commit}").decode())

    def push_status(self, ref: str, new: str, expected: str | None) -> None:
        """Move the remote's status ref to `new` by compare-and-swap. When another writer
        moved it since the last look (an agent being replaced, a person), note where it is
        now and replace it once more: a cluster's own agent is the ref's one rightful writer,
        and its newest report wins. Whole objects only (see `remote.Mirror.push_many`)."""
        try:
            self.mirror.push(ref, new, expected, thin=False)
        except RefConflictError:
            now = self.tips().status
            log.info("%s moved on the remote (now %s); replacing it", ref, now)
            self.fetch_status(now)
            self.mirror.push(ref, new, now, thin=False)

    def close(self) -> None:
        self.mirror.close()
