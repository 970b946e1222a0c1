"""Namespaces on member clusters: the ones the source defines without a policy, sent everywhere
as Karmada's namespace sync controller does, and the ones placed manifests need but the source
does not define, generated where they are needed.

Karmada (pkg/controllers/namespace/namespace_sync_controller.go) sends every Namespace of its
control plane to every cluster, except reserved ones, `default`, and those labelled to skip;
the detector lists those (`auto_namespaces`). One a policy also claims carries the claim
everywhere, as Karmada's detector writes it on the stored Namespace. In Karmada a namespaced
template cannot exist without its Namespace; in a Git repository it can, so a cluster that
receives a namespaced manifest whose namespace the source does not define at all gets a
generated one (with the cluster override policies applied, as any synced Namespace), annotated
so that agents can tell it from a defined one. A namespace the source defines is never
generated, even where it is not sent (a policy chose other clusters, or it is labelled to skip
propagation): that is the user's choice. `default` exists on every cluster and is never
generated (Karmada's detector never propagates templates of the other namespaces every cluster
has, `kube-*`).

Each Namespace is built once per group of clusters with the same overrides
(`_work.NamespaceBuilds`): a fleet of thousands of clusters does not build it thousands of
times.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

from gitfleet import errors
from gitfleet.model import scope
from gitfleet.model.origin import Origin
from gitfleet.model.template import RawObject, ResourceTemplate
from gitfleet.render import _paths, _work

_ALWAYS_PRESENT = "default"
Reuse = Callable[[ResourceTemplate, str, str], _work.Output | None]


def _namespace_template(name: str) -> ResourceTemplate:
    body: RawObject = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
    return ResourceTemplate(scope.namespace_labelled(body), Origin(""))


def needed(listed: Mapping[str, Iterable[str]]) -> dict[str, set[str]]:
    """The namespaces each cluster's namespaced manifests are in, from the folders (relative
    to the cluster's folder) that hold its manifests."""
    found = {}
    for cluster, folders in listed.items():
        spaces = {folder.partition("/")[0] for folder in folders}
        spaces.discard(_paths.CLUSTER_SCOPE)
        if spaces:
            found[cluster] = spaces
    return found


def _one(
    template: ResourceTemplate,
    cluster: str,
    ctx: _work.Context,
    reuse: Reuse,
    builds: _work.NamespaceBuilds,
) -> _work.Output:
    relative = _paths.object_path(template.key)
    kept = reuse(template, cluster, relative)
    if kept is not None:
        return kept
    try:
        data = builds.manifest(template, ctx.clusters[cluster])
    except errors.GitfleetError as error:
        origin = error.origin if isinstance(error, errors.InputError) else template.origin
        message = error.message if isinstance(error, errors.InputError) else str(error)
        refusal = _work.Refusal(origin, str(template.key), cluster, message)
        return _work.Output(relative, {}, (cluster,), (refusal,), (cluster,))
    return _work.Output(relative, {cluster: data}, (), (), (cluster,))


def outputs(
    auto: Sequence[ResourceTemplate],
    defined: Collection[str],
    wanted: Mapping[str, set[str]],
    ctx: _work.Context,
    reuse: Reuse,
) -> list[_work.Output]:
    """Namespace manifests: `auto` to every cluster, and one generated per cluster for each
    namespace it has manifests in (`wanted`, see `needed`) that `defined` does not hold.
    `reuse(template, cluster, relative)` gives the previous render's output for a manifest
    whose inputs did not change (None: render it; `relative`: its path in the cluster's
    folder)."""
    builds = _work.NamespaceBuilds(ctx)
    found = [_one(t, name, ctx, reuse, builds) for name in sorted(ctx.clusters) for t in auto]
    for name in sorted(wanted):
        if name not in ctx.clusters:
            continue
        for namespace in sorted(wanted[name] - set(defined)):
            if namespace != _ALWAYS_PRESENT:
                found.append(_one(_namespace_template(namespace), name, ctx, reuse, builds))
    return found
