"""The Kubernetes manifests that run the pull agent in a member cluster, shipped with the package:
a Namespace, a ServiceAccount, RBAC in three parts (read-only status, the inventory ConfigMap,
and what the fleet applies), a Secret for the Git credential, and a Deployment running
`gitfleet agent pull`; given the allowed signers, a ConfigMap holding them, mounted into the
Deployment and named by its `--allowed-signers`.

`render(...)` gives them as one YAML stream filled in for a cluster and a repository (what
`gitfleet agent pull --print-manifests` prints); the comments, which say why each part is
there, are kept. Names not given stay visible placeholders, so a half-filled stream is never
mistaken for a finished one. A user and password written into the repository's URL go into
the Secret, never into the Deployment: its arguments are the agent's command line, which
anyone who can read Deployments or list the node's processes sees.
"""

from __future__ import annotations

import importlib.resources
import io
from typing import Any

from ruamel.yaml import YAML, scalarstring

from gitfleet import __version__
from gitfleet.gitstore import clusterrepos, remote

FILES = ("namespace.yaml", "serviceaccount.yaml", "rbac.yaml", "secret.yaml", "deployment.yaml")
SIGNERS_FILE = "allowed-signers.yaml"
SIGNERS_DIR = "/etc/gitfleet/signers"
SIGNERS_KEY = "allowed_signers"
DEFAULT_IMAGE = f"gitfleet:{__version__}"
"""An image with git, Python and this version of gitfleet installed (docs/security.md)."""
CLUSTER_PLACEHOLDER = "CLUSTER-NAME"
REPO_PLACEHOLDER = "REPOSITORY-URL"
CLUSTER_LABEL = "gitfleet.io/cluster"


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.explicit_start = True
    yaml.indent(mapping=2, sequence=2, offset=0)
    yaml.width = 100
    return yaml


def _fill_deployment(
    doc: Any,
    *,
    cluster: str,
    repo: str,
    ref: str | None,
    image: str,
    extra: tuple[str, ...],
    signers: Any,
    metrics_port: int | None,
) -> None:
    """`signers`: the allowed signers ConfigMap to mount (None: signatures not checked);
    `metrics_port`: where the agent serves metrics and probes in the pod (None: it does not)."""
    doc["metadata"]["labels"][CLUSTER_LABEL] = cluster
    pod = doc["spec"]["template"]["spec"]
    container = pod["containers"][0]
    container["image"] = image
    args = container["args"]
    args += [f"--repo={repo}", f"--cluster={cluster}"]
    if ref:
        args.append(f"--ref={ref}")
    if signers is not None:
        name = signers["metadata"]["name"]
        args.append(f"--allowed-signers={SIGNERS_DIR}/{SIGNERS_KEY}")
        mount = {"name": "allowed-signers", "mountPath": SIGNERS_DIR, "readOnly": True}
        container["volumeMounts"].append(mount)
        pod["volumes"].append({"name": "allowed-signers", "configMap": {"name": name}})
    args += list(extra)
    if metrics_port is not None:
        args.append(f"--metrics-address=:{metrics_port}")
        container["ports"] = [{"name": "metrics", "containerPort": metrics_port}]
        container["livenessProbe"] = _probe("/healthz", period=20, failures=3)
        container["readinessProbe"] = _probe("/readyz", period=10)


def _probe(path: str, *, period: int, failures: int | None = None) -> dict[str, Any]:
    """An HTTP probe on the metrics port, as the reconciler's Deployment in deploy/ has."""
    probe: dict[str, Any] = {"httpGet": {"path": path, "port": "metrics"}, "periodSeconds": period}
    if failures is not None:
        probe["failureThreshold"] = failures
    return probe


def render(
    *,
    cluster: str | None = None,
    repo: str | None = None,
    ref: str | None = None,
    image: str = DEFAULT_IMAGE,
    extra_args: tuple[str, ...] = (),
    allowed_signers: str | None = None,
    metrics_port: int | None = None,
) -> str:
    """The manifests as one YAML stream, for `cluster` pulling from `repo` (`{cluster}` in it is
    replaced by the name); `extra_args` go to the agent's command line; `allowed_signers`, the
    text of an allowed-signers file, goes into a ConfigMap the agent checks commits with;
    `metrics_port`, the port the agent serves metrics and probes on, declared with the
    Deployment's liveness and readiness probes."""
    name = cluster or CLUSTER_PLACEHOLDER
    url = clusterrepos.cluster_url(repo or REPO_PLACEHOLDER, name)
    written = remote.credential(url)
    if written is not None:
        url = written.url
    yaml = _yaml()
    out = io.StringIO()
    folder = importlib.resources.files(__name__)

    def load(file: str) -> list[Any]:
        return list(yaml.load_all(folder.joinpath(file).read_text(encoding="utf-8")))

    signers = None
    if allowed_signers is not None:
        signers = load(SIGNERS_FILE)[0]
        signers["data"][SIGNERS_KEY] = scalarstring.LiteralScalarString(allowed_signers)
    for file in FILES:
        docs = load(file)
        for doc in docs:
            if doc.get("kind") == "Deployment":
                _fill_deployment(
                    doc,
                    cluster=name,
                    repo=url,
                    ref=ref,
                    image=image,
                    extra=extra_args,
                    signers=signers,
                    metrics_port=metrics_port,
                )
        if file == "secret.yaml" and written is not None:
            docs[0]["stringData"].update(username=written.user or "git", password=written.password)
        if file == "secret.yaml" and signers is not None:
            docs.append(signers)
        yaml.dump_all(docs, out)
    return out.getvalue()
