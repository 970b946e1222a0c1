"""The JSON Schemas: derived from the model, committed for editors, never drifting.

Aspects covered:
- the committed schemas/ files equal what `python -m gitfleet.validation.schemas` writes now;
- that command, as the README gives it, writes every schema into the folder named and prints
  their paths, with nothing on stderr;
- each is a valid draft 2020-12 schema with an $id (its file name), a title, a description,
  apiVersion and kind as constants, and descriptions on the fields users write;
- round trip: a realistic document of each kind decodes with the model and encodes back to
  the same document, and its schema accepts it; the schema refuses another kind's document.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
import yaml
from validation.documents import (
    CLUSTER,
    CLUSTER_OVERRIDE,
    CLUSTER_PROPAGATION,
    CUSTOMIZATION,
    OVERRIDE,
    PROPAGATION,
)

from gitfleet.model import meta, work
from gitfleet.model.origin import Origin
from gitfleet.validation import schemas

COMMITTED = Path(__file__).resolve().parents[2] / "schemas"

BINDING = """\
apiVersion: work.karmada.io/v1alpha2
kind: ResourceBinding
metadata:
  name: web-deployment
  namespace: shop
  labels:
    propagationpolicy.karmada.io/permanent-id: 7a3b1c2d-0000-4000-8000-000000000001
spec:
  resource:
    apiVersion: apps/v1
    kind: Deployment
    namespace: shop
    name: web
    uid: 0b6f6e43-0000-4000-8000-000000000002
  replicas: 3
  replicaRequirements:
    resourceRequest: {cpu: 250m, memory: 256Mi}
    nodeClaim:
      tolerations:
        - {key: dedicated, operator: Equal, value: gpu, effect: NoSchedule}
  clusters:
    - {name: member1, replicas: 2}
    - {name: member2, replicas: 1}
  placement:
    clusterAffinity:
      clusterNames: [member1, member2]
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Aggregated
  schedulerName: default-scheduler
  conflictResolution: Abort
status:
  schedulerObservedGeneration: 2
  lastScheduledTime: "2026-01-01T00:00:00Z"
  conditions:
    - type: Scheduled
      status: "True"
      reason: Success
      message: Binding has been scheduled successfully.
      lastTransitionTime: "2026-01-01T00:00:00Z"
  aggregatedStatus:
    - clusterName: member1
      applied: true
      health: Healthy
      status: {readyReplicas: 2}
"""

CLUSTER_BINDING = """\
apiVersion: work.karmada.io/v1alpha2
kind: ClusterResourceBinding
metadata:
  name: widgets.example.io-customresourcedefinition
spec:
  resource:
    apiVersion: apiextensions.k8s.io/v1
    kind: CustomResourceDefinition
    name: widgets.example.io
  clusters:
    - {name: member1}
    - {name: member2}
  requiredBy:
    - name: banner-widget
      namespace: shop
      clusters: [{name: member1}]
"""

DOCUMENTS = {
    "Cluster": CLUSTER,
    "PropagationPolicy": PROPAGATION,
    "ClusterPropagationPolicy": CLUSTER_PROPAGATION,
    "OverridePolicy": OVERRIDE,
    "ClusterOverridePolicy": CLUSTER_OVERRIDE,
    "ResourceInterpreterCustomization": CUSTOMIZATION,
    "ResourceBinding": BINDING,
    "ClusterResourceBinding": CLUSTER_BINDING,
}
KINDS = {kind.KIND: kind for kind in schemas.KINDS}


def test_committed_schemas_are_up_to_date() -> None:
    built = schemas.build()
    committed = {p.name: p.read_text(encoding="utf-8") for p in COMMITTED.glob("*.json")}
    assert sorted(committed) == sorted(built), "run: python -m gitfleet.validation.schemas"
    for name, document in built.items():
        assert committed[name] == schemas.text(document), (
            f"schemas/{name} is stale; run: python -m gitfleet.validation.schemas"
        )


def test_the_schemas_command_writes_the_folder_named_and_says_only_that(tmp_path: Path) -> None:
    target = tmp_path / "my-fleet" / "schemas"
    run = subprocess.run(
        [sys.executable, "-m", "gitfleet.validation.schemas", str(target)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert (run.returncode, run.stderr) == (0, "")
    built = schemas.build()
    assert run.stdout.splitlines() == [str(target / name) for name in built]
    for name, document in built.items():
        assert (target / name).read_text(encoding="utf-8") == schemas.text(document)


@pytest.mark.parametrize(
    ("args", "code", "stream"),
    [
        (["--help"], 0, "stdout"),
        (["-h"], 0, "stdout"),
        (["--out"], 2, "stderr"),
        (["a", "b"], 2, "stderr"),
    ],
)
def test_the_schemas_command_takes_an_option_for_no_folder(
    tmp_path: Path, args: list[str], code: int, stream: str
) -> None:
    """`--help` prints the usage; no option is taken for the folder to write (it wrote a
    folder named `--help`)."""
    run = subprocess.run(
        [sys.executable, "-m", "gitfleet.validation.schemas", *args],
        capture_output=True, text=True, cwd=tmp_path, check=False,
    )  # fmt: skip
    assert run.returncode == code
    assert (
        getattr(run, stream).strip() == "usage: python -m gitfleet.validation.schemas [DIRECTORY]"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kind", schemas.KINDS, ids=lambda k: k.KIND)
def test_schema_is_complete(kind: type[meta.ApiObject]) -> None:
    document = schemas.schema(kind)
    jsonschema.Draft202012Validator.check_schema(document)
    assert document["$id"] == schemas.file_name(kind)
    assert document["properties"]["apiVersion"]["const"] == kind.API_VERSION
    assert document["properties"]["kind"]["const"] == kind.KIND
    assert document["title"].startswith(kind.KIND) and document["description"]
    assert all(d.get("description") for d in document["$defs"].values())


def test_user_facing_fields_are_described() -> None:
    placement = schemas.schema(KINDS["PropagationPolicy"])["$defs"]["Placement"]["properties"]
    assert all(p.get("description") for p in placement.values())
    spec = schemas.schema(KINDS["Cluster"])["$defs"]["ClusterSpec"]["properties"]
    assert all(p.get("description") for p in spec.values())


def parsed(text: str) -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(text)
    return document


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_round_trip(name: str) -> None:
    document = parsed(DOCUMENTS[name])
    kind = KINDS[name]
    obj = kind.from_doc(document, Origin("x.yaml", 1, 1))
    assert obj.to_doc() == document
    errors = list(jsonschema.Draft202012Validator(schemas.schema(kind)).iter_errors(document))
    assert errors == []


def test_schema_refuses_another_kind() -> None:
    validator = jsonschema.Draft202012Validator(schemas.schema(work.ResourceBinding))
    assert not validator.is_valid(parsed(PROPAGATION))
    assert json.loads(schemas.text(schemas.schema(work.ResourceBinding)))["title"].startswith(
        "ResourceBinding"
    )
