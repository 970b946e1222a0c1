"""CustomResourceDefinitions of one group whose names clash: the API server stores the later
one but never establishes it (NamesAccepted False), so its custom resources are refused on
every member. `validate` warns at the later one, naming the name, the group and the first CRD.

Aspects covered: the same kind under two plurals; a list kind another CRD's kind already is; a
short name another CRD's singular already is; no warning across groups or for one CRD whose
singular equals its plural; the warning does not fail validate; as the user types it, with a
relative `--repo`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Invoke


def _crd(plural: str, kind: str, group: str = "example.com", **names: object) -> str:
    extra = "".join(f"    {key}: {value}\n" for key, value in names.items())
    return f"""\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: {plural}.{group}
spec:
  group: {group}
  scope: Namespaced
  names:
    plural: {plural}
    kind: {kind}
{extra}  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}
"""


def _warnings(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *crds: str
) -> list[str]:
    folder = tmp_path / "fleet" / "crds"
    folder.mkdir(parents=True)
    for index, text in enumerate(crds):
        (folder / f"{index}.yaml").write_text(text)
    monkeypatch.chdir(tmp_path)
    result = cli("validate", "--repo", "fleet")
    assert result.exit_code == 0, result.output
    return [line for line in result.output.splitlines() if "never establishes" in line]


@pytest.mark.parametrize(
    ("first", "second", "says"),
    [
        pytest.param(
            _crd("gadgets", "Gadget"),
            _crd("gizmos", "Gadget"),
            "the kind name 'Gadget' is already in use in group example.com by "
            "CustomResourceDefinition gadgets.example.com (fleet/crds/0.yaml:1:1)",
            id="the same kind",
        ),
        pytest.param(
            _crd("gadgets", "Gadget"),
            _crd("gadgetlists", "GadgetList"),
            "the kind name 'GadgetList' is already in use",
            id="a kind another CRD lists by",
        ),
        pytest.param(
            _crd("gadgets", "Gadget"),
            _crd("widgets", "Widget", shortNames="[gadget]"),
            "the resource name 'gadget' is already in use",
            id="a short name another CRD's singular is",
        ),
    ],
)
def test_a_clash_is_a_warning_at_the_later_crd(
    cli: Invoke,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    first: str,
    second: str,
    says: str,
) -> None:
    (warning,) = _warnings(cli, tmp_path, monkeypatch, first, second)
    assert warning.startswith("fleet/crds/1.yaml:1:1: warning: CustomResourceDefinition ")
    assert says in warning
    assert warning.endswith(
        "the API server never establishes this one, and its custom resources are refused"
    )


def test_no_clash_across_groups_or_within_one_crd(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fish = _crd("fish", "Fish", singular="fish")
    other_group = _crd("fish", "Fish", group="other.example.com")
    assert _warnings(cli, tmp_path, monkeypatch, fish, other_group) == []
