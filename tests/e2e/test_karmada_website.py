"""YAML shaped like the examples of Karmada's documentation website (troubleshooting,
multi-cluster services, workload rebalancer and installation pages), committed as a
user copies them and run through `gitfleet validate`, `render` and `explain` from inside the
repository, where an earlier gitfleet placed them differently from Karmada or answered
unhelpfully.

Aspects covered:
- an `autoscaling/v1` HorizontalPodAutoscaler is seen as `autoscaling/v2`, the version Karmada's
  detector watches: a policy selecting v2 claims it and the member gets the v2 object (its CPU
  target as a Utilization metric); a policy selecting v1 claims nothing, and validate says why
  at the selector; a v1 object with a field v1 lacks is still refused in v1's terms;
- `explain` on a Karmada kind gitfleet skips (MultiClusterService, WorkloadRebalancer) says so
  rather than call the kind unknown and suggest an unrelated one;
- a `{{ PLACEHOLDER }}` left unfilled in a copied manifest (the installation and policy engine
  pages have them) is an error naming the placeholder, at its line and column, and nothing is
  rendered; so is a tab indenting a line (the multi-cluster ingress page has one).
"""

from __future__ import annotations

import json

import pytest
import yaml
from conftest import GitRepo, Invoke

RENDERED = "gitfleet/rendered"


def _members(*resources: str) -> str:
    """member1 and member2, Ready, serving Namespaces plus `resources` ("groupVersion Kind")."""
    served = ["v1 Namespace", *resources]
    enablements = "".join(
        f"    - {{groupVersion: {gv}, resources: [{{name: {k.lower()}s, kind: {k}}}]}}\n"
        for gv, k in (r.split() for r in served)
    )
    return "---\n".join(
        "apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\n"
        f"metadata:\n  name: {name}\nspec:\n  syncMode: Push\n"
        "  # declared until its agent reports\nstatus:\n"
        '  conditions:\n    - {type: Ready, status: "True"}\n'
        f"  apiEnablements:\n{enablements}"
        for name in ("member1", "member2")
    )


# The troubleshooting page's HPA, written in autoscaling/v1 as `kubectl autoscale` makes it.
_HPA_V1 = """\
apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata:
  name: web-hpa
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: web
  minReplicas: 2
  maxReplicas: 6
  targetCPUUtilizationPercentage: 25
"""

_HPA_POLICY = """\
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: web-hpa-pp
spec:
  resourceSelectors:
    - apiVersion: autoscaling/{version}
      kind: HorizontalPodAutoscaler
      name: web-hpa
      namespace: default
  placement:
    clusterAffinity:
      clusterNames:
        - member1
"""

_HPA_WORK = "works/member1/default/HorizontalPodAutoscaler.autoscaling/web-hpa.yaml"


def _validate_hpa_selected_as(
    version: str, cli: Invoke, git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> str:
    """Commit the v1 HPA with a policy selecting it as `version`, validate from inside the
    repository (it must pass), and return what validate printed."""
    git_repo.commit(
        {
            "clusters.yaml": _members("autoscaling/v2 HorizontalPodAutoscaler"),
            "hpa.yaml": _HPA_V1 + "---\n" + _HPA_POLICY.format(version=version),
        }
    )
    monkeypatch.chdir(git_repo.path)
    validated = cli("validate")
    assert validated.exit_code == 0, validated.output
    return validated.output


def test_a_v1_hpa_selected_as_v2_lands_as_v2(
    cli: Invoke, git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert "warning" not in _validate_hpa_selected_as("v2", cli, git_repo, monkeypatch)
    rendered = cli("render")
    assert rendered.exit_code == 0, rendered.output
    manifest = yaml.safe_load(git_repo.git("show", f"{RENDERED}:{_HPA_WORK}"))
    assert manifest["apiVersion"] == "autoscaling/v2"
    assert manifest["spec"] == {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
        "minReplicas": 2,
        "maxReplicas": 6,
        "metrics": [
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 25},
                },
            }
        ],
    }
    explained = cli("explain", "hpa/web-hpa", "-o", "json")
    assert explained.exit_code == 0, explained.output
    decision = json.loads(explained.output)["decision"]
    assert (decision["outcome"], decision["claim"]["name"]) == ("applied", "web-hpa-pp")


def test_a_v1_selector_claims_no_hpa_and_validate_says_why(
    cli: Invoke, git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    output = _validate_hpa_selected_as("v1", cli, git_repo, monkeypatch)
    assert (
        "hpa.yaml:20:7: warning: PropagationPolicy default/web-hpa-pp: "
        "spec.resourceSelectors.0.apiVersion: Karmada's detector sees every "
        "HorizontalPodAutoscaler as autoscaling/v2"
    ) in output
    assert cli("render").exit_code == 0
    listed = git_repo.git("ls-tree", "-r", "--name-only", RENDERED)
    assert "HorizontalPodAutoscaler" not in listed


def test_a_v1_hpa_with_a_v2_field_is_refused_as_v1(
    cli: Invoke, git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_metrics = _HPA_V1.replace("  targetCPUUtilizationPercentage: 25\n", "  metrics: []\n")
    git_repo.commit({"clusters.yaml": _members(), "hpa.yaml": with_metrics})
    monkeypatch.chdir(git_repo.path)
    validated = cli("validate")
    assert validated.exit_code == 1
    assert (
        "hpa.yaml:12:3: error: HorizontalPodAutoscaler default/web-hpa: spec.metrics: "
        'unknown field "spec.metrics"' in validated.output
    )


_SERVICE_AND_MCS = """\
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports:
    - port: 80
---
apiVersion: networking.karmada.io/v1alpha1
kind: MultiClusterService
metadata:
  name: web
spec:
  types:
    - CrossCluster
---
apiVersion: apps.karmada.io/v1alpha1
kind: WorkloadRebalancer
metadata:
  name: rebalance
spec:
  workloads:
    - apiVersion: apps/v1
      kind: Deployment
      name: web
      namespace: default
"""


@pytest.mark.parametrize(
    ("kind", "named"),
    [
        pytest.param("MultiClusterService/web", "MultiClusterService", id="by kind"),
        pytest.param("mcs/web", "MultiClusterService", id="by short name"),
        pytest.param("workloadrebalancers/rebalance", "WorkloadRebalancer", id="by plural"),
    ],
)
def test_explain_names_a_karmada_kind_gitfleet_skips(
    cli: Invoke, git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch, kind: str, named: str
) -> None:
    git_repo.commit({"clusters.yaml": _members(), "web.yaml": _SERVICE_AND_MCS})
    monkeypatch.chdir(git_repo.path)
    result = cli("explain", kind)
    assert result.exit_code == 1
    output = result.output + result.stderr
    assert f"{named} is one of Karmada's own kinds gitfleet does not read" in output
    assert "unknown kind" not in output


_WITH_PLACEHOLDERS = """\
apiVersion: v1
kind: Service
metadata:
  name: aggregated-apiserver
spec:
  type: ExternalName
  externalName: {{EXTERNAL_NAME}}
"""


_WITH_A_TAB = _WITH_PLACEHOLDERS.replace(
    "  externalName: {{EXTERNAL_NAME}}\n", "  ports:\n\t  # http\n    - port: 80\n"
)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            _WITH_PLACEHOLDERS,
            "service.yaml:7:17: error: `{{ ... }}` is a template placeholder",
            id="a placeholder",
        ),
        pytest.param(
            _WITH_A_TAB,
            "service.yaml:8:1: error: invalid YAML: a tab, which YAML never takes as indentation",
            id="a tab",
        ),
    ],
)
def test_a_copied_manifest_left_unfinished_is_named_at_its_place(
    cli: Invoke, git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch, text: str, message: str
) -> None:
    git_repo.commit({"clusters.yaml": _members(), "service.yaml": text})
    monkeypatch.chdir(git_repo.path)
    for command in ("validate", "render"):
        result = cli(command)
        assert result.exit_code == 1
        output = result.output + result.stderr
        assert message in output
        assert "Traceback" not in output
    assert "gitfleet/rendered" not in git_repo.git("branch", "--list", "gitfleet/rendered")
