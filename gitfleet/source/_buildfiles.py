"""Files that are the input of another tool's build, not manifests: Helm charts and kustomize's
kustomization files.

A repository that Argo CD or Flux deploys often holds them, and a user trying gitfleet on it
would otherwise read, for each, an error that misleads (a chart's templates are not YAML until
Helm fills them in; a kustomization has no name, or no apiVersion). gitfleet renders the
manifests as they are and runs neither tool, so such a file is still an error (deploying the
resources a kustomization lists without its namespace, labels and patches, or a chart without
its values, would not be what the repository means), but one that says what the file is and
the way out: exclude it in gitfleet.yaml, and commit what the tool renders.

A chart is a folder holding a `Chart.yaml` (Helm's fixed name): every file below it belongs to
it and is not read, and the chart gets one error, at its Chart.yaml. A kustomization is a file
named as kustomize looks for it (`kustomization.yaml`, `kustomization.yml`).
"""

from __future__ import annotations

from collections.abc import Sequence

from gitfleet.model import diagnostic
from gitfleet.model.origin import Origin
from gitfleet.source import _files

CHART_FILE = "Chart.yaml"
KUSTOMIZATION_FILES = frozenset({"kustomization.yaml", "kustomization.yml"})


def _folder(path: str) -> str:
    return path.rpartition("/")[0]


def _name(path: str) -> str:
    return path.rpartition("/")[2]


def _below(path: str, folder: str) -> bool:
    """Whether `path` is `folder` or lies below it (`""` is the top)."""
    return not folder or path == folder or path.startswith(f"{folder}/")


def _chart_message(root: str) -> str:
    where = f"{root}/" if root else "the source"
    glob = f"{root}/**" if root else "**"
    return (
        f"{where} is a Helm chart: gitfleet does not run Helm, it reads manifests as they are;"
        f' exclude the chart in gitfleet.yaml (exclude: ["{glob}"]) and commit what'
        " `helm template` renders"
    )


_KUSTOMIZATION_MESSAGE = (
    "kustomize's build file: gitfleet does not run kustomize, it reads manifests as they are"
    " (this file's namespace, labels and patches would not apply); exclude it in gitfleet.yaml"
    ' (exclude: ["**/kustomization.yaml"]) and commit what `kustomize build` renders'
)


def without_build_files(
    entries: Sequence[_files.Entry], wanted: Sequence[_files.Entry]
) -> tuple[list[_files.Entry], list[diagnostic.Diagnostic]]:
    """The `wanted` entries that are not another tool's build input (see the module), and an
    error for each chart and kustomization left out. `entries` are all the source lists, so
    that a chart is known by its Chart.yaml even when the include globs do not select it."""
    roots = sorted(
        _folder(e.path)
        for e in entries
        if _name(e.path) == CHART_FILE and e.kind is _files.Kind.FILE
    )
    outermost: list[str] = []
    for root in roots:
        if not any(_below(root, top) for top in outermost):
            outermost.append(root)
    kept: list[_files.Entry] = []
    charts: set[str] = set()
    problems: list[diagnostic.Diagnostic] = []
    for entry in wanted:
        chart = next((r for r in outermost if _below(entry.path, r)), None)
        if chart is not None:
            charts.add(chart)
        elif _name(entry.path) in KUSTOMIZATION_FILES:
            problems.append(diagnostic.error(Origin(entry.path, 1, 1), _KUSTOMIZATION_MESSAGE))
        else:
            kept.append(entry)
    for root in sorted(charts):
        chart_file = f"{root}/{CHART_FILE}" if root else CHART_FILE
        problems.append(diagnostic.error(Origin(chart_file, 1, 1), _chart_message(root)))
    return kept, problems
