"""Karmada-format third-party customization folders (`load_thirdparty`), and Karmada's own
third-party customizations with their test data.

Aspects covered:
- customizations are found at `<group>/<version>/<Kind>/customizations.yaml` at any depth,
  sorted by name; test data is not read; a file may hold several; a customizations file that
  is a symbolic link is an error naming it (never followed);
- a target that does not match its folder, a missing folder and bad YAML are located errors;
- with GITFLEET_KARMADA_THIRDPARTY naming Karmada's `resourcecustomizations` folder (or a
  folder above it), every test document there gives the output Karmada's tests expect
  (skipped otherwise: Karmada's scripts and data are not part of this project).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gitfleet.errors import SchemaError, SourceError, YamlError
from gitfleet.interpreter import lua
from tests.interpreter.lua import karmada_cases
from tests.interpreter.lua.conftest import customization_yaml

HEALTH = "function InterpretHealth(o) return true end"


def _write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_layout_is_read(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "rules/apps.example.io/v1/Pool/customizations.yaml",
        customization_yaml(("apps.example.io/v1", "Pool"), "zeta", healthInterpretation=HEALTH)
        + "---\n"
        + customization_yaml(("apps.example.io/v1", "Pool"), "alpha", healthInterpretation=HEALTH),
    )
    _write(
        tmp_path,
        "rules/apps.example.io/v1/Pool/testdata/customizations.yaml",
        "not: [a customization",
    )
    _write(
        tmp_path,
        "rules/batch.example.io/v2/Run/customizations.yaml",
        customization_yaml(("batch.example.io/v2", "Run"), "mid", healthInterpretation=HEALTH),
    )
    found = lua.load_thirdparty(tmp_path)
    assert [c.metadata.name for c in found] == ["alpha", "mid", "zeta"]
    assert found[0].origin.path.endswith("apps.example.io/v1/Pool/customizations.yaml")


def test_a_customizations_file_that_is_a_link_is_an_error(tmp_path: Path) -> None:
    real = _write(
        tmp_path,
        "rules/batch.example.io/v2/Run/customizations.yaml",
        customization_yaml(("batch.example.io/v2", "Run"), "mid", healthInterpretation=HEALTH),
    )
    link = tmp_path / "rules/link.example.io/v1/Link/customizations.yaml"
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    with pytest.raises(SourceError) as caught:
        lua.load_thirdparty(tmp_path / "rules")
    assert str(caught.value) == f"{link}: symbolic link is not followed"


def test_target_must_match_its_folder(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "apps.example.io/v1/Pool/customizations.yaml",
        customization_yaml(("apps.example.io/v2", "Pool"), healthInterpretation=HEALTH),
    )
    with pytest.raises(SchemaError) as caught:
        lua.load_thirdparty(tmp_path)
    assert "does not match its folder apps.example.io/v1/Pool" in str(caught.value)
    assert caught.value.origin.line == 6


def test_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no such folder"):
        lua.load_thirdparty(tmp_path / "absent")


def test_bad_yaml_is_located(tmp_path: Path) -> None:
    _write(tmp_path, "a.io/v1/K/customizations.yaml", "apiVersion: x\nkind: [\n")
    with pytest.raises(YamlError) as caught:
        lua.load_thirdparty(tmp_path)
    assert caught.value.origin.line == 3


KARMADA = os.environ.get("GITFLEET_KARMADA_THIRDPARTY")
KARMADA_CASES = karmada_cases.cases(Path(KARMADA)) if KARMADA else []


@pytest.mark.skipif(not KARMADA, reason="GITFLEET_KARMADA_THIRDPARTY is not set")
@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in KARMADA_CASES])
def test_karmada_thirdparty_case(case: karmada_cases.Case, sandbox: lua.Sandbox) -> None:
    produced = karmada_cases.run(case, sandbox)
    assert karmada_cases.mismatches(case, produced) == []


@pytest.mark.skipif(not KARMADA, reason="GITFLEET_KARMADA_THIRDPARTY is not set")
def test_karmada_thirdparty_scripts_check_clean(sandbox: lua.Sandbox) -> None:
    assert KARMADA is not None
    customizations = lua.load_thirdparty(KARMADA)
    assert len(customizations) >= 27
    errors = [d for c in customizations for d in lua.check(c, sandbox) if d.severity == "error"]
    assert errors == []
