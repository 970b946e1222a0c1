"""YAML shaped like the snippets of Karmada's documentation (karmada.io/docs, userguide), committed
as a user would copy them (no namespace where the docs name none, several documents a file,
comments) and run through `gitfleet validate`, `render`, `explain` and `preview` as typed from
inside the repository. tests/e2e/test_karmada_samples.py covers Karmada's samples/ folder.

Aspects covered:
- a Deployment or Job written without its replica count (the documentation's partial
  templates, HPA-managed workloads) is divided as the one replica Karmada's API server stores,
  not sent whole to every cluster; a Duplicated one still goes everywhere;
- `gitfleet render --out out` typed in the repository leaves validate, explain and render
  working (the output is not read back as source), also once committed by accident;
- priority scheduling: a schedulePriority naming a PriorityClass the source lacks fails
  `validate` at the policy, as it fails the render; with the class, the binding carries it;
- failover analysis: a Cluster tainted NoExecute in a pull request shows the replicas moving
  in `preview` and `explain`, and `render` moves them, keeping the old copy while it evicts;
- propagate dependencies: two workloads whose policies disagree on conflictResolution and
  preserveResourcesOnDeletion share a ConfigMap: Overwrite and true win, with a warning as
  Karmada's event; explain says where the dependency goes; Abort alone is warned as not
  honoured;
- namespace management: a Namespace a ClusterPropagationPolicy places still goes everywhere,
  with a warning, until labelled skip-auto-propagation;
- lazy activation: a Lazy policy committed after its template propagates nothing, and says so
  in explain, until the template is next edited; its edits then wait for the next one.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from conftest import GitRepo, Invoke

RENDERED = "gitfleet/rendered"


def _cluster(name: str, *, extra_spec: str = "") -> str:
    return f"""\
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata:
  name: {name}
spec:
  syncMode: Push
{extra_spec}status:
  conditions:
    - {{type: Ready, status: "True", reason: ClusterReady}}
  apiEnablements:
    - groupVersion: v1
      resources:
        - {{name: namespaces, kind: Namespace}}
        - {{name: configmaps, kind: ConfigMap}}
    - groupVersion: apps/v1
      resources:
        - {{name: deployments, kind: Deployment}}
    - groupVersion: batch/v1
      resources:
        - {{name: jobs, kind: Job}}
"""


def _clusters(*names: str) -> str:
    return "---\n".join(_cluster(n) for n in names)


def _in_repo(git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(git_repo.path)


def _render(cli: Invoke) -> dict[str, Any]:
    result = cli("render", "-o", "json")
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.output)
    return report


def _show(git_repo: GitRepo, path: str) -> Any:
    return yaml.safe_load(git_repo.git("show", f"{RENDERED}:{path}"))


def _placed(git_repo: GitRepo, binding: str) -> dict[str, int | None]:
    found = _show(git_repo, f"bindings/{binding}")
    return {c["name"]: c.get("replicas") for c in found["spec"].get("clusters") or []}


def _works(git_repo: GitRepo) -> set[str]:
    listed = git_repo.git("ls-tree", "-r", "--name-only", RENDERED, "works")
    return {p for p in listed.splitlines() if not p.endswith("kustomization.yaml")}


# The userguide's nginx: its policies select `nginx` by name, in the policy's namespace.
_NGINX_WITHOUT_REPLICAS = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx
  labels:
    app: nginx
spec:
  # replicas left to the API server (or to an HPA)
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - image: nginx
        name: nginx
"""

_WEIGHTED = """\
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: nginx-propagation
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
      name: nginx
  placement:
    clusterAffinity:
      clusterNames:
        - member1
        - member2
    replicaScheduling:
      replicaDivisionPreference: Weighted
      replicaSchedulingType: Divided
"""

_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: pi
spec:
  completions: 5
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: pi
        image: perl
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: pi
spec:
  resourceSelectors:
    - apiVersion: batch/v1
      kind: Job
  placement:
    clusterAffinity:
      clusterNames: [member1, member2]
    replicaScheduling:
      replicaSchedulingType: Divided
"""


def test_a_deployment_without_replicas_is_divided_as_the_one_the_api_server_stores(
    cli: Invoke, git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    git_repo.commit(
        {
            "clusters.yaml": _clusters("member1", "member2"),
            "nginx.yaml": _NGINX_WITHOUT_REPLICAS,
            "policy.yaml": _WEIGHTED,
        }
    )
    _in_repo(git_repo, monkeypatch)
    _render(cli)
    binding = _show(git_repo, "bindings/default/Deployment.apps/nginx.yaml")
    assert binding["spec"]["replicas"] == 1
    assert _placed(git_repo, "default/Deployment.apps/nginx.yaml") == {"member1": 1}
    manifest = _show(git_repo, "works/member1/default/Deployment.apps/nginx.yaml")
    assert "replicas" not in manifest["spec"]
    assert _works(git_repo) == {"works/member1/default/Deployment.apps/nginx.yaml"}


def test_a_duplicated_deployment_without_replicas_still_goes_everywhere(
    cli: Invoke, git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    duplicated = _WEIGHTED.replace(
        "      replicaDivisionPreference: Weighted\n      replicaSchedulingType: Divided\n",
        "      replicaSchedulingType: Duplicated\n",
    )
    git_repo.commit(
        {
            "clusters.yaml": _clusters("member1", "member2"),
            "nginx.yaml": _NGINX_WITHOUT_REPLICAS,
            "policy.yaml": duplicated,
        }
    )
    _in_repo(git_repo, monkeypatch)
    _render(cli)
    assert _placed(git_repo, "default/Deployment.apps/nginx.yaml") == {"member1": 1, "member2": 1}


def test_a_job_without_parallelism_runs_its_completions_in_one_cluster(
    cli: Invoke, git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    git_repo.commit({"clusters.yaml": _clusters("member1", "member2"), "job.yaml": _JOB})
    _in_repo(git_repo, monkeypatch)
    _render(cli)
    assert _placed(git_repo, "default/Job.batch/pi.yaml") == {"member1": 1}
    manifest = _show(git_repo, "works/member1/default/Job.batch/pi.yaml")
    assert manifest["spec"]["completions"] == 5
    assert "parallelism" not in manifest["spec"]
    assert _works(git_repo) == {"works/member1/default/Job.batch/pi.yaml"}


# samples/nginx as the getting-started guide has users apply it, divided 1/1 by static weights.
_NGINX = _NGINX_WITHOUT_REPLICAS.replace(
    "  # replicas left to the API server (or to an HPA)\n", "  replicas: 2\n"
)
_STATIC_WEIGHTS = (
    _WEIGHTED
    + """\
      weightPreference:
        staticWeightList:
          - targetCluster:
              clusterNames:
                - member1
            weight: 1
          - targetCluster:
              clusterNames:
                - member2
            weight: 1
"""
)


def test_render_out_inside_the_repository_is_not_read_back_as_source(
    cli: Invoke, git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`gitfleet render --out out`, then `validate`, `explain` and `render` again, all typed
    in the repository: the rendered copies are not second definitions of the templates."""
    git_repo.commit(
        {
            "clusters.yaml": _clusters("member1", "member2"),
            "deployment.yaml": _NGINX,
            "propagationpolicy.yaml": _STATIC_WEIGHTS,
        }
    )
    _in_repo(git_repo, monkeypatch)
    first = cli("render", "--out", "out")
    assert first.exit_code == 0, first.output
    assert (git_repo.path / "out" / "render.yaml").is_file()
    validated = cli("validate")
    assert validated.exit_code == 0, validated.output
    assert validated.output == "checked the working tree of . (uncommitted changes included)\n"
    explained = cli("explain", "deployment/nginx")
    assert explained.exit_code == 0, explained.output
    assert "clusters: member1=1, member2=1" in explained.output
    again = cli("render", "--out", "out")
    assert again.exit_code == 0, again.output
    git_repo.commit({}, "out/ committed by accident")
    assert cli("render").exit_code == 0
    assert _placed(git_repo, "default/Deployment.apps/nginx.yaml") == {"member1": 1, "member2": 1}


# userguide/scheduling/priority-scheduling: the policy, then `kubectl create deployment`.
_CRITICAL = """\
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: critical-app-policy
  namespace: default
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
      name: critical-nginx                  # The name of the workload to propagate
  schedulePriority:
    priorityClassSource: KubePriorityClass
    priorityClassName: high-priority-example      # Reference to the PriorityClass defined above
  placement:
    clusterAffinity:
      clusterNames:
        - member1
        - member2
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: critical-nginx
  labels:
    app: critical-nginx
spec:
  replicas: 1
  selector:
    matchLabels:
      app: critical-nginx
  template:
    metadata:
      labels:
        app: critical-nginx
    spec:
      containers:
      - image: nginx
        name: nginx
"""
_HIGH_PRIORITY = """\
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: high-priority-example
value: 1000000
"""


def test_a_schedule_priority_without_its_priority_class_fails_validate_not_just_render(
    cli: Invoke, git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    git_repo.commit({"clusters.yaml": _clusters("member1", "member2"), "app.yaml": _CRITICAL})
    _in_repo(git_repo, monkeypatch)
    message = (
        "app.yaml:13:5: error: PropagationPolicy default/critical-app-policy: "
        "spec.schedulePriority.priorityClassName: no PriorityClass named "
        "'high-priority-example' in the source (scheduling.k8s.io/v1, with an integer value): "
        "the templates the policy claims get no binding\n"
    )
    validated = cli("validate")
    assert validated.exit_code == 1
    assert validated.output.startswith(message)
    rendered = cli("render")
    assert rendered.exit_code == 1
    assert rendered.output.startswith(message)
    git_repo.commit({"priorityclass.yaml": _HIGH_PRIORITY})
    assert cli("validate").exit_code == 0
    _render(cli)
    binding = _show(git_repo, "bindings/default/Deployment.apps/critical-nginx.yaml")
    assert binding["spec"]["schedulePriority"] == {"priority": 1000000}


# userguide/failover/failover-analysis, "Divided schedule type": 3 replicas weighted 1:2, then
# member1 fails (here: tainted NoExecute in its Cluster file, as `karmadactl taint` would).
_FAILOVER_ANALYSIS = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx
  labels:
    app: nginx
spec:
  replicas: 3
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - image: nginx
        name: nginx
---
""" + _STATIC_WEIGHTS.replace("            weight: 1\n", "            weight: 2\n").replace(
    "            weight: 2\n", "            weight: 1\n", 1
)
_TAINTED = "  taints:\n    - key: maintenance\n      value: disk\n      effect: NoExecute\n"


def test_a_cluster_tainted_no_execute_in_a_pull_request_previews_the_move(
    cli: Invoke, git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = git_repo.commit(
        {"clusters.yaml": _clusters("member1", "member2"), "nginx.yaml": _FAILOVER_ANALYSIS}
    )
    _in_repo(git_repo, monkeypatch)
    _render(cli)
    assert _placed(git_repo, "default/Deployment.apps/nginx.yaml") == {"member1": 1, "member2": 2}
    tainted = _cluster("member1", extra_spec=_TAINTED) + "---\n" + _cluster("member2")
    head = git_repo.commit({"clusters.yaml": tainted}, "member1 goes down for maintenance")
    preview = cli("preview", "--base", base, "--head", head)
    assert preview.exit_code == 0, preview.output
    assert "| Deployment default/nginx | removed member1 | member1 1 → 0, member2 2 → 3 |" in (
        preview.output
    )
    explained = cli("explain", "deployment/nginx")
    assert "member1: TaintToleration: cluster(s) had untolerated taint" in explained.output
    _render(cli)
    assert _placed(git_repo, "default/Deployment.apps/nginx.yaml") == {"member2": 3}
    report = _show(git_repo, "render.yaml")
    (evicting,) = report["failover"]["evicting"]
    assert (evicting["cluster"], evicting["resource"]) == ("member1", "Deployment default/nginx")
    assert "works/member1/default/Deployment.apps/nginx.yaml" in _works(git_repo)


# userguide/scheduling/propagate-dependencies, "Handling Policy Conflicts": two Deployments
# share a ConfigMap; their policies disagree.
def _app(name: str) -> str:
    return f"""\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  namespace: default
spec:
  replicas: 2
  selector:
    matchLabels:
      app: {name}
  template:
    metadata:
      labels:
        app: {name}
    spec:
      containers:
        - image: nginx
          name: nginx
          volumeMounts:
            - name: configmap
              mountPath: "/configmap"
      volumes:
        - name: configmap
          configMap:
            name: shared-config
"""


def _app_policy(name: str, conflict: str, preserve: str) -> str:
    return f"""\
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: {name}-policy
  namespace: default
spec:
  conflictResolution: {conflict}
  preserveResourcesOnDeletion: {preserve}
  propagateDeps: true
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
      name: {name}
  placement:
    clusterAffinity:
      clusterNames:
        - member1
        - member2
"""


_SHARED_CONFIG = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: shared-config
  namespace: default
data:
  app.properties: |
    proxy-connect-timeout: "10s"
"""


def test_dependency_policy_conflict_is_resolved_and_warned_as_in_karmada(
    cli: Invoke, git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    git_repo.commit(
        {
            "clusters.yaml": _clusters("member1", "member2"),
            "resources.yaml": "---\n".join((_SHARED_CONFIG, _app("app-a"), _app("app-b"))),
            "policies.yaml": _app_policy("app-a", "Overwrite", "true")
            + "---\n"
            + _app_policy("app-b", "Abort", "false"),
        }
    )
    _in_repo(git_repo, monkeypatch)
    validated = cli("validate")
    assert validated.exit_code == 0
    assert validated.output == "checked the working tree of . (uncommitted changes included)\n"
    report = _render(cli)
    conflict = (
        "ConfigMap default/shared-config: dependency policy conflict detected: "
        "ConflictResolution conflicted (Overwrite vs Abort); PreserveResourcesOnDeletion "
        "conflicted (true vs false), between the policies of Deployment default/app-a, "
        "Deployment default/app-b, which need it; Overwrite and true win, as in Karmada "
        "(DependencyPolicyConflict)"
    )
    assert conflict in [d["message"] for d in report["diagnostics"]]
    attached = _show(git_repo, "bindings/default/ConfigMap.core/shared-config.yaml")["spec"]
    assert (attached["conflictResolution"], attached["preserveResourcesOnDeletion"]) == (
        "Overwrite",
        True,
    )
    manifest = _show(git_repo, "works/member2/default/ConfigMap.core/shared-config.yaml")
    assert manifest["metadata"]["annotations"]["work.karmada.io/conflict-resolution"] == (
        "overwrite"
    )
    explained = cli("explain", "configmap/shared-config")
    assert explained.exit_code == 0, explained.output
    assert explained.output.splitlines()[1] == (
        "outcome: dependency: sent with the workloads that need it (propagateDeps) to member1, "
        "member2; no policy of its own: no PropagationPolicy in namespace default and no "
        "ClusterPropagationPolicy selects it"
    )


# userguide/bestpractices/namespace-management, option C example 2: one namespace to member1.
_EXAMPLE_NAMESPACE = """\
apiVersion: v1
kind: Namespace
metadata:
  name: example
---
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterPropagationPolicy
metadata:
  name: propagate-example-ns
spec:
  resourceSelectors:
    - apiVersion: v1
      kind: Namespace
      name: example
  placement:
    clusterAffinity:
      clusterNames:
        - member1
"""
_SKIP = '  labels:\n    namespace.karmada.io/skip-auto-propagation: "true"\n'


def test_a_namespace_placed_by_a_policy_is_synced_everywhere_unless_labelled(
    cli: Invoke, git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    git_repo.commit(
        {"clusters.yaml": _clusters("member1", "member2"), "ns.yaml": _EXAMPLE_NAMESPACE}
    )
    _in_repo(git_repo, monkeypatch)
    report = _render(cli)
    (warning,) = report["diagnostics"]
    assert (warning["path"], warning["line"], warning["severity"]) == ("ns.yaml", 1, "warning")
    assert "the namespace controller sends it to every cluster all the same" in warning["message"]
    namespace = "_cluster/Namespace.core/example.yaml"
    assert _works(git_repo) == {f"works/member1/{namespace}", f"works/member2/{namespace}"}
    labelled = _EXAMPLE_NAMESPACE.replace("  name: example\n", "  name: example\n" + _SKIP, 1)
    git_repo.commit({"ns.yaml": labelled})
    assert _render(cli)["diagnostics"] == []
    # Karmada's namespace controller leaves the Works it made alone once the label is there.
    assert _works(git_repo) == {f"works/member1/{namespace}", f"works/member2/{namespace}"}
    git_repo.commit({"ns.yaml": ""})
    _render(cli)
    git_repo.commit({"ns.yaml": labelled})
    assert _render(cli)["diagnostics"] == []
    assert _works(git_repo) == {f"works/member1/{namespace}"}


def test_a_lazy_policy_reaches_an_existing_template_at_its_next_edit(
    cli: Invoke, git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    nginx = _NGINX_WITHOUT_REPLICAS.replace("spec:\n", "spec:\n  replicas: 2\n", 1)
    git_repo.commit({"clusters.yaml": _clusters("member1", "member2"), "nginx.yaml": nginx})
    _in_repo(git_repo, monkeypatch)
    _render(cli)
    lazy = _WEIGHTED.replace("spec:\n", "spec:\n  activationPreference: Lazy\n", 1)
    git_repo.commit({"policy.yaml": lazy})
    _render(cli)
    assert _works(git_repo) == set()
    explained = cli("explain", "deployment", "nginx")
    assert (
        "outcome: lazy: PropagationPolicy default/nginx-propagation activates lazily: it "
        "claims the template and builds no binding until the template changes" in explained.output
    )
    git_repo.commit({"nginx.yaml": nginx.replace("replicas: 2", "replicas: 4")})
    _render(cli)
    assert _placed(git_repo, "default/Deployment.apps/nginx.yaml") == {
        "member1": 2,
        "member2": 2,
    }
    duplicated = lazy.replace("Divided", "Duplicated")
    git_repo.commit({"policy.yaml": duplicated})
    _render(cli)
    assert _placed(git_repo, "default/Deployment.apps/nginx.yaml") == {
        "member1": 2,
        "member2": 2,
    }, "a Lazy policy's edit waits for the template's next edit"
