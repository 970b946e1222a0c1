"""Label and field selectors, parsed as the API server parses `?labelSelector=` and
`?fieldSelector=` (apimachinery `labels.Parse` and `fields.ParseSelector`).

Label requirements: `k`, `!k`, `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k>n`,
`k<n`. Field requirements: `f=v`, `f==v`, `f!=v` on `metadata.name`, `metadata.namespace` and
the few fields each built-in kind indexes (pods by `spec.nodeName` and `status.phase`, ...);
other fields are refused with 400, as a real server does.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from typing import Any

from gitfleet.sim import _errors, _json

Matcher = Callable[[_json.Obj], bool]

_FIELDS_BY_KIND: Mapping[tuple[str, str], frozenset[str]] = {
    ("", "pods"): frozenset(
        {
            "spec.nodeName",
            "spec.restartPolicy",
            "spec.schedulerName",
            "spec.serviceAccountName",
            "spec.hostNetwork",
            "status.phase",
            "status.podIP",
            "status.nominatedNodeName",
        }
    ),
    ("", "events"): frozenset(
        {
            "involvedObject.kind",
            "involvedObject.namespace",
            "involvedObject.name",
            "involvedObject.uid",
            "involvedObject.apiVersion",
            "involvedObject.resourceVersion",
            "involvedObject.fieldPath",
            "reason",
            "reportingComponent",
            "source",
            "type",
        }
    ),
    ("", "secrets"): frozenset({"type"}),
    ("", "namespaces"): frozenset({"status.phase"}),
    ("", "nodes"): frozenset({"spec.unschedulable"}),
    ("", "services"): frozenset({"spec.clusterIP", "spec.type"}),
    ("apps", "replicasets"): frozenset({"status.replicas"}),
    ("batch", "jobs"): frozenset({"status.successful"}),
}
_META_FIELDS = frozenset({"metadata.name", "metadata.namespace"})


@dataclasses.dataclass(frozen=True, slots=True)
class _Requirement:
    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, Any]) -> bool:
        present = self.key in labels
        value = str(labels.get(self.key, ""))
        if self.operator == "exists":
            return present
        if self.operator == "!":
            return not present
        if self.operator in ("=", "=="):
            return present and value == self.values[0]
        if self.operator == "!=":
            return not present or value != self.values[0]
        if self.operator == "in":
            return present and value in self.values
        if self.operator == "notin":
            return not present or value not in self.values
        try:
            number, bound = int(value), int(self.values[0])
        except ValueError:
            return False
        return present and (number > bound if self.operator == ">" else number < bound)


_TOKEN = re.compile(
    r"\s*(?P<neg>!)?\s*(?P<key>[A-Za-z0-9_./-]+)\s*"
    r"(?:(?P<op>==|!=|=|>|<|\bnotin\b|\bin\b)\s*)?"
)
_SET = re.compile(r"\(\s*(?P<items>[^)]*)\)\s*")
_VALUE = re.compile(r"(?P<value>[A-Za-z0-9_.-]*)\s*")


def _parse_requirement(text: str, at: int) -> tuple[_Requirement, int]:
    match = _TOKEN.match(text, at)
    if match is None or not match.group("key"):
        raise _errors.bad_request(f"unable to parse requirement: {text[at:]!r}")
    key, op, end = match.group("key"), match.group("op"), match.end()
    if match.group("neg"):
        if op:
            raise _errors.bad_request(f"unable to parse requirement: {text[at:]!r}")
        return _Requirement(key, "!"), end
    if op is None:
        return _Requirement(key, "exists"), end
    if op in ("in", "notin"):
        found = _SET.match(text, end)
        if found is None:
            raise _errors.bad_request(
                f"unable to parse requirement: found {text[end:].strip()!r} expected: '('"
            )
        items = tuple(item.strip() for item in found.group("items").split(",") if item.strip())
        return _Requirement(key, op, items), found.end()
    value = _VALUE.match(text, end)
    assert value is not None  # the pattern matches the empty string
    return _Requirement(key, op, (value.group("value"),)), value.end()


def parse_labels(text: str) -> Matcher:
    """A predicate over objects for a label selector; 400 BadRequest if it does not parse."""
    requirements: list[_Requirement] = []
    at = 0
    text = text.strip()
    while at < len(text):
        requirement, at = _parse_requirement(text, at)
        requirements.append(requirement)
        if at < len(text):
            if text[at] != ",":
                raise _errors.bad_request(f"unable to parse requirement: {text[at:]!r}")
            at += 1

    def matches(obj: _json.Obj) -> bool:
        labels = _json.dig(obj, "metadata", "labels") or {}
        return all(requirement.matches(labels) for requirement in requirements)

    return matches


def field_value(obj: _json.Obj, field: str) -> str:
    """A field's value as field selectors compare it: text, `true`/`false`, or empty."""
    value = _json.dig(obj, *field.split("."))
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


_CONVERTED = frozenset(
    {("", "pods"), ("", "events"), ("", "secrets"), ("", "namespaces"), ("", "nodes")}
)
"""Kinds whose field selectors go through a conversion of their own, which words a field it
does not know as `field label not supported`."""


def _unsupported_field(group: str, plural: str, field: str) -> str:
    """What the API server says of a field selector on a field it does not index: each
    kind's own conversion words it its way; kinds without one, and custom resources, get
    apimachinery's default (observed on kube-apiserver 1.20)."""
    if (group, plural) in _CONVERTED:
        return f"field label not supported: {field}"
    if (group, plural) == ("batch", "jobs"):
        return f'field label "{field}" not supported for batchv1.Job'
    return f'"{field}" is not a known field selector: only "metadata.name", "metadata.namespace"'


def parse_fields(text: str, group: str, plural: str) -> Matcher:
    """A predicate for a field selector on one resource; 400 for a field it does not index."""
    allowed = _META_FIELDS | _FIELDS_BY_KIND.get((group, plural), frozenset())
    terms: list[tuple[str, bool, str]] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        match = re.fullmatch(r"([A-Za-z0-9_.]+)\s*(==|!=|=)\s*(.*)", part)
        if match is None:
            raise _errors.bad_request(f"invalid selector: {part!r}; can't understand {part!r}")
        field, op, value = match.groups()
        if field not in allowed:
            raise _errors.bad_request(_unsupported_field(group, plural, field))
        terms.append((field, op != "!=", value))

    def matches(obj: _json.Obj) -> bool:
        return all((field_value(obj, field) == value) == equal for field, equal, value in terms)

    return matches


def selector_matches(selector: _json.Obj | None, labels: Mapping[str, Any]) -> bool:
    """Whether `labels` satisfy a `LabelSelector` object (matchLabels and matchExpressions
    with In, NotIn, Exists, DoesNotExist). An empty selector matches everything."""
    selector = selector or {}
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expression in selector.get("matchExpressions") or []:
        key, operator = expression.get("key", ""), expression.get("operator", "")
        values = expression.get("values") or []
        present = key in labels
        if operator == "In" and not (present and labels[key] in values):
            return False
        if operator == "NotIn" and present and labels[key] in values:
            return False
        if operator == "Exists" and not present:
            return False
        if operator == "DoesNotExist" and present:
            return False
    return True


def format_selector(selector: _json.Obj | None) -> str:
    """A `LabelSelector` object in the text form of `?labelSelector=` (apimachinery's
    `FormatLabelSelector`): one requirement per key, sorted by key, values sorted."""
    selector = selector or {}
    terms: list[tuple[str, str]] = [
        (key, f"{key}={value}") for key, value in (selector.get("matchLabels") or {}).items()
    ]
    for expression in selector.get("matchExpressions") or []:
        key, operator = str(expression.get("key", "")), expression.get("operator", "")
        values = ",".join(sorted(str(v) for v in expression.get("values") or []))
        text = {
            "In": f"{key} in ({values})",
            "NotIn": f"{key} notin ({values})",
            "Exists": key,
            "DoesNotExist": f"!{key}",
        }.get(operator)
        if text is not None:
            terms.append((key, text))
    return ",".join(text for _, text in sorted(terms))
