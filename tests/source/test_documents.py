"""Documents become typed Karmada objects or raw templates, each with its origin.

Aspects covered:
- Karmada kinds are parsed with their model class; other documents are templates; both keep
  the document's position, and fields are located on demand through the origin;
- objects are grouped by kind and sorted (templates by apiVersion, kind, namespace, name);
- a Karmada object that does not parse is left out, reported at its bad field, and its
  document records why;
- other kinds of Karmada's API groups are ignored with a warning; a known kind with another
  version is an error;
- documents without apiVersion, kind or metadata.name, names that are not one path segment,
  and documents that are lists or scalars are errors;
- `kind: List` and typed `*List` documents are unwrapped into their items (nested lists too),
  each located at its place in the list; problems with an item are located at it;
- a file stops being checked at its 1,000th error (of its objects or of its YAML), with an
  error where it stopped, holding no more documents than that.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gitfleet.model import loaded
from gitfleet.model.diagnostic import Severity

LoadFolder = Callable[[dict[str, str | bytes]], loaded.LoadedSource]

CLUSTER = """\
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata:
  name: {name}
spec:
  syncMode: Push
"""
POLICY = """\
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: {name}
  namespace: shop
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
"""


def config_map(name: str, namespace: str = "shop") -> str:
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"


def test_kinds_are_typed_grouped_and_sorted(load_folder: LoadFolder) -> None:
    result = load_folder(
        {
            "clusters.yaml": CLUSTER.format(name="m2") + "---\n" + CLUSTER.format(name="m1"),
            "policies/web.yaml": POLICY.format(name="web"),
            "apps/b.yaml": config_map("b") + "---\n" + config_map("a", "other"),
            "apps/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: z}\n",
        }
    )
    assert result.ok, result.diagnostics
    objects = result.objects
    assert [c.name for c in objects.clusters] == ["m1", "m2"]
    assert [str(c.origin) for c in objects.clusters] == ["clusters.yaml:8:1", "clusters.yaml:1:1"]
    assert [p.name for p in objects.propagation_policies] == ["web"]
    assert [str(t.key) for t in objects.templates] == [  # apps/v1 sorts before v1
        "Deployment/default/z",
        "ConfigMap/other/a",
        "ConfigMap/shop/b",
    ]
    assert [d.role for d in result.documents].count(loaded.Role.TEMPLATE) == 3
    assert result.revision is None


def test_fields_are_located_on_demand(load_folder: LoadFolder) -> None:
    result = load_folder({"p.yaml": "# policy\n" + POLICY.format(name="web")})
    policy = result.objects.propagation_policies[0]
    assert str(policy.origin) == "p.yaml:2:1"
    assert str(policy.origin.at("spec", "resourceSelectors", 0, "kind")) == "p.yaml:10:7"
    assert str(policy.origin.at("spec", "missing", "deeper")) == "p.yaml:7:1"


def test_a_karmada_object_that_does_not_parse_is_left_out(load_folder: LoadFolder) -> None:
    text = POLICY.format(name="web") + "  priority: high\n"
    result = load_folder({"p.yaml": text, "c.yaml": config_map("c")})
    assert result.objects.propagation_policies == ()
    [problem] = result.diagnostics
    assert str(problem) == (
        "p.yaml:10:3: error: PropagationPolicy shop/web: "
        "spec.priority: expected integer, got string"
    )
    [document] = [d for d in result.documents if d.role is loaded.Role.KARMADA]
    assert document.error == problem
    assert not result.ok


def test_other_karmada_kinds_are_ignored_with_a_warning(load_folder: LoadFolder) -> None:
    text = "apiVersion: work.karmada.io/v1alpha1\nkind: Work\nmetadata: {name: w}\n"
    result = load_folder({"w.yaml": text})
    [problem] = result.diagnostics
    assert problem.severity is Severity.WARNING
    assert "work.karmada.io/v1alpha1 Work is not read by gitfleet" in problem.message
    assert result.objects.templates == ()
    assert result.ok


def test_a_known_kind_with_another_version_is_an_error(load_folder: LoadFolder) -> None:
    text = POLICY.format(name="web").replace("v1alpha1", "v1beta1")
    [problem] = load_folder({"p.yaml": text}).diagnostics
    assert str(problem) == (
        "p.yaml:1:1: error: PropagationPolicy must have apiVersion policy.karmada.io/v1alpha1, "
        "got policy.karmada.io/v1beta1"
    )


CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "kind: ConfigMap\n", "1:1: error: document has no apiVersion", id="no version"
        ),
        pytest.param("apiVersion: v1\n", "1:1: error: document has no kind", id="no kind"),
        pytest.param(
            "apiVersion: v1\nkind: 12\n", "2:1: error: kind must be a non-empty string", id="kind"
        ),
        pytest.param(CONFIG_MAP, "1:1: error: ConfigMap has no metadata.name", id="no metadata"),
        pytest.param(
            CONFIG_MAP + "metadata:\n  namespace: x\n",
            "3:1: error: ConfigMap has no metadata.name",
            id="no name",
        ),
        pytest.param(
            CONFIG_MAP + "metadata:\n  name: a/b\n",
            "4:3: error: ConfigMap: metadata.name 'a/b' may not contain '/'",
            id="slash in name",
        ),
        pytest.param(
            CONFIG_MAP + "metadata:\n  name: a\n  namespace: ..\n",
            "5:3: error: ConfigMap: metadata.namespace '..' may not be used",
            id="dot-dot namespace",
        ),
        pytest.param(
            "- a\n- b\n", "1:1: error: document is a list, not a Kubernetes object", id="list"
        ),
        pytest.param(
            "text\n", "1:1: error: document is a scalar, not a Kubernetes object", id="scalar"
        ),
    ],
)
def test_documents_that_are_not_objects(load_folder: LoadFolder, text: str, expected: str) -> None:
    result = load_folder({"a.yaml": text})
    assert [str(d) for d in result.diagnostics] == [f"a.yaml:{expected}"]
    assert result.objects.templates == ()


LIST = """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: a, namespace: shop}
- apiVersion: policy.karmada.io/v1alpha1
  kind: PropagationPolicy
  metadata: {name: web, namespace: shop}
  spec:
    resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]
- apiVersion: v1
  kind: List
  items:
  - {apiVersion: v1, kind: Secret, metadata: {name: inner, namespace: shop}}
---
apiVersion: v1
kind: ConfigMapList
items:
- metadata: {name: typed, namespace: shop}
"""


def test_list_documents_are_unwrapped(load_folder: LoadFolder) -> None:
    """kubectl applies a List's items (nested Lists too); a typed list's items without
    apiVersion and kind take the list's."""
    result = load_folder({"a.yaml": LIST})
    assert result.ok, result.diagnostics
    objects = result.objects
    found = {str(t.key): str(t.origin) for t in objects.templates}
    assert found == {
        "ConfigMap/shop/a": "a.yaml:4:3",
        "Secret/shop/inner": "a.yaml:15:5",
        "ConfigMap/shop/typed": "a.yaml:20:3",
    }
    [pp] = objects.propagation_policies
    assert (pp.name, str(pp.origin), str(pp.origin.at("spec"))) == (
        "web",
        "a.yaml:7:3",
        "a.yaml:10:3",
    )
    assert [d.kind for d in result.documents] == [
        "ConfigMap",
        "PropagationPolicy",
        "Secret",
        "ConfigMap",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap}\n",
            "4:3: error: ConfigMap has no metadata.name",
            id="an item without a name",
        ),
        pytest.param(
            "apiVersion: v1\nkind: List\nitems:\n- text\n",
            "4:3: error: document is a scalar, not a Kubernetes object",
            id="an item that is not an object",
        ),
        pytest.param(
            "apiVersion: v1\nkind: List\nitems: {a: b}\n",
            "3:1: error: List: items must be a list",
            id="items not a list",
        ),
    ],
)
def test_list_items_are_located(load_folder: LoadFolder, text: str, expected: str) -> None:
    result = load_folder({"a.yaml": text})
    assert [str(d) for d in result.diagnostics] == [f"a.yaml:{expected}"]


@pytest.mark.parametrize(
    ("document", "message"),
    [
        pytest.param("{}", "document has no apiVersion", id="errors of the objects"),
        pytest.param("!foo {}", "tag", id="errors of the YAML"),
    ],
)
def test_a_file_stops_being_checked_after_its_thousandth_error(
    load_folder: LoadFolder, document: str, message: str
) -> None:
    text = f"{document}\n---\n" * 1500 + config_map("late")
    result = load_folder({"many.yaml": text, "other.yaml": config_map("other")})
    found = [str(d) for d in result.diagnostics if d.severity is Severity.ERROR]
    assert len(found) == 1001
    assert sum(message in f for f in found) == 1000
    assert (
        "many.yaml:2001:1: error: over 1000 errors in this file: it is not checked from here on"
        in (found)
    )
    assert [t.name for t in result.objects.templates] == ["other"]
    assert len(result.documents) <= 1001
