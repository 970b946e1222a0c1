"""Loading another revision reuses what earlier loads made of the files it shares with them.

Aspects covered:
- a file unchanged between two revisions gives back the very same documents, objects and
  diagnostics; a changed file gives new ones with the new content;
- a deleted file is gone; a renamed file (same content) carries its new path;
- a file that becomes bad YAML is reported where a first load reports it, and is good again
  once fixed;
- whatever the cache holds, a load equals a first load of the same revision: the same revision
  twice, other settings over unchanged files (a lower size limit, a file that stops being a
  third-party rule);
- only the files of the last few loads are kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from gitfleet import source
from gitfleet.model import loaded
from gitfleet.source import _cache

POLICY = """\
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: web
  namespace: shop
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
  placement:
    clusterAffinity:
      clusterNames: [m1]
"""
CLUSTER = """\
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata:
  name: m1
spec:
  syncMode: Push
"""
IGNORED = """\
apiVersion: work.karmada.io/v1alpha2
kind: ResourceBinding
metadata:
  name: web
  namespace: shop
"""
BAD_POLICY = POLICY.replace("clusterNames: [m1]", "clusterNames: m1")
RULE = """\
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: thing
spec:
  target: {apiVersion: example.io/v1, kind: Thing}
  customizations:
    healthInterpretation:
      luaScript: "function InterpretHealth(o) return true end"
"""


def config_map(name: str, value: str = "1") -> str:
    return (
        f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: shop\n"
        f"data:\n  value: '{value}'\n"
    )


@pytest.fixture(autouse=True)
def empty_cache() -> Iterator[None]:
    """Files of other tests' repositories (same paths, same contents) would be reused too."""
    _cache.FILES.clear()
    yield
    _cache.FILES.clear()


def first_load(repo: Any, rev: str) -> loaded.LoadedSource:
    """The revision as a process that never loaded anything before sees it."""
    _cache.FILES.clear()
    return source.load(repo.path, rev)


def documents_of(result: loaded.LoadedSource, path: str) -> list[loaded.Document]:
    return [d for d in result.documents if d.origin.path == path]


def template(result: loaded.LoadedSource, name: str) -> Any:
    [found] = [t for t in result.objects.templates if t.name == name]
    return found


def test_unchanged_files_give_the_same_objects(git_repo: Any) -> None:
    first = git_repo.commit(
        {
            "a.yaml": config_map("a"),
            "b.yaml": config_map("b"),
            "policy.yaml": POLICY,
            "cluster.yaml": CLUSTER,
            "ignored.yaml": IGNORED,
            "bad.yaml": BAD_POLICY,
        }
    )
    second = git_repo.commit({"b.yaml": config_map("b", "2")})
    before = source.load(git_repo.path, first)
    after = source.load(git_repo.path, second)

    for path in ("a.yaml", "policy.yaml", "cluster.yaml", "ignored.yaml", "bad.yaml"):
        [old], [new] = documents_of(before, path), documents_of(after, path)
        assert new is old, path
    assert template(after, "a") is template(before, "a")
    assert after.objects.propagation_policies[0] is before.objects.propagation_policies[0]
    assert after.objects.clusters[0] is before.objects.clusters[0]
    assert len(after.diagnostics) == 2  # the ignored kind's warning, the bad policy's error
    for was, now in zip(before.diagnostics, after.diagnostics, strict=True):
        assert now is was
    assert str(after.diagnostics[0]).startswith("bad.yaml:12:7: error: PropagationPolicy")

    assert template(after, "b") is not template(before, "b")
    assert template(after, "b").body["data"] == {"value": "2"}
    assert template(before, "b").body["data"] == {"value": "1"}
    assert after == first_load(git_repo, second)


def test_deleted_and_renamed_files(git_repo: Any) -> None:
    first = git_repo.commit({"a.yaml": config_map("a"), "old/b.yaml": config_map("b")})
    second = git_repo.commit({"a.yaml": None, "old/b.yaml": None, "new/b.yaml": config_map("b")})
    before = source.load(git_repo.path, first)
    after = source.load(git_repo.path, second)
    assert [t.name for t in after.objects.templates] == ["b"]
    assert [d.origin.path for d in after.documents] == ["new/b.yaml"]
    assert template(after, "b").origin.path == "new/b.yaml"
    assert str(template(after, "b").origin.at("data", "value")) == "new/b.yaml:7:3"
    assert template(before, "b").origin.path == "old/b.yaml"
    assert after == first_load(git_repo, second)


def test_a_file_that_turns_bad_then_good_again(git_repo: Any) -> None:
    good = git_repo.commit({"a.yaml": config_map("a"), "b.yaml": config_map("b")})
    bad = git_repo.commit({"b.yaml": config_map("b") + "  key: [unclosed\n"})
    fixed = git_repo.commit({"b.yaml": config_map("b", "3")})
    loads = [source.load(git_repo.path, rev) for rev in (good, bad, fixed)]

    assert loads[0].ok and loads[2].ok
    [problem] = loads[1].diagnostics
    assert str(problem).startswith("b.yaml:9:1: error: invalid YAML")
    assert [t.name for t in loads[1].objects.templates] == ["a"]
    assert template(loads[2], "b").body["data"] == {"value": "3"}
    assert template(loads[2], "a") is template(loads[0], "a")
    assert loads == [first_load(git_repo, rev) for rev in (good, bad, fixed)]


def test_the_same_revision_twice(git_repo: Any) -> None:
    rev = git_repo.commit(
        {"a.yaml": config_map("a"), "policy.yaml": POLICY, "bad.yaml": "key: [unclosed\n"}
    )
    once = source.load(git_repo.path, rev)
    twice = source.load(git_repo.path, rev)
    assert [str(d.origin) for d in once.diagnostics] == ["bad.yaml:2:1"]
    assert twice == once
    for new, old in zip(twice.documents, once.documents, strict=True):
        assert new is old
    assert once == first_load(git_repo, rev)


def test_other_settings_over_unchanged_files(git_repo: Any) -> None:
    rule_path = "karmada/example.io/v1/Thing/customizations.yaml"
    files = {"big.yaml": config_map("big", "x" * 500), rule_path: RULE}
    first = git_repo.commit({**files, "gitfleet.yaml": "thirdPartyCustomizations: karmada\n"})
    second = git_repo.commit({"gitfleet.yaml": "maxFileSize: 400\n"})
    before = source.load(git_repo.path, first)
    after = source.load(git_repo.path, second)

    assert [c.name for c in before.third_party_customizations] == ["thing"]
    assert before.objects.customizations == ()
    assert after.third_party_customizations == ()
    assert after.objects.customizations == before.third_party_customizations
    [too_large] = after.diagnostics
    message = "big.yaml: error: file is 589 bytes, over the limit of 400 (maxFileSize)"
    assert str(too_large) == message
    assert after == first_load(git_repo, second)
    assert before == first_load(git_repo, first)


def test_only_the_last_loads_are_kept(git_repo: Any) -> None:
    kept = git_repo.commit({"a.yaml": config_map("a")})
    others = [
        git_repo.commit({"a.yaml": config_map("a", f"other {n}")}) for n in range(_cache.KEPT_LOADS)
    ]
    first = source.load(git_repo.path, kept)
    for rev in others[: _cache.KEPT_LOADS - 1]:
        source.load(git_repo.path, rev)
    assert template(source.load(git_repo.path, kept), "a") is template(first, "a")
    for rev in others[: _cache.KEPT_LOADS]:
        source.load(git_repo.path, rev)
    again = source.load(git_repo.path, kept)
    assert template(again, "a") is not template(first, "a")
    assert again == first
