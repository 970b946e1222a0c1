"""The model classes of the `kubernetes` Python package, read as data: which class models a
built-in kind, and the fields each class declares, by JSON name, with their types.

Each model names its fields' JSON names (`attribute_map`) and types (`openapi_types`),
generated from the OpenAPI document a real API server publishes. A type is a primitive
(`str`, `int`, `float`, `bool`, `datetime`, `date`, `bytes`), `object` for a value the schema
leaves free (an IntOrString, a Quantity-or-number, a RawExtension, a CRD schema's `default`),
a list or a map of a type, or another model's class name. Two generations of the package
are read alike: pydantic models (`List[V1Container]`, `Dict[str, str]`) and the older
classes (`list[V1Container]`, `dict(str, str)`).

The models are those of the installed package's Kubernetes release. Only the package's data
is read, never its API client: the models' module is imported on first use, through
importlib. The pydantic generation loads a model's module when the class is first asked for
(with the models it refers to), so reading a Deployment loads the models a Deployment
reaches, not all of them. Where a model is missing (or the package is absent), a kind has
none here, and its readers check nothing.

This module imports nothing of gitfleet: the validation stage (strict fields of templates)
and the simulated member cluster (its OpenAPI schemas), which stands alone, both read the
models through it.
"""

from __future__ import annotations

import functools
import importlib
import re
from typing import Any

_LIST = re.compile(r"^[Ll]ist\[(.+)\]$")
_MAP = re.compile(r"^(?:Dict\[str, (.+)\]|dict\(str, (.+)\))$")


@functools.cache
def _models() -> Any:
    try:
        return importlib.import_module("kubernetes.client.models")
    except ImportError:
        return None


def model(class_name: str) -> type | None:
    """The model class named `class_name` (`V1Deployment`), or None."""
    models = _models()
    found = getattr(models, class_name, None) if models is not None else None
    return found if isinstance(found, type) and hasattr(found, "openapi_types") else None


def kind_model(group: str, version: str, kind: str) -> str | None:
    """The name of the model class of a built-in kind (`V1Deployment`; `CoreV1Event` where two
    groups share the kind's name), or None if the package has none. The package names most
    kinds by version alone: the caller makes sure (group, kind) is a built-in kind."""
    prefix = (group.split(".")[0] or "core").capitalize()
    for name in (f"{prefix}{version.capitalize()}{kind}", f"{version.capitalize()}{kind}"):
        if model(name) is not None:
            return name
    return None


def fields(cls: type) -> tuple[tuple[str, str, str], ...]:
    """(attribute, JSON name, type) of every field a model class declares, in its order."""
    types: dict[str, str] = dict(getattr(cls, "openapi_types", {}))
    json_names: dict[str, str] = dict(getattr(cls, "attribute_map", {}))
    return tuple(
        (attribute, json_names.get(attribute, attribute), type_text.strip())
        for attribute, type_text in types.items()
    )


def listed(type_text: str) -> str | None:
    """The item type of a list type (`List[V1Container]` -> `V1Container`), else None."""
    found = _LIST.match(type_text)
    return found.group(1) if found else None


def mapped(type_text: str) -> str | None:
    """The value type of a map type (`Dict[str, str]` -> `str`), else None."""
    found = _MAP.match(type_text)
    return (found.group(1) or found.group(2)) if found else None
