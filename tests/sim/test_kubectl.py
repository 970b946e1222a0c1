"""kubectl against a simulated cluster, with the kubeconfig the simulator writes (skipped where
kubectl is not installed).

Covers: kubectl trusts the cluster's CA and sends its token (no Unauthorized); `get` prints
the columns a real server gives (namespaces, nodes wide, deployments, pods, configmaps, a
custom resource's printer columns); `apply --server-side` and client-side `apply` validate
against the server without `--validate=false`; metadata.generation on the kinds a real server
keeps it for (a Deployment, a custom resource), none on a ConfigMap, Service or Namespace;
`scale` and `rollout status`; `explain` of a built-in kind, of its fields at any depth, and of
a custom resource's field. `apply --server-side` after client-side `apply` takes the fields
over without conflict, then conflicts with another manager; `describe node` finds the node's
Lease; `rollout history` numbers each template and `rollout undo` takes the previous one back.
`explain` also from OpenAPI v2 (which kubectl reads in protocol buffers only); `apply -k` of a
folder holding a CustomResourceDefinition and a resource of it, as a rendered cluster folder
may: the resource is refused as a real server's kubectl refuses it (no mapping yet), not for
want of a schema, and the next apply creates it. `create --raw -f -`, whose body kubectl
streams in chunks, creates the object; a chunked body that cannot be read is a 400.
"""

from __future__ import annotations

import http.client
import json
from pathlib import Path
from typing import Any

import yaml
from simfixture import (
    GADGETS_CRD,
    Kubectl,
    RunKubectl,
    RunningSim,
    config_map,
    deployment,
    needs_kubectl,
    service,
)

pytestmark = needs_kubectl


def _header(output: str) -> list[str]:
    return output.splitlines()[0].split()


def test_get_prints_the_columns_of_a_real_server(sim_cluster: RunningSim, kubectl: Kubectl) -> None:
    sim_cluster.objects.put(deployment("web", replicas=2))
    namespaces = kubectl("get", "namespaces")
    nodes = kubectl("get", "nodes", "-o", "wide")
    deployments = kubectl("get", "deployments")
    pods = kubectl("get", "pods")
    maps = kubectl("get", "configmaps", "-n", "kube-system")
    assert _header(namespaces) == ["NAME", "STATUS", "AGE"]
    assert "default           Active" in namespaces
    assert _header(nodes) == [
        "NAME",
        "STATUS",
        "ROLES",
        "AGE",
        "VERSION",
        "INTERNAL-IP",
        "EXTERNAL-IP",
        "OS-IMAGE",
        "KERNEL-VERSION",
        "CONTAINER-RUNTIME",
    ]
    assert nodes.splitlines()[1].split()[:3] == ["member1-node-1", "Ready", "<none>"]
    assert _header(deployments) == ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]
    assert deployments.splitlines()[1].split()[:4] == ["web", "2/2", "2", "2"]
    assert _header(pods) == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    assert [line.split()[1:4] for line in pods.splitlines()[1:]] == [["1/1", "Running", "0"]] * 2
    assert _header(maps) == ["NAME", "DATA", "AGE"]


def test_apply_validates_on_the_server(
    sim_cluster: RunningSim, kubectl: Kubectl, tmp_path: Path
) -> None:
    manifest = deployment("web", replicas=2)
    del manifest["metadata"]["namespace"]
    (tmp_path / "web.yaml").write_text(yaml.safe_dump(manifest))
    (tmp_path / "api.yaml").write_text(yaml.safe_dump({**manifest, "metadata": {"name": "api"}}))
    server_side = kubectl("apply", "--server-side", "-f", "web.yaml")
    client_side = kubectl("apply", "-f", "api.yaml")
    again = kubectl("apply", "--server-side", "-f", "web.yaml")
    managers = {
        entry["manager"]
        for entry in sim_cluster.objects["apps/v1", "Deployment", "default", "web"]["metadata"][
            "managedFields"
        ]
    }
    assert server_side.strip() == "deployment.apps/web serverside-applied"
    assert client_side.strip() == "deployment.apps/api created"
    assert again.strip() == "deployment.apps/web serverside-applied"
    assert managers == {"kubectl"}


def _gadget(count: int) -> dict[str, Any]:
    return {
        "apiVersion": "example.com/v1",
        "kind": "Gadget",
        "metadata": {"name": "g", "namespace": "default"},
        "spec": {"count": count},
    }


def test_generation_only_where_a_real_server_keeps_one(
    sim_cluster: RunningSim, kubectl: Kubectl, tmp_path: Path
) -> None:
    """A ConfigMap or a Service has no metadata.generation on a real server, however often it
    changes; a Deployment or a custom resource counts its spec changes."""
    sim_cluster.objects.put(GADGETS_CRD)
    for changed in (1, 2):
        manifests = [
            config_map("m", a=str(changed)),
            service("s", port=80 + changed),
            _gadget(changed),
            deployment("web", replicas=changed),
        ]
        (tmp_path / "all.yaml").write_text(yaml.safe_dump_all(manifests))
        kubectl("apply", "-f", "all.yaml")
    listed = json.loads(kubectl("get", "-f", "all.yaml", "-o", "json"))
    generations = {o["kind"]: o["metadata"].get("generation") for o in listed["items"]}
    assert generations == {"ConfigMap": None, "Service": None, "Gadget": 2, "Deployment": 2}
    namespace = yaml.safe_load(kubectl("get", "namespace", "default", "-o", "yaml"))
    assert "generation" not in namespace["metadata"]


def test_scale_and_rollout(sim_cluster: RunningSim, kubectl: Kubectl) -> None:
    sim_cluster.objects.put(deployment("web", replicas=1))
    scaled = kubectl("scale", "deployment/web", "--replicas=3")
    rolled = kubectl("rollout", "status", "deployment/web", "--timeout=20s")
    live = sim_cluster.objects["apps/v1", "Deployment", "default", "web"]
    assert scaled.strip() == "deployment.apps/web scaled"
    assert "successfully rolled out" in rolled
    assert (live["spec"]["replicas"], live["status"]["readyReplicas"]) == (3, 3)


def test_custom_resources_get_and_explain(sim_cluster: RunningSim, kubectl: Kubectl) -> None:
    sim_cluster.objects.put(GADGETS_CRD)
    sim_cluster.objects.put(
        {
            "apiVersion": "example.com/v1",
            "kind": "Gadget",
            "metadata": {"name": "g1", "namespace": "default"},
            "spec": {"count": 2},
        }
    )
    listed = kubectl("get", "gadgets")
    field = kubectl("explain", "gadget.spec.count")
    kind = kubectl("explain", "deployment")
    assert _header(listed) == ["NAME", "COUNT", "READY", "AGE"]
    assert listed.splitlines()[1].split()[:2] == ["g1", "2"]
    assert "FIELD: count <integer>" in field
    assert "How many." in field
    assert "KIND:       Deployment" in kind
    assert "spec\t<DeploymentSpec>" in kind


def test_explain_fields_of_builtin_kinds(kubectl: Kubectl) -> None:
    replicas = kubectl("explain", "deployment.spec.replicas")
    image = kubectl("explain", "pods.spec.containers.image")
    containers = kubectl("explain", "deploy.spec.template.spec.containers")
    assert "FIELD: replicas <integer>" in replicas
    assert "Number of desired pods." in replicas
    assert "FIELD: image <string>" in image
    assert "FIELD: containers <[]Container>" in containers
    assert "name\t<string> -required-" in containers


def test_server_side_apply_after_client_side_apply(
    kubectl: Kubectl, run_kubectl: RunKubectl, tmp_path: Path
) -> None:
    """As on a real server: the first `apply --server-side` after `apply` takes the fields
    over; another manager then conflicts with `kubectl`."""
    manifest = deployment("web", replicas=1)
    (tmp_path / "one.yaml").write_text(yaml.safe_dump(manifest))
    manifest["spec"]["replicas"] = 2
    (tmp_path / "two.yaml").write_text(yaml.safe_dump(manifest))
    manifest["spec"]["replicas"] = 4
    (tmp_path / "four.yaml").write_text(yaml.safe_dump(manifest))
    kubectl("apply", "-f", "one.yaml")
    assert "serverside-applied" in kubectl("apply", "--server-side", "-f", "two.yaml")
    managers = kubectl(
        "get", "deploy", "web", "-o", "jsonpath={.metadata.managedFields[*].manager}"
    )
    assert "kubectl" in managers.split()
    conflict = run_kubectl("apply", "--server-side", "--field-manager", "other", "-f", "four.yaml")
    assert conflict.code == 1
    assert 'conflict with "kubectl": .spec.replicas' in conflict.err


def test_describe_node_finds_its_lease(kubectl: Kubectl) -> None:
    described = kubectl("describe", "node", "member1-node-1")
    assert "HolderIdentity:  member1-node-1" in described
    assert "Failed to get lease" not in described


def test_rollout_history_and_undo(sim_cluster: RunningSim, kubectl: Kubectl) -> None:
    """Each template a Deployment takes is a revision, numbered on its ReplicaSet as the
    Deployment controller numbers it; undo takes the previous one back as the newest."""
    sim_cluster.objects.put(deployment("web", replicas=1, image="app:1"))
    sim_cluster.cluster.settle()
    kubectl("set", "image", "deployment/web", "web=app:2")
    sim_cluster.cluster.settle()
    before = kubectl("rollout", "history", "deployment/web")
    kubectl("rollout", "undo", "deployment/web")
    sim_cluster.cluster.settle()
    after = kubectl("rollout", "history", "deployment/web")
    image = kubectl(
        "get", "deploy", "web", "-o", "jsonpath={.spec.template.spec.containers[0].image}"
    )
    assert [line.split()[0] for line in before.splitlines()[2:] if line.strip()] == ["1", "2"]
    assert [line.split()[0] for line in after.splitlines()[2:] if line.strip()] == ["2", "3"]
    assert image == "app:1"


def test_explain_from_openapi_v2(kubectl: Kubectl) -> None:
    kind = kubectl("explain", "deployment", "--output", "plaintext-openapiv2")
    field = kubectl("explain", "deployment.spec.replicas", "--output", "plaintext-openapiv2")
    assert "KIND:     Deployment" in kind
    assert "FIELDS:" in kind
    assert "metadata\t<Object>" in kind and "spec\t<Object>" in kind
    assert "FIELD:    replicas <integer>" in field


def test_apply_k_of_a_definition_and_its_resource(
    sim_cluster: RunningSim, run_kubectl: RunKubectl, tmp_path: Path
) -> None:
    folder = tmp_path / "works"
    folder.mkdir()
    gadget = _gadget(2)
    files = {"gadgets.yaml": GADGETS_CRD, "g.yaml": gadget, "m.yaml": config_map("m", a="1")}
    for name, manifest in files.items():
        (folder / name).write_text(yaml.safe_dump(manifest))
    (folder / "kustomization.yaml").write_text(yaml.safe_dump({"resources": sorted(files)}))
    first = run_kubectl("apply", "-k", str(folder))
    assert first.code == 1, first.out + first.err
    assert 'no matches for kind "Gadget" in version "example.com/v1"' in first.err
    assert "ensure CRDs are installed first" in first.err
    assert "error validating" not in first.err
    assert "configmap/m created" in first.out
    second = run_kubectl("apply", "-k", str(folder))
    assert second.code == 0, second.err
    assert "gadget.example.com/g created" in second.out
    assert sim_cluster.objects["example.com/v1", "Gadget", "default", "g"]["spec"] == {"count": 2}


def test_create_raw_streams_its_body_in_chunks(
    sim_cluster: RunningSim, run_kubectl: RunKubectl, kubectl: Kubectl
) -> None:
    body = json.dumps(config_map("streamed", a="1"))
    ran = run_kubectl("create", "--raw", "/api/v1/namespaces/default/configmaps", "-f", "-",
                      input=body)  # fmt: skip
    assert ran.code == 0, ran.err
    created = json.loads(ran.out)
    assert (created["metadata"]["name"], created["data"]) == ("streamed", {"a": "1"})
    got = json.loads(kubectl("get", "configmap", "streamed", "-o", "json"))
    assert got["data"] == {"a": "1"}


def test_a_chunked_body_that_cannot_be_read_is_refused(sim_cluster: RunningSim) -> None:
    cluster = sim_cluster.cluster
    connection = http.client.HTTPSConnection(
        "127.0.0.1", cluster.port, timeout=10, context=cluster.client_tls()
    )
    headers = {
        "Authorization": f"Bearer {cluster.token}",
        "Content-Type": "application/json",
        "Transfer-Encoding": "chunked",
    }
    body = b"zz\r\n{}\r\n0\r\n\r\n"
    connection.request("POST", "/api/v1/namespaces/default/configmaps", body, headers)
    assert connection.getresponse().status == 400
    connection.close()
