"""Files held by folder and read as one mapping by path (`model.folders`).

Aspects covered:
- a mapping by path grouped by folder reads back equal, root files included, each name one
  string however many folders hold it; a grouping is not grouped again;
- lookups by path, membership of anything (not only strings), a folder's values by name
  (none for a folder that holds nothing), length, values and items agreeing with iteration.
"""

from __future__ import annotations

import pytest

from gitfleet.model import folders

FILES = {
    "render.yaml": 1,
    "works/east/shop/Deployment.apps/web.yaml": 2,
    "works/west/shop/Deployment.apps/web.yaml": 3,
    "works/west/kustomization.yaml": 4,
}


def test_a_mapping_grouped_by_folder_reads_back_equal() -> None:
    grouped = folders.grouped(FILES)
    assert dict(grouped) == FILES and grouped == FILES
    assert folders.grouped(grouped) is grouped
    (east,) = grouped.folder("works/east/shop/Deployment.apps")
    (west,) = grouped.folder("works/west/shop/Deployment.apps")
    assert east == "web.yaml" and east is west
    assert grouped.folder("") == {"render.yaml": 1}


def test_lookups_by_path() -> None:
    grouped = folders.grouped(FILES)
    assert grouped["works/west/kustomization.yaml"] == 4
    assert grouped.get("works/north/kustomization.yaml") is None
    assert "render.yaml" in grouped and "works/west" not in grouped and 4 not in grouped
    with pytest.raises(KeyError):
        grouped["works/west/shop/Deployment.apps/api.yaml"]
    assert grouped.folder("works/north") == {}
    assert len(grouped) == len(FILES)
    assert list(grouped.items()) == [(p, grouped[p]) for p in grouped]
    assert list(grouped.values()) == [grouped[p] for p in grouped]
