"""gitfleet.yaml decides which files are read, how large they may be, and branch names.

Aspects covered:
- defaults without gitfleet.yaml; every setting read; the settings file is never a document;
- include and exclude globs (`**`, patterns without `/` at any depth, folders covering what
  is below them, exclude winning);
- absolute patterns, `..` segments and character classes that are not ones are refused,
  located at the pattern, and dropped;
- patterns that would make a regular expression backtrack for hours (many stars in a segment,
  many `**`) match deep paths and long names at once;
- unknown settings, bad branch names (also `HEAD`, and the refs gitfleet writes for each
  cluster or above them), sizes and default namespaces are located errors with
  defaults kept;
- the `failover` section: durations with units (at most what a Go duration holds), a null
  default toleration, its own unknown keys and bad values located, defaults kept;
- the `descheduler` section: Karmada's defaults (2m interval, 5m threshold), durations with
  units, its own unknown keys and bad values located, defaults kept;
- the `autoscaling` section likewise;
- the size limit (from gitfleet.yaml or the `max_file_size` argument, at most that of the
  `bounds` argument) is an error per file; the files read together are held to
  `maxSourceSize` (at most that of `bounds`), else the source is refused whole;
- a third-party customizations folder is loaded as rules, not as documents, its rule files
  held to maxFileSize and never read through a link (an error, as for a document);
- symbolic links are never followed: one named like a YAML file is an error, others warn.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from gitfleet import source
from gitfleet.errors import SourceError
from gitfleet.model import loaded, policy

WriteFolder = Callable[[dict[str, str | bytes]], Path]
LoadFolder = Callable[[dict[str, str | bytes]], loaded.LoadedSource]


def config_map(name: str) -> str:
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n"


def names(result: loaded.LoadedSource) -> list[str]:
    return sorted(t.name for t in result.objects.templates)


def test_defaults_without_settings(load_folder: LoadFolder) -> None:
    result = load_folder({"a.yaml": config_map("a"), "b/c.yml": config_map("c"), "d.json": "{}"})
    assert result.config == loaded.SourceConfig()
    assert names(result) == ["a", "c"]


def test_every_setting_is_read(load_folder: LoadFolder) -> None:
    settings = """\
include: ["apps/**"]
exclude: [secret-*.yaml]
sourceBranch: release
renderedBranch: fleet/out
maxFileSize: 2Ki
thirdPartyCustomizations: vendor/karmada
defaultNamespace: apps
"""
    config = load_folder({"gitfleet.yaml": settings}).config
    assert (config.include, config.exclude) == (("apps/**",), ("secret-*.yaml",))
    assert (config.source_branch, config.rendered_branch) == ("release", "fleet/out")
    assert config.max_file_size == 2048
    assert config.third_party_customizations == "vendor/karmada"
    assert config.default_namespace == "apps"
    assert str(config.origin) == "gitfleet.yaml:1:1"


def test_failover_settings(load_folder: LoadFolder) -> None:
    settings = """\
failover:
  enabled: false
  heartbeatGracePeriod: 2m
  clusterFailureThreshold: 10s
  defaultTolerationSeconds: null
  purgeMode: Directly
  gracefulEvictionTimeout: 90
"""
    result = load_folder({"gitfleet.yaml": settings})
    assert result.ok, result.diagnostics
    assert result.config.failover == loaded.FailoverSettings(
        enabled=False,
        heartbeat_grace_seconds=120,
        failure_threshold_seconds=10,
        default_toleration_seconds=None,
        purge_mode=policy.PurgeMode.DIRECTLY,
        graceful_eviction_timeout_seconds=90,
    )
    defaults = load_folder({"gitfleet.yaml": "failover: {heartbeatGracePeriod: 1h}\n"}).config
    assert defaults.failover == loaded.FailoverSettings(heartbeat_grace_seconds=3600)


def test_descheduler_settings(load_folder: LoadFolder) -> None:
    assert load_folder(
        {"a.yaml": config_map("a")}
    ).config.descheduler == loaded.DeschedulerSettings(
        enabled=True, interval_seconds=120, unschedulable_threshold_seconds=300
    )
    text = "descheduler: {enabled: false, deschedulingInterval: 5s, unschedulableThreshold: 1m}\n"
    result = load_folder({"gitfleet.yaml": text})
    assert result.ok, result.diagnostics
    assert result.config.descheduler == loaded.DeschedulerSettings(
        enabled=False, interval_seconds=5, unschedulable_threshold_seconds=60
    )


def test_autoscaling_settings(load_folder: LoadFolder) -> None:
    settings = """\
autoscaling:
  syncPeriod: 5s
  tolerance: 0.2
  downscaleStabilization: 1m
  cpuInitializationPeriod: 0
  initialReadinessDelay: 10s
"""
    result = load_folder({"gitfleet.yaml": settings})
    assert result.ok, result.diagnostics
    assert result.config.autoscaling == loaded.AutoscalingSettings(
        sync_period_seconds=5,
        tolerance=0.2,
        downscale_stabilization_seconds=60,
        cpu_initialization_period_seconds=0,
        initial_readiness_delay_seconds=10,
    )
    defaults = load_folder({"gitfleet.yaml": "autoscaling: {tolerance: 0}\n"}).config
    assert defaults.autoscaling == loaded.AutoscalingSettings(tolerance=0.0)


def test_globs_select_files(load_folder: LoadFolder) -> None:
    result = load_folder(
        {
            "gitfleet.yaml": "include: [apps/**, '*.yml']\nexclude: [secret-*.yaml, apps/legacy]\n",
            "apps/a.yaml": config_map("a"),
            "apps/deep/b.yaml": config_map("b"),
            "apps/deep/secret-x.yaml": config_map("secret"),
            "apps/legacy/old.yaml": config_map("old"),
            "other/c.yaml": config_map("c"),
            "other/d.yml": config_map("d"),
        }
    )
    assert result.ok, result.diagnostics
    assert names(result) == ["a", "b", "d"]


DEEP = "/".join(["a"] * 300)
HOSTILE_PATTERNS = [
    pytest.param("*a*a*a*a*a*a*a*a*a*a*a*a*b", "a" * 200 + ".yaml", False, id="stars in a name"),
    pytest.param("*a*a*a*a*a*a*a*a*a*a*a*a*", "a" * 200 + ".yaml", True, id="stars that match"),
    pytest.param("**/a/**/a/**/a/**/a/**/a/**/b", f"{DEEP}/x.yaml", False, id="many **"),
    pytest.param("**/**/**/**/**/**/**/**/x.yaml", f"{DEEP}/x.yaml", True, id="runs of **"),
    pytest.param("a/**/a/*a*a*a*/x.yaml", f"{DEEP}/x.yaml", False, id="both"),
]  # fmt: skip


@pytest.mark.parametrize(("pattern", "path", "excluded"), HOSTILE_PATTERNS)
def test_patterns_match_in_polynomial_time(
    load_folder: LoadFolder, pattern: str, path: str, excluded: bool
) -> None:
    """One regular expression per pattern took minutes (hours) for each of these paths."""
    result = load_folder({"gitfleet.yaml": f"exclude: ['{pattern}']\n", path: config_map("x")})
    assert result.ok, result.diagnostics
    assert names(result) == ([] if excluded else ["x"])


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        pytest.param("/etc/**", "is absolute", id="absolute"),
        pytest.param("../other/**", "has a '..' segment", id="parent"),
        pytest.param("apps/../../x", "has a '..' segment", id="inner parent"),
        pytest.param("", "empty pattern", id="empty"),
        pytest.param("apps/[z-a]*", "has a character class that is not one: bad character range",
                     id="backwards range"),
        pytest.param("[^]", "has a character class that is not one", id="unterminated class"),
    ],
)  # fmt: skip
def test_patterns_leaving_the_source_are_refused(
    load_folder: LoadFolder, pattern: str, message: str
) -> None:
    result = load_folder({"gitfleet.yaml": f"exclude:\n  - 'a.yaml'\n  - '{pattern}'\n"})
    [problem] = result.diagnostics
    assert str(problem.origin) == "gitfleet.yaml:3:5"
    assert "exclude[1]: " in problem.message and message in problem.message
    assert result.config.exclude == ("a.yaml",)


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        pytest.param("exlude: [a]\n", "1:1", "unknown setting 'exlude'", id="unknown"),
        pytest.param("sourceBranch: 'a b'\n", "1:1", "not a valid branch name", id="branch"),
        pytest.param("renderedBranch: x..y\n", "1:1", "not a valid branch name", id="dots"),
        pytest.param("sourceBranch: HEAD\n", "1:1", "'HEAD' is not a valid branch name",
                     id="HEAD"),
        pytest.param("renderedBranch: gitfleet/works/edge\n", "1:1",
                     "is not a branch of its own: gitfleet writes refs/heads/gitfleet/works/"
                     "<cluster> and refs/heads/gitfleet/status/<cluster>", id="a cluster's ref"),
        pytest.param("renderedBranch: gitfleet\n", "1:1", "is not a branch of its own",
                     id="the folder of the cluster refs"),
        pytest.param("maxFileSize: -1\n", "1:1", "positive number of bytes", id="negative"),
        pytest.param("maxFileSize: 5MB\n", "1:1", "positive number of bytes", id="unit"),
        pytest.param("maxSourceSize: -1\n", "1:1", "maxSourceSize: expected a positive number",
                     id="source size"),
        pytest.param(f"maxFileSize: {'9' * 5000}\n", "1:1", "expected a positive number of bytes",
                     id="size of 5000 digits"),
        pytest.param(f"failover: {{heartbeatGracePeriod: {'9' * 5000}s}}\n", "1:12",
                     "failover.heartbeatGracePeriod: expected a duration",
                     id="duration of 5000 digits"),
        pytest.param("include: apps\n", "1:1", "expected a list of patterns", id="not a list"),
        pytest.param("thirdPartyCustomizations: /opt\n", "1:1", "a folder inside", id="abs"),
        pytest.param("- a\n", "1:1", "must be a mapping", id="list"),
        pytest.param("defaultNamespace: Apps\n", "1:1", "'Apps' is not a DNS-1123 label",
                     id="namespace"),
        pytest.param("defaultNamespace: [a]\n", "1:1", "expected a string", id="namespace type"),
        pytest.param("failover: 3\n", "1:1", "failover: expected a mapping", id="failover"),
        pytest.param("failover: {heartbeat: 3}\n", "1:12", "unknown setting 'heartbeat'",
                     id="failover unknown"),
        pytest.param("failover: {heartbeatGracePeriod: 3d}\n", "1:12",
                     "failover.heartbeatGracePeriod: expected a duration", id="duration"),
        pytest.param("failover: {gracefulEvictionTimeout: 999999999999999h}\n", "1:12",
                     "failover.gracefulEvictionTimeout: at most 9223372036s (292 years",
                     id="duration past a Go duration"),
        pytest.param("descheduler: {deschedulingInterval: 9223372037}\n", "1:15",
                     "descheduler.deschedulingInterval: at most 9223372036s",
                     id="seconds past a Go duration"),
        pytest.param("failover: {purgeMode: Never}\n", "1:12", "is not Directly or Gracefully",
                     id="purge mode"),
        pytest.param("failover: {enabled: 'no'}\n", "1:12", "expected true or false",
                     id="enabled"),
        pytest.param("failover: {defaultTolerationSeconds: -5}\n", "1:12",
                     "seconds >= 0 or null", id="toleration"),
        pytest.param("failover: {allowNoExecuteTaintPolicy: 'yes'}\n", "1:12",
                     "failover.allowNoExecuteTaintPolicy: expected true or false",
                     id="no execute taint policy"),
        pytest.param("descheduler: on\n", "1:1", "descheduler: expected a mapping",
                     id="descheduler"),
        pytest.param("descheduler: {interval: 3}\n", "1:15", "unknown setting 'interval'",
                     id="descheduler unknown"),
        pytest.param("descheduler: {unschedulableThreshold: -1}\n", "1:15",
                     "descheduler.unschedulableThreshold: expected a duration",
                     id="threshold"),
        pytest.param("descheduler: {enabled: 1}\n", "1:15", "expected true or false",
                     id="descheduler enabled"),
        pytest.param("autoscaling: 15s\n", "1:1", "autoscaling: expected a mapping",
                     id="autoscaling"),
        pytest.param("autoscaling: {period: 15s}\n", "1:15", "unknown setting 'period'",
                     id="autoscaling unknown"),
        pytest.param("autoscaling: {syncPeriod: 0s}\n", "1:15",
                     "autoscaling.syncPeriod: must be at least 1s", id="sync period"),
        pytest.param("autoscaling: {tolerance: high}\n", "1:15",
                     "autoscaling.tolerance: expected a number >= 0", id="tolerance"),
        pytest.param("autoscaling: {downscaleStabilization: soon}\n", "1:15",
                     "autoscaling.downscaleStabilization: expected a duration", id="window"),
    ],
)  # fmt: skip
def test_bad_settings_are_located(
    load_folder: LoadFolder, text: str, where: str, message: str
) -> None:
    result = load_folder({"gitfleet.yaml": text})
    [problem] = result.diagnostics
    assert str(problem.origin) == f"gitfleet.yaml:{where}"
    assert message in problem.message
    assert result.config.rendered_branch == loaded.DEFAULT_RENDERED_BRANCH
    assert result.config.default_namespace == "default"


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("renderedBranch: refs/tags/v1", "'refs/tags/v1' is a full ref name, not a branch name"),
        ("sourceBranch: refs/heads/x", "'refs/heads/x' is a full ref name: name the branch, 'x'"),
        ("renderedBranch: '@'", "'@' is not a valid branch name"),
    ],
    ids=["a tag", "a branch spelt as a ref", "@, which Git reads as HEAD"],
)
def test_a_branch_is_named_by_its_name(load_folder: LoadFolder, setting: str, message: str) -> None:
    """A branch setting names a branch, never a full ref (nor `@`, Git's HEAD): a render would
    otherwise create or move a tag, the stash or notes."""
    result = load_folder({"gitfleet.yaml": f"# settings\n{setting}\n"})
    [problem] = result.diagnostics
    key = setting.partition(":")[0]
    assert str(problem).startswith(f"gitfleet.yaml:2:1: error: {key}: {message}")
    assert (result.config.source_branch, result.config.rendered_branch) == (
        None,
        loaded.DEFAULT_RENDERED_BRANCH,
    )


def test_file_size_limit(folder: WriteFolder) -> None:
    files: dict[str, str | bytes] = {
        "gitfleet.yaml": "maxFileSize: 100\n",
        "small.yaml": config_map("small"),
        "big.yaml": config_map("big") + "data:\n  x: '" + "y" * 200 + "'\n",
    }
    path = folder(files)
    [problem] = source.load(path).diagnostics
    assert str(problem) == "big.yaml: error: file is 267 bytes, over the limit of 100 (maxFileSize)"
    assert source.load(path, max_file_size=1000).ok
    assert not source.load(path, max_file_size=10).ok


def test_file_size_cap(folder: WriteFolder) -> None:
    """A cap is the most gitfleet.yaml's limit can be (a pull request's own settings cannot
    raise the base's, in `preview`): below the setting it holds and says so, above it the
    setting holds."""
    files: dict[str, str | bytes] = {
        "gitfleet.yaml": "maxFileSize: 1Gi\n",
        "big.yaml": config_map("big") + "data:\n  x: '" + "y" * 200 + "'\n",
    }
    path = folder(files)
    [problem] = source.load(path, bounds=loaded.SourceConfig(max_file_size=100)).diagnostics
    assert str(problem) == (
        "big.yaml: error: file is 267 bytes, over the limit of 100 (maxFileSize of the revision "
        "compared against, which a change cannot raise)"
    )
    assert source.load(path, bounds=loaded.SourceConfig(max_file_size=1000)).ok
    files["gitfleet.yaml"] = "maxFileSize: 100\n"
    bounds = loaded.SourceConfig(max_file_size=1000)
    [problem] = source.load(folder(files), bounds=bounds).diagnostics
    assert problem.message.endswith("over the limit of 100 (maxFileSize)")


def test_source_size_limit(folder: WriteFolder) -> None:
    """Each file is held to maxFileSize, and all of them together to maxSourceSize (a tree can
    name one large blob at any number of paths); over it, the source is refused whole."""
    files: dict[str, str | bytes] = {
        "gitfleet.yaml": "maxSourceSize: 300\n",
        "a.yaml": config_map("a") + "data: {x: '" + "y" * 100 + "'}\n",
        "b.yaml": config_map("b") + "data: {x: '" + "y" * 100 + "'}\n",
    }
    path = folder(files)
    with pytest.raises(SourceError) as info:
        source.load(path)
    assert str(info.value) == (
        f"{path}: the 2 files to read weigh 330 bytes together, over the limit of 300 "
        "(maxSourceSize); exclude what gitfleet need not read in gitfleet.yaml"
    )
    assert source.load(folder({**files, "gitfleet.yaml": "maxSourceSize: 1Ki\n"})).ok
    with pytest.raises(SourceError, match=r"limit of 300 \(maxSourceSize of the revision"):
        source.load(path, bounds=loaded.SourceConfig(max_source_size=300))


def test_third_party_customizations_are_rules(load_folder: LoadFolder) -> None:
    rule = """\
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: declarative-configuration-thing
spec:
  target: {apiVersion: example.io/v1, kind: Thing}
  customizations:
    healthInterpretation:
      luaScript: "function InterpretHealth(o) return true end"
"""
    result = load_folder(
        {
            "gitfleet.yaml": "thirdPartyCustomizations: karmada/\n",
            "karmada/example.io/v1/Thing/customizations.yaml": rule,
            "karmada/example.io/v1/Thing/testdata/health-test.yaml": "name: not an object\n",
            "app.yaml": config_map("app"),
        }
    )
    assert result.ok, result.diagnostics
    assert [c.name for c in result.third_party_customizations] == [
        "declarative-configuration-thing"
    ]
    assert result.objects.customizations == ()
    assert names(result) == ["app"]


def test_third_party_rules_are_held_to_the_file_limits(folder: WriteFolder, tmp_path: Path) -> None:
    """A rule file over maxFileSize is an error as a document would be (it was read whatever
    its size); a link named as a rule file is an error, not rules silently gone."""
    rules = "karmada/example.io/v1/Thing/customizations.yaml"
    path = folder(
        {
            "gitfleet.yaml": "thirdPartyCustomizations: karmada\nmaxFileSize: 64\n",
            rules: "# " + "x" * 64 + "\n",
            "app.yaml": config_map("app"),
        }
    )
    (tmp_path / "rules.yaml").write_text("")
    (path / "karmada/example.io/v1/Other").mkdir()
    os.symlink(tmp_path / "rules.yaml", path / "karmada/example.io/v1/Other/customizations.yaml")
    os.symlink(tmp_path, path / "karmada/example.io/v2")
    result = source.load(path)
    assert [str(d) for d in result.diagnostics] == [
        "karmada/example.io/v1/Other/customizations.yaml: error: symbolic link is not followed",
        f"{rules}: error: file is 67 bytes, over the limit of 64 (maxFileSize)",
        "karmada/example.io/v2: warning: symbolic link is not followed",
    ]
    assert names(result) == ["app"]


def test_symbolic_links_are_never_followed(folder: WriteFolder, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.yaml").write_text(config_map("secret"))
    path = folder({"a.yaml": config_map("a")})
    os.symlink(outside / "secret.yaml", path / "link.yaml")
    os.symlink(outside, path / "linked-folder")
    os.symlink(outside / "secret.yaml", path / "gitfleet.yaml")
    result = source.load(path)
    assert names(result) == ["a"]
    assert [str(d) for d in result.diagnostics] == [
        "gitfleet.yaml: error: symbolic link is not followed",
        "link.yaml: error: symbolic link is not followed",
        "linked-folder: warning: symbolic link is not followed",
    ]
