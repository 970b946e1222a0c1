"""What a simulated server refuses to change once an object exists, as a real one does: a
422 Invalid naming the field, and nothing stored.

Covers: a Job's pod template and completions; a Service's cluster IP; a StatefulSet's spec
beyond the fields its release lets change (1.20's words, and the newer list), while replicas
still change; a ConfigMap's data and `immutable` once it is immutable (its labels still
change); a Secret's type; a PersistentVolumeClaim's access modes; a RoleBinding's roleRef;
`kubectl apply` of a Job whose image changed exits 1 with the server's refusal; a Job created
with the selector and pod labels of the Job it replaces (another uid) is refused, one created
with its own kept.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from simfixture import (
    RunKubectl,
    RunningSim,
    SimFactory,
    claim,
    needs_kubectl,
    raw,
    service,
)

MERGE = {"Content-Type": "application/merge-patch+json"}


def _job(image: str = "busybox:1.36") -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "once", "namespace": "default"},
        "spec": {
            "template": {
                "spec": {"restartPolicy": "Never", "containers": [{"name": "once", "image": image}]}
            }
        },
    }


def _stateful_set() -> dict[str, Any]:
    labels = {"app": "db"}
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "default"},
        "spec": {
            "serviceName": "db",
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "db", "image": "postgres:16"}]},
            },
        },
    }


def _refusal(sim: RunningSim, path: str, patch: dict[str, Any]) -> tuple[int, str]:
    status, body = raw(sim, "PATCH", path, body=patch, headers=MERGE)
    return status, body.get("message", "")


@pytest.mark.parametrize(
    ("manifest", "path", "patch", "message"),
    [
        pytest.param(
            _job(),
            "/apis/batch/v1/namespaces/default/jobs/once",
            {"spec": {"template": {"spec": {"containers": [{"name": "once", "image": "x"}]}}}},
            'Job.batch "once" is invalid: spec.template: Invalid value: field is immutable',
            id="job template",
        ),
        pytest.param(
            _job(),
            "/apis/batch/v1/namespaces/default/jobs/once",
            {"spec": {"completions": 3}},
            'Job.batch "once" is invalid: spec.completions: Invalid value: 3: field is immutable',
            id="job completions",
        ),
        pytest.param(
            service("web", clusterIP="10.96.0.50"),
            "/api/v1/namespaces/default/services/web",
            {"spec": {"clusterIP": "10.96.0.77"}},
            'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: '
            '[]string{"10.96.0.77"}: may not change once set',
            id="service cluster IP",
        ),
        pytest.param(
            _stateful_set(),
            "/apis/apps/v1/namespaces/default/statefulsets/db",
            {"spec": {"serviceName": "other"}},
            'StatefulSet.apps "db" is invalid: spec: Forbidden: updates to statefulset spec for '
            "fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', "
            "'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
            id="statefulset service name",
        ),
        pytest.param(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "fixed", "namespace": "default"},
                "data": {"a": "1"},
                "immutable": True,
            },
            "/api/v1/namespaces/default/configmaps/fixed",
            {"data": {"a": "2"}, "immutable": False},
            'ConfigMap "fixed" is invalid: [immutable: Forbidden: field is immutable when '
            "`immutable` is set, data: Forbidden: field is immutable when `immutable` is set]",
            id="immutable configmap",
        ),
        pytest.param(
            {
                "apiVersion": "v1",
                "kind": "Secret",
                "metadata": {"name": "token", "namespace": "default"},
                "stringData": {"a": "b"},
            },
            "/api/v1/namespaces/default/secrets/token",
            {"type": "example.com/other"},
            'Secret "token" is invalid: type: Invalid value: "example.com/other": field is '
            "immutable",
            id="secret type",
        ),
        pytest.param(
            claim("data"),
            "/api/v1/namespaces/default/persistentvolumeclaims/data",
            {"spec": {"accessModes": ["ReadWriteMany"]}},
            'PersistentVolumeClaim "data" is invalid: spec: Forbidden: spec is immutable after '
            "creation except resources.requests for bound claims\n"
            "  core.PersistentVolumeClaimSpec{\n"
            '- \tAccessModes: []core.PersistentVolumeAccessMode{"ReadWriteMany"},\n'
            '+ \tAccessModes: []core.PersistentVolumeAccessMode{"ReadWriteOnce"},\n'
            "  \tSelector:    nil,\n"
            '  \tResources:   {Requests: {s"storage": {i: {...}, s: "1Gi", Format: "BinarySI"}}},\n'
            "  \t... // 4 identical fields\n"
            "  }\n",
            id="claim access modes",
        ),
        pytest.param(
            {
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "RoleBinding",
                "metadata": {"name": "read", "namespace": "default"},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"},
                "subjects": [{"kind": "ServiceAccount", "name": "app", "namespace": "default"}],
            },
            "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings/read",
            {"roleRef": {"kind": "ClusterRole", "name": "view"}},
            'RoleBinding.rbac.authorization.k8s.io "read" is invalid: roleRef: Invalid value: '
            'rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"view"}: '
            "cannot change roleRef",
            id="role binding roleRef",
        ),
    ],
)
def test_refused_changes(
    sim_cluster: RunningSim,
    manifest: dict[str, Any],
    path: str,
    patch: dict[str, Any],
    message: str,
) -> None:
    sim_cluster.objects.put(manifest)
    before = raw(sim_cluster, "GET", path)[1]
    status, said = _refusal(sim_cluster, path, patch)
    after = raw(sim_cluster, "GET", path)[1]
    assert (status, said) == (422, message)
    assert after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]


def test_a_1_20_server_lists_three_fields(make_sim_cluster: SimFactory) -> None:
    sim = make_sim_cluster(kubernetes_version="v1.20.2")
    sim.objects.put(_stateful_set())
    path = "/apis/apps/v1/namespaces/default/statefulsets/db"
    status, said = _refusal(sim, path, {"spec": {"serviceName": "other"}})
    assert status == 422
    assert said.endswith(
        "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', "
        "'template', and 'updateStrategy' are forbidden"
    )


def test_what_may_still_change(sim_cluster: RunningSim) -> None:
    sim_cluster.objects.put(_stateful_set())
    sim_cluster.objects.put(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "fixed", "namespace": "default"},
            "data": {"a": "1"},
            "immutable": True,
        }
    )
    scaled = _refusal(
        sim_cluster, "/apis/apps/v1/namespaces/default/statefulsets/db", {"spec": {"replicas": 2}}
    )
    labelled = _refusal(
        sim_cluster,
        "/api/v1/namespaces/default/configmaps/fixed",
        {"metadata": {"labels": {"team": "a"}}},
    )
    assert (scaled[0], labelled[0]) == (200, 200)


@needs_kubectl
def test_kubectl_apply_of_a_changed_job(run_kubectl: RunKubectl, tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(_job("busybox:1.36")))
    first = run_kubectl("apply", "-f", str(tmp_path / "job.yaml"))
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(_job("busybox:1.37")))
    second = run_kubectl("apply", "-f", str(tmp_path / "job.yaml"))
    assert first.code == 0, first.err
    assert second.code == 1
    assert second.err == (
        'The Job "once" is invalid: spec.template: Invalid value: field is immutable\n'
    )


def test_a_job_created_with_another_jobs_selector(make_sim_cluster: SimFactory) -> None:
    sim = make_sim_cluster(kubernetes_version="v1.20.2")
    path = "/apis/batch/v1/namespaces/default/jobs"
    status, first = raw(sim, "POST", path, body=_job())
    assert status == 201
    assert raw(sim, "DELETE", f"{path}/once")[0] == 200
    copied = _job()
    copied["spec"]["selector"] = first["spec"]["selector"]
    copied["spec"]["template"]["metadata"] = first["spec"]["template"]["metadata"]
    status, body = raw(sim, "POST", path, body=copied)
    assert status == 422
    assert body["message"].startswith(
        'Job.batch "once" is invalid: [spec.template.metadata.labels[controller-uid]: '
        "Invalid value: must be '"
    )
    assert body["message"].endswith(
        ", spec.selector: Invalid value: `selector` not auto-generated]"
    )
    status, fresh = raw(sim, "POST", path, body=_job())
    uid = fresh["metadata"]["uid"]
    assert status == 201
    assert fresh["spec"]["selector"] == {"matchLabels": {"controller-uid": uid}}
    assert fresh["spec"]["template"]["metadata"]["labels"] == {
        "controller-uid": uid,
        "job-name": "once",
    }
