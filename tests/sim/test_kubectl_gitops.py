"""kubectl as a GitOps user runs it on a folder of manifests, against a simulated cluster
(skipped where kubectl is not installed); each answer is the one kube-apiserver 1.20 gives.

Covers: `delete -k` of a folder holding a Namespace and objects in it deletes them all (the
namespace stays Terminating until the namespace controller's next pass, so its objects are
still there to delete), and `create` in it is then refused with NamespaceLifecycle's words;
`apply -k` of a RuntimeClass and a CSIDriver (kinds a platform folder holds) creates them
with the server's defaults and no generation; `create token` prints a token kubectl can use
(the simulator's own), and refuses a service account that does not exist.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from simfixture import (
    Kubectl,
    RunKubectl,
    RunningSim,
    SimFactory,
    config_map,
    deployment,
    needs_kubectl,
)

pytestmark = needs_kubectl


@pytest.fixture(name="sim_cluster")
def slow_namespace_controller_fixture(make_sim_cluster: SimFactory) -> RunningSim:
    """member1, whose deleted namespaces stay Terminating for the whole test (as a real
    cluster's stay for seconds), however slowly kubectl runs."""
    return make_sim_cluster(namespace_cleanup_delay=3600)


def _folder(path: Path, *manifests: dict[str, object]) -> Path:
    """A kustomization folder holding `manifests`, one file each, in that order."""
    path.mkdir()
    names = []
    for number, manifest in enumerate(manifests):
        names.append(f"{number}.yaml")
        (path / names[-1]).write_text(yaml.safe_dump(manifest))
    (path / "kustomization.yaml").write_text(yaml.safe_dump({"resources": names}))
    return path


def _namespace(name: str) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def test_delete_k_of_a_namespace_and_its_objects(
    kubectl: Kubectl, run_kubectl: RunKubectl, tmp_path: Path
) -> None:
    folder = _folder(
        tmp_path / "team",
        _namespace("team"),
        config_map("settings", "team"),
        deployment("web", "team"),
    )
    kubectl("apply", "-k", str(folder))
    deleted = run_kubectl("delete", "-k", str(folder), "--wait=false")
    phase = kubectl("get", "namespace", "team", "-o", "jsonpath={.status.phase}")
    late = run_kubectl("create", "configmap", "late", "-n", "team", "--from-literal=a=b")
    assert (deleted.code, deleted.err) == (0, "")
    assert deleted.out.splitlines() == [
        'namespace "team" deleted',
        'configmap "settings" deleted',
        'deployment.apps "web" deleted',
    ]
    assert phase == "Terminating"
    assert late.code == 1
    assert late.err == (
        'error: failed to create configmap: configmaps "late" is forbidden: unable to create '
        "new content in namespace team because it is being terminated\n"
    )


def test_apply_of_storage_and_runtime_kinds(
    sim_cluster: RunningSim, kubectl: Kubectl, tmp_path: Path
) -> None:
    folder = _folder(
        tmp_path / "platform",
        {
            "apiVersion": "node.k8s.io/v1",
            "kind": "RuntimeClass",
            "metadata": {"name": "gvisor"},
            "handler": "runsc",
        },
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "CSIDriver",
            "metadata": {"name": "ebs.csi.example.com"},
            "spec": {"attachRequired": True},
        },
    )
    applied = kubectl("apply", "-k", str(folder))
    driver = sim_cluster.objects.get("storage.k8s.io/v1", "CSIDriver", "ebs.csi.example.com")
    assert applied.splitlines() == [
        "runtimeclass.node.k8s.io/gvisor created",
        "csidriver.storage.k8s.io/ebs.csi.example.com created",
    ]
    assert driver is not None
    assert driver["spec"] == {
        "attachRequired": True,
        "podInfoOnMount": False,
        "volumeLifecycleModes": ["Persistent"],
        "fsGroupPolicy": "ReadWriteOnceWithFSType",
    }
    assert "generation" not in driver["metadata"]


def test_create_token(sim_cluster: RunningSim, kubectl: Kubectl, run_kubectl: RunKubectl) -> None:
    kubectl("create", "serviceaccount", "deployer")
    token = kubectl("create", "token", "deployer", "--duration=10m").strip()
    used = run_kubectl("--token", token, "get", "namespace", "default", "-o", "name")
    missing = run_kubectl("create", "token", "nobody")
    assert token
    assert (used.code, used.out) == (0, "namespace/default\n")
    assert (missing.code, missing.err) == (
        1,
        'error: failed to create token: serviceaccounts "nobody" not found\n',
    )
