"""commandOverrider and argsOverrider: add to or remove from a container's command or args
(Karmada: pkg/util/overridemanager/commandargsoverride.go).

For each container (see `_podspec`) whose name equals `containerName`: when the list is
absent, an `add` operation creates it with the values (`add`) or empty (`remove`); when
present, a `replace` sets it to the old list plus the values (`add`), or without every element
equal to one of the values (`remove`). The model allows no other operator here.
"""

from __future__ import annotations

from typing import Any

from gitfleet.model import policy
from gitfleet.overrides import _patch, _podspec


def _edit(current: list[str], overrider: policy.CommandArgsOverrider) -> list[str]:
    if overrider.operator is policy.OverriderOperator.ADD:
        return [*current, *overrider.value]
    dropped = set(overrider.value)
    return [item for item in current if item not in dropped]


def ops(
    manifest: dict[str, Any], overrider: policy.CommandArgsOverrider, target: str
) -> list[_patch.Op]:
    """The patch one command (`target="command"`) or args overrider makes on `manifest`."""
    pointer, containers = _podspec.containers(manifest)
    result = []
    for index, container in enumerate(containers):
        if container.get("name") != overrider.container_name:
            continue
        path = f"{pointer}/{index}/{target}"
        current = container.get(target)
        if current is None:
            result.append(_patch.Op("add", path, _edit([], overrider)))
            continue
        if not isinstance(current, list) or not all(isinstance(v, str) for v in current):
            raise _patch.Failure((), f"{path} is not a list of strings")
        result.append(_patch.Op("replace", path, _edit(current, overrider)))
    return result
