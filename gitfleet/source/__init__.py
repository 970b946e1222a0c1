"""Load: one source revision's files into typed objects, each with the file and line it came from.

`load(repo, rev)` reads the commit `rev` of a Git repository from its object database (no
checkout) when `repo` is the top of a repository, or the files of any other folder; asked for
the working tree, it reads a repository's top as a folder, but only the files `git add --all`
would commit (`gitstore.worktree`), and the named pipes, sockets and devices beside them. It
never raises for bad content: YAML and schema problems, unreadable or oversized files, symbolic
links, submodules, and named pipes, sockets or devices named as source files (never opened)
all become located diagnostics, and the documents that could be read are still
returned, so `validate` can show every problem at once. It raises `SourceError` only when there
is no source to read (no such folder, unknown revision, empty repository, a corrupt or crafted
tree) and `UsageError` when a revision is asked of a plain folder. A folder holding a render's
output (`render --out` inside the source) is left out (`_outputs`), and so are Helm charts and
kustomizations, each with an error that says what it is (`_buildfiles`).

Loads in one process share their work: a commit's file that an earlier load already read, at
the same path with the same blob id, is neither read nor parsed again, and gives back the very
same documents, objects and diagnostics (`_cache`), so reloading a repository after a commit
costs what the commit changed. Nothing else about the result differs from a first load.

Every namespaced object comes out in its effective namespace and every cluster-scoped one
without any (`model.scope`, with gitfleet.yaml's `defaultNamespace`), so all later stages agree
on where an object lives; an object given a namespace (or relieved of one) is a new copy in
every load, the others are the cached ones.

What it leaves to others: every check that needs more than one document (`validation`), and
what the objects mean (the stages).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import os
from collections.abc import Generator, Iterator
from pathlib import Path

from gitfleet.errors import SourceError, UsageError
from gitfleet.gitstore import repository, worktree
from gitfleet.model import config, diagnostic, loaded, scope
from gitfleet.model.loaded import Document, LoadedSource, Role, SourceConfig
from gitfleet.model.origin import Origin
from gitfleet.source import (
    _buildfiles,
    _cache,
    _classify,
    _config,
    _files,
    _globs,
    _locate,
    _outputs,
    _yaml,
)

__all__ = [
    "Document",
    "LoadedSource",
    "Role",
    "SourceConfig",
    "load",
    "missing_source_branch",
    "settings",
]

_SUFFIXES = (".yaml", ".yml")
_THIRD_PARTY_FILE = "customizations.yaml"
_NOT_READ = {
    _files.Kind.SYMLINK: "symbolic link is not followed",
    _files.Kind.SUBMODULE: "submodule is not read",
    _files.Kind.PIPE: "named pipe (FIFO) is not read: not a regular file",
    _files.Kind.SOCKET: "socket is not read: not a regular file",
    _files.Kind.DEVICE: "device is not read: not a regular file",
}


def load(
    repo: str | os.PathLike[str],
    rev: str | None = None,
    *,
    working_tree: bool = False,
    max_file_size: int | None = None,
    bounds: SourceConfig | None = None,
    require_repository: bool = False,
) -> LoadedSource:
    """The source at `repo` (commit `rev`, default: gitfleet.yaml's sourceBranch, else HEAD).

    `working_tree`: without `rev`, a repository's working tree is read instead of a commit (a
    bare repository has none, and is read at a commit still). `max_file_size` overrides
    gitfleet.yaml's `maxFileSize`; the `maxFileSize` and `maxSourceSize` of `bounds` are the
    most gitfleet.yaml's can be (a pull request's own settings cannot raise its base's:
    `preview`); `require_repository` makes a plain folder an error (for commands that must
    commit). Files that weigh more than `maxSourceSize` together make a `SourceError`.
    """
    path = Path(repo)
    where = Origin(os.fspath(repo))
    if not path.is_dir():
        raise SourceError(where, "not a folder" if path.exists() else "no such folder")
    repo_ = repository.open_repository(path)
    if repo_ is None:
        if rev is not None:
            raise UsageError(f"--rev needs a Git repository; {where.path} is a plain folder")
        if require_repository:
            raise repository.not_a_repository(repo)
        return _load(_files.FolderFiles(path), _Limits(where, max_file_size, bounds))
    try:
        if working_tree and rev is None and repo_.work_tree is not None:
            ignored = functools.partial(worktree.ignored, repo_)
            files: _files.Files = _files.FolderFiles(path, worktree.source_paths(repo_), ignored)
            return _load(files, _Limits(where, max_file_size, bounds))
        commit, settings = _commit(repo_, rev, max_file_size)
        files = _files.CommitFiles(repo_, commit, _cache.FILES.size)
        return _load(files, _Limits(where, max_file_size, bounds), settings)
    finally:
        repo_.close()


def settings(repo: str | os.PathLike[str], rev: str) -> SourceConfig:
    """gitfleet.yaml's settings at commit `rev` of the repository at `repo`, without reading
    anything else (defaults for those that do not read); `SourceError` as `load` raises it."""
    repo_ = repository.open_repository(Path(repo))
    if repo_ is None:
        raise repository.not_a_repository(repo)
    try:
        commit = repo_.commit_of(rev)
        if commit is None:
            raise repo_.fail(f"unknown revision {rev!r}")
        return _settings(_files.CommitFiles(repo_, commit, _cache.FILES.size), None)[0]
    finally:
        repo_.close()


Settings = tuple[SourceConfig, list[diagnostic.Diagnostic]]
"""gitfleet.yaml's settings, and the problems found reading them."""


def _commit(
    repo: repository.Repository, rev: str | None, max_file_size: int | None
) -> tuple[str, Settings | None]:
    """The commit to read: `rev`, else the source branch of HEAD's gitfleet.yaml, else HEAD;
    with HEAD's settings when HEAD is read, so that they are not read twice."""
    head = repo.commit_of("HEAD")
    if not repo.has_refs() and head is None:
        raise repo.fail("empty repository: no commits yet")
    if rev is not None:
        commit = repo.commit_of(rev)
        if commit is None:
            raise repo.fail(f"unknown revision {rev!r}")
        return commit, None
    if head is None:
        raise repo.fail("HEAD names no commit; pass --rev")
    read = _settings(_files.CommitFiles(repo, head, _cache.FILES.size), max_file_size)
    branch = read[0].source_branch
    if branch is None:
        return head, read
    commit = repo.commit_of(f"refs/heads/{branch}")
    if commit is None:
        problem = missing_source_branch(read[0])
        where = problem.origin
        path = os.path.normpath(os.path.join(repo.display, where.path))
        raise SourceError(dataclasses.replace(where, path=path), problem.message)
    return commit, None


def missing_source_branch(settings: SourceConfig) -> diagnostic.Diagnostic:
    """The error at gitfleet.yaml's sourceBranch when the repository has no such branch:
    `render` reads it by default, and stops there (`validate` reports it too, so that what
    passes renders)."""
    branch = settings.source_branch
    message = (
        f"sourceBranch: branch {branch!r} does not exist: render reads it when no --rev is"
        " given; create it, or name a branch that exists"
    )
    return diagnostic.error(settings.origin.at("sourceBranch"), message)


def _read_one(
    files: _files.Files, entry: _files.Entry, limit: int
) -> tuple[bytes | None, diagnostic.Diagnostic | None]:
    origin = Origin(entry.path)
    if entry.kind is not _files.Kind.FILE:
        return None, diagnostic.error(origin, _NOT_READ[entry.kind])
    if entry.size > limit:
        return None, _too_large(entry, limit)
    data = files.read([entry])[entry.path]
    if isinstance(data, str):
        return None, diagnostic.error(origin, data)
    return data, None


def _too_large(entry: _files.Entry, limit: int, why: str = "maxFileSize") -> diagnostic.Diagnostic:
    message = f"file is {entry.size} bytes, over the limit of {limit} ({why})"
    return diagnostic.error(Origin(entry.path), message)


_BOUNDED = "of the revision compared against, which a change cannot raise"


@dataclasses.dataclass(frozen=True, slots=True)
class _Limits:
    """The size limits asked for: `given` instead of gitfleet.yaml's maxFileSize, those of
    `bounds` at most; `where` names the source in errors about it as a whole."""

    where: Origin
    given: int | None = None
    bounds: SourceConfig | None = None

    def file(self, settings: SourceConfig) -> tuple[int, str]:
        """(bytes a file may have, what sets that limit, for messages)."""
        own = self.given or settings.max_file_size
        if self.bounds is not None and self.bounds.max_file_size < own:
            return self.bounds.max_file_size, f"maxFileSize {_BOUNDED}"
        return own, "maxFileSize"

    def total(self, settings: SourceConfig) -> tuple[int, str]:
        """(bytes the files read may have together, what sets that limit, for messages)."""
        if self.bounds is not None and self.bounds.max_source_size < settings.max_source_size:
            return self.bounds.max_source_size, f"maxSourceSize {_BOUNDED}"
        return settings.max_source_size, "maxSourceSize"

    def check_total(self, settings: SourceConfig, entries: list[_files.Entry]) -> None:
        """`SourceError` when `entries` weigh more together than maxSourceSize allows: each
        file is held to maxFileSize, but a tree can name the same large blob at any number of
        paths (a commit of a few kilobytes, gigabytes to parse)."""
        limit, why = self.total(settings)
        total = sum(e.size for e in entries)
        if total > limit:
            raise SourceError(
                self.where,
                f"the {len(entries)} files to read weigh {total} bytes together, over the limit "
                f"of {limit} ({why}); exclude what gitfleet need not read in gitfleet.yaml",
            )


def _settings(files: _files.Files, max_file_size: int | None) -> Settings:
    entry = files.root_entry(loaded.CONFIG_FILE)
    if entry is None:
        return SourceConfig(), []
    data, problem = _read_one(files, entry, max_file_size or loaded.DEFAULT_MAX_FILE_SIZE)
    if data is None:
        return SourceConfig(), [problem] if problem else []
    documents: list[tuple[object, Origin]] = []
    found: list[diagnostic.Diagnostic] = []
    for item in _parse(entry.path, data):
        if isinstance(item, tuple):
            documents.append(item)
        else:
            found.append(item)
    if len(documents) > 1:
        found.append(diagnostic.error(documents[1][1], "gitfleet.yaml holds a single document"))
    body, origin = documents[0] if documents else (None, Origin(entry.path))
    settings, more = _config.parse(body, origin)
    return settings, found + more


def _parse(path: str, data: bytes) -> Generator[tuple[object, Origin] | diagnostic.Diagnostic]:
    """A file's non-empty documents, each with its located origin, and its problems as located
    errors, in file order; each document is built when it is asked for (close the iterator to
    stop early)."""
    locator = _locate.FileLocator(data)
    with contextlib.closing(_yaml.parse(data)) as items:
        for item in items:
            if not isinstance(item, _yaml.Parsed):
                yield diagnostic.error(Origin(path, item.line, item.col), item.message)
            elif item.value is not None:
                yield (
                    item.value,
                    Origin(path, item.line, item.col, locator=locator.document(item.index)),
                )


def _select(
    entries: list[_files.Entry], settings: SourceConfig, limit: tuple[int, str]
) -> tuple[list[_files.Entry], list[_files.Entry], list[diagnostic.Diagnostic]]:
    """(documents to read, third-party rule files to read, problems with the rest). A rule
    file is held to the same size limit and the same refusal of links as a document: neither
    a pull request's rules nor a link standing for them is let through unsaid."""
    include, exclude = _globs.Globs(settings.include), _globs.Globs(settings.exclude)
    third = settings.third_party_customizations
    wanted: list[_files.Entry] = []
    rules: list[_files.Entry] = []
    problems = []
    for entry in entries:
        if third is not None and entry.path.startswith(third + "/"):
            selected, kept = entry.path.endswith("/" + _THIRD_PARTY_FILE), rules
        elif entry.path == loaded.CONFIG_FILE or exclude.matches(entry.path):
            continue
        else:
            selected = entry.path.endswith(_SUFFIXES) and (
                not include or include.matches(entry.path)
            )
            kept = wanted
        if entry.kind is _files.Kind.FILE:
            if not selected:
                continue
            if entry.size > limit[0]:
                problems.append(_too_large(entry, *limit))
            else:
                kept.append(entry)
        elif selected and entry.kind is not _files.Kind.SUBMODULE:  # meant as a source file
            problems.append(diagnostic.error(Origin(entry.path), _NOT_READ[entry.kind]))
        elif entry.kind not in _files.SPECIAL:  # one no commit can hold, not named as a source
            problems.append(diagnostic.warning(Origin(entry.path), _NOT_READ[entry.kind]))
    return wanted, rules, problems


@contextlib.contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Pause the cyclic garbage collector while documents are built.

    A load builds hundreds of thousands of small objects that all stay alive and hold no
    cycles; the collector would scan them over and over for nothing (a quarter of the load's
    time on a large source). Memory is freed as usual by reference counting meanwhile.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _load(files: _files.Files, limits: _Limits, read: Settings | None = None) -> LoadedSource:
    """The source `files` hold; `read`: their settings, when they were read already."""
    settings, problems = read if read is not None else _settings(files, limits.given)
    limit = limits.file(settings)
    exclude = _globs.Globs(settings.exclude)
    listed = files.entries(exclude.matches)
    entries = _outputs.without_render_outputs(files, listed, limits.total(settings)[0])
    wanted, rules, more = _select(entries, settings, limit)
    wanted, built_by_tools = _buildfiles.without_build_files(entries, wanted)
    limits.check_total(settings, wanted + rules)
    problems += more + built_by_tools
    found = _classify_files(files, wanted + rules)
    classified = _classify.Classified()
    for entry in wanted:
        classified.extend(found[entry.path])
    third_party = _third_party([found[e.path] for e in rules], classified.diagnostics)
    placed, warnings = scope.effective(classified.objects, settings.default_namespace)
    problems += warnings
    return LoadedSource(
        objects=_classify.object_set(placed),
        documents=tuple(classified.documents),
        diagnostics=tuple(diagnostic.sorted_diagnostics(problems + classified.diagnostics)),
        revision=files.revision,
        working_tree=files.working_tree,
        config=settings,
        third_party_customizations=third_party,
    )


def _classify_files(files: _files.Files, entries: list[_files.Entry]) -> dict[str, _classify.File]:
    """Each file's documents by path; files the cache holds are neither read nor parsed."""
    found: dict[str, _classify.File] = {}
    kept: dict[_cache.Key, _cache.Cached] = {}
    for entry in entries:
        if entry.blob is not None and (cached := _cache.FILES.get((entry.path, entry.blob))):
            found[entry.path] = cached.file
            kept[entry.path, entry.blob] = cached
    unread = [e for e in entries if e.path not in found]
    contents = files.read(unread)
    with _no_cycle_collection():
        for entry in unread:
            found[entry.path] = file = _classify_file(entry.path, contents[entry.path])
            if entry.blob is not None:
                kept[entry.path, entry.blob] = _cache.Cached(entry.size, file)
    if kept:
        _cache.FILES.keep(kept)
    return found


MAX_FILE_ERRORS = 1000
"""The most errors one file reports, its YAML's and its objects' counted together in file order;
past them the rest of it is neither built nor checked. A file of half a million empty documents
(a few megabytes, within maxFileSize) would otherwise print half a million lines and build and
hold as many documents; a file with that many errors renders nothing anyway."""


def _classify_file(path: str, data: bytes | str) -> _classify.File:
    classified = _classify.Classified()
    if isinstance(data, str):
        classified.diagnostics.append(diagnostic.error(Origin(path), data))
        return classified.file()
    errors = 0
    with contextlib.closing(_parse(path, data)) as items:
        for item in items:
            if errors >= MAX_FILE_ERRORS:
                where = item[1] if isinstance(item, tuple) else item.origin
                message = (
                    f"over {MAX_FILE_ERRORS} errors in this file: it is not checked from here on"
                )
                classified.diagnostics.append(diagnostic.error(where, message))
                break
            seen = len(classified.diagnostics)
            if isinstance(item, tuple):
                classified.add(*item)
            else:
                classified.diagnostics.append(item)
            errors += sum(
                d.severity is diagnostic.Severity.ERROR for d in classified.diagnostics[seen:]
            )
    return classified.file()


def _third_party(
    rules: list[_classify.File], problems: list[diagnostic.Diagnostic]
) -> tuple[config.ResourceInterpreterCustomization, ...]:
    """Karmada-format third-party rules; anything else in those files is an error."""
    classified = _classify.Classified()
    for rule in rules:
        classified.extend(rule)
    problems += classified.diagnostics
    found = []
    for obj in classified.objects:
        if isinstance(obj, config.ResourceInterpreterCustomization):
            found.append(obj)
        else:
            message = f"{loaded.subject(obj)}: only ResourceInterpreterCustomizations belong here"
            problems.append(diagnostic.error(obj.origin, message))
    return tuple(sorted(found, key=lambda c: (c.name, c.origin.path)))
