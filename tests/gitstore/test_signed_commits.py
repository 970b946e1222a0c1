"""Signed commits: what `signing.Signer` writes and what `signing.verify` says of a commit.

Aspects covered:
- a signed render (rendered branch and cluster refs) and a signed status commit are the
  commits gitfleet computes, plus a signature header: same trees, parents, author, message;
- the same render unsigned and signed gives the same trees (signing never changes a render);
- verify: a good signature by an allowed key is trusted, with its principal; an unsigned
  commit, one signed by a key not listed, and one whose content changed after signing (the
  signature header copied onto another message) are each refused with their own reason;
- a key file that does not exist is a clear error naming it, and nothing is written;
- SHA-256 repositories sign and verify too (git's `gpgsig-sha256` header).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gitfleet.errors import SourceError
from gitfleet.gitstore import objects, refs, rendered, repository, signing, status

WHO = objects.Signature("gitfleet", "gitfleet@localhost", 1767225600)
FILES = {"works/m1/shop/ConfigMap.core/a.yaml": b"a: 1\n", "render.yaml": b"x: 1\n"}


def _keygen(folder: Path, name: str) -> Path:
    key = folder / name
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    return key


@pytest.fixture(name="keys")
def keys_fixture(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(the signing key, a stranger's key, an allowed-signers file listing the first)."""
    signer, stranger = _keygen(tmp_path, "signer"), _keygen(tmp_path, "stranger")
    public = " ".join((tmp_path / "signer.pub").read_text().split()[:2])
    allowed = tmp_path / "allowed_signers"
    allowed.write_text(f"reconciler@fleet {public}\n")
    return signer, stranger, allowed


def _repo(tmp_path: Path, name: str, *options: str) -> repository.Repository:
    path = tmp_path / name
    subprocess.run(["git", "init", "-q", "--bare", *options, str(path)], check=True)
    opened = repository.open_repository(path)
    assert opened is not None
    return opened


def _publish(repo: repository.Repository, key: Path | None) -> rendered.Published:
    return rendered.publish(
        repo,
        "gitfleet/rendered",
        FILES,
        expected=None,
        source_commit="s" * 40,
        version="1",
        author=WHO,
        signer=signing.Signer(key) if key else None,
    )


def _data(repo: repository.Repository, commit: str) -> bytes:
    return repo.read([commit], objects.COMMIT)[commit]


@pytest.mark.parametrize("object_format", ["sha1", "sha256"])
def test_a_signed_render_is_the_render_plus_a_signature(
    tmp_path: Path, keys: tuple[Path, Path, Path], object_format: str
) -> None:
    signer, _, allowed = keys
    plain = _repo(tmp_path, "plain.git", f"--object-format={object_format}")
    signed = _repo(tmp_path, "signed.git", f"--object-format={object_format}")
    unsigned_render, signed_render = _publish(plain, None), _publish(signed, signer)
    pairs = [(unsigned_render.commit, signed_render.commit)]
    pairs.append((unsigned_render.clusters["m1"], signed_render.clusters["m1"]))
    for before, after in pairs:
        assert before != after
        assert signing.strip_signature(_data(signed, after)) == _data(plain, before)
        verdict = signing.verify(signed, after, allowed)
        assert (verdict.trust, verdict.signer) == (signing.Trust.TRUSTED, "reconciler@fleet")
    header = b"gpgsig-sha256 " if object_format == "sha256" else b"gpgsig "
    assert header in _data(signed, signed_render.commit)
    moved = refs.read_ref(signed, rendered.cluster_ref("m1"))
    assert moved is not None and moved.commit == signed_render.clusters["m1"]


def test_a_signed_status_commit(tmp_path: Path, keys: tuple[Path, Path, Path]) -> None:
    signer, _, allowed = keys
    repo = _repo(tmp_path, "fleet.git")
    commit = status.write_status(
        repo, "_reconciler", {"reconciler.yaml": b"a: 1\n"}, expected=None,
        rendered_commit="", author=WHO, signer=signing.Signer(signer),
    )  # fmt: skip
    assert signing.verify(repo, commit, allowed).trusted
    found = status.read_status(repo, "_reconciler")
    assert found is not None and found.commit == commit


def test_what_verify_refuses(tmp_path: Path, keys: tuple[Path, Path, Path]) -> None:
    signer, stranger, allowed = keys
    repo = _repo(tmp_path, "fleet.git")
    unsigned = _publish(repo, None).commit
    assert signing.verify(repo, unsigned, allowed).trust is signing.Trust.UNSIGNED
    other = _repo(tmp_path, "other.git")
    by_stranger = _publish(other, stranger).commit
    verdict = signing.verify(other, by_stranger, allowed)
    assert verdict.trust is signing.Trust.UNTRUSTED
    assert verdict.key.startswith("SHA256:")
    assert f"not allowed by {allowed}" in verdict.describe(allowed)
    good = _repo(tmp_path, "good.git")
    forged = _data(good, _publish(good, signer).commit).replace(b"render ", b"render more ")
    done = subprocess.run(
        ["git", "--git-dir", str(good.git_dir), "hash-object", "-t", "commit", "-w", "--stdin"],
        input=forged, capture_output=True, check=True,
    )  # fmt: skip
    tampered = done.stdout.decode().strip()
    assert signing.verify(good, tampered, allowed).trust is signing.Trust.BAD


def test_a_missing_key_is_a_clear_error(tmp_path: Path) -> None:
    repo = _repo(tmp_path, "fleet.git")
    with pytest.raises(SourceError, match=r"cannot sign a commit with .*nowhere"):
        _publish(repo, tmp_path / "nowhere")
    assert refs.read_ref(repo, rendered.branch_ref("gitfleet/rendered")) is None
