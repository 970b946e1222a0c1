"""The committed JSON Schemas flag what `gitfleet validate` flags, at the same field, so an
editor using schemas/ shows the errors validate prints.

Aspects covered: each invalid case (taint effect `Sometimes`, commandOverrider `replace`,
`weight: 0`, `resourceSelectors: []`, cluster name `Member_3`, negative group counts, cluster
failover `purgeMode: Never`, `gracePeriodSeconds: 0`, a negative grade, integers past int64,
above and below, as integers and as floats, also where a rule sets its own minimum) is refused
by the schema of its kind and by `gitfleet validate` (exit 1) at the same field, and the
message validate prints is the one the schema's rule gives (`rules.Rule.from_schema`; for the
int64 bounds every integer field's schema carries, the decoder's "does not fit in a 64-bit
integer"); the valid documents pass both.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
import yaml
from conftest import Invoke
from validation.documents import FLEET, variant

from gitfleet.model import rules
from gitfleet.validation import schemas

COMMITTED = Path(__file__).resolve().parents[2] / "schemas"
CLUSTER, WEB, OVERRIDE = "clusters/member1.yaml", "policies/web.yaml", "policies/web-override.yaml"


def _weight(value: str, name: str) -> Any:
    """The case of policies/web.yaml's first static weight set to `value`."""
    return pytest.param(
        WEB, "            weight: 2", f"            weight: {value}",
        "spec.placement.replicaScheduling.weightPreference.staticWeightList.0.weight", id=name,
    )  # fmt: skip


INVALID = [
    pytest.param(
        CLUSTER, "effect: NoSchedule", "effect: Sometimes", "spec.taints.0.effect",
        id="taint effect Sometimes",
    ),
    pytest.param(
        OVERRIDE, "{containerName: web, operator: add", "{containerName: web, operator: replace",
        "spec.overrideRules.0.overriders.argsOverrider.0.operator",
        id="args operator replace",
    ),
    _weight("0", "weight 0"),
    pytest.param(
        "policies/crds.yaml",
        "  resourceSelectors:\n    - apiVersion: apiextensions.k8s.io/v1\n"
        "      kind: CustomResourceDefinition\n",
        "  resourceSelectors: []\n", "spec.resourceSelectors", id="no resource selectors",
    ),
    pytest.param(
        CLUSTER, "  name: member1\n", "  name: Member_3\n", "metadata.name",
        id="cluster name Member_3",
    ),
    pytest.param(
        CLUSTER, "  name: member1\n", "  name: " + "m" * 49 + "\n", "metadata.name",
        id="cluster name of 49 characters",
    ),
    pytest.param(
        WEB, "maxGroups: 2, minGroups: 1", "maxGroups: 2, minGroups: -1",
        "spec.placement.spreadConstraints.0.minGroups", id="negative minGroups",
    ),
    pytest.param(
        WEB, "  propagateDeps: true\n",
        "  propagateDeps: true\n  failover:\n    cluster: {purgeMode: Never}\n",
        "spec.failover.cluster.purgeMode", id="cluster failover purgeMode Never",
    ),
    pytest.param(
        WEB, "  propagateDeps: true\n",
        "  propagateDeps: true\n  failover:\n    application:\n"
        "      decisionConditions: {}\n      gracePeriodSeconds: 0\n",
        "spec.failover.application.gracePeriodSeconds", id="gracePeriodSeconds 0",
    ),
    pytest.param(
        CLUSTER, "    - grade: 0\n", "    - grade: -1\n", "spec.resourceModels.0.grade",
        id="negative grade",
    ),
    _weight("9223372036854775808", "weight one past int64"),
    _weight("-1.0e+19", "weight below int64 and below its minimum"),
    pytest.param(
        CLUSTER, "  kubernetesVersion: v1.31.0\n",
        "  kubernetesVersion: v1.31.0\n  nodeSummary: {totalNum: -1.0e+19}\n",
        "status.nodeSummary.totalNum", id="float below int64",
    ),
]  # fmt: skip
INT64 = 2**63


def _past_int64(error: jsonschema.ValidationError) -> str | None:
    """The message of the int64 bounds every integer field's schema carries, when broken."""
    bound = error.validator in ("minimum", "maximum")
    if bound and not -INT64 <= error.instance < INT64:
        return f"{error.instance} does not fit in a 64-bit integer"
    return None


def _schema_errors(text: str) -> dict[str, str | None]:
    """{dotted field path: the message of the rule broken there} for what the committed schema
    refuses in each document of `text`."""
    found = {}
    for document in yaml.safe_load_all(text):
        kind = next(k for k in schemas.KINDS if document["kind"] == k.KIND)
        schema = json.loads((COMMITTED / schemas.file_name(kind)).read_text())
        for error in jsonschema.Draft202012Validator(schema).iter_errors(document):
            rule = rules.Rule.from_schema(error.schema)
            problem = _past_int64(error) or rule.problem(error.instance)
            found[".".join(str(k) for k in error.absolute_path)] = problem
    return found


def _validate(
    cli: Invoke, where: Path, files: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, list[dict[str, Any]]]:
    """`gitfleet validate --repo source -o json` run from `where`, with `files` in source/."""
    for rel, text in files.items():
        (where / "source" / rel).parent.mkdir(parents=True, exist_ok=True)
        (where / "source" / rel).write_text(text, encoding="utf-8")
    monkeypatch.chdir(where)
    result = cli("validate", "--repo", "source", "-o", "json")
    problems = json.loads(result.stdout)
    return result.exit_code, [p for p in problems if p["severity"] == "error"]


@pytest.mark.parametrize(("path", "old", "new", "field"), INVALID)
def test_schema_and_validate_refuse_the_same_field(
    cli: Invoke,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    path: str,
    old: str,
    new: str,
    field: str,
) -> None:
    files = variant(path, old, new)
    flagged = _schema_errors(files[path])
    assert list(flagged) == [field]
    assert flagged[field] is not None
    code, errors = _validate(cli, tmp_path, files, monkeypatch)
    assert code == 1
    assert [(e["path"], e["message"].partition(": ")[2]) for e in errors] == [
        (f"source/{path}", f"{field}: {flagged[field]}")
    ]


def test_valid_documents_pass_both(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    karmada = [p for p in FLEET if p.startswith(("clusters/", "policies/", "interpreter/"))]
    assert {p: _schema_errors(FLEET[p]) for p in karmada} == {p: {} for p in karmada}
    assert _validate(cli, tmp_path, FLEET, monkeypatch) == (0, [])
