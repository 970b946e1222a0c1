"""Write objects into a repository's object database in one stream, no working tree.

The objects computed by `objects` go to git as one pack stream, as a fetch delivers them: a few
objects are unpacked into loose objects (`git unpack-objects`), many are kept as one pack
(`git index-pack --stdin`), the same split git makes with `fetch.unpackLimit`. Either way one
git process checks every object's id and writes it; nothing is staged, nothing is checked out.
Compression uses zlib's fastest level: rendered manifests are small and a repack recompresses.
Files spliced from one shared text (`objects.Spliced`: a manifest built once for a group of
clusters, each with its own label line) go in as deltas against the first of them, as git
itself would pack them: a few dozen bytes each instead of the whole manifest compressed again,
for this process to write and for git to check. A render's many new blobs go first (`receive`),
into a quarantine folder as git keeps a push it receives, so that git checks them while the
trees are built, and they are moved in only once the trees are sound.
The stream is made and handed to git a piece at a time, each object's content made when it is
reached: a render of a million manifests is never held whole, compressed or not.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import shutil
import struct
import tempfile
import zlib
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import Protocol, SupportsBytes

from gitfleet.gitstore import objects, repository
from gitfleet.gitstore.repository import Repository, Running

UNPACK_LIMIT = 100
"""Below this many objects, write loose objects (git's default `fetch.unpackLimit`)."""
PIECE_BYTES = 1 << 20
"""About how much of the stream is handed to git at a time."""
_TYPES = {objects.COMMIT: 1, objects.TREE: 2, objects.BLOB: 3}
_OFS_DELTA = 6


def object_format(repo: Repository) -> objects.Format:
    """The repository's object format (SHA-1 unless it was created for SHA-256)."""
    code, out, _ = repo.run("rev-parse", "--show-object-format")
    name = out.decode().strip() if code == 0 else "sha1"
    return objects.FORMATS.get(name, objects.SHA1)


@functools.lru_cache(maxsize=4096)
def _header(code: int, size: int) -> bytes:
    byte = (code << 4) | (size & 0x0F)
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
    """`data` at zlib's fastest level, with a window just large enough to reach across it and
    a hash table sized to match: it compresses as well as the defaults (32 KiB window, 64 KiB
    table) without setting those up and clearing them for every small object, which is most
    of what compressing a render's many small objects costs."""
    window = min(15, max(9, (len(data) + _LOOKAHEAD).bit_length()))
    packer = zlib.compressobj(1, zlib.DEFLATED, window, max(1, window - 7))
    return packer.compress(data) + packer.flush()


def _size(n: int) -> bytes:
    """A delta's source or target size: 7 bits a byte, lowest first."""
    out = bytearray()
    while n > 0x7F:
        out.append(0x80 | (n & 0x7F))
        n >>= 7
    out.append(n)
    return bytes(out)


def _copy(offset: int, size: int) -> bytes:
    """Delta instructions copying `size` bytes of the base from `offset`."""
    out = bytearray()
    while size:
        step = min(size, _MAX_COPY)
        command, operands = 0x80, bytearray()
        for i in range(4):
            if byte := (offset >> (8 * i)) & 0xFF:
                command |= 1 << i
                operands.append(byte)
        for i in range(3):
            if byte := (step >> (8 * i)) & 0xFF:
                command |= 0x10 << i
                operands.append(byte)
        out += bytes([command]) + operands
        offset, size = offset + step, size - step
    return bytes(out)


@functools.lru_cache(maxsize=4096)
def _insert(data: bytes) -> bytes:
    """Delta instructions adding `data` (at most 127 bytes an instruction)."""
    if len(data) <= 127:
        return bytes((len(data),)) + data if data else b""
    return b"".join(
        bytes([len(data[at : at + 127])]) + data[at : at + 127] for at in range(0, len(data), 127)
    )


@functools.lru_cache(maxsize=65536)
def _distance(n: int) -> bytes:
    """How far back an offset delta's base starts, as a pack encodes it."""
    out = [n & 0x7F]
    n >>= 7
    while n:
        n -= 1
        out.append(0x80 | (n & 0x7F))
        n >>= 7
    return bytes(reversed(out))


_MAX_COPY = 0xFFFFFF
"""The most one copy instruction of a delta holds."""


@dataclasses.dataclass(frozen=True, slots=True)
class _Base:
    """The first object spliced from a shared text: where it is in the pack, which span of
    the text was replaced, and what every delta against it holds but the new span: its size,
    the copy of what precedes the span, the copy of what follows it."""

    offset: int
    start: int
    cut: int
    """Where the replaced span of the shared text ends."""
    size: int
    source: bytes
    """Its size as a delta states it (also a delta's own size when it is the same)."""
    before: bytes
    after: bytes
    head: bytes
    """What a delta of the same size starts with: both sizes, then the copy before the span."""
    head_adler: int
    """The Adler-32 checksum of `head`, which a delta's checksum goes on from."""

    @classmethod
    def of(cls, offset: int, shared: bytes, start: int, cut: int, middle: bytes) -> _Base:
        size = len(shared) - (cut - start) + len(middle)
        end = start + len(middle)
        source, before, after = _size(size), _copy(0, start), _copy(end, size - end)
        head = source + source + before
        return cls(offset, start, cut, size, source, before, after, head, zlib.adler32(head))


_STORED_HEAD = struct.Struct("<BBBHH")
"""A zlib stream's header (deflate, 32 KiB window, fastest) and one final stored block's."""
_ADLER = struct.Struct(">I")
_STORED_MAX = 0xFFFF
"""The most one stored block holds."""


def _entry(item: Packed, at: int, bases: dict[bytes, _Base]) -> bytes:
    """The pack entry of `item` at offset `at`: a delta against the first object spliced from
    the same shared text, or the object whole (then, if spliced, that first object). A delta
    is a few dozen bytes, mostly the new span: stored in one zlib block made here (RFC 1950
    and 1951, what zlib makes at level 0), not compressed."""
    splice = getattr(item.content, "splice", None)
    if splice is None:
        data = bytes(item.content)
        return _header(_TYPES[item.kind], len(data)) + _deflated(data)
    shared, start, cut, middle = splice()
    base = bases.get(shared)
    if base is None or base.start != start or base.cut != cut:
        if base is None:
            bases[shared] = _Base.of(at, shared, start, cut, middle)
        data = shared[:start] + middle + shared[cut:]
        return _header(_TYPES[item.kind], len(data)) + _deflated(data)
    size = len(shared) - (cut - start) + len(middle)
    head, adler = base.head, base.head_adler
    if size != base.size:
        head = base.source + _size(size) + base.before
        adler = zlib.adler32(head)
    insert, after = _insert(middle), base.after
    length = len(head) + len(insert) + len(after)
    prefix = _header(_OFS_DELTA, length) + _distance(at - base.offset)
    if length > _STORED_MAX:
        return prefix + _deflated(b"".join((head, insert, after)))
    adler = zlib.adler32(after, zlib.adler32(insert, adler))
    stored = _STORED_HEAD.pack(0x78, 0x01, 0x01, length, length ^ 0xFFFF)
    return b"".join((prefix, stored, head, insert, after, _ADLER.pack(adler)))


def pack_stream(items: Collection[Packed], fmt: objects.Format) -> Iterator[bytes]:
    """A version 2 pack holding `items` (each whole, or a delta against an earlier one spliced
    from the same shared text: `objects.Spliced`), with its trailing checksum, in pieces of
    about `PIECE_BYTES`."""
    h = fmt.hasher()
    parts = [b"PACK", struct.pack(">II", 2, len(items))]
    at = size = 12
    bases: dict[bytes, _Base] = {}
    for item in items:
        entry = _entry(item, at, bases)
        parts.append(entry)
        at += len(entry)
        size += len(entry)
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


class Incoming:
    """A pack on its way into the object database, held apart as git holds a push it
    receives (a quarantine folder, `incoming-*`, of the object database): git checks it while
    the caller goes on; `keep` moves it in, `drop` deletes it, so that nothing is stored when
    what the objects were for fails."""

    def __init__(self, repo: Repository, folder: Path, running: Running) -> None:
        self._repo = repo
        self._folder = folder
        self._running = running

    def keep(self) -> None:
        """Wait for git, then move the pack in (its index last, as git does: a reader that
        finds the index finds the pack); raises what kept git from storing the objects."""
        code, _, err = self._running.finish()
        if code != 0:
            self.drop()
            raise self._repo.fail(f"cannot write objects: {err.decode(errors='replace').strip()}")
        packs = self._folder.parent / "pack"
        made = sorted((self._folder / "pack").iterdir(), key=lambda f: (f.suffix == ".idx", f.name))
        for made_file in made:
            os.replace(made_file, packs / made_file.name)
        shutil.rmtree(self._folder, ignore_errors=True)

    def drop(self) -> None:
        """Wait for git and delete what it wrote."""
        self._running.finish()
        shutil.rmtree(self._folder, ignore_errors=True)


class Packed(Protocol):
    """What a pack entry is made from: the object's kind and content (git computes its id)."""

    @property
    def kind(self) -> str: ...

    @property
    def content(self) -> bytes | SupportsBytes: ...


@dataclasses.dataclass(frozen=True, slots=True)
class _NewBlob:
    content: bytes | SupportsBytes
    kind: str = objects.BLOB


class Blobs(Collection[Packed]):
    """New blobs as the objects of a pack, each made only as the pack is written, not held (a
    render's blobs can number millions)."""

    def __init__(self, contents: Sequence[bytes | SupportsBytes]) -> None:
        self._contents = contents

    def __len__(self) -> int:
        return len(self._contents)

    def __iter__(self) -> Iterator[Packed]:
        for content in self._contents:
            yield _NewBlob(content)

    def __contains__(self, item: object) -> bool:
        return isinstance(item, _NewBlob) and item.content in self._contents


def receive(repo: Repository, items: Collection[Packed], fmt: objects.Format) -> Incoming:
    """Hand `items` (at least `UNPACK_LIMIT` of them: a pack) to git, into a quarantine folder,
    and return while git may still be checking them: a pack of deltas is checked once it has
    all arrived, which the caller can spend on something else."""
    objects_folder = repository.common_dir(repo.git_dir) / "objects"
    folder = Path(tempfile.mkdtemp(prefix="incoming-", dir=objects_folder))
    (folder / "pack").mkdir()
    env = {
        "GIT_OBJECT_DIRECTORY": str(folder),
        "GIT_ALTERNATE_OBJECT_DIRECTORIES": str(objects_folder),
    }
    try:
        running = repo.start("index-pack", "--stdin", stdin=pack_stream(items, fmt), env=env)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return Incoming(repo, folder, running)
