"""The clusters' reported status, as the next schedule reads it.

Each agent writes `cluster.yaml` on its status ref (`refs/heads/gitfleet/status/<cluster>`),
whose `status` is a Karmada ClusterStatus in Karmada's field names. Reported fields supersede
the ones the source declares (`pipeline.effective_clusters`). A report that cannot be read
(another version's, or damaged) is left out: the cluster is then scheduled on what the source
declares, never refused. Refs whose name starts with `_` are not clusters (`_reconciler`).
"""

from __future__ import annotations

from gitfleet import errors
from gitfleet.gitstore import status
from gitfleet.gitstore.repository import Repository
from gitfleet.model import _codec, cluster
from gitfleet.model.origin import Origin

CLUSTER_FILE = "cluster.yaml"


def _decode(data: bytes, where: str) -> cluster.ClusterStatus | None:
    import yaml

    try:
        doc = yaml.safe_load(data)
    except yaml.YAMLError:
        return None
    raw = doc.get("status") if isinstance(doc, dict) else None
    if not isinstance(raw, dict):
        return None
    try:
        decoded: cluster.ClusterStatus = _codec.decode(
            cluster.ClusterStatus, raw, Origin(where), lenient=True
        )
    except errors.SchemaError:
        return None
    return decoded


def snapshot(repo: Repository) -> dict[str, cluster.ClusterStatus]:
    """Every cluster's last reported status, by cluster name."""
    found = {}
    for name, report in status.read_all(repo).items():
        data = report.files.get(CLUSTER_FILE)
        if name.startswith("_") or data is None:
            continue
        decoded = _decode(data, f"{status.status_ref(name)}:{CLUSTER_FILE}")
        if decoded is not None:
            found[name] = decoded
    return found
