"""The fields of a live object a status report keeps for `gitfleet get` (`agent.observed`).

Aspects covered:
- labels, creation time, replicas, selector, node selector, containers' names and images and a
  Service's addresses and ports are kept, in the object's own shape;
- a Job's completions and parallelism, a CronJob's schedule, suspension and its Job
  template's containers and selector, an Ingress's class, TLS and rules' hosts are kept;
- nothing else is: no data of a ConfigMap or Secret, no pod template beyond the containers'
  names and images, no Ingress paths or backends, no annotations;
- works.yaml carries them under `observed`, and they read back through `status.reports`;
  an object without any of them adds no key.
"""

from __future__ import annotations

from typing import Any

from gitfleet.agent import apply, identity, observed, report
from gitfleet.status import reports

LIVE: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {
        "name": "web",
        "namespace": "shop",
        "labels": {"app": "web"},
        "annotations": {"note": "x"},
        "creationTimestamp": "2026-01-01T00:00:00Z",
        "managedFields": [{"manager": "gitfleet"}],
    },
    "spec": {
        "replicas": 3,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {
                "nodeSelector": {"disk": "ssd"},
                "containers": [
                    {"name": "main", "image": "nginx:1", "env": [{"name": "K", "value": "v"}]}
                ],
            },
        },
    },
    "status": {"readyReplicas": 3},
}


def test_the_kept_fields_in_the_objects_shape() -> None:
    assert observed.fields(LIVE) == {
        "metadata": {"labels": {"app": "web"}, "creationTimestamp": "2026-01-01T00:00:00Z"},
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "spec": {
                    "nodeSelector": {"disk": "ssd"},
                    "containers": [{"name": "main", "image": "nginx:1"}],
                }
            },
        },
    }


def test_no_data_is_kept() -> None:
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "s", "creationTimestamp": "2026-01-01T00:00:00Z"},
        "type": "Opaque",
        "data": {"password": "c2VjcmV0"},
    }
    assert observed.fields(secret) == {"metadata": {"creationTimestamp": "2026-01-01T00:00:00Z"}}
    assert observed.fields({"kind": "ConfigMap", "data": {"k": "v"}}) == {}


def test_a_cron_jobs_job_template_and_schedule() -> None:
    cron = {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "nightly"},
        "spec": {
            "schedule": "0 3 * * *",
            "suspend": False,
            "jobTemplate": {
                "spec": {
                    "completions": 2,
                    "template": {
                        "spec": {"containers": [{"name": "run", "image": "busybox", "args": ["x"]}]}
                    },
                }
            },
        },
    }
    assert observed.fields(cron) == {
        "spec": {
            "schedule": "0 3 * * *",
            "suspend": False,
            "jobTemplate": {
                "spec": {
                    "template": {"spec": {"containers": [{"name": "run", "image": "busybox"}]}}
                }
            },
        }
    }


def test_an_ingresss_hosts_without_its_paths() -> None:
    ingress = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": "web"},
        "spec": {
            "ingressClassName": "nginx",
            "tls": [{"hosts": ["a.example"], "secretName": "tls"}],
            "rules": [
                {"host": "a.example", "http": {"paths": [{"path": "/", "pathType": "Prefix"}]}},
                {"http": {"paths": []}},
            ],
        },
    }
    assert observed.fields(ingress) == {
        "spec": {
            "ingressClassName": "nginx",
            "tls": [{"hosts": ["a.example"], "secretName": "tls"}],
            "rules": [{"host": "a.example"}, {}],
        }
    }


def _result(kept: dict[str, Any] | None) -> apply.SyncResult:
    ref = identity.ObjectRef("apps/v1", "Deployment", "shop", "web")
    return apply.SyncResult(
        cluster="m1",
        rendered_commit="r1",
        objects=(
            apply.ObjectResult(
                ref=ref, path="works/m1/shop/Deployment.apps/web.yaml",
                action=apply.Action.UNCHANGED, observed=kept,
            ),
        ),
    )  # fmt: skip


def test_the_report_carries_them_and_they_read_back() -> None:
    kept = observed.fields(LIVE)
    doc = report.works_document(_result(kept))
    assert doc["manifests"][0]["observed"] == kept
    decoded = reports.decode("m1", {reports.WORKS_FILE: report.encode(doc)})
    assert decoded.manifests[0].observed == kept


def test_nothing_kept_adds_no_key() -> None:
    for kept in (None, {}):
        doc = report.works_document(_result(kept))
        assert "observed" not in doc["manifests"][0]
        decoded = reports.decode("m1", {reports.WORKS_FILE: report.encode(doc)})
        assert decoded.manifests[0].observed is None
