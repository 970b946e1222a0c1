"""`gitfleet get KIND[,KIND...] [NAME...]`: kinds' objects in every member cluster, as their
agents last reported them (karmada-search, printed as `karmadactl get` prints it).

KIND is spelled as kubectl accepts it (`kinds.resolve`): kind, plural or short name, any case,
optionally group-qualified; the kinds known are Kubernetes' own, those the source defines or
uses and those the agents reported. The arguments are read as kubectl reads them
(`kinds.requested`): kinds separated by commas, then names (each asked of each kind), or
`KIND/NAME` pairs. `-n` (default: the source's `defaultNamespace`, else `default`) or `-A`, `-l`
in kubectl's selector syntax, `--cluster` (repeatable; also karmadactl's `-C`/`--clusters`,
comma-separated) narrow the list: a cluster the source does not declare and no agent reported
is an error, as karmadactl's is. Each kind gets a table with kubectl's columns for it, CLUSTER
after NAME and ADOPTION last (`search.columns`), in the order asked; with several kinds, a
blank line between tables and each name prefixed with its kind, as kubectl prints them. `-o
wide` adds kubectl's wide columns, `--show-labels` LABELS, `--no-headers` drops the headers;
`-o json` / `-o yaml` print one kubectl List whose items carry
`resource.karmada.io/cached-from-cluster` (the object itself for one name of one kind found in
one cluster, as karmadactl prints it), in kubectl's bytes (`output.dump_kubectl_json`,
`output.dump_kubectl_yaml`); `-o jsonpath=...` and `-o custom-columns=...` (and their `-file`
forms) print the same through kubectl's templates (`printformat`); `-o name` names each object
once, `deployment.apps/web`, however many clusters run it (karmadactl repeats it per cluster):
names to hand to another command, the table saying where each runs.

`--live` reads Push clusters now, through the kubeconfigs in `--kubeconfig-dir` (`search.live`);
Pull clusters, and Push clusters that cannot be read, are shown as last reported, each with a
note on stderr saying so and why. Nothing found: kubectl's "No resources found" on stderr (with
the namespace, for a namespaced kind) under a table's output, exit 0; a cluster-scoped kind has
no NAMESPACE column under `-A`, as in kubectl. A NAME found nowhere is said on stderr after
what was found (`deployments.apps "web" not found in any cluster`), exit 1, as kubectl does; an
unknown KIND or cluster or a selector that does not parse: exit 1.
"""

from __future__ import annotations

import datetime
import difflib
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NoReturn

import click

from gitfleet import errors, search
from gitfleet.cli import kinds, options, printformat
from gitfleet.cli import output as out
from gitfleet.model import labelquery, scope
from gitfleet.model.origin import Origin, shown
from gitfleet.model.template import ResourceTemplate
from gitfleet.search import columns, read
from gitfleet.status import reports


def _fail(message: str) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    sys.exit(1)


def _reported_kinds(found: Mapping[str, reports.ClusterReport]) -> list[ResourceTemplate]:
    """The kinds the agents reported, as templates `kinds.resolve` knows them by."""
    seen = {(m.key.api_version, m.key.kind) for r in found.values() for m in r.manifests}
    return [
        ResourceTemplate({"apiVersion": v, "kind": k, "metadata": {}}, Origin("(reported)"))
        for v, k in sorted(seen)
    ]


def _live(
    fleet: read.Fleet, query: search.Query, kubeconfig_dir: Path, label_selector: str
) -> tuple[list[search.Found], list[str]]:
    """Every wanted cluster read live where it can be; the others from their reports."""
    from gitfleet.search import live  # the kubernetes client: only for --live

    names = sorted(n for n in set(fleet.clusters) | set(fleet.reports) if query.wants_cluster(n))
    found: list[search.Found] = []
    notes: list[str] = []
    read_live: set[str] = set()
    for name in names:
        member = fleet.clusters.get(name)
        outcome = live.read(name, member, kubeconfig_dir, query, label_selector)
        if outcome.fallback:
            notes.append(f"{name}: shown as last reported ({outcome.fallback})")
        else:
            read_live.add(name)
            found += outcome.found
    return search.merged(found, search.reported(fleet.reports, query, skip=read_live)), notes


def _namespaced(query: search.Query, fleet: read.Fleet, found: Sequence[search.Found]) -> bool:
    """Whether the kind asked for is namespaced: Kubernetes' built-in scopes and the source's
    CRDs say it, else the objects found (a kind none of them defines, such as a custom
    resource whose CRD is installed another way); kubectl then prints no NAMESPACE column and
    no namespace in "No resources found"."""
    key = (query.group, query.kind)
    known = scope.crd_scopes(fleet.templates).get(key)
    if known is not None:
        return known
    if key in scope.CLUSTER_SCOPED:
        return False
    return not found or any((f.obj.get("metadata") or {}).get("namespace") for f in found)


def _clusters(spelled: Sequence[str], fleet: read.Fleet) -> list[str]:
    """The clusters asked for (repeated or comma-separated); those the fleet does not know
    fail, each with the closest known name."""
    asked = [c.strip() for each in spelled for c in each.split(",") if c.strip()]
    known = sorted(set(fleet.clusters) | set(fleet.reports))
    unknown = [c for c in asked if c not in known]
    if unknown:
        hints = [
            f"; did you mean {close[0]!r} for {c!r}?"
            for c in unknown
            if (close := difflib.get_close_matches(c, known, n=1))
        ]
        _fail(f"clusters don't exist: {','.join(unknown)}{''.join(hints)}")
    return asked


def _queries(
    asked: Sequence[kinds.Requested],
    fleet: read.Fleet,
    namespace: str,
    all_namespaces: bool,
    selector: str,
    clusters: Sequence[str],
) -> list[search.Query]:
    """One query per kind asked for, in the order typed; two spellings of one kind (`deploy,
    deployments`) are one query, with the names asked of either."""
    templates = [*fleet.templates, *_reported_kinds(fleet.reports)]
    try:
        parsed = labelquery.parse(selector)
    except ValueError as exc:
        _fail(f"-l {selector!r}: {exc}")
    names: dict[kinds.GroupKind, set[str]] = {}
    for token, given in asked:
        try:
            names.setdefault(kinds.resolve(token, templates), set()).update(given)
        except errors.UsageError as exc:
            _fail(str(exc))
    return [
        search.Query(
            group=group,
            kind=kind,
            names=frozenset(wanted),
            namespace=None if all_namespaces else (namespace or fleet.default_namespace),
            selector=parsed,
            clusters=frozenset(clusters),
        )
        for (group, kind), wanted in names.items()
    ]


def _missing(query: search.Query, found: Sequence[search.Found]) -> list[str]:
    """kubectl's NotFound for each name asked of the kind that no cluster has."""
    seen = {(f.obj.get("metadata") or {}).get("name") for f in found}
    where = ", ".join(sorted(query.clusters)) or "any cluster"
    return [
        f'{kinds.resource(query.group, query.kind)} "{name}" not found in {where}'
        for name in sorted(query.names - seen)
    ]


def _names(listed: Sequence[tuple[search.Query, list[search.Found]]]) -> str:
    """`-o name`: each object once, as kubectl names it (`deployment.apps/web`), however many
    clusters run it: names to hand to the next command (the table's CLUSTER column says where
    each runs); the same line once per cluster, as karmadactl prints it, would say nothing more."""
    lines = (
        f"{kinds.qualified(q.group, q.kind)}/{(f.obj.get('metadata') or {}).get('name', '')}"
        for q, found in listed
        for f in found
    )
    return "".join(f"{shown(line)}\n" for line in dict.fromkeys(lines))


def _tables(
    listed: Sequence[tuple[search.Query, list[search.Found]]],
    fleet: read.Fleet,
    *,
    wide: bool,
    all_namespaces: bool,
    headers: bool,
    show_labels: bool,
) -> str:
    """kubectl's tables, one per kind with objects, in the order asked; with several kinds
    asked for, each name is prefixed with its kind (`deployment.apps/web`) and the tables
    are separated by a blank line (not without headers, as kubectl does)."""
    now = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    several = len(listed) > 1
    printed = []
    for query, found in listed:
        if not found:
            continue
        table = columns.rows(
            found,
            query.group,
            query.kind,
            now=now,
            wide=wide,
            all_namespaces=all_namespaces and _namespaced(query, fleet, found),
            prefix=f"{kinds.qualified(query.group, query.kind)}/" if several else "",
            show_labels=show_labels,
        )
        printed.append(columns.layout(table if headers else table[1:]))
    return ("\n" if headers else "").join(printed)


def _templated(
    output: printformat.Format, printed: search.Obj, allow_missing: bool, *, headers: bool
) -> str:
    """`-o jsonpath=...` or `-o custom-columns=...` of what is printed; exit 1 with kubectl's
    message when the template or spec cannot be used."""
    try:
        if output.name.startswith("jsonpath"):
            return printformat.print_jsonpath(output, printed, allow_missing=allow_missing)
        return printformat.print_custom_columns(output, printed, headers=headers)
    except printformat.FormatError as error:
        _fail(str(error))


@click.command("get")
@click.argument(
    "resource", nargs=-1, required=True, metavar="KIND[,KIND...] [NAME...] | KIND/NAME..."
)
@options.repo_option_saying(
    "The Git repository: its status refs, and its source at the source branch of "
    "gitfleet.yaml, else HEAD."
)
@click.option(
    "-n",
    "--namespace",
    "namespace",
    default="",
    help="Namespace (default: defaultNamespace in gitfleet.yaml, else default).",
)
@click.option(
    "-A",
    "--all-namespaces",
    "all_namespaces",
    is_flag=True,
    help="List every namespace (-n is then ignored, as kubectl ignores it).",
)
@click.option("-l", "--selector", "selector", default="", help="Label selector (kubectl's syntax).")
@click.option(
    "--cluster",
    "--clusters",
    "-C",
    "clusters",
    multiple=True,
    help="Only these member clusters (repeat, or separate with commas).",
)
@click.option(
    "--live",
    is_flag=True,
    help="Read Push clusters now, each through its kubeconfig in --kubeconfig-dir (Pull"
    " clusters: as last reported).",
)
@click.option(
    "--kubeconfig-dir",
    "kubeconfig_dir",
    type=options.ReadPath(file_okay=False, path_type=Path),
    default=None,
    help="With --live: the push agent's kubeconfigs, <dir>/<cluster>.yaml (or"
    " <dir>/<namespace>/<name>.yaml of a Cluster's secretRef).",
)
@options.cluster_repos_option(
    "fetch each cluster's status ref from there into the repository first."
)
@click.option(
    "-o",
    "--output",
    "output",
    type=printformat.OutputFormat(),
    default="text",
    show_default=True,
    help="Output format (name: each object once, as kind/name; jsonpath=TEMPLATE,"
    " jsonpath-as-json=TEMPLATE, jsonpath-file=FILE, custom-columns=HEADER:PATH,...,"
    " custom-columns-file=FILE, as kubectl reads them).",
)
@click.option(
    "--allow-missing-template-keys",
    "allow_missing",
    type=bool,
    default=True,
    show_default=True,
    help="With -o jsonpath: a field a template names and an object lacks prints nothing"
    " (false: an error).",
)
@click.option("--no-headers", "no_headers", is_flag=True, help="Print the tables without headers.")
@click.option("--show-labels", "show_labels", is_flag=True, help="Add each object's labels, last.")
def get(
    resource: tuple[str, ...],
    repo: str,
    namespace: str,
    all_namespaces: bool,
    selector: str,
    clusters: tuple[str, ...],
    live: bool,
    kubeconfig_dir: Path | None,
    cluster_repos: str | None,
    output: printformat.Format,
    allow_missing: bool,
    no_headers: bool,
    show_labels: bool,
) -> None:
    """List each KIND's objects in every member cluster (karmada-search)."""
    try:
        asked = kinds.requested(resource)
    except errors.UsageError as error:
        raise click.UsageError(str(error)) from error
    if live and kubeconfig_dir is None:
        raise click.UsageError("--live needs --kubeconfig-dir")
    if kubeconfig_dir is not None and not live:
        raise click.UsageError("--kubeconfig-dir is only used with --live")
    try:
        fleet = read.fleet(repo, cluster_repos=cluster_repos)
    except errors.InputError as error:
        out.fail_input(error)
    except errors.GitfleetError as error:
        _fail(str(error))
    wanted = _clusters(clusters, fleet)
    queries = _queries(asked, fleet, namespace, all_namespaces, selector, wanted)
    notes = list(fleet.notes)
    listed: list[tuple[search.Query, list[search.Found]]] = []
    for query in queries:
        if live:
            assert kubeconfig_dir is not None
            found, fallbacks = _live(fleet, query, kubeconfig_dir, selector)
            notes += fallbacks
        else:
            found = search.reported(fleet.reports, query)
        listed.append((query, found))
    for note in dict.fromkeys(notes):
        click.echo(f"note: {note}", err=True)
    items = [f for _, found in listed for f in found]
    single = len(asked) == 1 and len(asked[0][1]) == 1
    if output.name == "json":
        click.echo(out.dump_kubectl_json(search.printed(items, single=single)), nl=False)
    elif output.name == "yaml":
        click.echo(out.dump_kubectl_yaml(search.printed(items, single=single)), nl=False)
    elif output.name == "name":
        click.echo(_names(listed), nl=False)
    elif output.name in printformat.TEMPLATED:
        printed = search.printed(items, single=single)
        click.echo(_templated(output, printed, allow_missing, headers=not no_headers), nl=False)
    elif items:
        click.echo(
            _tables(
                listed,
                fleet,
                wide=output.name == "wide",
                all_namespaces=all_namespaces,
                headers=not no_headers,
                show_labels=show_labels,
            ),
            nl=False,
        )
    missing = [line for query, found in listed for line in _missing(query, found)]
    for line in missing:
        click.echo(f"error: {shown(line)}", err=True)
    if missing:
        sys.exit(1)
    if not items and output.name in ("text", "wide"):
        namespaced = any(_namespaced(q, fleet, []) for q in queries)
        where = f" in {queries[0].namespace} namespace" if namespaced and not all_namespaces else ""
        click.echo(f"No resources found{where}.", err=True)
