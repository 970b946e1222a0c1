"""Karmada's third-party customization folders, read from disk, so users can point gitfleet at
Karmada's own rules (or rules written the same way) without copying them into a repository.

Layout (pkg/resourceinterpreter/default/thirdparty/resourcecustomizations, checked by Karmada's
thirdparty_test.go): `<group>/<version>/<Kind>/customizations.yaml`, one or more
ResourceInterpreterCustomizations per file, each targeting exactly `<group>/<version>` `<Kind>`,
and `testdata/<operation>-test.yaml` cases next to it (read by the tests, not here).

This is the interpreter's one reader of files: it runs when a command starts, before any
interpretation, which stays a pure function of its inputs. Symbolic links are not followed: a
`customizations.yaml` that is one is an error naming it, as in a source's
thirdPartyCustomizations folder (`gitfleet.source`), never a rule quietly left out.
"""

from __future__ import annotations

import os
from pathlib import Path

from gitfleet.errors import SchemaError, SourceError
from gitfleet.interpreter.lua import _yamlfile
from gitfleet.model import config
from gitfleet.model.origin import Origin

CUSTOMIZATIONS_FILE = "customizations.yaml"
TESTDATA = "testdata"


def load_thirdparty(
    folder: str | os.PathLike[str],
) -> list[config.ResourceInterpreterCustomization]:
    """Every customization under `folder`, sorted by name (then file); `SourceError` if the
    folder cannot be read or a customizations file is a symbolic link, `YamlError`/
    `SchemaError` for a bad file."""
    root = Path(folder)
    if not root.is_dir():
        raise SourceError(Origin(os.fspath(folder)), "no such folder")
    found = []
    for path in sorted(root.rglob(CUSTOMIZATIONS_FILE)):
        if TESTDATA in path.relative_to(root).parts:
            continue
        if path.is_symlink():
            raise SourceError(Origin(os.fspath(path)), "symbolic link is not followed")
        for customization in read_customizations(path):
            _check_folder(path, customization)
            found.append(customization)
    return sorted(found, key=lambda c: (c.metadata.name, c.origin.path))


def read_customizations(path: Path) -> list[config.ResourceInterpreterCustomization]:
    """The customizations of one YAML file."""
    out = []
    for doc, origin in _yamlfile.read(path):
        if not isinstance(doc, dict):
            raise SchemaError(origin, "expected a ResourceInterpreterCustomization object")
        out.append(config.ResourceInterpreterCustomization.from_doc(doc, origin))
    return out


def _check_folder(path: Path, customization: config.ResourceInterpreterCustomization) -> None:
    kind_dir = Path(os.path.abspath(path)).parent
    expected = f"{kind_dir.parent.parent.name}/{kind_dir.parent.name}", kind_dir.name
    target = customization.spec.target
    if (target.api_version, target.kind) != expected:
        raise SchemaError(
            customization.origin.at("spec", "target"),
            f"target {target.api_version} {target.kind} does not match its folder "
            f"{expected[0]}/{expected[1]}",
        )
