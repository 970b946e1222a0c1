"""Build step: put a copy of example-repo/ into the wheel as `gitfleet/_examplerepo`, so that
`gitfleet init` works from an installed package. Everything else is in pyproject.toml.

Editable installs skip the copy: their `gitfleet` package sits next to example-repo/, which
`gitfleet.gitstore.scaffold.example_repo()` finds there.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

EXAMPLE = Path(__file__).resolve().parent / "example-repo"


class BuildPyWithExampleRepo(build_py):
    """build_py, plus the example repository as package data."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        target = Path(self.build_lib) / "gitfleet" / "_examplerepo"
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(EXAMPLE, target)


setup(cmdclass={"build_py": BuildPyWithExampleRepo})
