"""How specifically a resource selector matches a template, with the conversion step Karmada
takes first (pkg/util/selector.go ResourceSelectorPriority).

Karmada turns a resource selector's labelSelector into a Kubernetes selector with
`metav1.LabelSelectorAsSelector`, which refuses a label key that is not a qualified name, a
value that is not a label value, an operator other than In, NotIn, Exists and DoesNotExist,
In or NotIn without values and Exists or DoesNotExist with some; a refused selector matches
nothing. The matcher shared with the other stages (`model.selectors`) only refuses the wrong
number of values, so the detector checks the rest here before asking it. A selector with a
name never looks at its labelSelector, and an empty labelSelector converts to one matching
everything, unchecked. `validate` reports such a selector as an error.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gitfleet.model import meta, policy, selectors
from gitfleet.model.template import ResourceTemplate

_LABEL_NAME = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?")
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_NAME_MAX = 63
_PREFIX_MAX = 253
_VALUED = frozenset({"In", "NotIn"})
_UNVALUED = frozenset({"Exists", "DoesNotExist"})


def _key_converts(key: str) -> bool:
    """apimachinery's IsLabelKey: `[prefix/]name`, the prefix a DNS-1123 subdomain."""
    prefix, slash, name = key.rpartition("/")
    if slash and (
        "/" in prefix or len(prefix) > _PREFIX_MAX or not _DNS_SUBDOMAIN.fullmatch(prefix)
    ):
        return False
    return len(name) <= _NAME_MAX and _LABEL_NAME.fullmatch(name) is not None


def _value_converts(value: str) -> bool:
    return value == "" or (len(value) <= _NAME_MAX and _LABEL_NAME.fullmatch(value) is not None)


def _expression_converts(expression: meta.LabelSelectorRequirement) -> bool:
    if expression.operator in _VALUED:
        counted = bool(expression.values)
    elif expression.operator in _UNVALUED:
        counted = not expression.values
    else:
        return False
    return (
        counted
        and _key_converts(expression.key)
        and all(_value_converts(v) for v in expression.values)
    )


def converts(selector: meta.LabelSelector) -> bool:
    """Whether `metav1.LabelSelectorAsSelector` accepts the label selector."""
    match_labels = selector.match_labels or {}
    return all(_key_converts(k) and _value_converts(v) for k, v in match_labels.items()) and all(
        _expression_converts(e) for e in selector.match_expressions
    )


def selector_priority(
    template: ResourceTemplate, selector: policy.ResourceSelector
) -> selectors.ImplicitPriority:
    """Karmada's ResourceSelectorPriority: a labelSelector it cannot convert is a mismatch."""
    given = selector.label_selector
    if not selector.name and given is not None and not converts(given):
        return selectors.ImplicitPriority.MISMATCH
    return selectors.resource_selector_priority(template, selector)


def selectors_priority(
    template: ResourceTemplate, given: Sequence[policy.ResourceSelector]
) -> selectors.ImplicitPriority:
    """The highest priority over a policy's selectors (ResourceMatchSelectorsPriority)."""
    return max(
        (selector_priority(template, s) for s in given),
        default=selectors.ImplicitPriority.MISMATCH,
    )
