"""`gitfleet interpret`: run a customization file's scripts on objects, like karmadactl interpret.

Aspects covered:
- each operation prints one object keyed as Karmada's test data output, as YAML or with
  `-o json`, given the desired and/or observed object, status items and replicas; numbers a
  script returns as requests print as the Quantities Karmada decodes them into;
- `--check` lists problems (exit 1 on errors) or confirms every script compiles;
- `-f` also takes a folder in Karmada's third-party layout, also named relatively from inside
  a kind's folder (`.`) or its testdata (`..`); a customizations file there that is a symbolic
  link is exit 1 naming it, not followed;
- a file that is not UTF-8 text is exit 1 at its first bad character; a file (or standard
  input) holding more than a source file may (5 MiB) is exit 1, unread; a Karmada test case
  given as the object is exit 1, named as such;
- a failing script exits 1 with `file:line:col` of its `luaScript` and the Lua line;
- usage errors exit 2: neither or both of --check/--operation, unknown operation, missing or
  conflicting objects, InterpretHealth or InterpretStatus without the observed object,
  `--desired-replica` past int64 (karmadactl's flag, which the Lua runtime cannot take); a kind
  no customization targets, or one that is not a string, is exit 1 (an input problem);
- `--status-file` as karmadactl reads it (a YAML stream of items) or as one list, from a file
  or from stdin (`-`, one file at most);
  items without clusterName; `health` any string, as Karmada's Go type takes it, passed to the
  script and printed as given, an empty one as none, one that is not a string a located
  error; an empty or null file is nil items, `[]` an empty list; an item that is not an object
  is a located error.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import Invoke

RIC = """\
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: pools
spec:
  target:
    apiVersion: apps.example.io/v1
    kind: Pool
  customizations:
    replicaResource:
      luaScript: |
        local kube = require("kube")
        function GetReplicas(obj)
          return obj.spec.replicas, kube.accuratePodRequirements(obj.spec.template)
        end
    replicaRevision:
      luaScript: |
        function ReviseReplica(obj, replicas)
          obj.spec.replicas = replicas
          return obj
        end
    retention:
      luaScript: |
        function Retain(desired, observed)
          desired.spec.paused = observed.spec.paused
          return desired
        end
    statusReflection:
      luaScript: |
        function ReflectStatus(obj)
          return {ready = obj.status.ready}
        end
    statusAggregation:
      luaScript: |
        function AggregateStatus(obj, items)
          local ready = 0
          for _, item in ipairs(items or {}) do ready = ready + item.status.ready end
          obj.status = {ready = ready, clusters = #(items or {})}
          return obj
        end
    healthInterpretation:
      luaScript: |
        function InterpretHealth(obj)
          return obj.status.ready >= obj.spec.replicas
        end
    dependencyInterpretation:
      luaScript: |
        function GetDependencies(obj)
          return {{apiVersion = "v1", kind = "Secret", namespace = obj.metadata.namespace,
                   name = obj.spec.secret}}
        end
    componentResource:
      luaScript: |
        function GetComponents(obj)
          return {{name = "main", replicas = obj.spec.replicas}}
        end
"""

POOL = """\
apiVersion: apps.example.io/v1
kind: Pool
metadata: {name: p, namespace: ns}
spec:
  replicas: 2
  secret: creds
  paused: false
  template:
    spec:
      containers: [{name: c, resources: {requests: {cpu: 100m}}}]
status: {ready: 2}
"""

OBSERVED = POOL.replace("paused: false", "paused: true").replace("ready: 2", "ready: 1")


@pytest.fixture(name="files")
def files_fixture(tmp_path: Path) -> dict[str, str]:
    paths = {}
    for name, text in {
        "ric.yaml": RIC,
        "pool.yaml": POOL,
        "observed.yaml": OBSERVED,
        "items.yaml": "- {clusterName: a, status: {ready: 1}}\n"
        "- {clusterName: b, status: {ready: 2}}\n",
        "bad.yaml": RIC.replace(
            "return obj.status.ready >= obj.spec.replicas", "return obj.status.missing.x"
        ),
    }.items():
        (tmp_path / name).write_text(text)
        paths[name] = str(tmp_path / name)
    return paths


OPERATIONS = [
    pytest.param(
        ["--operation", "InterpretReplica", "--desired-file", "pool.yaml"],
        {"replica": 2, "requires": {"resourceRequest": {"cpu": "100m"}}},
        id="replicas",
    ),
    pytest.param(
        ["--operation", "revisereplica", "--desired-file", "pool.yaml", "--desired-replica", "5"],
        5,
        id="revise",
    ),
    pytest.param(
        [
            "--operation",
            "Retain",
            "--desired-file",
            "pool.yaml",
            "--observed-file",
            "observed.yaml",
        ],
        True,
        id="retain",
    ),
    pytest.param(
        ["--operation", "InterpretStatus", "--observed-file", "observed.yaml"],
        {"status": {"ready": 1}},
        id="status",
    ),
    pytest.param(
        [
            "--operation",
            "AggregateStatus",
            "--desired-file",
            "pool.yaml",
            "--status-file",
            "items.yaml",
        ],
        {"ready": 3, "clusters": 2},
        id="aggregate",
    ),
    pytest.param(
        ["--operation", "InterpretHealth", "--observed-file", "observed.yaml"],
        {"healthy": False},
        id="health",
    ),
    pytest.param(
        ["--operation", "InterpretDependency", "--desired-file", "pool.yaml"],
        {
            "dependencies": [
                {"apiVersion": "v1", "kind": "Secret", "namespace": "ns", "name": "creds"}
            ]
        },
        id="dependencies",
    ),
    pytest.param(
        ["--operation", "InterpretComponent", "--desired-file", "pool.yaml"],
        {"components": [{"name": "main", "replicas": 2}]},
        id="components",
    ),
]


def _args(files: dict[str, str], args: list[str]) -> list[str]:
    return [files.get(a, a) for a in args]


@pytest.mark.parametrize(("args", "expected"), OPERATIONS)
def test_operation_json(
    cli: Invoke, files: dict[str, str], args: list[str], expected: object
) -> None:
    result = cli("interpret", "-f", files["ric.yaml"], *_args(files, args), "-o", "json")
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    if "revisereplica" in args:
        assert list(printed) == ["revised"] and printed["revised"]["spec"]["replicas"] == expected
    elif "Retain" in args:
        assert list(printed) == ["retained"] and printed["retained"]["spec"]["paused"] is expected
    elif "AggregateStatus" in args:
        assert list(printed) == ["aggregatedStatus"]
        assert printed["aggregatedStatus"]["status"] == expected
    else:
        assert printed == expected


def test_default_output_is_yaml(cli: Invoke, files: dict[str, str]) -> None:
    result = cli(
        "interpret", "-f", files["ric.yaml"], "--operation", "InterpretReplica",
        "--desired-file", files["pool.yaml"],
    )  # fmt: skip
    assert result.exit_code == 0
    assert yaml.safe_load(result.stdout) == {
        "replica": 2,
        "requires": {"resourceRequest": {"cpu": "100m"}},
    }


NUMBER_REQUESTS = RIC.replace(
    "return obj.spec.replicas, kube.accuratePodRequirements(obj.spec.template)",
    "return obj.spec.replicas, {resourceRequest = {cpu = kube.getResourceQuantity('2048m'),\n"
    "            memory = 1.5, a = 1.001, b = 0.5, c = 2.25, d = 1e-7,\n"
    "            e = 123456789012345680000, f = 1e21, g = 0, h = -2.048}}",
)


def test_numbers_returned_as_requests_print_as_karmada_prints_them(
    cli: Invoke, files: dict[str, str], tmp_path: Path
) -> None:
    """Each number goes through Go's JSON into a Quantity, which keeps the text apimachinery
    finds canonical enough (`2.048`, never `2048m`) and prints the rest canonically: what
    Karmada's luavm GetReplicas gave for the same script (f8fdd02d, its JSON output)."""
    ric = tmp_path / "numbers.yaml"
    ric.write_text(NUMBER_REQUESTS)
    result = cli(
        "interpret", "-f", str(ric), "--operation", "InterpretReplica",
        "--desired-file", files["pool.yaml"], "-o", "json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["requires"]["resourceRequest"] == {
        "cpu": "2.048",
        "memory": "1500m",
        "a": "1.001",
        "b": "500m",
        "c": "2250m",
        "d": "100e-9",
        "e": "123456789012345680k",
        "f": "1e+21",
        "g": "0",
        "h": "-2.048",
    }


def test_script_failure_exits_1_located(cli: Invoke, files: dict[str, str]) -> None:
    result = cli(
        "interpret", "-f", files["bad.yaml"], "--operation", "InterpretHealth",
        "--observed-file", files["pool.yaml"],
    )  # fmt: skip
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        f"{files['bad.yaml']}:42:7: InterpretHealth: Pool ns/p: lua line 2: "
        "attempt to index field 'missing' (a nil value)"
    )


def test_check(cli: Invoke, files: dict[str, str], tmp_path: Path) -> None:
    ok = cli("interpret", "-f", files["ric.yaml"], "--check")
    assert ok.exit_code == 0 and "every script compiles" in ok.stdout
    broken = tmp_path / "broken.yaml"
    broken.write_text(RIC.replace("function GetComponents(obj)", "function GetComponents(obj"))
    result = cli("interpret", "-f", str(broken), "--check", "-o", "json")
    assert result.exit_code == 1
    (problem,) = json.loads(result.stdout)
    assert problem["line"] == 53 and problem["severity"] == "error"
    assert problem["message"] == "componentResource: lua line 2: ')' expected near 'return'"


def test_folder_in_karmada_layout(cli: Invoke, files: dict[str, str], tmp_path: Path) -> None:
    folder = tmp_path / "rules" / "apps.example.io" / "v1" / "Pool"
    folder.mkdir(parents=True)
    (folder / "customizations.yaml").write_text(RIC)
    result = cli(
        "interpret", "-f", str(tmp_path / "rules"), "--operation", "InterpretHealth",
        "--observed-file", files["pool.yaml"], "-o", "json",
    )  # fmt: skip
    assert result.exit_code == 0 and json.loads(result.stdout) == {"healthy": True}


def test_a_customizations_file_that_is_a_link_is_named_not_followed(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder whose only customizations file is a symbolic link: exit 1 naming the link, as
    a source's thirdPartyCustomizations folder names it, not "holds no customization"."""
    (tmp_path / "ric.yaml").write_text(RIC)
    folder = tmp_path / "rules" / "apps.example.io" / "v1" / "Pool"
    folder.mkdir(parents=True)
    (folder / "customizations.yaml").symlink_to(tmp_path / "ric.yaml")
    monkeypatch.chdir(tmp_path)
    result = cli("interpret", "-f", "rules", "--check")
    assert result.exit_code == 1, result.output
    assert result.stderr == (
        "rules/apps.example.io/v1/Pool/customizations.yaml: symbolic link is not followed\n"
    )


@pytest.mark.parametrize("inside", ["", "testdata"])
def test_karmada_kind_folder_named_relatively(
    cli: Invoke, files: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, inside: str
) -> None:
    """`-f .` in a kind's folder (or `-f ..` in its testdata) is that folder, not one with no
    name: its customization matches it."""
    folder = tmp_path / "rules" / "apps.example.io" / "v1" / "Pool"
    (folder / "testdata").mkdir(parents=True)
    (folder / "customizations.yaml").write_text(RIC)
    monkeypatch.chdir(folder / inside)
    result = cli("interpret", "-f", ".." if inside else ".", "--check")
    assert result.exit_code == 0, result.output
    assert "1 customization(s): every script compiles" in result.stdout


def test_object_file_not_utf8_is_located_input_error(
    cli: Invoke, files: dict[str, str], tmp_path: Path
) -> None:
    latin1 = tmp_path / "latin1.yaml"
    latin1.write_bytes(POOL.encode() + "note: \u00e9t\u00e9 caf".encode() + b"\xe9\n")
    result = cli(
        "interpret", "-f", files["ric.yaml"], "--operation", "InterpretReplica",
        "--desired-file", str(latin1),
    )  # fmt: skip
    assert result.exit_code == 1
    assert result.stderr.strip() == f"{latin1}:12:14: file is not UTF-8 text"


@pytest.mark.parametrize("role", ["-f", "--desired-file", "stdin"])
def test_a_file_larger_than_a_source_file_may_be_is_not_read(
    cli: Invoke, files: dict[str, str], tmp_path: Path, role: str
) -> None:
    """5 MiB, the default maxFileSize, is the most read of any file (`/dev/zero` was read until
    memory ran out)."""
    large = tmp_path / "large.yaml"
    large.write_text(POOL + "# " + "x" * 5 * 1024 * 1024 + "\n")
    args = {"-f": files["ric.yaml"], "--desired-file": str(large)}
    if role == "-f":
        args["-f"] = str(large)
    elif role == "stdin":
        args["--desired-file"] = "-"
    result = cli(
        "interpret", *(a for pair in args.items() for a in pair), "--operation", "Retain",
        input=large.read_text() if role == "stdin" else None,
    )  # fmt: skip
    assert result.exit_code == 1
    name = "-" if role == "stdin" else str(large)
    assert result.stderr.strip() == (
        f"{name}: more than 5242880 bytes, the limit of a source file (maxFileSize)"
    )


def test_customizations_not_utf8_are_located(cli: Invoke, tmp_path: Path) -> None:
    latin1 = tmp_path / "latin1.yaml"
    latin1.write_bytes(RIC.replace("name: pools", "name: pools # \xe9t\xe9").encode("latin-1"))
    result = cli("interpret", "-f", str(latin1), "--check")
    assert result.exit_code == 1
    assert result.stderr.strip() == f"{latin1}:4:17: file is not UTF-8 text"


def test_karmada_test_case_given_as_the_object(
    cli: Invoke, files: dict[str, str], tmp_path: Path
) -> None:
    """A file of Karmada's interpreter test data holds a case, not an object: said so, at the
    case, rather than looking up a customization for an empty type."""
    case = tmp_path / "interpretreplica-test.yaml"
    desired = yaml.safe_load(POOL)
    case.write_text(
        "# a case\n" + yaml.safe_dump({"name": "pool", "desiredObj": desired}, sort_keys=False)
    )
    result = cli(
        "interpret", "-f", files["ric.yaml"], "--operation", "InterpretReplica",
        "--desired-file", str(case),
    )  # fmt: skip
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        f"{case}:2:1: not a Kubernetes object: no apiVersion or kind (a Karmada interpreter"
        " test case? give its desiredObj in a file of its own)"
    )


USAGE = [
    pytest.param([], "give either --check or --operation", id="nothing to do"),
    pytest.param(["--check", "--operation", "Retain"], "give either", id="both"),
    pytest.param(
        ["--operation", "Explode", "--desired-file", "pool.yaml"], "not supported", id="unknown"
    ),
    pytest.param(
        ["--operation", "InterpretReplica"], "needs the desired or the observed", id="no object"
    ),
    pytest.param(
        [
            "--operation",
            "InterpretReplica",
            "--desired-file",
            "pool.yaml",
            "--observed-file",
            "pool.yaml",
        ],
        "not both",
        id="both objects",
    ),
    pytest.param(
        ["--operation", "Retain", "--desired-file", "pool.yaml"],
        "needs the observed",
        id="retain one",
    ),
    pytest.param(
        ["--operation", "InterpretHealth", "--desired-file", "pool.yaml"],
        "InterpretHealth needs the observed object, as a member cluster runs it (--observed-file)",
        id="health of a desired object",
    ),
    pytest.param(
        ["--operation", "InterpretStatus", "--desired-file", "pool.yaml"],
        "(--observed-file)",
        id="status of a desired object",
    ),
    pytest.param(
        ["--operation", "ReviseReplica", "--desired-file", "pool.yaml", "--desired-replica",
         "9223372036854775808"],
        "is not in the range", id="replicas past int64",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("args", "message"), USAGE)
def test_usage_errors(cli: Invoke, files: dict[str, str], args: list[str], message: str) -> None:
    result = cli("interpret", "-f", files["ric.yaml"], *_args(files, args))
    assert result.exit_code == 2
    assert message in result.stderr


def test_kind_without_customization(cli: Invoke, files: dict[str, str], tmp_path: Path) -> None:
    other = tmp_path / "other.yaml"
    other.write_text(textwrap.dedent(POOL).replace("kind: Pool", "kind: Lake"))
    result = cli(
        "interpret", "-f", files["ric.yaml"], "--operation", "InterpretHealth",
        "--observed-file", str(other),
    )  # fmt: skip
    assert result.exit_code == 1
    assert "no customization targets apps.example.io/v1 Lake" in result.stderr


@pytest.mark.parametrize("kind_line", ["kind: [Pool]", "kind: {name: Pool}"])
def test_an_object_whose_kind_is_no_string(
    cli: Invoke, files: dict[str, str], tmp_path: Path, kind_line: str
) -> None:
    """An object file is not validated: a kind that is not a string names no kind."""
    other = tmp_path / "other.yaml"
    other.write_text(textwrap.dedent(POOL).replace("kind: Pool", kind_line))
    result = cli(
        "interpret", "-f", files["ric.yaml"], "--operation", "Retain",
        "--desired-file", str(other), "--observed-file", str(other),
    )  # fmt: skip
    assert result.exit_code == 1
    assert "no customization targets apps.example.io/v1 " in result.stderr


ITEMS_RIC = """\
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: items
spec:
  target:
    apiVersion: apps.example.io/v1
    kind: Pool
  customizations:
    statusAggregation:
      luaScript: |
        function AggregateStatus(obj, items)
          if items == nil then
            obj.status = {items = "nil"}
            return obj
          end
          local names = {}
          for _, item in ipairs(items) do table.insert(names, "[" .. item.clusterName .. "]") end
          obj.status = {items = table.concat(names, ",")}
          return obj
        end
"""


@pytest.mark.parametrize(
    ("text", "seen"),
    [
        pytest.param(
            "clusterName: a\nstatus: {ready: 1}\n---\nclusterName: b\n", "[a],[b]", id="stream"
        ),
        pytest.param('[{"clusterName": "a"}, {"clusterName": "b"}]\n', "[a],[b]", id="json list"),
        pytest.param("- {clusterName: a}\n- {clusterName: b}\n", "[a],[b]", id="list"),
        pytest.param("- {status: {ready: 1}}\n", "[]", id="item without clusterName"),
        pytest.param("[]\n", "", id="empty list"),
        pytest.param("", "nil", id="empty file"),
        pytest.param("null\n", "nil", id="null"),
    ],
)
def test_status_file_shapes(
    cli: Invoke, files: dict[str, str], tmp_path: Path, text: str, seen: str
) -> None:
    """Status items as karmadactl reads them (one per document) or as one list; Karmada's
    third-party test data has items without clusterName; nothing at all is nil items."""
    assert _items_seen(cli, files["pool.yaml"], tmp_path, ITEMS_RIC, text) == seen


@pytest.mark.parametrize(
    ("health", "seen"),
    [
        pytest.param("Healthy", "Healthy", id="healthy"),
        pytest.param("Degraded", "Degraded", id="a value the binding's schema would refuse"),
        pytest.param("healthy", "healthy", id="another case"),
        pytest.param('"1"', "1", id="a string of digits"),
        pytest.param("Hors service", "Hors service", id="words"),
        pytest.param('""', "nil", id="empty"),
        pytest.param("null", "nil", id="null"),
    ],
)
def test_status_item_health(
    cli: Invoke, files: dict[str, str], tmp_path: Path, health: str, seen: str
) -> None:
    """Any health string is taken, as Karmada's Go type (a string) takes it; an empty one is
    its zero value, which Go's JSON leaves out when handing the item to the script."""
    script = ITEMS_RIC.replace('"[" .. item.clusterName .. "]"', "tostring(item.health)")
    text = f"clusterName: a\nhealth: {health}\n"
    assert _items_seen(cli, files["pool.yaml"], tmp_path, script, text) == seen


def test_status_item_health_printed(cli: Invoke, files: dict[str, str], tmp_path: Path) -> None:
    """A health the script copies into the object is printed as given, as karmadactl prints
    the aggregated object (quoted where YAML would read it as another type)."""
    script = ITEMS_RIC.replace('table.concat(names, ",")', "names").replace(
        '"[" .. item.clusterName .. "]"', "item.health"
    )
    items = "clusterName: a\nhealth: Degraded\n---\nclusterName: b\nhealth: 'true'\n"
    result = _aggregate(cli, files["pool.yaml"], tmp_path, script, items)
    assert result.exit_code == 0, result.output
    assert "  status:\n    items:\n    - Degraded\n    - 'true'\n" in result.stdout
    printed = yaml.safe_load(result.stdout)
    assert printed["aggregatedStatus"]["status"] == {"items": ["Degraded", "true"]}


@pytest.mark.parametrize(
    ("health", "kind"),
    [
        pytest.param("5", "integer", id="number"),
        pytest.param("true", "boolean", id="boolean"),
        pytest.param("{state: ok}", "object", id="object"),
    ],
)
def test_status_item_health_not_a_string(
    cli: Invoke, files: dict[str, str], tmp_path: Path, health: str, kind: str
) -> None:
    """A health that is not a string is refused, as Go's JSON refuses it for a string type,
    at its line."""
    items = f"clusterName: a\nhealth: {health}\n"
    result = _aggregate(cli, files["pool.yaml"], tmp_path, ITEMS_RIC, items)
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        f"{tmp_path / 'status.yaml'}:2:1: health: expected string, got {kind}"
    )


def _items_seen(cli: Invoke, desired: str, tmp_path: Path, script: str, items: str) -> Any:
    """What a script of `ITEMS_RIC`'s shape says of the status `items` it was given."""
    result = _aggregate(cli, desired, tmp_path, script, items, "-o", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["aggregatedStatus"]["status"]["items"]


def _aggregate(
    cli: Invoke, desired: str, tmp_path: Path, script: str, items: str, *extra: str
) -> Any:
    """`gitfleet interpret --operation AggregateStatus` with the customization `script` and the
    status file `items`."""
    (tmp_path / "items.ric.yaml").write_text(script)
    (tmp_path / "status.yaml").write_text(items)
    return cli(
        "interpret", "-f", str(tmp_path / "items.ric.yaml"), "--operation", "AggregateStatus",
        "--desired-file", desired, "--status-file", str(tmp_path / "status.yaml"), *extra,
    )  # fmt: skip


def test_status_item_that_is_not_an_object(
    cli: Invoke, files: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "status.yaml").write_text("clusterName: a\n---\n- b\n")
    result = cli(
        "interpret", "-f", files["ric.yaml"], "--operation", "AggregateStatus",
        "--desired-file", files["pool.yaml"], "--status-file", str(tmp_path / "status.yaml"),
    )  # fmt: skip
    assert result.exit_code == 1
    assert (
        result.stderr.strip() == f"{tmp_path / 'status.yaml'}:3:1: a status item must be an object"
    )


def test_status_items_from_stdin(cli: Invoke, files: dict[str, str], tmp_path: Path) -> None:
    """`--status-file -` reads standard input, as karmadactl's does; one file at most can."""
    (tmp_path / "status.yaml").write_text("clusterName: a\n---\nclusterName: b\n")
    (tmp_path / "items.ric.yaml").write_text(ITEMS_RIC)
    args = ["interpret", "-f", str(tmp_path / "items.ric.yaml"), "--operation", "AggregateStatus"]
    args += ["--desired-file", files["pool.yaml"], "-o", "json"]
    from_file = cli(*args, "--status-file", str(tmp_path / "status.yaml"))
    piped = cli(*args, "--status-file", "-", input="clusterName: a\n---\nclusterName: b\n")
    assert from_file.exit_code == piped.exit_code == 0, piped.output
    assert json.loads(piped.stdout) == json.loads(from_file.stdout)
    bad = cli(*args, "--status-file", "-", input="clusterName: a\n---\n- b\n")
    assert (bad.exit_code, bad.stderr.strip()) == (1, "-:3:1: a status item must be an object")
    both = cli(*args[:-2], "--observed-file", "-", "--status-file", "-", input="{}\n")
    assert both.exit_code == 2
    assert "only one of the files can be read from stdin (-)" in both.stderr
