"""Fields a member's API server does not declare in a built-in kind, as its strict field
validation refuses them (kubectl's default since 1.27, so a Karmada user never gets such a
template past the karmada-apiserver): `spec.replicass`, `metadata.lables`, an `extra` key at
the top of a ConfigMap, a container's `imagePullPolicyy`. Each is reported in the API
server's words, `unknown field "spec.template.spec.containers[0].imagePullPolicyy"`, at the
key (the server's own message names no line).

The schemas are the model classes of the `kubernetes` package (`gitfleet.kubemodels`), those
of its Kubernetes release. Checked: templates of a built-in kind (`model.scope`'s tables,
matched by group and kind) at a version the package has a model for, metadata included, every
item of a list and every value of a map. Not checked: a template's `status`, which the render
drops and nothing reads (no field there can change what lands where; test fixtures and
generated objects often carry made-up ones); custom resources,
built-in kinds at a version the package does not know, and what a field typed `object`
holds (IntOrString, RawExtension, a CRD schema's `default`, `items`, `additionalProperties`).
A map field (labels, annotations, ConfigMap `data`, a CRD schema's `properties`) takes any
key; a map of models still checks each value (a property's schema).

Values of the wrong JSON type that the server refuses whatever they hold are reported too,
worded as `_fieldtypes` words them: a map or a list where the other is declared, or a scalar
where either is; a string, a boolean or a fraction for an integer; anything but a number for
a number; anything but a boolean for a boolean; a boolean, map or list for a string. Not a
number for a string: Quantity fields, typed as strings, take numbers, and the common string
fields that do not are `_kinds`' to check. Null is taken everywhere (it decodes as the zero
value). A field another check has already reported is left to that check's message.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from typing import Any

from gitfleet import kubemodels
from gitfleet.model import names, scope
from gitfleet.validation import _fieldtypes
from gitfleet.validation._fieldtypes import Keys, Problems

_BUILTIN = scope.CLUSTER_SCOPED | scope.NAMESPACED


@dataclasses.dataclass(frozen=True, slots=True)
class _Type:
    """What a field holds: `model` (the class `name`), `list` or `map` (of `item`), a scalar
    (`str`, `int`, `float`, `bool`), or `any`."""

    kind: str
    name: str = ""
    item: _Type | None = None


_ANY = _Type("any")
_SCALARS = {
    "str": _Type("str"),
    "datetime": _Type("str"),
    "date": _Type("str"),
    "bytes": _Type("str"),
    "int": _Type("int"),
    "float": _Type("float"),
    "bool": _Type("bool"),
    "object": _ANY,
}


@functools.cache
def _type(text: str) -> _Type:
    """The type a model declares with `text`; a type this does not know takes anything."""
    if text in _SCALARS:
        return _SCALARS[text]
    item = kubemodels.listed(text)
    if item is not None:
        return _Type("list", item=_type(item))
    value = kubemodels.mapped(text)
    if value is not None:
        return _Type("map", item=_type(value))
    return _Type("model", name=text) if kubemodels.model(text) is not None else _ANY


@functools.cache
def _fields(class_name: str) -> dict[str, _Type]:
    """The fields of a model class, by JSON name."""
    cls = kubemodels.model(class_name)
    assert cls is not None
    return {json_name: _type(text) for _, json_name, text in kubemodels.fields(cls)}


def _root(api_version: str, kind: str) -> _Type | None:
    """The type of a built-in kind at its version, None for other kinds and versions."""
    group = names.group_of(api_version)
    if (group, kind) not in _BUILTIN:
        return None
    return _kind_type(group, api_version.rpartition("/")[2], kind)


@functools.lru_cache(maxsize=256)
def _kind_type(group: str, version: str, kind: str) -> _Type | None:
    """Bounded: a source may name any number of versions."""
    class_name = kubemodels.kind_model(group, version, kind)
    return _Type("model", name=class_name) if class_name is not None else None


def path(keys: Keys) -> str:
    """A field path as the API server's strict decoding prints it: `spec.containers[0].name`."""
    text = ""
    for key in keys:
        text += f"[{key}]" if isinstance(key, int) else f".{key}" if text else key
    return text


class _Walk:
    """Walks a value along its type, appending the problems it finds."""

    def __init__(self, found: Problems) -> None:
        self.found = found
        self.reported = {keys for keys, _ in found}

    def value(self, keys: Keys, value: Any, typed: _Type) -> None:
        if value is None or typed is _ANY:
            return
        kind = typed.kind
        if kind == "model":
            if self.shape(keys, value, dict):
                self.model(keys, value, _fields(typed.name))
        elif kind == "list":
            if self.shape(keys, value, list):
                assert typed.item is not None
                for index, item in enumerate(value):
                    self.value((*keys, index), item, typed.item)
        elif kind == "map":
            if self.shape(keys, value, dict):
                assert typed.item is not None
                for key, item in value.items():
                    self.value((*keys, key), item, typed.item)
        elif keys not in self.reported:
            self.scalar(keys, value, kind)

    def model(self, keys: Keys, value: Mapping[str, Any], fields: dict[str, _Type]) -> None:
        for key, item in value.items():
            typed = fields.get(key)
            if typed is None:
                self.found.append(((*keys, key), f'unknown field "{path((*keys, key))}"'))
            else:
                self.value((*keys, key), item, typed)

    def shape(self, keys: Keys, value: Any, wanted: type) -> bool:
        """Whether `value` is a map (`wanted` dict) or a list; if not, a problem unless one
        is reported there already."""
        if isinstance(value, wanted):
            return True
        if keys not in self.reported:
            check = _fieldtypes.mapping if wanted is dict else _fieldtypes.items
            check(keys, value, self.found)
        return False

    def scalar(self, keys: Keys, value: Any, kind: str) -> None:
        if kind == "int":
            _fieldtypes.integer(keys, value, self.found)
        elif kind == "float":
            _fieldtypes.number(keys, value, self.found)
        elif kind == "bool":
            _fieldtypes.boolean(keys, value, self.found)
        elif isinstance(value, bool | dict | list):
            _fieldtypes.string(keys, value, self.found)


def check(body: Mapping[str, Any], found: Problems) -> None:
    """The undeclared fields and mistyped values of `body` but its `status`, if it is of a
    built-in kind (apiVersion and kind are strings: the loader saw to it)."""
    root = _root(body["apiVersion"], body["kind"])
    if root is None:
        return
    if "status" in body:
        body = {key: value for key, value in body.items() if key != "status"}
    _Walk(found).value((), body, root)
