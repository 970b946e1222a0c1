"""kubectl's `-l` label selector text (`a=b,c!=d,e in (x,y),f notin (z),g,!h,n>1`), read as
apimachinery's `labels.Parse` reads it, into a `meta.LabelSelector`, so that one matcher
(`selectors.label_selector_matches`) serves both the selectors written in YAML and the ones
typed on a command line.

`=` and `==` become In with one value, `!=` NotIn with one value, a bare key Exists, `!key`
DoesNotExist, `>` and `<` Gt and Lt. Keys and values are checked against Kubernetes' label
syntax; text that does not parse is a `ValueError` naming what was expected where. `text`
goes the other way, for a workload's selector as written in YAML: the query an API server's
`labelSelector` parameter takes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from gitfleet.model import meta

_KEY = r"(?:[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?"
_VALUE = r"(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?)?"
_REQUIREMENT = re.compile(
    rf"""\s*(?:
        !\s*(?P<absent>{_KEY})
      | (?P<key>{_KEY})\s*(?:
            (?P<op>==|!=|=|>|<)\s*(?P<value>{_VALUE})
          | (?P<set>in|notin)\s*\(\s*(?P<values>{_VALUE}(?:\s*,\s*{_VALUE})*)\s*\)
        )?
    )\s*(?:,|$)""",
    re.VERBOSE,
)
_OPERATORS = {"=": "In", "==": "In", "!=": "NotIn", ">": "Gt", "<": "Lt"}


def parse(text: str) -> meta.LabelSelector:
    """The selector `text` stands for; the empty text selects everything."""
    requirements: list[meta.LabelSelectorRequirement] = []
    at = 0
    text = text.strip()
    while at < len(text):
        found = _REQUIREMENT.match(text, at)
        if found is None or found.end() == at:
            raise ValueError(f"unable to parse requirement at {text[at:]!r}")
        requirements.append(_requirement(found))
        at = found.end()
        if text[at - 1 : at] == "," and at == len(text):
            raise ValueError("a requirement is missing after the last ','")
    return meta.LabelSelector(match_expressions=tuple(requirements))


def _requirement(found: re.Match[str]) -> meta.LabelSelectorRequirement:
    if found.group("absent"):
        return meta.LabelSelectorRequirement(key=found.group("absent"), operator="DoesNotExist")
    key, op = found.group("key"), found.group("op")
    if op is not None:
        value = found.group("value")
        if op in (">", "<") and not re.fullmatch(r"[0-9]+", value):
            raise ValueError(f"{key}{op}{value}: {op} needs an integer")
        return meta.LabelSelectorRequirement(key=key, operator=_OPERATORS[op], values=(value,))
    if found.group("set"):
        values = tuple(v.strip() for v in found.group("values").split(","))
        if values == ("",):
            raise ValueError(f"{key} {found.group('set')} (): the set of values is empty")
        operator = "In" if found.group("set") == "in" else "NotIn"
        return meta.LabelSelectorRequirement(key=key, operator=operator, values=values)
    return meta.LabelSelectorRequirement(key=key, operator="Exists")


def text(selector: Mapping[str, Any]) -> str:
    """A selector's `matchLabels` (sorted) and `matchExpressions` as label selector text; ""
    for the empty selector (everything)."""
    labels = selector.get("matchLabels") or {}
    parts = [f"{k}={v}" for k, v in sorted(labels.items())]
    for expression in selector.get("matchExpressions") or []:
        key, operator = expression.get("key", ""), expression.get("operator", "")
        values = ",".join(expression.get("values") or [])
        spelled = {
            "In": f"{key} in ({values})",
            "NotIn": f"{key} notin ({values})",
            "DoesNotExist": f"!{key}",
        }
        parts.append(spelled.get(operator, key))
    return ",".join(parts)
