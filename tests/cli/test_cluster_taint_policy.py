"""ClusterTaintPolicy as users meet it: Karmada's YAML in the source, agents reporting their
clusters' Ready condition, `gitfleet render` and `gitfleet validate` typed from another folder.

Aspects: a cluster whose agent reports it not Ready gets the policy's NoSchedule taint, so a
workload that does not tolerate it is not placed there, and render.yaml records the taint with
when it was added; the taint keeps its date over renders while the cluster stays not Ready and
goes when it is Ready again (the workload then reaches it); a NoExecute taint is refused unless
gitfleet.yaml allows it, and a policy without taints, a taint key that is no label key, an
effect a Cluster refuses or a duplicate taint is refused, an unknown operator warned, each at
its file and line;
the reconciler taints a cluster failover judged not Ready and, with no new source commit,
renders again when its agent reports it Ready, which removes the taint.
"""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

import pytest
import yaml
from builders import make_cluster, make_deployment, make_policy, selector
from conftest import GitRepo, Invoke
from status import status_kit

from gitfleet.agent import report
from gitfleet.model import cluster, meta

POLICY = """\
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterTaintPolicy
metadata:
  name: detect-cluster-notready
spec:
  addOnConditions:
    - conditionType: Ready
      operator: NotIn
      statusValues:
        - "True"
  removeOnConditions:
    - conditionType: Ready
      operator: In
      statusValues:
        - "True"
  taints:
    - key: cluster.example.io/not-ready
      effect: {effect}
"""
TAINT = "cluster.example.io/not-ready"


def _cluster(name: str, ready: str) -> dict[str, object]:
    doc = make_cluster(name)
    doc["status"]["conditions"][0]["status"] = ready
    return doc


def _source(*apps: str, effect: str = "NoSchedule", west: str = "True") -> dict[str, str]:
    """The fleet east and west (whose declared Ready is `west`), `apps` duplicated to both, and
    the ClusterTaintPolicy with a taint of `effect`."""
    placement = {"clusterAffinity": {"clusterNames": ["east", "west"]}}
    docs = {
        "clusters.yaml": [_cluster("east", "True"), _cluster("west", west)],
        **{
            f"apps/{name}.yaml": [
                make_deployment(name, replicas=2),
                make_policy(name, selector(name=name), placement=placement),
            ]
            for name in apps
        },
    }
    files = {rel: yaml.safe_dump_all(d, sort_keys=False) for rel, d in docs.items()}
    files["taints.yaml"] = POLICY.format(effect=effect)
    return files


def _report(repo: GitRepo, **ready: str) -> None:
    status_kit.write_reports(
        repo.path,
        {
            n: status_kit.report_files(n, status=status_kit.ready_status(s))
            for n, s in ready.items()
        },
    )


def _deployments(repo: GitRepo, cluster: str) -> set[str]:
    folder = f"works/{cluster}/shop/Deployment.apps/"
    listed = repo.git("ls-tree", "-r", "--name-only", "gitfleet/rendered", folder)
    return {p.removeprefix(folder).removesuffix(".yaml") for p in listed.split()}


def _render_file(repo: GitRepo) -> dict[str, object]:
    found = yaml.safe_load(repo.git("show", "gitfleet/rendered:render.yaml"))
    assert isinstance(found, dict)
    return found


def test_a_cluster_reported_not_ready_is_tainted_until_it_is_ready_again(
    cli: Invoke, git_repo: GitRepo, elsewhere: Path
) -> None:
    git_repo.commit(_source("web"))
    _report(git_repo, east="True", west="False")
    result = cli("render", "--repo", "../source")
    assert result.exit_code == 0, result.output
    assert _deployments(git_repo, "east") == {"web"}
    assert _deployments(git_repo, "west") == set(), "west is tainted NoSchedule"
    (taint,) = _render_file(git_repo)["clusterTaints"]["west"]
    assert (taint["key"], taint["effect"]) == (TAINT, "NoSchedule")
    added = taint["timeAdded"]
    assert "east" not in _render_file(git_repo)["clusterTaints"]

    git_repo.commit(_source("web", "api"))
    assert cli("render", "--repo", "../source").exit_code == 0
    assert _deployments(git_repo, "west") == set()
    (kept,) = _render_file(git_repo)["clusterTaints"]["west"]
    assert kept["timeAdded"] == added, "a taint keeps the time it was added"

    _report(git_repo, east="True", west="True")
    git_repo.commit(_source("web", "api", "db"))
    data = json.loads(cli("render", "--repo", "../source", "-o", "json").output)
    assert data["created"] is True
    assert "clusterTaints" not in _render_file(git_repo)
    assert _deployments(git_repo, "west") == {"web", "api", "db"}


def test_render_full_gives_the_same_tree_with_policy_taints(
    cli: Invoke, git_repo: GitRepo, elsewhere: Path
) -> None:
    git_repo.commit(_source("web"))
    _report(git_repo, east="True", west="False")
    assert cli("render", "--repo", "../source").exit_code == 0
    git_repo.commit(_source("web", "api"))
    assert cli("render", "--repo", "../source").exit_code == 0
    tree = git_repo.git("rev-parse", "gitfleet/rendered^{tree}")
    assert cli("render", "--repo", "../source", "--full").exit_code == 0
    assert git_repo.git("rev-parse", "gitfleet/rendered^{tree}") == tree


def test_validate_refuses_a_no_execute_taint_unless_allowed(
    cli: Invoke, git_repo: GitRepo, elsewhere: Path
) -> None:
    git_repo.commit(_source("web", effect="NoExecute"))
    refused = cli("validate", "--repo", "../source")
    assert refused.exit_code == 1
    assert (
        "../source/taints.yaml:18:7: error: ClusterTaintPolicy detect-cluster-notready:"
        in refused.output
    )
    assert "allowNoExecuteTaintPolicy" in refused.output
    git_repo.commit({"gitfleet.yaml": "failover:\n  allowNoExecuteTaintPolicy: true\n"})
    allowed = cli("validate", "--repo", "../source")
    assert allowed.exit_code == 0, allowed.output
    assert "not read by gitfleet" not in allowed.output


def test_validate_refuses_a_policy_without_taints(
    cli: Invoke, git_repo: GitRepo, elsewhere: Path
) -> None:
    files = _source("web")
    files["taints.yaml"] = files["taints.yaml"].split("  taints:")[0] + "  taints: []\n"
    git_repo.commit(files)
    result = cli("validate", "--repo", "../source")
    assert result.exit_code == 1
    assert (
        "../source/taints.yaml:16:3: error: ClusterTaintPolicy detect-cluster-notready:"
        " spec.taints: must have at least 1 item(s)"
    ) in result.output


def _not_ready_since(seconds_ago: float) -> cluster.ClusterStatus:
    since = report.timestamp(time.time() - seconds_ago)
    condition = meta.Condition(
        type="Ready", status="False", reason="ClusterNotReady", last_transition_time=since
    )
    return dataclasses.replace(status_kit.ready_status(), conditions=(condition,))


def test_the_reconciler_taints_a_failed_cluster_and_renders_again_when_it_recovers(
    cli: Invoke, git_repo: GitRepo, elsewhere: Path
) -> None:
    git_repo.commit(_source("web"))
    now = report.timestamp(time.time())
    failed = status_kit.report_files("west", status=_not_ready_since(600), heartbeat=now)
    ready = status_kit.report_files("east", heartbeat=now)
    status_kit.write_reports(git_repo.path, {"east": ready, "west": failed})
    first = cli("reconcile", "--repo", "../source", "--once")
    assert first.exit_code == 0, first.output
    (taint,) = _render_file(git_repo)["clusterTaints"]["west"]
    assert (taint["key"], taint["effect"]) == (TAINT, "NoSchedule")
    assert _deployments(git_repo, "west") == set()

    now = report.timestamp(time.time())
    recovered = status_kit.report_files("west", heartbeat=now)
    status_kit.write_reports(git_repo.path, {"west": recovered})
    again = cli("reconcile", "--repo", "../source", "--once")
    assert again.exit_code == 0, again.output
    assert "clusterTaints" not in _render_file(git_repo), "the same source, rendered again"
    assert _deployments(git_repo, "west") == {"web"}


def test_render_without_agents_evicts_by_a_policy_no_execute_taint(
    cli: Invoke, git_repo: GitRepo, elsewhere: Path
) -> None:
    """`gitfleet render` (and so a pull request's preview) evicts as the reconciler would: the
    policy taints west, whose declared Ready is False, NoExecute, and web leaves it."""
    allowed = {"gitfleet.yaml": "failover:\n  allowNoExecuteTaintPolicy: true\n"}
    git_repo.commit({**_source("web", effect="NoExecute"), **allowed})
    assert cli("render", "--repo", "../source").exit_code == 0
    assert _deployments(git_repo, "west") == {"web"}
    git_repo.commit(_source("web", effect="NoExecute", west="False"))
    result = cli("render", "--repo", "../source")
    assert result.exit_code == 0, result.output
    binding = yaml.safe_load(
        git_repo.git("show", "gitfleet/rendered:bindings/shop/Deployment.apps/web.yaml")
    )
    assert [c["name"] for c in binding["spec"]["clusters"]] == ["east"]
    (task,) = binding["spec"]["gracefulEvictionTasks"]
    assert task["fromCluster"] == "west"


DUPLICATE = (
    "      effect: NoSchedule\n",
    "      effect: NoSchedule\n    - key: cluster.example.io/not-ready\n      effect: NoSchedule\n",
)


@pytest.mark.parametrize(
    ("old", "new", "code", "where", "message"),
    [
        pytest.param("operator: NotIn", "operator: notin", 0, "8:7: warning",
                     "spec.addOnConditions.0.operator: operator 'notin' is neither In nor NotIn:"
                     " the condition never matches", id="unknown operator"),
        pytest.param("key: cluster.example.io/not-ready", "key: not ready", 1, "17:7: error",
                     "spec.taints.0.key", id="key that is no label key"),
        pytest.param("effect: NoSchedule", "effect: PreferNoSchedule", 1, "18:7: error",
                     "spec.taints.0.effect", id="effect a Cluster refuses"),
        pytest.param(*DUPLICATE, 1, "19:7: error",
                     "spec.taints.1: taints must be unique by key and effect", id="duplicate"),
    ],
)  # fmt: skip
def test_validate_locates_what_karmada_cannot_act_on(
    cli: Invoke,
    git_repo: GitRepo,
    elsewhere: Path,
    old: str,
    new: str,
    code: int,
    where: str,
    message: str,
) -> None:
    files = _source("web")
    assert old in files["taints.yaml"]
    files["taints.yaml"] = files["taints.yaml"].replace(old, new, 1)
    git_repo.commit(files)
    result = cli("validate", "--repo", "../source")
    assert result.exit_code == code, result.output
    assert f"../source/taints.yaml:{where}" in result.output
    assert message in result.output
