"""Merge keys (`<<`) in source files: counted in the expansion budget, cycles refused, located.

Aspects covered:
- every hostile text of `hostile_yaml.CASES` (a mapping merging itself, directly or through
  another mapping, a merge-key billion laughs, a merge chain deeper than the bound, ...) is
  refused where it goes over, within a second, never a RecursionError; so is a mapping that
  merges itself through a list of sources;
- only the refused document is left out: the file's other documents still load;
- ordinary merges still load with kubectl's precedence (go-yaml v2: a merge where it stands, so
  it replaces the keys before it and the keys after it replace it; earlier sources first), and
  a merged key's position is found in its source mapping.
"""

from __future__ import annotations

import time

import pytest
from hostile_yaml import CASES, SELF_MERGE
from parsed_yaml import parse_all

from gitfleet.source import _locate

OK = b"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n"


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [*CASES, pytest.param("a: &m {x: 1, <<: [{y: 2}, *m]}\n", (1, 18), SELF_MERGE, id="list")],
)
def test_hostile_merges_are_refused_and_located(
    text: str, where: tuple[int, int], message: str
) -> None:
    started = time.monotonic()
    documents, problems = parse_all(text.encode() + OK)
    assert time.monotonic() - started < 1
    assert [(p.line, p.col, p.message) for p in problems] == [(*where, message)]
    if "[" * 1000 not in text:  # an unclosed bracket swallows the rest of the file
        assert [d.value["metadata"]["name"] for d in documents] == ["ok"]


def test_ordinary_merges_keep_their_precedence() -> None:
    data = b"""\
defaults: &defaults {replicas: 1, image: web:1, tier: back}
extra: &extra {tier: front, zone: a}
app:
  <<: [*defaults, *extra]
  replicas: 3
"""
    [document], problems = parse_all(data)
    assert not problems
    assert document.value["app"] == {"replicas": 3, "image": "web:1", "tier": "back", "zone": "a"}
    locator = _locate.FileLocator(data)
    assert locator.locate(0, ("app", "zone")) == (2, 29)
    assert locator.locate(0, ("app", "replicas")) == (5, 3)


def test_a_merge_replaces_the_keys_written_before_it_as_kubectl_reads_it() -> None:
    data = b"""\
base: &base {replicas: 2, tier: back}
app:
  replicas: 5
  <<: *base
  tier: front
"""
    [document], problems = parse_all(data)
    assert not problems
    assert document.value["app"] == {"replicas": 2, "tier": "front"}
    locator = _locate.FileLocator(data)
    assert locator.locate(0, ("app", "replicas")) == (1, 14)
    assert locator.locate(0, ("app", "tier")) == (5, 3)


def test_a_key_of_its_own_twice_is_still_a_duplicate_around_a_merge() -> None:
    data = b"base: &base {a: 1}\napp:\n  a: 0\n  <<: *base\n  a: 2\n"
    documents, problems = parse_all(data)
    assert documents == []
    assert [(p.line, p.col, p.message) for p in problems] == [(5, 3, "duplicate key 'a'")]
