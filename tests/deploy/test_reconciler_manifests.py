"""deploy/: the manifests that run `gitfleet reconcile` in a cluster.

Aspects covered:
- the kustomization lists every manifest of the folder, each a parseable object named and
  placed in the kustomization's namespace;
- the container runs `gitfleet reconcile` with arguments the command accepts (every option
  exists; they parse), each `$(VAR)` in them defined in its environment;
- the probes ask `/healthz` and `/readyz` on the port `--metrics-address` listens on, which the
  Service exposes; two replicas elect a leader through the Lease the Role lets them use;
- the git configuration makes git read the credential from the mounted Secret (a credential
  helper answering `git credential fill`);
- every object applies to an API server (server-side apply with the kubernetes client).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

import yaml
from simfixture import RunningSim

from gitfleet.cli import reconcile

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
KUSTOMIZATION = yaml.safe_load((DEPLOY / "kustomization.yaml").read_text(encoding="utf-8"))


def _objects() -> list[dict[str, Any]]:
    return [
        doc
        for name in KUSTOMIZATION["resources"]
        for doc in yaml.safe_load_all((DEPLOY / name).read_text(encoding="utf-8"))
    ]


def _one(kind: str) -> dict[str, Any]:
    (found,) = [doc for doc in _objects() if doc["kind"] == kind]
    return found


def _container() -> dict[str, Any]:
    (container,) = _one("Deployment")["spec"]["template"]["spec"]["containers"]
    return container


def test_the_kustomization_lists_every_manifest() -> None:
    files = {p.name for p in DEPLOY.glob("*.yaml")} - {"kustomization.yaml"}
    assert sorted(KUSTOMIZATION["resources"]) == sorted(files)
    for doc in _objects():
        assert doc["apiVersion"] and doc["metadata"]["name"]
        if doc["kind"] != "Namespace":
            assert doc["metadata"]["namespace"] == KUSTOMIZATION["namespace"]


def test_the_arguments_are_options_of_the_command() -> None:
    container = _container()
    assert container["command"] == ["gitfleet"]
    command, *args = container["args"]
    assert command == "reconcile"
    known = {opt for param in reconcile.reconcile.params for opt in param.opts}
    assert {arg.split("=", 1)[0] for arg in args} <= known
    defined = {env["name"] for env in container["env"]}
    assert set(re.findall(r"\$\((\w+)\)", " ".join(args))) <= defined
    context = reconcile.reconcile.make_context(
        "reconcile", [a.replace("$(GITFLEET_REPO)", "https://git.example.com/f.git") for a in args]
    )
    assert context.params["elect"] is True
    assert context.params["metrics_address"] == ("0.0.0.0", 8080)


def test_probes_and_metrics_share_the_port() -> None:
    container = _container()
    (port,) = container["ports"]
    assert (port["name"], port["containerPort"]) == ("metrics", 8080)
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "metrics"}
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "metrics"}
    service = _one("Service")["spec"]
    assert service["ports"] == [{"name": "metrics", "port": 8080, "targetPort": "metrics"}]
    labels = _one("Deployment")["spec"]["template"]["metadata"]["labels"]
    assert service["selector"].items() <= labels.items()


def test_the_role_allows_the_lease_the_replicas_elect_through() -> None:
    deployment = _one("Deployment")
    assert deployment["spec"]["replicas"] == 2
    assert "--lease-name=gitfleet-reconciler" in _container()["args"]
    env = {e["name"]: e for e in _container()["env"]}
    assert env["POD_NAMESPACE"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.namespace"
    allowed = {
        (verb, name)
        for rule in _one("Role")["rules"]
        if rule["apiGroups"] == ["coordination.k8s.io"] and rule["resources"] == ["leases"]
        for verb in rule["verbs"]
        for name in rule.get("resourceNames", ["*"])
    }
    assert {
        ("create", "*"),
        ("get", "gitfleet-reconciler"),
        ("update", "gitfleet-reconciler"),
    } <= allowed
    binding = _one("RoleBinding")
    assert (
        binding["subjects"][0]["name"]
        == deployment["spec"]["template"]["spec"]["serviceAccountName"]
    )


def test_git_reads_the_credential_from_the_secret(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "username").write_text("fleet-bot", encoding="utf-8")
    (secret / "password").write_text("t0ken", encoding="utf-8")
    text = _one("ConfigMap")["data"]["gitconfig"].replace("/etc/gitfleet/git", str(secret))
    (tmp_path / "gitconfig").write_text(text, encoding="utf-8")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": str(tmp_path / "gitconfig")}
    done = subprocess.run(
        ["git", "credential", "fill"],
        input="protocol=https\nhost=git.example.com\n\n",
        env={**env, "GIT_TERMINAL_PROMPT": "0"},
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "username=fleet-bot\npassword=t0ken\n" in done.stdout


def test_every_object_applies_to_a_server(sim_cluster: RunningSim) -> None:
    for doc in _objects():
        resource = sim_cluster.resource(doc["apiVersion"], doc["kind"])
        namespace = doc["metadata"].get("namespace")
        sim_cluster.dynamic.server_side_apply(
            resource, body=doc, name=doc["metadata"]["name"], namespace=namespace,
            field_manager="kubectl",
        )  # fmt: skip
    found = sim_cluster.objects.get(
        "apps/v1", "Deployment", "gitfleet-reconciler", "gitfleet-system"
    )
    assert found is not None
    assert found["spec"]["template"]["spec"]["containers"][0]["args"] == _container()["args"]
