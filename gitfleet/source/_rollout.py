"""gitfleet.yaml's `rollout` section: ordered waves of clusters and the control a commit sets.

Each wave's cluster selection is read as a Karmada ClusterAffinity (the model's decoder, so its
fields mean and are checked exactly as in a PropagationPolicy); the other keys are gitfleet's.
A wrong value is an error located at it and the wave keeps its default for it, so every
mistake of the section is reported at once.
"""

from __future__ import annotations

import re
from typing import Any

from gitfleet.errors import SchemaError
from gitfleet.model import _codec, diagnostic, policy, rules
from gitfleet.model import rollout as rollout_model
from gitfleet.model.origin import Origin

_KEYS = ("control", "waves")
_AFFINITY_KEYS = ("clusterNames", "labelSelector", "fieldSelector", "exclude")
_WAVE_KEYS = ("name", *_AFFINITY_KEYS, "maxUnavailable", "bake", "timeout", "onFailure")
_DURATION = re.compile(r"([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)?")
_SECONDS = {None: 1.0, "ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
_PERCENT = re.compile(r"([0-9]{1,3})%")
_NAME = rules.dns1123_label()


class _Section:
    def __init__(self, origin: Origin) -> None:
        self.origin = origin
        self.problems: list[diagnostic.Diagnostic] = []

    def error(self, keys: tuple[str | int, ...], message: str) -> None:
        where = ".".join(str(k) for k in ("rollout", *keys))
        self.problems.append(diagnostic.error(self.origin.at(*keys), f"{where}: {message}"))

    def unknown(
        self, body: dict[str, Any], known: tuple[str, ...], keys: tuple[str | int, ...]
    ) -> None:
        for key in body:
            if key not in known:
                self.error((*keys, key), f"unknown setting {key!r} (known: {', '.join(known)})")


def parse(
    body: Any, origin: Origin
) -> tuple[rollout_model.RolloutSettings | None, list[diagnostic.Diagnostic]]:
    """The settings of the `rollout` mapping (`origin`: where it is); None when absent."""
    if body is None:
        return None, []
    section = _Section(origin)
    if not isinstance(body, dict):
        section.error((), "expected a mapping with waves")
        return None, section.problems
    section.unknown(body, _KEYS, ())
    control = rollout_model.Control.RUN
    value = body.get("control", control.value)
    try:
        control = rollout_model.Control(value)
    except ValueError:
        allowed = ", ".join(c.value for c in rollout_model.Control)
        section.error(("control",), f"{value!r} is not one of {allowed}")
    waves_body = body.get("waves")
    waves: list[rollout_model.Wave] = []
    if not isinstance(waves_body, list) or not waves_body:
        section.error(("waves",), "expected a list of at least one wave")
    else:
        seen: set[str] = set()
        for index, wave in enumerate(waves_body):
            parsed = _wave(section, index, wave)
            if parsed is None:
                continue
            if parsed.name in seen:
                section.error(("waves", index, "name"), f"wave {parsed.name!r} is named twice")
            seen.add(parsed.name)
            waves.append(parsed)
    settings = rollout_model.RolloutSettings(waves=tuple(waves), control=control, origin=origin)
    return settings, section.problems


def _wave(section: _Section, index: int, body: Any) -> rollout_model.Wave | None:
    keys: tuple[str | int, ...] = ("waves", index)
    if not isinstance(body, dict):
        section.error(keys, "expected a mapping with a name and a cluster selection")
        return None
    section.unknown(body, _WAVE_KEYS, keys)
    name = body.get("name")
    problem = _NAME.problem(name) if isinstance(name, str) else "expected a name"
    if problem or not isinstance(name, str):
        section.error((*keys, "name"), problem or "expected a name")
        return None
    if name == rollout_model.REST_WAVE:
        section.error((*keys, "name"), f"{name!r} names the implicit last wave; choose another")
    origin = section.origin.at(*keys)
    affinity = policy.ClusterAffinity()
    try:
        selection = {k: v for k, v in body.items() if k in _AFFINITY_KEYS}
        affinity = _codec.decode(policy.ClusterAffinity, selection, origin)
    except SchemaError as error:
        section.problems.append(
            diagnostic.error(error.origin, f"rollout.waves.{index}.{error.message}")
        )
    default = rollout_model.Wave(name=name)
    on_failure = default.on_failure
    value = body.get("onFailure", on_failure.value)
    try:
        on_failure = rollout_model.OnFailure(value)
    except ValueError:
        section.error((*keys, "onFailure"), f"{value!r} is not halt or rollback")
    return rollout_model.Wave(
        name=name,
        affinity=affinity,
        max_unavailable=_budget(section, keys, body.get("maxUnavailable")),
        bake_seconds=_seconds(section, (*keys, "bake"), body.get("bake"), default.bake_seconds),
        timeout_seconds=_seconds(
            section, (*keys, "timeout"), body.get("timeout"), default.timeout_seconds
        ),
        on_failure=on_failure,
        origin=origin,
    )


def _budget(section: _Section, keys: tuple[str | int, ...], value: Any) -> rollout_model.Budget:
    if value is None:
        return rollout_model.Budget()
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return rollout_model.Budget(count=value)
    match = _PERCENT.fullmatch(value) if isinstance(value, str) else None
    if match and 1 <= int(match[1]) <= 100:
        return rollout_model.Budget(percent=int(match[1]))
    section.error(
        (*keys, "maxUnavailable"), f"{value!r}: expected a number >= 1 or a percent (1% to 100%)"
    )
    return rollout_model.Budget()


def _seconds(section: _Section, keys: tuple[str | int, ...], value: Any, default: float) -> float:
    """Seconds from `30`, `0.5s`, `250ms`, `5m` or `1h`; `default` when absent or wrong."""
    if value is None:
        return default
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
        return float(value)
    match = _DURATION.fullmatch(value) if isinstance(value, str) else None
    if match:
        return float(match[1]) * _SECONDS[match[2]]
    section.error(keys, f"{value!r}: expected a duration such as 30s, 500ms, 5m or 1h")
    return default
