"""Render fixtures: `render_docs` renders documents as one source revision through
`pipeline.render` (validation, placement, overrides and the render stage, all real). The
builders in `render_builders` import by name in pytest's importlib mode too."""

from __future__ import annotations

import itertools
import os
import sys

import pytest

HERE = os.path.dirname(__file__)
if HERE not in sys.path:
    sys.path.append(HERE)  # last: `conftest` must still name tests/conftest.py

from render_builders import Doc, Render, source_of  # noqa: E402

from gitfleet import pipeline  # noqa: E402


@pytest.fixture(name="render_docs")
def render_docs_fixture() -> Render:
    """Render documents as a source revision: `render_docs(docs, previous=None, full=False)`;
    each call is another source commit."""
    commits = itertools.count(1)

    def run(
        docs: list[Doc],
        previous: pipeline.PreviousRender | None = None,
        full: bool = False,
    ) -> pipeline.RenderResult:
        revision = f"{next(commits):040x}"
        result = pipeline.render(source_of(docs, revision), previous, None, full=full)
        assert result.ok, [str(d) for d in result.diagnostics]
        return result

    return run
