"""The `kube` library scripts get from `require("kube")`, computed in Python.

Karmada: pkg/resourceinterpreter/customized/declarative/luavm/kube.go. Its four functions reuse
the native interpreter's rules, so a Lua customization and a built-in kind agree:
- `resourceAdd(q1, q2, ...)`: the sum of quantity strings (nil counts as zero) as a canonical
  quantity string, in the format of the first operand added to a zero sum (`Quantity.Add`).
- `getResourceQuantity(q)`: a quantity as a Lua number, computed as apimachinery's
  `AsApproximateFloat64` does (unscaled value times a power of ten), so results match to the bit.
- `accuratePodRequirements(podTemplateSpec)`: `helper.GenerateReplicaRequirements`.
- `getPodDependencies(podTemplateSpec, namespace)`: `helper.GetDependenciesFromPodTemplate`;
  nil when there are none, as Go's nil slice arrives in Lua.

The two quantity functions read their strings untrimmed, as `resource.MustParse` does: a space
fails them. Both pod template functions first convert their table as Go does, so an invalid
quantity in the template (a container's request or limit, the pod overhead, an emptyDir size
limit) fails them; there, as in any document, a quantity's surrounding spaces are trimmed.

Each function returns `(True, value)` or `(False, message)`; sandbox.lua raises the message as a
Lua error at the script's call. Table arguments arrive as JSON text (sandbox.lua `encode`), table
results leave as a constructor's source (`_inputs.constructor_source`).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from gitfleet.interpreter import _dependencies, _fields, _quantity, _requirements
from gitfleet.interpreter.lua import _convert, _gotypes, _inputs
from gitfleet.model import _codec

Result = tuple[bool, Any]

_NUMBER = re.compile(r"([+-]?)0*([0-9]*)(?:\.([0-9]*))?(.*)")
_CACHE_SIZE = 256
_MAX_INT64_DIGITS = 18
_BINARY_FAST_DIGITS = 14
"""ParseQuantity's precision limits for keeping a quantity as an int64 (quantity.go)."""


def resource_add(count: int, *operands: str | None) -> Result:
    total, fmt = 0, None
    for raw in operands[:count]:
        if raw is None:
            nanos, operand_fmt = 0, None
        else:
            try:
                quantity = _parse(raw)
            except _quantity.QuantityError as e:
                return False, f"cannot parse '{raw}': {e}"
            nanos, operand_fmt = quantity.nanos, quantity.format
        if total == 0:
            fmt = operand_fmt
        total += nanos
    if total == 0 or fmt is None:
        return True, "0"
    return True, _quantity.canonical(total, fmt)


def resource_quantity(raw: str | None) -> Result:
    if raw is None:
        return True, 0
    try:
        value = approximate_float(raw)
    except _quantity.QuantityError as e:
        return False, f"cannot parse '{raw}': {e}"
    if value < 0:
        return False, f"int approximation unexpectedly returned a negative value: {raw!r}"
    if value == float("inf"):
        return False, f"int approximation unexpectedly returned an infinite value: {raw!r}"
    return True, value


def approximate_float(text: str) -> float:
    """apimachinery `Quantity.AsApproximateFloat64` of a parsed quantity string.

    ParseQuantity keeps small decimal quantities as an int64 with a power-of-ten scale (`2048m`
    is 2048e-3) and the rest as a decimal rounded up to nano units; the float is the unscaled
    integer times `math.Pow10(scale)`, which is what this reproduces."""
    quantity = _parse(text)
    if text.strip() == "0" or quantity.nanos == 0:
        return 0.0
    found = _NUMBER.fullmatch(text.strip())
    assert found is not None  # parse() accepted it
    sign, num, denom, suffix = (
        found.group(1),
        found.group(2) or "0",
        found.group(3) or "",
        found.group(4),
    )
    scale10, exp2, fmt = _quantity._interpret(suffix, text)
    negative = sign == "-"
    if fmt is _quantity.Format.BINARY_SI:
        if not denom and len(num) + exp2 * 3 // 10 <= _BINARY_FAST_DIGITS:
            unscaled = int(num) << exp2
            if unscaled < 2**63:
                return float(-unscaled if negative else unscaled)
    elif len(num) + len(denom) <= _MAX_INT64_DIGITS and scale10 - len(denom) >= -9:
        unscaled = int(num + denom)
        if unscaled < 2**63:
            return float(-unscaled if negative else unscaled) * _pow10(scale10 - len(denom))
    return float(quantity.nanos) * _pow10(-9)


def _parse(text: str) -> _quantity.Quantity:
    """A quantity string as `resource.MustParse` reads it: untrimmed, so that a space anywhere
    fails it (only a document's quantities, read by UnmarshalJSON, are trimmed)."""
    if text != text.strip():
        raise _quantity.QuantityError(
            "quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        )
    return _quantity.parse(text)


def _pow10(n: int) -> float:
    """Go's `math.Pow10`: exact table entries combined, not a correctly rounded power."""
    if n == 0:
        return 1.0
    if 0 < n <= 308:
        return float(f"1e{n // 32 * 32}") * float(f"1e{n % 32}")
    if -323 <= n < 0:
        return float(f"1e-{-n // 32 * 32}") / float(f"1e{-n % 32}")
    return 0.0 if n < 0 else float("inf")


def pod_requirements(template: str) -> Result:
    try:
        return True, _requirements_source(template)
    except (_fields.FieldError, _convert.ConversionError) as e:
        return False, f"fail to convert lua value to PodTemplateSpec: {e}"


def pod_dependencies(template: str, namespace: str) -> Result:
    try:
        return True, _dependencies_source(template, namespace)
    except (_fields.FieldError, _convert.ConversionError) as e:
        return False, f"fail to convert lua value to corev1.PodTemplateSpec: {e}"


# Pod templates repeat (every render asks again about the same workloads), so results are kept
# by the template's JSON text.
@functools.lru_cache(maxsize=_CACHE_SIZE)
def _requirements_source(template: str) -> str | None:
    requirements = _requirements.from_pod_template(_pod_template(template), ())
    if requirements is None:
        return None
    return _inputs.constructor_source(_codec.encode(requirements))


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _dependencies_source(template: str, namespace: str) -> str | None:
    pod = _pod_template(template)
    _requirements.from_pod_template(pod, ())  # Go converts every quantity first
    spec = _fields.mapping(pod, ()).get("spec")
    found = _dependencies.pod_dependencies(spec, namespace, ("spec",))
    if not found:
        return None
    return _inputs.constructor_source([_codec.encode(d) for d in found])


def _pod_template(text: str) -> Any:
    """A Lua table (as JSON) as Karmada converts it to a PodTemplateSpec: no reference objects,
    so empty tables are dropped; every field of the Go type is checked, and keys are named as
    Go's decoding names them (`_gotypes`)."""
    return _gotypes.pod_template(_convert.decode(text, struct=True))
