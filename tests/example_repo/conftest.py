"""The example repository's documents, read with plain YAML (independent of the loader that
other tests check), grouped by kind."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
import yaml

SETTINGS = "gitfleet.yaml"


@dataclasses.dataclass(frozen=True)
class Doc:
    """One document and the file it came from."""

    path: str
    body: dict[str, Any]

    @property
    def kind(self) -> str:
        return str(self.body.get("kind", ""))

    @property
    def api_version(self) -> str:
        return str(self.body.get("apiVersion", ""))

    @property
    def name(self) -> str:
        return str(self.body.get("metadata", {}).get("name", ""))

    @property
    def spec(self) -> dict[str, Any]:
        return dict(self.body.get("spec") or {})


def load_yaml(path: Path) -> list[dict[str, Any]]:
    """Every document of one file."""
    with path.open(encoding="utf-8") as stream:
        return [doc for doc in yaml.safe_load_all(stream) if doc is not None]


@pytest.fixture(name="example", scope="session")
def example_fixture() -> Path:
    return Path(__file__).resolve().parents[2] / "example-repo"


@pytest.fixture(name="yaml_files", scope="session")
def yaml_files_fixture(example: Path) -> list[Path]:
    return sorted(p for p in example.rglob("*") if p.suffix in {".yaml", ".yml"})


@pytest.fixture(name="docs", scope="session")
def docs_fixture(example: Path, yaml_files: list[Path]) -> list[Doc]:
    """Every document except the settings file's."""
    return [
        Doc(path.relative_to(example).as_posix(), body)
        for path in yaml_files
        if path.name != SETTINGS or path.parent != example
        for body in load_yaml(path)
    ]


@pytest.fixture(name="by_kind", scope="session")
def by_kind_fixture(docs: list[Doc]) -> dict[str, list[Doc]]:
    grouped: dict[str, list[Doc]] = {}
    for doc in docs:
        grouped.setdefault(doc.kind, []).append(doc)
    return grouped
