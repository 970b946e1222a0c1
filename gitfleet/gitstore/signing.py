"""Signed commits: the reconciler signs what it writes, agents check a commit before applying it.

Git does both, with SSH signatures (`gpg.format=ssh`): a commit is signed by `git commit-tree
-S` with the private key file given (`user.signingKey`), and checked by git against an
allowed-signers file (`gpg.ssh.allowedSignersFile`, ssh-keygen's ALLOWED SIGNERS format: one
`principal [options] key-type key` a line, several keys allowed at once, so keys can be
rotated). ssh-keygen does the cryptography; nothing here signs or checks a byte itself.

gitfleet computes its commits in Python (`objects.commit_object`); a signed one is that same
commit made again by git with a signature: `store` writes the trees, `git commit-tree -S`
writes the commit with the same tree, parents, author, committer and message, and the result
is checked to be the unsigned commit plus its `gpgsig` header, so that signing never changes
what a render is. One commit costs one git and one ssh-keygen process.

Every git process here gets, on its command line, the settings that decide what runs and what
counts (`gpg.ssh.program`, the key, the allowed signers): a repository's own configuration
cannot swap the program or widen the list.
"""

from __future__ import annotations

import dataclasses
import enum
import os
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from gitfleet.gitstore import objects, store
from gitfleet.gitstore.repository import Repository

_PROGRAM = ("-c", "gpg.format=ssh", "-c", "gpg.ssh.program=ssh-keygen")
_SIGNATURE_HEADERS = (b"gpgsig ", b"gpgsig-sha256 ")


@dataclasses.dataclass(frozen=True, slots=True)
class Signer:
    """Signs commits with one SSH private key file (never read by gitfleet itself)."""

    key: Path

    def _config(self) -> tuple[str, ...]:
        return (
            *_PROGRAM,
            "-c",
            f"user.signingKey={os.path.abspath(self.key)}",
            "-c",
            "i18n.commitEncoding=UTF-8",
        )

    def sign(self, repo: Repository, unsigned: objects.GitObject) -> objects.GitObject:
        """`unsigned` (a commit whose tree and parents the repository holds), signed and
        written; `SourceError` when git or ssh-keygen cannot sign it."""
        headers, _, message = unsigned.data.partition(b"\n\n")
        args = ["commit-tree"]
        env: dict[str, str] = {}
        for line in headers.decode().splitlines():
            field, _, value = line.partition(" ")
            if field == "tree":
                args.insert(1, value)
            elif field == "parent":
                args += ["-p", value]
            elif field in ("author", "committer"):
                who = objects.Signature.parse(value)
                prefix = f"GIT_{field.upper()}_"
                env[prefix + "NAME"] = who.name
                env[prefix + "EMAIL"] = who.email
                env[prefix + "DATE"] = f"@{who.when} {who.offset}"
        code, out, err = repo.run(*self._config(), *args, "-S", stdin=message, env=env)
        if code != 0:
            problem = err.decode(errors="replace").strip()
            raise repo.fail(f"cannot sign a commit with {self.key}: {problem}")
        made = out.decode().strip()
        data = repo.read([made], objects.COMMIT).get(made, b"")
        if strip_signature(data) != unsigned.data:
            raise repo.fail(f"git signed {made} with content other than gitfleet's commit")
        return objects.GitObject(objects.COMMIT, data, made)

    def signed(self, repo: Repository, commit: str) -> bool:
        """Whether `commit` bears a good signature by this very key. A signer reuses nothing
        of a commit it did not sign (`inputs.previous_of`): an edit amended into a render
        keeps the render's trailers, and reused unread, it would come out signed."""
        public = subprocess.run(
            ["ssh-keygen", "-y", "-f", os.path.abspath(self.key)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            check=False,
        )
        key = public.stdout.decode(errors="replace").split()[:2]
        if public.returncode != 0 or len(key) != 2:
            return False  # signing fails too, and says why
        with tempfile.TemporaryDirectory() as folder:
            allowed = Path(folder, "allowed_signers")
            allowed.write_text(f'gitfleet namespaces="git" {" ".join(key)}\n', encoding="utf-8")
            return verify(repo, commit, allowed).trusted


def strip_signature(data: bytes) -> bytes:
    """A commit object without its signature header (what was signed)."""
    headers, sep, message = data.partition(b"\n\n")
    kept: list[bytes] = []
    in_signature = False
    for line in headers.split(b"\n"):
        if line.startswith(b" ") and in_signature:
            continue
        in_signature = line.startswith(_SIGNATURE_HEADERS)
        if not in_signature:
            kept.append(line)
    return b"\n".join(kept) + sep + message


def write(
    repo: Repository,
    items: Sequence[objects.GitObject],
    fmt: objects.Format,
    signer: Signer | None,
) -> Mapping[str, str]:
    """Store `items`, each commit signed when there is a `signer`; the id each commit got
    (a signed commit's id is not the unsigned one's)."""
    unique = list({o.id: o for o in items}.values())
    if signer is None:
        store.write(repo, unique, fmt)
        return {o.id: o.id for o in unique if o.kind == objects.COMMIT}
    store.write(repo, [o for o in unique if o.kind != objects.COMMIT], fmt)
    return {o.id: signer.sign(repo, o).id for o in unique if o.kind == objects.COMMIT}


class Trust(enum.StrEnum):
    """What git says of a commit's signature against an allowed-signers file."""

    TRUSTED = "Trusted"
    UNSIGNED = "Unsigned"
    UNTRUSTED = "UntrustedSigner"
    """Signed, but by a key the file does not allow (or one it cannot vouch for)."""
    BAD = "BadSignature"
    """A signature that does not match the commit: the commit was changed after signing."""


@dataclasses.dataclass(frozen=True, slots=True)
class Verdict:
    commit: str
    trust: Trust
    key: str = ""
    """The signing key's fingerprint (`SHA256:...`), when signed."""
    signer: str = ""
    """The principal the allowed-signers file names for the key, when trusted."""

    @property
    def trusted(self) -> bool:
        return self.trust is Trust.TRUSTED

    def describe(self, allowed: Path) -> str:
        if self.trust is Trust.UNSIGNED:
            return f"{self.commit} is not signed"
        if self.trust is Trust.BAD:
            return f"{self.commit} has a signature that does not match its content"
        if self.trust is Trust.UNTRUSTED:
            return f"{self.commit} is signed by key {self.key or '?'}, not allowed by {allowed}"
        return f"{self.commit} is signed by {self.signer} (key {self.key})"


def verify(repo: Repository, commit: str, allowed: Path) -> Verdict:
    """Check `commit`'s signature against the allowed-signers file `allowed`. Only a good
    signature by a key the file lists (git's trust level `fully`) is trusted."""
    config = (*_PROGRAM, "-c", f"gpg.ssh.allowedSignersFile={os.path.abspath(allowed)}")
    code, out, err = repo.run(
        *config, "show", "-s", "--format=%G?%x00%GT%x00%GK%x00%GS", "--end-of-options", commit
    )
    if code != 0:
        raise repo.fail(f"cannot check {commit}: {err.decode(errors='replace').strip()}")
    fields = out.decode(errors="replace").rstrip("\n").split("\0")
    result, trust, key, signer = [*fields, "", "", "", ""][:4]
    if result == "N":
        return Verdict(commit, Trust.UNSIGNED)
    if result == "B":
        return Verdict(commit, Trust.BAD, key)
    if result == "G" and trust == "fully":
        return Verdict(commit, Trust.TRUSTED, key, signer)
    return Verdict(commit, Trust.UNTRUSTED, key)
