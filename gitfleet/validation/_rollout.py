"""gitfleet.yaml's rollout waves against the source's clusters: selectors that Kubernetes would
refuse, a cluster selected by several waves (an error: which wave it belongs to must be said,
not guessed) and a wave that selects no cluster (a warning: a wave may be empty for a while,
and its clusters, if any, then go with the last one).
"""

from __future__ import annotations

from gitfleet.model import diagnostic, loaded, selectors
from gitfleet.validation import _affinity, _report


def check(source: loaded.LoadedSource) -> list[diagnostic.Diagnostic]:
    settings = source.config.rollout
    if settings is None:
        return []
    clusters = sorted(source.objects.clusters, key=lambda c: c.name)
    found: list[diagnostic.Diagnostic] = []
    first: dict[str, str] = {}
    for wave in settings.waves:
        report = _report.Report(wave.origin, f"rollout wave {wave.name}")
        _affinity.cluster_affinity(report, (), wave.affinity, policy_api=False)
        chosen = [c.name for c in clusters if selectors.cluster_matches(c, wave.affinity)]
        again = [name for name in chosen if name in first]
        for name in again:
            report.error((), f"cluster {name} is also in wave {first[name]}: one wave per cluster")
        if not chosen:
            report.warning((), "selects no cluster")
        for name in chosen:
            first.setdefault(name, wave.name)
        found += report.diagnostics
    return found
