"""Changes a pull request could make to the example fleet, as file edits."""

from __future__ import annotations

from typing import Any

PROMO = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: promo
  namespace: shop
data:
  banner: "winter sale"
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: promo
  namespace: shop
spec:
  resourceSelectors:
    - apiVersion: v1
      kind: ConfigMap
      name: promo
  placement:
    clusterAffinity:
      clusterNames: [aws-euw1, gcp-euw1-a]
"""


def edit(repo: Any, path: str, old: str, new: str) -> None:
    target = repo.path / path
    text = target.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    target.write_text(text.replace(old, new, 1), encoding="utf-8")


def on_branch(
    repo: Any, name: str, *changes: tuple[str, str, str], files: dict[str, str | None] | None = None
) -> str:
    """Make `changes` (path, old, new) and `files` on a new branch off main; its commit.
    Leaves main checked out."""
    repo.git("checkout", "-q", "-b", name, "main")
    for path, old, new in changes:
        edit(repo, path, old, new)
    commit: str = repo.commit(files or {}, name)
    repo.git("checkout", "-q", "main")
    return commit


SCALE_WEB = ("apps/shop/web.yaml", "replicas: 6", "replicas: 9")
GATEWAY_EU_ONLY = ("policies/propagation/gateway.yaml", "env: production", "geo: eu")
BREAK_WEB = ("apps/shop/web.yaml", "replicas: 6", "replicas: [6")
