"""The Kubernetes manifests that run the pull agent, and `gitfleet agent pull` on the command line.

Aspects covered:
- the manifests: a Namespace, a ServiceAccount, RBAC in three parts bound to it, a Secret for
  the Git credential, a Deployment of one replica that is never doubled (Recreate), running
  `gitfleet agent pull` unprivileged with the credential mounted read-only;
- the RBAC is least: the status role only reads, the inventory role touches one ConfigMap,
  only the apply role writes, and nothing grants escalate, bind or impersonate;
- filled in: cluster, repository (a URL per cluster), ref, image and the options given on the
  command line; placeholders stay visible when not given, and the comments are kept; a user
  and token written into the URL go into the Secret, not the Deployment's arguments;
- with `--metrics-address` and `--log-format`: the agent serves metrics on that port in the
  pod (any address), declared as the container's `metrics` port with liveness and readiness
  probes on it, and logs in that format; neither without;
- with `--allowed-signers FILE`: a ConfigMap holding the file, mounted read-only into the
  Deployment, whose agent is given `--allowed-signers` (none of it without);
- the command: `--print-manifests` (with `-o json`: one List of the same manifests), its
  conflict with `--once`, `--repo` and `--cluster` required otherwise, a bad cluster name,
  nothing rendered yet (exit 1), and a converged `--once` (exit 0) with its summary.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from agent.pull_kit import Remote, app, remote_fixture
from conftest import Invoke
from simfixture import SimFactory, make_sim_cluster_fixture

from gitfleet.agent import manifests

__all__ = ["make_sim_cluster_fixture", "remote_fixture"]


def _docs(text: str) -> dict[str, dict[str, Any]]:
    """The documents by `Kind/name`."""
    return {f"{d['kind']}/{d['metadata']['name']}": d for d in yaml.safe_load_all(text)}


def _container(docs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = docs["Deployment/gitfleet-agent"]["spec"]["template"]["spec"][
        "containers"
    ][0]
    return found


def test_the_manifests() -> None:
    docs = _docs(manifests.render(cluster="m1", repo="https://git.example/fleet.git"))
    assert sorted(docs) == [
        "ClusterRole/gitfleet-agent-apply",
        "ClusterRole/gitfleet-agent-status",
        "ClusterRoleBinding/gitfleet-agent-apply",
        "ClusterRoleBinding/gitfleet-agent-status",
        "Deployment/gitfleet-agent",
        "Namespace/gitfleet-system",
        "Role/gitfleet-agent-inventory",
        "RoleBinding/gitfleet-agent-inventory",
        "Secret/gitfleet-git-credentials",
        "ServiceAccount/gitfleet-agent",
    ]
    deployment = docs["Deployment/gitfleet-agent"]
    assert deployment["spec"]["replicas"] == 1
    assert deployment["spec"]["strategy"] == {"type": "Recreate"}
    pod = deployment["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == "gitfleet-agent"
    assert pod["securityContext"]["runAsNonRoot"] is True
    container = _container(docs)
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    mounts = {m["name"]: m for m in container["volumeMounts"]}
    assert mounts["git-credentials"]["readOnly"] is True
    credential = next(v for v in pod["volumes"] if v["name"] == "git-credentials")
    assert credential["secret"]["secretName"] == "gitfleet-git-credentials"
    assert credential["secret"]["defaultMode"] == 0o440
    for name in ("status", "apply"):
        subjects = docs[f"ClusterRoleBinding/gitfleet-agent-{name}"]["subjects"]
        assert subjects == [
            {"kind": "ServiceAccount", "name": "gitfleet-agent", "namespace": "gitfleet-system"}
        ]


def test_the_rbac_is_least() -> None:
    docs = _docs(manifests.render())
    rules = {
        name: docs[name]["rules"] for name in docs if name.split("/")[0] in ("ClusterRole", "Role")
    }
    verbs = {name: {v for rule in found for v in rule["verbs"]} for name, found in rules.items()}
    assert verbs["ClusterRole/gitfleet-agent-status"] == {"get", "list"}
    inventory = rules["Role/gitfleet-agent-inventory"]
    assert all(rule["resources"] == ["configmaps"] for rule in inventory)
    assert [r.get("resourceNames") for r in inventory if r["verbs"] != ["create"]] == [
        ["gitfleet-inventory"]
    ]
    every = set().union(*verbs.values())
    assert not every & {"escalate", "bind", "impersonate", "*"}
    assert "watch" not in every


def test_filled_in_and_placeholders() -> None:
    filled = manifests.render(
        cluster="m1",
        repo="https://git.example/fleet-{cluster}.git",
        ref="gitfleet/rendered",
        image="registry.example/gitfleet:1",
        extra_args=("--interval=10.0",),
    )
    container = _container(_docs(filled))
    assert container["image"] == "registry.example/gitfleet:1"
    assert container["args"][-4:] == [
        "--repo=https://git.example/fleet-m1.git",
        "--cluster=m1",
        "--ref=gitfleet/rendered",
        "--interval=10.0",
    ]
    assert "# What the agent may do in its cluster" in filled
    bare = _container(_docs(manifests.render()))
    assert bare["args"][-2:] == ["--repo=REPOSITORY-URL", "--cluster=CLUSTER-NAME"]
    assert bare["image"] == manifests.DEFAULT_IMAGE


@pytest.mark.parametrize(
    ("repo", "user"),
    [
        pytest.param("https://bob:t%40ken@git.example/fleet-{cluster}.git", "bob", id="user"),
        pytest.param("https://:t%40ken@git.example/fleet-{cluster}.git", "git", id="no user"),
    ],
)
def test_a_token_in_the_url_goes_into_the_secret(repo: str, user: str) -> None:
    docs = _docs(manifests.render(cluster="m1", repo=repo))
    secret = docs["Secret/gitfleet-git-credentials"]["stringData"]
    assert (secret["username"], secret["password"]) == (user, "t@ken")
    args = _container(docs)["args"]
    assert "t%40ken" not in " ".join(args) and "t@ken" not in " ".join(args)
    assert f"--repo=https://{'bob@' if user == 'bob' else ''}git.example/fleet-m1.git" in args


def test_print_manifests(cli: Invoke) -> None:
    done = cli(
        "agent", "pull", "--print-manifests", "--cluster", "m1", "--repo", "https://g/x.git",
        "--heartbeat", "30", "--image", "img:1",
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    container = _container(_docs(done.output))
    assert container["image"] == "img:1"
    assert container["args"][-3:] == ["--repo=https://g/x.git", "--cluster=m1", "--heartbeat=30.0"]
    assert "--allowed-signers" not in " ".join(container["args"])
    assert "ConfigMap/gitfleet-allowed-signers" not in _docs(done.output)
    assert "ports" not in container and "livenessProbe" not in container


def test_print_manifests_as_json(cli: Invoke) -> None:
    """`-o json`, as kubectl prints several objects: one List of the same manifests."""
    args = ["agent", "pull", "--print-manifests", "--cluster", "m1", "--repo", "https://g/x.git"]
    stream = cli(*args)
    listed = cli(*args, "-o", "json")
    assert listed.exit_code == 0, listed.output
    found = json.loads(listed.stdout)
    assert (found["apiVersion"], found["kind"]) == ("v1", "List")
    assert found["items"] == list(_docs(stream.output).values())


def test_print_manifests_with_metrics_and_json_logs(cli: Invoke) -> None:
    done = cli(
        "agent", "pull", "--print-manifests", "--cluster", "m1", "--repo", "https://g/x.git",
        "--metrics-address", "127.0.0.1:9102", "--log-format", "json",
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    container = _container(_docs(done.output))
    assert container["args"][-2:] == ["--log-format=json", "--metrics-address=:9102"]
    assert container["ports"] == [{"name": "metrics", "containerPort": 9102}]
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "metrics"}
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "metrics"}


def test_print_manifests_with_allowed_signers(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    signers = 'reconciler@fleet namespaces="git" ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKEY\n'
    (tmp_path / "allowed_signers").write_text(signers)
    monkeypatch.chdir(tmp_path)
    done = cli(
        "agent", "pull", "--print-manifests", "--cluster", "m1", "--repo", "https://g/x.git",
        "--allowed-signers", "allowed_signers",
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    docs = _docs(done.output)
    config_map = docs["ConfigMap/gitfleet-allowed-signers"]
    assert config_map["metadata"]["namespace"] == "gitfleet-system"
    assert config_map["data"] == {"allowed_signers": signers}
    pod = docs["Deployment/gitfleet-agent"]["spec"]["template"]["spec"]
    container = pod["containers"][0]
    assert "--allowed-signers=/etc/gitfleet/signers/allowed_signers" in container["args"]
    mount = {"name": "allowed-signers", "mountPath": "/etc/gitfleet/signers", "readOnly": True}
    assert mount in container["volumeMounts"]
    volume = {"name": "allowed-signers", "configMap": {"name": "gitfleet-allowed-signers"}}
    assert volume in pod["volumes"]
    assert "# The public keys whose signatures the agent accepts" in done.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(["--print-manifests", "--once"], "exclude each other", id="print and once"),
        pytest.param(["--repo", "file:///r.git"], "--cluster are required", id="no name"),
        pytest.param(
            ["--repo", "file:///r.git", "--cluster", "M_1"], "not a cluster name", id="bad name"
        ),
    ],
)
def test_usage_errors(cli: Invoke, args: list[str], message: str) -> None:
    done = cli("agent", "pull", *args)
    assert done.exit_code == 2
    assert message in done.output


def _pull_once(cli: Invoke, remote: Remote, tmp_path: Path, *extra: str) -> Any:
    return cli(
        "agent", "pull", "--repo", remote.url, "--cluster", "m1",
        "--kubeconfig", str(tmp_path / "kubeconfigs" / "m1.yaml"),
        "--cache-dir", str(tmp_path / "cache"), "--once", *extra,
    )  # fmt: skip


def test_once(cli: Invoke, remote: Remote, tmp_path: Path, make_sim_cluster: SimFactory) -> None:
    make_sim_cluster("m1")
    nothing = _pull_once(cli, remote, tmp_path)
    assert nothing.exit_code == 1
    assert "nothing to apply: refs/heads/gitfleet/works/m1 does not exist" in nothing.output
    remote.publish({"m1": app()})
    done = _pull_once(cli, remote, tmp_path, "-o", "json")
    assert done.exit_code == 0, done.output
    (row,) = json.loads(done.output)["clusters"]
    assert (row["cluster"], row["converged"], row["applied"]) == ("m1", True, 4)
    assert row["renderedCommit"] == remote.cluster_ref("m1")
