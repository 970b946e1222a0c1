"""Templates of a kind Karmada interprets with a customization it bundles (a Kruise CloneSet,
say) are warned about when the source gives gitfleet no customization for that kind: Karmada
would divide a CloneSet's replicas, gitfleet would send all of them to every cluster.

Aspects covered: one warning per kind, at its first template, counting the others; none when
the repository's own customization or one in `thirdPartyCustomizations` targets the kind; the
warning does not fail validate; as the user types it, with a relative `--repo`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import Result
from conftest import Invoke

from gitfleet.validation import _bundled

CLONESETS = """\
apiVersion: apps.kruise.io/v1alpha1
kind: CloneSet
metadata: {name: web, namespace: shop}
spec: {replicas: 6}
---
apiVersion: apps.kruise.io/v1alpha1
kind: CloneSet
metadata: {name: api, namespace: shop}
spec: {replicas: 2}
"""
RAY = """\
apiVersion: ray.io/v1
kind: RayJob
metadata: {name: train, namespace: shop}
"""
CUSTOMIZATION = """\
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata: {name: clonesets}
spec:
  target: {apiVersion: apps.kruise.io/v1alpha1, kind: CloneSet}
  customizations:
    replicaResource:
      luaScript: |
        function GetReplicas(obj)
          return obj.spec.replicas, {}
        end
"""


def _validate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Invoke, files: dict[str, str]
) -> Result:
    """`gitfleet validate --repo fleet`, typed next to the source folder `fleet`."""
    for rel, text in files.items():
        (tmp_path / "fleet" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "fleet" / rel).write_text(text)
    monkeypatch.chdir(tmp_path)
    return cli("validate", "--repo", "fleet")


def _bundled_warnings(output: str) -> list[str]:
    return [line for line in output.splitlines() if "customization it bundles" in line]


def test_one_warning_per_kind_at_its_first_template(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {"apps/clonesets.yaml": CLONESETS, "apps/ray.yaml": RAY}
    result = _validate(tmp_path, monkeypatch, cli, files)
    assert result.exit_code == 0, result.output
    warnings = _bundled_warnings(result.output)
    assert len(warnings) == 2, result.output
    assert warnings[0].startswith(
        "fleet/apps/clonesets.yaml:1:1: warning: CloneSet web (and 1 more of this kind): "
        "Karmada interprets apps.kruise.io/v1alpha1 CloneSet"
    )
    assert warnings[1].startswith("fleet/apps/ray.yaml:1:1: warning: RayJob train: ")


@pytest.mark.parametrize(
    "files",
    [
        pytest.param({"interpreter/clonesets.yaml": CUSTOMIZATION}, id="the repository's own"),
        pytest.param(
            {
                "gitfleet.yaml": "thirdPartyCustomizations: vendor\n",
                "vendor/apps.kruise.io/v1alpha1/CloneSet/customizations.yaml": CUSTOMIZATION,
            },
            id="third-party folder",
        ),
    ],
)
def test_no_warning_when_a_customization_targets_the_kind(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]
) -> None:
    result = _validate(tmp_path, monkeypatch, cli, {"apps/clonesets.yaml": CLONESETS, **files})
    assert result.exit_code == 0, result.output
    assert _bundled_warnings(result.output) == []


def test_the_table_names_kinds_as_karmada_lays_them_out() -> None:
    """Each entry is a group/version and a kind, as Karmada's folder of bundled
    customizations spells them (`<group>/<version>/<Kind>`)."""
    for api_version, kind in _bundled.KARMADA_BUNDLED:
        group, _, version = api_version.partition("/")
        assert "." in group and version.startswith("v") and kind[:1].isupper()
