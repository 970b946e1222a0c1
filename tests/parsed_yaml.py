"""A source file's documents and problems as two lists, for tests that look at a whole file
(the loader itself reads them one at a time, in file order: `gitfleet.source._yaml.parse`)."""

from __future__ import annotations

from gitfleet.source import _yaml


def parse_all(data: bytes) -> tuple[list[_yaml.Parsed], list[_yaml.Problem]]:
    """(every document, empty ones as None; every problem) of `data`."""
    documents: list[_yaml.Parsed] = []
    problems: list[_yaml.Problem] = []
    for item in _yaml.parse(data):
        if isinstance(item, _yaml.Parsed):
            documents.append(item)
        else:
            problems.append(item)
    return documents, problems
