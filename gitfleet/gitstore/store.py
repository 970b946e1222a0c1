"""Write objects into a repository's object database in one stream, no working tree.

The objects computed by `objects` go to git as one pack stream, as a fetch delivers them: a few
objects are unpacked into loose objects (`git unpack-objects`), many are kept as one pack
(`git index-pack --stdin`), the same split git makes with `fetch.unpackLimit`. Either way one
git process checks every object's id and writes it; nothing is staged, nothing is checked out.
Compression uses zlib's fastest level: rendered manifests are small and a repack recompresses.
The stream is made and handed to git a piece at a time, each object's content made when it is
reached: a render of a million manifests is never held whole, compressed or not.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator, Sequence

from gitfleet.gitstore import objects
from gitfleet.gitstore.repository import Repository

UNPACK_LIMIT = 100
"""Below this many objects, write loose objects (git's default `fetch.unpackLimit`)."""
PIECE_BYTES = 1 << 20
"""About how much of the stream is handed to git at a time."""
_TYPES = {objects.COMMIT: 1, objects.TREE: 2, objects.BLOB: 3}


def object_format(repo: Repository) -> objects.Format:
    """The repository's object format (SHA-1 unless it was created for SHA-256)."""
    code, out, _ = repo.run("rev-parse", "--show-object-format")
    name = out.decode().strip() if code == 0 else "sha1"
    return objects.FORMATS.get(name, objects.SHA1)


def _header(kind: str, size: int) -> bytes:
    byte = (_TYPES[kind] << 4) | (size & 0x0F)
    size >>= 4
    out = bytearray()
    while size:
        out.append(byte | 0x80)
        byte = size & 0x7F
        size >>= 7
    out.append(byte)
    return bytes(out)


_LOOKAHEAD = 262
"""How far short of its window zlib's matches stop (MIN_LOOKAHEAD)."""


def _deflated(data: bytes) -> bytes:
    """`data` at zlib's fastest level, with a window just large enough to reach across it:
    it compresses as well as the default 32 KiB window, without setting that window up and
    clearing it for every small object (most of the time a render spends compressing)."""
    window = min(15, max(9, (len(data) + _LOOKAHEAD).bit_length()))
    packer = zlib.compressobj(1, zlib.DEFLATED, window)
    return packer.compress(data) + packer.flush()


def pack_stream(items: Sequence[objects.GitObject], fmt: objects.Format) -> Iterator[bytes]:
    """A version 2 pack holding `items` whole (no deltas), with its trailing checksum, in
    pieces of about `PIECE_BYTES`."""
    h = fmt.hasher()
    parts = [b"PACK", struct.pack(">II", 2, len(items))]
    size = 0
    for item in items:
        data = item.data
        packed = _deflated(data)
        parts += [_header(item.kind, len(data)), packed]
        size += len(packed)
        if size >= PIECE_BYTES:
            piece = b"".join(parts)
            h.update(piece)
            yield piece
            parts, size = [], 0
    piece = b"".join(parts)
    h.update(piece)
    digest: bytes = h.digest()
    yield piece + digest


def write(repo: Repository, items: Sequence[objects.GitObject], fmt: objects.Format) -> None:
    """Store `items` in the object database (ids already computed; git verifies them)."""
    if not items:
        return
    stream = pack_stream(items, fmt)
    few = len(items) < UNPACK_LIMIT
    args = ("unpack-objects", "-q") if few else ("index-pack", "--stdin")
    code, _, err = repo.run(*args, stdin=stream)
    if code != 0:
        raise repo.fail(f"cannot write objects: {err.decode(errors='replace').strip()}")
