"""The rendered tree as it changes from the previous one: the files written, and the previous
files that go.

A render writes the files of what it renders again and leaves every other previous file as it
is. Walking a million previous files to find the few that go would cost a one-template change
more than rendering it, so in an ordinary incremental render a previous file goes only when
something owns it and no longer wants it:

- a binding rendered again (or gone from the source) owns its path in every cluster's folder:
  each cluster it neither writes nor keeps a file for loses the file there;
- the Namespaces folder of each cluster, `bindings/` and the folders of clusters that left the
  fleet are settled whole: a file no output wrote or kept goes;
- a binding reused as it was keeps its files without naming them (no other binding has its
  path: two with one path would have one binding name, which the detector refuses).

A render from scratch, a `--full` one, one whose shared inputs changed (policies, clusters,
the renderer) and one on a previous tree that may hold what no binding made (a binding file
that cannot be read back, a cluster folder not as render.yaml counts it) settle every folder
whole (`exact`): every output names what it keeps, and every file nobody named
goes, so whatever the previous tree holds, the result is the tree a full render makes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence

from gitfleet.model import work
from gitfleet.model.folders import Folders
from gitfleet.model.template import ResourceKey
from gitfleet.render import _paths, _work

Data = _work.Data
Output = _work.Output
Binding = work.ResourceBinding | work.ClusterResourceBinding

NAMESPACE_FOLDER = f"{_paths.CLUSTER_SCOPE}/{_paths.kind_segment('v1', 'Namespace')}"
"""Where a cluster's Namespaces are, inside its folder."""
_WORKS_FOLDER = _paths.WORKS + "/"
_BINDINGS_FOLDER = _paths.BINDINGS + "/"


def owns(folder: str) -> bool:
    """Whether the render settles `folder` of the previous tree (others are its caller's)."""
    return folder.startswith((_WORKS_FOLDER, _BINDINGS_FOLDER)) or folder in (
        _paths.WORKS,
        _paths.BINDINGS,
    )


@dataclasses.dataclass(frozen=True, slots=True)
class Vouched:
    """The newest render below the previous tip that the render's signing key signed, when
    the tip itself is not one (an edit amended into it by hand): a previous file is kept only
    as that render has it, so that a refused, suspended or evicting cluster never gets an edit
    signed. What agents that check signatures may run is what signed renders held."""

    files: Mapping[str, str]
    """Blob id of each of its files, by path."""
    tip: Folders[str]
    """Blob id of each file of the previous tip, by folder."""
    read: Callable[[Sequence[str]], Mapping[str, bytes]]
    """The contents of its files at the paths given."""

    def kept(self, folder: str, name: str) -> bytes | bool:
        """What keeping `folder/name` takes: True when the tip's file is the signed one,
        False when the signed render has none there (the file goes), else its content."""
        path = f"{folder}/{name}"
        signed = self.files.get(path)
        if signed is None or self.tip.folder(folder).get(name) == signed:
            return signed is not None
        return self.read([path])[path]


@dataclasses.dataclass(slots=True)
class Collected:
    """The tree as the bindings and Namespaces make it, folder by folder: new files, and the
    names of previous files kept (the first new file a path gets stays, and a path with a new
    file keeps none). Outside `exact`, a reused binding's files are kept without being named
    (`reuse`), and the paths whose files are decided cluster by cluster are `owned`."""

    exact: bool
    files: dict[str, dict[str, Data]] = dataclasses.field(default_factory=dict)
    kept: dict[str, set[str]] = dataclasses.field(default_factory=dict)
    refusals: list[_work.Refusal] = dataclasses.field(default_factory=list)
    rendered: int = 0
    owned: dict[str, None] = dataclasses.field(default_factory=dict)
    """Paths inside a cluster's folder, of bindings rendered again or gone."""
    folders: dict[tuple[str, str], str] = dataclasses.field(default_factory=dict)
    """Each cluster's folders, made once: (cluster, folder inside its folder) to path."""
    vouched: Vouched | None = None

    def folder(self, cluster: str, inner: str) -> str:
        found = self.folders.get((cluster, inner))
        if found is None:
            found = self.folders[(cluster, inner)] = f"{_paths.cluster_folder(cluster)}/{inner}"
        return found

    def write(self, folder: str, name: str, data: Data) -> None:
        found = self.files.get(folder)
        if found is None:
            found = self.files[folder] = {}
        found.setdefault(name, data)

    def keep(self, folder: str, name: str) -> None:
        if name in self.files.get(folder, ()):
            return
        kept = True if self.vouched is None else self.vouched.kept(folder, name)
        if isinstance(kept, bytes):
            self.write(folder, name, kept)
        elif kept:
            found = self.kept.get(folder)
            if found is None:
                found = self.kept[folder] = set()
            found.add(name)

    def add(self, output: Output) -> None:
        """Record `output`: its files, and the clusters that keep theirs."""
        self.refusals.extend(output.refusals)
        if not output.relative:
            return
        inner, _, name = output.relative.rpartition("/")
        for cluster, data in output.files.items():
            self.write(self.folder(cluster, inner), name, data)
        for cluster in output.kept:
            self.keep(self.folder(cluster, inner), name)

    def reuse(
        self, key: ResourceKey, binding: Binding, refusals: tuple[_work.Refusal, ...]
    ) -> None:
        """Record a binding reused as it was (`refusals`: what the previous render refused of
        it): its files stay, named only where a folder is settled whole."""
        self.refusals.extend(refusals)
        relative = _paths.object_path(key)
        inner, _, name = relative.rpartition("/")
        if self.exact or inner == NAMESPACE_FOLDER:
            for target in _work.target_clusters(binding.spec):
                self.keep(self.folder(target.name, inner), name)

    def own(self, relative: str) -> None:
        """Decide the files at `relative` cluster by cluster (see the module)."""
        self.owned[relative] = None


class Settled:
    """The tree's folders as they are settled: the new files (without the folders of clusters
    that left the fleet), the names of the previous files that go, and, for each cluster, the
    folders inside its own that hold any. Every folder but the Namespaces' is settled when it
    is made (the Namespaces a cluster needs are read from its other folders); those are
    settled by `settle_namespaces`, once their outputs are collected."""

    def __init__(self, clusters: Iterable[str], into: Collected, before: Folders[str]) -> None:
        self.files: dict[str, dict[str, Data]] = {}
        self.removed: dict[str, set[str]] = {}
        self.by_cluster: dict[str, dict[str, str]] = {name: {} for name in sorted(clusters)}
        """Each cluster's folders holding files: the folder inside its own, by tree path."""
        self.reshaped: set[str] = set()
        """The clusters whose set of files is not the previous one's."""
        self._into = into
        self._before = before
        self._namespaces: dict[str, str] = {}
        """Each cluster's Namespaces folder, by cluster."""
        self._new: dict[str, int] = {}
        """How many files each folder has that the previous tree's folder had not."""
        by_inner: dict[str, list[tuple[str, str]]] = {}
        for folder in sorted(before.by_folder.keys() | into.files.keys()):  # whatever the seed
            if not owns(folder):
                continue
            if not folder.startswith(_WORKS_FOLDER):
                self._settle_whole(folder)
                continue
            cluster, _, inner = folder[len(_WORKS_FOLDER) :].partition("/")
            if cluster not in self.by_cluster:
                self._remove(folder, before.folder(folder))  # a cluster that left the fleet
            elif not inner:
                if into.exact:  # it holds the kustomization.yaml the render writes, no other
                    present = before.folder(folder)
                    self._remove(folder, (n for n in present if n != _paths.KUSTOMIZATION))
            elif inner == NAMESPACE_FOLDER:
                self._namespaces[cluster] = folder
            else:
                by_inner.setdefault(inner, []).append((cluster, folder))
        owned: dict[str, list[str]] = {}
        for relative in into.owned if not into.exact else ():
            inner, _, name = relative.rpartition("/")
            owned.setdefault(inner, []).append(name)
        for inner, found in by_inner.items():
            names = owned.get(inner, ())
            for cluster, folder in found:  # each folder read once (`gitstore.objects.Entries`)
                if into.exact:
                    self._settle_whole(folder)
                else:
                    self._settle_owned(folder, names)
                self._list(cluster, folder, inner)
        for name in self.by_cluster:
            if _paths.KUSTOMIZATION not in before.folder(_paths.cluster_folder(name)):
                self.reshaped.add(name)

    def _remove(self, folder: str, names: Iterable[str]) -> None:
        found = set(names)
        if found:
            self.removed[folder] = found

    def _settle_whole(self, folder: str) -> None:
        """Settle `folder` as its outputs name it: a previous file nobody wrote or kept goes."""
        written = self._into.files.get(folder, {})
        kept = self._into.kept.get(folder, ())
        if written:
            self.files[folder] = written
        present = self._before.folder(folder)
        self._remove(folder, (n for n in present if n not in written and n not in kept))

    def _settle_owned(self, folder: str, owned: Iterable[str]) -> None:
        """Settle `folder` outside `exact`: of the previous files, those at `owned` names that
        no output wrote or kept go."""
        written = self._into.files.get(folder, {})
        if written:
            self.files[folder] = written
        present = self._before.folder(folder)
        kept = self._into.kept.get(folder, ())
        gone = [n for n in owned if n in present and n not in written and n not in kept]
        if gone:
            self.removed.setdefault(folder, set()).update(gone)

    def _list(self, cluster: str, folder: str, inner: str) -> None:
        """Note whether `folder` of `cluster` holds files, and whether the cluster's set of
        files changes there."""
        present = self._before.folder(folder)
        gone = self.removed.get(folder, ())
        new = self._new[folder] = sum(1 for n in self.files.get(folder, ()) if n not in present)
        if gone or new:
            self.reshaped.add(cluster)
        if len(present) - len(gone) + new:
            self.by_cluster[cluster][folder] = inner

    def settle_namespaces(self) -> None:
        """Settle each cluster's Namespaces folder, once the Namespaces are collected."""
        for cluster in self.by_cluster:
            folder = self._into.folder(cluster, NAMESPACE_FOLDER)
            if folder in self._into.files:
                self._namespaces.setdefault(cluster, folder)
        for cluster, folder in sorted(self._namespaces.items()):
            self._settle_whole(folder)
            self._list(cluster, folder, NAMESPACE_FOLDER)

    def relative_paths(self, cluster: str) -> list[str]:
        """The cluster's files, by path inside its folder."""
        found = []
        for folder, inner in self.by_cluster[cluster].items():
            gone = self.removed.get(folder, ())
            written = self.files.get(folder, {})
            present = self._before.folder(folder)
            found += [f"{inner}/{n}" for n in present if n not in gone and n not in written]
            found += [f"{inner}/{n}" for n in written]
        return found

    def count(self, cluster: str) -> int:
        """How many files the cluster has (its kustomization.yaml aside)."""
        total = 0
        for folder in self.by_cluster[cluster]:
            gone = len(self.removed.get(folder, ()))
            total += len(self._before.folder(folder)) - gone + self._new[folder]
        return total
