"""gitfleet.yaml: the source's settings (see `model.loaded.SourceConfig` for their meaning).

A wrong setting is an error located at it and falls back to its default, so one typo does not
hide the rest of the report; unknown keys are errors too (a misspelt `exclude` must not pass
silently). Paths and patterns can never point outside the source.
"""

from __future__ import annotations

import re
from typing import Any

from gitfleet.gitstore import branchnames
from gitfleet.model import diagnostic, loaded, policy, rules, scope
from gitfleet.model.origin import Origin
from gitfleet.source import _globs, _rollout

_SIZE = re.compile(r"([0-9]{1,18})(Ki|Mi|Gi)?")
_UNITS = {None: 1, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30}
_DURATION = re.compile(r"([0-9]{1,18})(s|m|h)?")
"""Sizes and durations of at most 18 digits: anything longer is past every limit anyway (and
Python refuses to convert more than 4300 digits)."""
_SECONDS = {None: 1, "s": 1, "m": 60, "h": 3600}
_MAX_DURATION = (2**63 - 1) // 10**9
"""The longest duration Go's time.Duration (int64 nanoseconds) holds, in whole seconds."""
_FAILOVER_KEYS = (
    "enabled",
    "heartbeatGracePeriod",
    "clusterFailureThreshold",
    "defaultTolerationSeconds",
    "purgeMode",
    "gracefulEvictionTimeout",
    "allowNoExecuteTaintPolicy",
)
_DESCHEDULER_KEYS = ("enabled", "deschedulingInterval", "unschedulableThreshold")
_AUTOSCALING_KEYS = (
    "syncPeriod",
    "tolerance",
    "downscaleStabilization",
    "cpuInitializationPeriod",
    "initialReadinessDelay",
)
_NAMESPACE = rules.dns1123_label()


class _Reader:
    def __init__(self, body: dict[str, Any], origin: Origin, prefix: str = "") -> None:
        self.body = body
        self.origin = origin
        self.prefix = prefix
        """Names the section in messages (`failover.`)."""
        self.problems: list[diagnostic.Diagnostic] = []

    def error(self, key: str | tuple[str | int, ...], message: str) -> None:
        keys = key if isinstance(key, tuple) else (key,)
        self.problems.append(diagnostic.error(self.origin.at(*keys), message))

    def patterns(self, key: str) -> tuple[str, ...]:
        value = self.body.get(key)
        if value is None:
            return ()
        if not isinstance(value, list):
            self.error(key, f"{key}: expected a list of patterns")
            return ()
        kept = []
        for index, pattern in enumerate(value):
            problem = _globs.problem(pattern) if isinstance(pattern, str) else "expected a string"
            if problem:
                self.error((key, index), f"{key}[{index}]: {problem}")
            else:
                kept.append(pattern)
        return tuple(kept)

    def branch(self, key: str) -> str | None:
        value = self.body.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            self.error(key, f"{key}: {value!r} is not a valid branch name")
            return None
        found = branchnames.problem(value)
        if found is not None:
            self.error(key, f"{key}: {found}")
            return None
        return value

    def size(self, key: str) -> int | None:
        value = self.body.get(key)
        if value is None:
            return None
        match = _SIZE.fullmatch(value) if isinstance(value, str) else None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
        if match and int(match[1]) > 0:
            return int(match[1]) * _UNITS[match[2]]
        self.error(key, f"{key}: expected a positive number of bytes (e.g. 1048576 or 5Mi)")
        return None

    def duration(self, key: str, default: int) -> int:
        """Seconds from `40`, `40s`, `5m` or `1h`, at most what Karmada's durations hold;
        `default` when absent or wrong."""
        value = self.body.get(key)
        if value is None:
            return default
        match = _DURATION.fullmatch(value) if isinstance(value, str) else None
        if _whole(value):
            seconds = int(value)
        elif match:
            seconds = int(match[1]) * _SECONDS[match[2]]
        else:
            self.error(key, f"{self.prefix}{key}: expected a duration such as 40s, 5m or 1h")
            return default
        if seconds > _MAX_DURATION:
            message = f"{self.prefix}{key}: at most {_MAX_DURATION}s (292 years, a Go duration)"
            self.error(key, message)
            return default
        return seconds

    def namespace(self, key: str) -> str | None:
        value = self.body.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            self.error(key, f"{key}: expected a string")
            return None
        problem = _NAMESPACE.problem(value)
        if problem:
            self.error(key, f"{key}: {problem}")
            return None
        return value

    def folder(self, key: str) -> str | None:
        value = self.body.get(key)
        if value is None:
            return None
        if not isinstance(value, str) or _globs.problem(value):
            self.error(key, f"{key}: expected a folder inside the source, got {value!r}")
            return None
        return value.strip("/")


_KEYS = (
    "autoscaling",
    "failover",
    "descheduler",
    "include",
    "exclude",
    "sourceBranch",
    "renderedBranch",
    "maxFileSize",
    "maxSourceSize",
    "thirdPartyCustomizations",
    "defaultNamespace",
    "rollout",
)


def parse(body: Any, origin: Origin) -> tuple[loaded.SourceConfig, list[diagnostic.Diagnostic]]:
    """Settings from the (single) document of gitfleet.yaml; None means all defaults."""
    if body is None:
        return loaded.SourceConfig(origin=origin), []
    if not isinstance(body, dict):
        message = "gitfleet.yaml must be a mapping of settings"
        return loaded.SourceConfig(origin=origin), [diagnostic.error(origin, message)]
    reader = _Reader(body, origin)
    for key in body:
        if key not in _KEYS:
            reader.error(key, f"unknown setting {key!r} (known: {', '.join(_KEYS)})")
    rollout, problems = _rollout.parse(body.get("rollout"), origin.at("rollout"))
    reader.problems.extend(problems)
    source_branch, rendered_branch = _branches(reader)
    config = loaded.SourceConfig(
        include=reader.patterns("include"),
        exclude=reader.patterns("exclude"),
        source_branch=source_branch,
        rendered_branch=rendered_branch,
        max_file_size=reader.size("maxFileSize") or loaded.DEFAULT_MAX_FILE_SIZE,
        max_source_size=reader.size("maxSourceSize") or loaded.DEFAULT_MAX_SOURCE_SIZE,
        third_party_customizations=reader.folder("thirdPartyCustomizations"),
        failover=_failover(reader),
        descheduler=_descheduler(reader),
        autoscaling=_autoscaling(reader),
        default_namespace=reader.namespace("defaultNamespace") or scope.DEFAULT_NAMESPACE,
        rollout=rollout,
        origin=origin,
    )
    return config, reader.problems


def _branches(reader: _Reader) -> tuple[str | None, str]:
    """sourceBranch and renderedBranch, which must differ: a render onto the source branch
    would replace the source with its output."""
    source_branch = reader.branch("sourceBranch")
    rendered_branch = reader.branch("renderedBranch")
    if rendered_branch is not None and rendered_branch == source_branch:
        message = (
            f"renderedBranch: {rendered_branch!r} is the sourceBranch: a render would replace"
            " the source with its output; name another branch"
        )
        reader.error("renderedBranch", message)
        rendered_branch = None
    return source_branch, rendered_branch or loaded.DEFAULT_RENDERED_BRANCH


def _section(reader: _Reader, name: str, keys: tuple[str, ...]) -> _Reader | None:
    """A reader of the mapping of settings under `name` (None when absent or not a mapping,
    which is an error), its unknown keys reported."""
    body = reader.body.get(name)
    if body is None:
        return None
    if not isinstance(body, dict):
        reader.error(name, f"{name}: expected a mapping of settings")
        return None
    section = _Reader(body, reader.origin.at(name), f"{name}.")
    for key in body:
        if key not in keys:
            section.error(key, f"{name}: unknown setting {key!r} (known: {', '.join(keys)})")
    return section


def _flag(section: _Reader, key: str, default: bool) -> bool:
    """A true-or-false setting of `section`; a wrong one keeps `default`."""
    value = section.body.get(key, default)
    if not isinstance(value, bool):
        section.error(key, f"{section.prefix}{key}: expected true or false")
        return default
    return value


def _failover(reader: _Reader) -> loaded.FailoverSettings:
    """The `failover` settings; a wrong one keeps its default."""
    default = loaded.FailoverSettings()
    section = _section(reader, "failover", _FAILOVER_KEYS)
    if section is None:
        return default
    body = section.body
    toleration = body.get("defaultTolerationSeconds", default.default_toleration_seconds)
    if toleration is not None and not _whole(toleration):
        message = "failover.defaultTolerationSeconds: expected a number of seconds >= 0 or null"
        section.error("defaultTolerationSeconds", message)
        toleration = default.default_toleration_seconds
    mode = body.get("purgeMode", default.purge_mode)
    if mode not in (policy.PurgeMode.DIRECTLY, policy.PurgeMode.GRACEFULLY):
        section.error("purgeMode", f"failover.purgeMode: {mode!r} is not Directly or Gracefully")
        mode = default.purge_mode
    settings = loaded.FailoverSettings(
        enabled=_flag(section, "enabled", default.enabled),
        heartbeat_grace_seconds=section.duration(
            "heartbeatGracePeriod", default.heartbeat_grace_seconds
        ),
        failure_threshold_seconds=section.duration(
            "clusterFailureThreshold", default.failure_threshold_seconds
        ),
        default_toleration_seconds=toleration,
        purge_mode=policy.PurgeMode(mode),
        graceful_eviction_timeout_seconds=section.duration(
            "gracefulEvictionTimeout", default.graceful_eviction_timeout_seconds
        ),
        allow_no_execute_taint_policy=_flag(
            section, "allowNoExecuteTaintPolicy", default.allow_no_execute_taint_policy
        ),
    )
    reader.problems.extend(section.problems)
    return settings


def _descheduler(reader: _Reader) -> loaded.DeschedulerSettings:
    """The `descheduler` settings; a wrong one keeps its default."""
    default = loaded.DeschedulerSettings()
    section = _section(reader, "descheduler", _DESCHEDULER_KEYS)
    if section is None:
        return default
    settings = loaded.DeschedulerSettings(
        enabled=_flag(section, "enabled", default.enabled),
        interval_seconds=section.duration("deschedulingInterval", default.interval_seconds),
        unschedulable_threshold_seconds=section.duration(
            "unschedulableThreshold", default.unschedulable_threshold_seconds
        ),
    )
    reader.problems.extend(section.problems)
    return settings


def _autoscaling(reader: _Reader) -> loaded.AutoscalingSettings:
    """The `autoscaling` settings; a wrong one keeps its default."""
    default = loaded.AutoscalingSettings()
    section = _section(reader, "autoscaling", _AUTOSCALING_KEYS)
    if section is None:
        return default
    body = section.body
    tolerance = body.get("tolerance", default.tolerance)
    if isinstance(tolerance, bool) or not isinstance(tolerance, int | float) or tolerance < 0:
        section.error("tolerance", "autoscaling.tolerance: expected a number >= 0, such as 0.1")
        tolerance = default.tolerance
    period = section.duration("syncPeriod", default.sync_period_seconds)
    if period < 1:
        section.error("syncPeriod", "autoscaling.syncPeriod: must be at least 1s")
        period = default.sync_period_seconds
    settings = loaded.AutoscalingSettings(
        sync_period_seconds=period,
        tolerance=float(tolerance),
        downscale_stabilization_seconds=section.duration(
            "downscaleStabilization", default.downscale_stabilization_seconds
        ),
        cpu_initialization_period_seconds=section.duration(
            "cpuInitializationPeriod", default.cpu_initialization_period_seconds
        ),
        initial_readiness_delay_seconds=section.duration(
            "initialReadinessDelay", default.initial_readiness_delay_seconds
        ),
    )
    reader.problems.extend(section.problems)
    return settings


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
