"""Overrides of fields the template leaves to the API server's defaults work as in Karmada,
whose override manager patches the object its API server stored with Kubernetes' defaults.

Aspects covered:
- a plaintext `replace` or `remove` of a defaulted field, and an `add` under a defaulted
  parent, get the server's default for the first missing key of the path (the whole
  `strategy` of a Deployment, a container's `imagePullPolicy`, a probe's period, a volume's
  mode, a StatefulSet's claim retention, a Job's pod replacement policy, a ClientIP
  Service's affinity timeout, an env field reference's version), then apply, for
  Deployments, StatefulSets, DaemonSets, Jobs, CronJobs, Pods and Services; a
  fieldOverrider's `fieldPath` too;
- a Secret written with `stringData` is overridden as stored, its `stringData` folded into
  `data` (a plaintext or fieldOverrider `replace /data/x` finds `x`; a `/stringData` path
  fails, as in Karmada);
- nothing else is defaulted: the manifest keeps every other field as written, and a path the
  server does not default (or a kind without defaults here) still fails, with the same message;
- in a render from a real repository: an OverridePolicy replacing `imagePullPolicy` and
  removing `/spec/strategy/rollingUpdate` gives the manifest Karmada gives, and a template no
  such override touches renders byte for byte as before.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import builders
import pytest
import yaml

from gitfleet.errors import OverrideError
from tests.conftest import GitRepo, Invoke
from tests.overrides.conftest import apply_block, pointer_get, workload

Doc = dict[str, Any]

IMAGE_PULL = "/spec/template/spec/containers/0/imagePullPolicy"
FIELD_REF = {"fieldRef": {"fieldPath": "metadata.name"}}


def _plain(*ops: tuple[str, str, Any]) -> Doc:
    return {
        "plaintext": [
            {"operator": op, "path": path, **({} if value is None else {"value": value})}
            for op, path, value in ops
        ]
    }


def _service(**spec: Any) -> Doc:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"ports": [{"port": 80}], **spec},
    }


@pytest.mark.parametrize(
    ("manifest", "overriders", "pointer", "expected"),
    [
        pytest.param(
            workload("Deployment"),
            _plain(("replace", IMAGE_PULL, "Always")),
            "/spec/template/spec/containers/0",
            {"name": "c0", "image": "nginx:1.25", "imagePullPolicy": "Always"},
            id="replace a container's pull policy",
        ),
        pytest.param(
            workload("Deployment"),
            _plain(("remove", IMAGE_PULL, None)),
            "/spec/template/spec/containers/0",
            {"name": "c0", "image": "nginx:1.25"},
            id="remove a container's pull policy",
        ),
        pytest.param(
            workload("Deployment"),
            _plain(("remove", "/spec/strategy/rollingUpdate", None)),
            "/spec/strategy",
            {"type": "RollingUpdate"},
            id="remove a Deployment's rolling update",
        ),
        pytest.param(
            workload("Deployment"),
            _plain(("add", "/spec/strategy/rollingUpdate/maxSurge", 1)),
            "/spec/strategy",
            {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": "25%"}},
            id="add under a defaulted parent",
        ),
        pytest.param(
            {
                **workload("Deployment"),
                "spec": {**workload("Deployment")["spec"], "strategy": {"type": "RollingUpdate"}},
            },
            _plain(("replace", "/spec/strategy/rollingUpdate/maxUnavailable", 0)),
            "/spec/strategy",
            {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0}},
            id="a strategy written in part gets only its missing part",
        ),
        pytest.param(
            workload("Deployment"),
            _plain(("replace", "/spec/revisionHistoryLimit", 3)),
            "/spec/revisionHistoryLimit",
            3,
            id="replace a Deployment's history limit",
        ),
        pytest.param(
            workload("StatefulSet"),
            _plain(("replace", "/spec/updateStrategy/rollingUpdate/partition", 2)),
            "/spec/updateStrategy",
            {"type": "RollingUpdate", "rollingUpdate": {"partition": 2}},
            id="replace a StatefulSet's partition",
        ),
        pytest.param(
            workload("DaemonSet"),
            _plain(("replace", "/spec/updateStrategy/rollingUpdate/maxUnavailable", "10%")),
            "/spec/updateStrategy",
            {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "10%", "maxSurge": 0}},
            id="replace a DaemonSet's unavailable limit",
        ),
        pytest.param(
            workload("Job"),
            _plain(("replace", "/spec/backoffLimit", 1)),
            "/spec/backoffLimit",
            1,
            id="replace a Job's backoff limit",
        ),
        pytest.param(
            workload("CronJob"),
            _plain(("replace", "/spec/concurrencyPolicy", "Forbid")),
            "/spec/concurrencyPolicy",
            "Forbid",
            id="replace a CronJob's concurrency policy",
        ),
        pytest.param(
            workload("CronJob"),
            _plain(("remove", "/spec/jobTemplate/spec/template/spec/dnsPolicy", None)),
            "/spec/jobTemplate/spec/template/spec",
            {"containers": [{"name": "c0", "image": "nginx:1.25"}]},
            id="remove a CronJob pod's dns policy",
        ),
        pytest.param(
            workload("Deployment", {"name": "c0", "image": "a:1", "readinessProbe": {"exec": {}}}),
            _plain(("replace", "/spec/template/spec/containers/0/readinessProbe/periodSeconds", 5)),
            "/spec/template/spec/containers/0/readinessProbe",
            {"exec": {}, "periodSeconds": 5},
            id="replace a probe's period",
        ),
        pytest.param(
            {
                **workload("Deployment"),
                "spec": {
                    "template": {
                        "spec": {
                            "containers": [{"name": "c0", "image": "a:1"}],
                            "volumes": [{"name": "v", "secret": {"secretName": "s"}}],
                        }
                    }
                },
            },
            _plain(("replace", "/spec/template/spec/volumes/0/secret/defaultMode", 0o400)),
            "/spec/template/spec/volumes/0/secret",
            {"secretName": "s", "defaultMode": 0o400},
            id="replace a secret volume's mode",
        ),
        pytest.param(
            workload("Pod"),
            _plain(("replace", "/spec/terminationGracePeriodSeconds", 5)),
            "/spec/terminationGracePeriodSeconds",
            5,
            id="replace a Pod's grace period",
        ),
        pytest.param(
            _service(),
            _plain(("replace", "/spec/sessionAffinity", "ClientIP")),
            "/spec",
            {"ports": [{"port": 80}], "sessionAffinity": "ClientIP"},
            id="replace a Service's session affinity",
        ),
        pytest.param(
            _service(),
            _plain(("replace", "/spec/ports/0/protocol", "UDP")),
            "/spec/ports",
            [{"port": 80, "protocol": "UDP"}],
            id="replace a Service port's protocol",
        ),
        pytest.param(
            workload("Deployment"),
            {"fieldOverrider": [{"fieldPath": IMAGE_PULL}]},
            "/spec/template/spec/containers/0/imagePullPolicy",
            "",
            id="a fieldOverrider's fieldPath",
        ),
    ],
)
def test_defaulted_field_is_found(
    manifest: Doc, overriders: Doc, pointer: str, expected: Any
) -> None:
    result = apply_block(manifest, overriders)
    assert pointer_get(result, pointer) == expected


RETENTION = "/spec/persistentVolumeClaimRetentionPolicy"
AFFINITY = "/spec/sessionAffinityConfig"
ENV_REF = "/spec/template/spec/containers/0/env/0/valueFrom/fieldRef"
WITH_ENV = workload(
    "Deployment", {"name": "c0", "image": "a:1", "env": [{"name": "N", "valueFrom": FIELD_REF}]}
)


@pytest.mark.parametrize(
    ("manifest", "path", "value", "parent", "expected"),
    [
        pytest.param(
            workload("StatefulSet"),
            f"{RETENTION}/whenScaled",
            "Delete",
            RETENTION,
            {"whenDeleted": "Retain", "whenScaled": "Delete"},
            id="statefulset claim retention",
        ),
        pytest.param(
            workload("Job"),
            "/spec/podReplacementPolicy",
            "Failed",
            "/spec/podReplacementPolicy",
            "Failed",
            id="job pod replacement",
        ),
        pytest.param(
            _service(sessionAffinity="ClientIP"),
            f"{AFFINITY}/clientIP/timeoutSeconds",
            60,
            AFFINITY,
            {"clientIP": {"timeoutSeconds": 60}},
            id="service client ip timeout",
        ),
        pytest.param(
            _service(type="LoadBalancer"),
            "/spec/allocateLoadBalancerNodePorts",
            False,
            "/spec/allocateLoadBalancerNodePorts",
            False,
            id="load balancer node ports",
        ),
        pytest.param(
            WITH_ENV,
            f"{ENV_REF}/apiVersion",
            "v2",
            ENV_REF,
            {"fieldPath": "metadata.name", "apiVersion": "v2"},
            id="env field reference",
        ),
    ],
)
def test_current_defaults_are_found(
    manifest: Doc, path: str, value: Any, parent: str, expected: Any
) -> None:
    """Defaults a current API server sets that the table once lacked."""
    result = apply_block(manifest, _plain(("replace", path, value)))
    assert pointer_get(result, parent) == expected


def _secret(**fields: Any) -> Doc:
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "db", "namespace": "default"},
        **fields,
    }


B64_SECRET = "c2VjcmV0"  # "secret"
B64_OTHER = "b3RoZXI="  # "other"


@pytest.mark.parametrize(
    ("overriders", "expected"),
    [
        pytest.param(
            _plain(("replace", "/data/password", B64_OTHER)),
            {"password": B64_OTHER, "user": "YWRtaW4="},
            id="plaintext replace",
        ),
        pytest.param(
            {"fieldOverrider": [{"fieldPath": "/data/password"}]},
            {"password": "", "user": "YWRtaW4="},
            id="fieldOverrider path",
        ),
        pytest.param(
            _plain(("add", "/data/extra", B64_OTHER)),
            {"password": B64_SECRET, "user": "YWRtaW4=", "extra": B64_OTHER},
            id="plaintext add",
        ),
    ],
)
def test_secret_string_data_is_overridden_as_stored(overriders: Doc, expected: Doc) -> None:
    written = _secret(stringData={"password": "secret", "user": "admin"})
    result = apply_block(written, overriders)
    assert "stringData" not in result
    assert result["data"] == expected


def test_secret_string_data_path_fails_as_in_karmada() -> None:
    written = _secret(stringData={"password": "secret"})
    with pytest.raises(OverrideError, match='the document root has no field "stringData"'):
        apply_block(written, _plain(("replace", "/stringData/password", "other")))


def test_nothing_else_is_defaulted() -> None:
    manifest = workload("Deployment")
    result = apply_block(manifest, _plain(("replace", IMAGE_PULL, "Never")))
    assert result["spec"] == {
        "template": {
            "spec": {
                "containers": [{"name": "c0", "image": "nginx:1.25", "imagePullPolicy": "Never"}]
            }
        }
    }


@pytest.mark.parametrize(
    ("manifest", "path", "message"),
    [
        pytest.param(
            workload("Deployment"),
            "/spec/template/spec/containers/0/workingDir",
            '/spec/template/spec/containers/0 has no field "workingDir"',
            id="a field the server does not default",
        ),
        pytest.param(
            workload("Deployment"),
            "/spec/template/spec/containers/1/imagePullPolicy",
            '/spec/template/spec/containers has 1 items, "1" is not an index in it',
            id="a container that does not exist",
        ),
        pytest.param(
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {}},
            "/spec/replicas",
            'the document root has no field "spec"',
            id="a kind without defaults",
        ),
        pytest.param(
            {**workload("Deployment"), "apiVersion": "apps/v1beta1"},
            "/spec/revisionHistoryLimit",
            '/spec has no field "revisionHistoryLimit"',
            id="a version without defaults here",
        ),
    ],
)
def test_undefaulted_paths_still_fail(manifest: Doc, path: str, message: str) -> None:
    with pytest.raises(OverrideError, match=message):
        apply_block(manifest, _plain(("remove", path, None)))


def _override(rules: list[Doc]) -> Doc:
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "metadata": {"name": "pull", "namespace": "shop"},
        "spec": {
            "resourceSelectors": [builders.selector(name="web")],
            "overrideRules": rules,
        },
    }


UNTOUCHED = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  annotations:
    gitfleet.io/source-path: fleet.yaml
    propagationpolicy.karmada.io/name: all
    propagationpolicy.karmada.io/namespace: shop
    resourcebinding.karmada.io/name: api-deployment
    resourcebinding.karmada.io/namespace: shop
    work.karmada.io/conflict-resolution: abort
  labels:
    gitfleet.io/cluster: member1
    gitfleet.io/managed-by: gitfleet
    propagationpolicy.karmada.io/permanent-id: 711e421e-8092-5755-9fd8-5d28154ce95c
    resourcebinding.karmada.io/permanent-id: c13edb8b-c3d1-55f2-b908-f0460b3e03e0
  name: api
  namespace: shop
spec:
  replicas: 2
  selector:
    matchLabels:
      app: api
  template:
    metadata:
      labels:
        app: api
    spec:
      containers:
      - image: nginx
        name: main
        resources:
          requests:
            cpu: 100m
"""
"""`api` as the render wrote it before overrides could find defaults (no override selects it)."""


def test_render_overrides_defaulted_fields(git_repo: GitRepo, cli: Invoke, tmp_path: Path) -> None:
    ops = [
        {"operator": "replace", "path": IMAGE_PULL, "value": "Always"},
        {"operator": "remove", "path": "/spec/strategy/rollingUpdate"},
    ]
    docs = [
        builders.make_cluster("member1"),
        builders.make_object("v1", "Namespace", "shop"),
        builders.make_deployment("web", replicas=2),
        builders.make_deployment("api", replicas=2),
        builders.make_policy("all"),
        _override([{"overriders": {"plaintext": ops}}]),
    ]
    git_repo.commit({"fleet.yaml": yaml.safe_dump_all(docs, sort_keys=False)})
    out = tmp_path / "out"
    result = cli("render", "--repo", str(git_repo.path), "--out", str(out))
    assert result.exit_code == 0, result.output
    web = yaml.safe_load((out / "works/member1/shop/Deployment.apps/web.yaml").read_text())
    assert web["spec"]["strategy"] == {"type": "RollingUpdate"}
    assert web["spec"]["template"]["spec"]["containers"] == [
        {
            "name": "main",
            "image": "nginx",
            "resources": {"requests": {"cpu": "100m"}},
            "imagePullPolicy": "Always",
        }
    ]
    assert set(web["spec"]) == {"replicas", "selector", "template", "strategy"}
    api = (out / "works/member1/shop/Deployment.apps/api.yaml").read_text()
    assert api == UNTOUCHED
