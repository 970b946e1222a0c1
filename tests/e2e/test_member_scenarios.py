"""The example fleet on member clusters of both kinds, simulated and real, with the same
assertions: what the agents do is what a real kube-apiserver accepts, and the simulator that
the fast tests rely on behaves as a real server does.

One story per kind of member, its steps in order (each step starts where the last ended): a
source repository from `gitfleet init`, a bare repository as the Git host, `gitfleet render`,
`gitfleet agent push --once` for the four Push clusters, `gitfleet agent pull --once` for the
Pull cluster with only the credentials its printed RBAC grants. All through the command line.

Aspects covered:
- first sync: every cluster converges; replicas divided as example-repo/README.md says;
  the Widget custom resources applied in the same sync as their CRD; Services and container
  ports written without `protocol`, which Kubernetes 1.20 cannot apply server-side as they are;
- takeover: a Namespace and a ConfigMap `kubectl apply` created before are gitfleet's after it
  (their templates allow it: `work.karmada.io/conflict-resolution: overwrite`);
- a second sync writes nothing (no resourceVersion moves, in any cluster);
- status reports: each cluster's status ref holds its Kubernetes version and every manifest
  applied;
- drift: a field changed by hand is put back and reported;
- another field manager: fields another manager took with a forced apply come back to gitfleet;
- immutable fields: a changed Deployment selector is refused with the way out named, then
  recreated once the manifest asks for it;
- preserved on deletion: a template whose policy sets preserveResourcesOnDeletion stays in the
  clusters, Push and Pull, once removed from the source, with no mark of gitfleet's left;
- a namespace gitfleet generated stays, with what others keep in it, when its last manifest
  goes (let go, not deleted);
- prune: a removed template is deleted; removing most of a cluster's objects is refused by the
  prune guard, and done once the source commit allows it;
- a template moved to another group that serves the same objects (an Ingress from
  `extensions/v1beta1` to `networking.k8s.io/v1`, served under both until Kubernetes 1.22): the
  object is updated in place, Push and Pull, neither deleted nor counted as a deletion by a
  guard that allows none; the inventory then lists it under the new group only, and the next
  sync writes nothing and reports no drift. Members that serve
  Ingress in one group only (the simulator, current Kubernetes) cannot hold the old template
  and skip this step.
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import realk8s_session
import yaml
from builders import make_object, make_policy, selector
from click.testing import CliRunner, Result
from e2e.members import Members, Ref, real_members, simulated_members

from gitfleet.agent import stamp, takeover
from gitfleet.cli.main import cli as gitfleet_cli
from gitfleet.demo import simulated
from gitfleet.gitstore import status

PUSH = ("aws-euw1", "aws-use1-a", "aws-use1-b", "gcp-euw1-gpu")
PULL = "gcp-euw1-a"
RENDERED = "gitfleet/rendered"
WEB = ("apps/v1", "Deployment", "shop", "web")


@dataclasses.dataclass
class Story:
    """One fleet: its source work tree, the bare repository agents talk to, its members."""

    root: Path
    source: Path
    remote: Path
    members: Members
    runner: CliRunner = dataclasses.field(default_factory=CliRunner)

    def gitfleet(self, *args: str) -> Result:
        return self.runner.invoke(gitfleet_cli, list(args), catch_exceptions=False)

    def git(self, *args: str, cwd: Path | None = None) -> str:
        done = subprocess.run(
            ["git", *args], cwd=cwd or self.source, capture_output=True, text=True, check=True,
            env={"PATH": "/usr/bin:/bin", "HOME": str(self.root), **_IDENTITY},
        )  # fmt: skip
        return done.stdout.strip()

    def change(self, message: str, files: dict[str, str | None]) -> None:
        """Commit `files` (None deletes) to the source, push it and render it."""
        for path, text in files.items():
            target = self.source / path
            if text is None:
                target.unlink()
            else:
                target.write_text(text, encoding="utf-8")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        self.git("push", "-q", "origin", "HEAD:main")
        rendered = self.gitfleet("render", "--repo", str(self.remote))
        assert rendered.exit_code == 0, rendered.output

    def push(self, *flags: str) -> dict[str, dict[str, Any]]:
        """`agent push --once -o json` (and `flags`): each Push cluster's summary."""
        done = self.gitfleet(
            "agent", "push", "--repo", str(self.remote), "--kubeconfig-dir",
            str(self.members.folder), "--cache-dir", str(self.root / "cache"), "--once",
            "-o", "json", *flags,
        )  # fmt: skip
        rows = json.loads(done.stdout)["clusters"]
        return {row["cluster"]: row for row in rows}

    def pull(self, *flags: str) -> tuple[int, dict[str, Any]]:
        """`agent pull --once -o json` (and `flags`) inside the Pull cluster: exit code and
        its summary."""
        done = self.gitfleet(
            "agent", "pull", "--repo", f"file://{self.remote}", "--cluster", PULL,
            "--kubeconfig", str(self.members.agent_kubeconfigs[PULL]),
            "--cache-dir", str(self.root / "pull-cache"), "--once", "-o", "json", *flags,
        )  # fmt: skip
        rows = json.loads(done.stdout)["clusters"]
        return done.exit_code, rows[0]

    def report(self, cluster: str, file: str) -> Any:
        text = self.git("show", f"{status.status_ref(cluster)}:{file}", cwd=self.remote)
        return yaml.safe_load(text)

    def desired(self, cluster: str) -> list[Ref]:
        """Every object the rendered branch gives `cluster`, and its inventory."""
        tree = self.git(
            "ls-tree", "-r", "--name-only", RENDERED, f"works/{cluster}", cwd=self.remote
        )
        refs: list[Ref] = [("v1", "ConfigMap", "gitfleet-system", "gitfleet-inventory")]
        for path in tree.splitlines():
            if path.endswith("kustomization.yaml"):
                continue
            doc = yaml.safe_load(self.git("show", f"{RENDERED}:{path}", cwd=self.remote))
            meta = doc["metadata"]
            refs.append((doc["apiVersion"], doc["kind"], meta.get("namespace", ""), meta["name"]))
        return refs

    def web(self, cluster: str) -> Any:
        return self.members.get(cluster, *WEB[:2], WEB[3], WEB[2])


_IDENTITY = {
    "GIT_AUTHOR_NAME": "user", "GIT_AUTHOR_EMAIL": "user@example.com",
    "GIT_COMMITTER_NAME": "user", "GIT_COMMITTER_EMAIL": "user@example.com",
}  # fmt: skip


@pytest.fixture(name="story", scope="module", params=realk8s_session.SERVER_KINDS)
def story_fixture(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Story]:
    root = tmp_path_factory.mktemp(f"story-{request.param}")
    runner = CliRunner()
    assert runner.invoke(gitfleet_cli, ["init", str(root / "fleet")]).exit_code == 0
    plans = simulated.plans_from_repo(str(root / "fleet"))
    if request.param == "sim":
        members = simulated_members(root / "kubeconfigs", plans)
    else:
        assert {plan.name for plan in plans} <= set(realk8s_session.CLUSTERS)
        tier = request.getfixturevalue("real_tier")
        kubelets = realk8s_session.external() is not None
        members = real_members(root / "kubeconfigs", plans, tier, add_nodes=not kubelets)
    story = Story(root, root / "fleet", root / "fleet.git", members, runner)
    try:
        _allow_takeover(story)
        story.git("clone", "-q", "--bare", str(story.source), str(story.remote), cwd=root)
        story.git("remote", "add", "origin", str(story.remote))
        _kubectl_applied(members, "aws-use1-a")
        rendered = story.gitfleet("render", "--repo", str(story.remote))
        assert rendered.exit_code == 0, rendered.output
        yield story
    finally:
        members.close()


TAKEN_OVER = (
    ("namespaces/namespaces.yaml", "\n  name: shop\n"),
    ("apps/shop/web.yaml", "\n  name: web-config\n"),
)
"""Where the templates of what `_kubectl_applied` made say their name (in metadata)."""


def _allow_takeover(story: Story) -> None:
    """Let gitfleet take over what `_kubectl_applied` made, as Karmada would only with
    `work.karmada.io/conflict-resolution: overwrite` on the templates."""
    marked = "  annotations:\n    work.karmada.io/conflict-resolution: overwrite\n"
    for path, name_line in TAKEN_OVER:
        target = story.source / path
        text = target.read_text(encoding="utf-8")
        assert text.count(name_line) == 1, path
        target.write_text(text.replace(name_line, name_line + marked), encoding="utf-8")
    story.git("commit", "-q", "-am", "Take over what kubectl applied")


def _kubectl_applied(members: Members, cluster: str) -> None:
    """What `kubectl apply -f` (client-side) leaves for the namespace shop and a ConfigMap of
    its own: the last-applied annotation and kubectl's field manager."""
    for doc in (
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}},
        {
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "web-config", "namespace": "shop"},
            "data": {"LOG_LEVEL": "debug", "LEGACY": "yes"},
        },
    ):  # fmt: skip
        body = json.loads(json.dumps(doc))
        annotations = body["metadata"].setdefault("annotations", {})
        annotations[takeover.LAST_APPLIED] = json.dumps(doc, sort_keys=True)
        members.resource(cluster, doc["apiVersion"], doc["kind"]).create(
            body=body,
            namespace=body["metadata"].get("namespace"),
            field_manager="kubectl-client-side-apply",
        )


def _managers(live: Any) -> set[str]:
    return {entry["manager"] for entry in live["metadata"].get("managedFields") or []}


def test_first_sync_converges(story: Story) -> None:
    rows = story.push()
    assert sorted(rows) == sorted(PUSH)
    assert all(row["converged"] for row in rows.values()), rows
    code, pulled = story.pull()
    assert code == 0 and pulled["converged"], pulled

    replicas = {c: story.web(c)["spec"]["replicas"] for c in (*PUSH[:3], PULL)}
    assert replicas == {"aws-use1-a": 2, "aws-use1-b": 2, "aws-euw1": 1, PULL: 1}
    assert story.web("gcp-euw1-gpu") is None
    for cluster in ("aws-use1-a", "aws-use1-b", PULL):
        banner = story.members.get(
            cluster, "example.gitfleet.io/v1alpha1", "Widget", "banner", "shop"
        )
        assert banner is not None and banner["spec"]["replicas"] == 1
    service = story.members.get("aws-use1-a", "v1", "Service", "web", "shop")
    assert [p["protocol"] for p in service["spec"]["ports"]] == ["TCP"]


def test_what_kubectl_applied_is_taken_over(story: Story) -> None:
    for kind, name, namespace in (("Namespace", "shop", ""), ("ConfigMap", "web-config", "shop")):
        live = story.members.get("aws-use1-a", "v1", kind, name, namespace)
        assert takeover.LAST_APPLIED not in (live["metadata"].get("annotations") or {})
        assert "kubectl-client-side-apply" not in _managers(live)
        assert stamp.FIELD_MANAGER in _managers(live)
    config = story.members.get("aws-use1-a", "v1", "ConfigMap", "web-config", "shop")
    assert config["data"]["LOG_LEVEL"] == "info" and "LEGACY" not in config["data"]


def test_a_second_sync_writes_nothing(story: Story) -> None:
    clusters = (*PUSH, PULL)
    before = {c: story.members.resource_versions(c, story.desired(c)) for c in clusters}
    rows = story.push()
    assert all(row["converged"] for row in rows.values())
    assert story.pull()[0] == 0
    after = {c: story.members.resource_versions(c, story.desired(c)) for c in clusters}
    assert after == before
    assert all(len(versions) == len(story.desired(c)) for c, versions in after.items())


def test_every_cluster_reports_its_status(story: Story) -> None:
    for cluster in (*PUSH, PULL):
        reported = story.report(cluster, "cluster.yaml")
        assert reported["status"]["kubernetesVersion"] == story.members.version(cluster)
        works = story.report(cluster, "works.yaml")
        assert works["converged"] is True
        assert works["manifests"] and all(m["applied"] for m in works["manifests"])


def test_drift_is_put_back(story: Story) -> None:
    web = story.members.resource("aws-use1-b", *WEB[:2])
    desired = story.web("aws-use1-b")["spec"]["template"]["spec"]["containers"][0]["image"]
    patch = {
        "spec": {"template": {"spec": {"containers": [{"name": "web", "image": "nginx:edited"}]}}}
    }
    web.patch(
        name="web", namespace="shop", body=patch,
        content_type="application/strategic-merge-patch+json", field_manager="kubectl-edit",
    )  # fmt: skip
    rows = story.push()
    assert rows["aws-use1-b"]["converged"] and rows["aws-use1-b"]["drifted"] == 1
    image = story.web("aws-use1-b")["spec"]["template"]["spec"]["containers"][0]["image"]
    assert image == desired
    drifted = [m for m in story.report("aws-use1-b", "works.yaml")["manifests"] if m.get("drifted")]
    assert [m["name"] for m in drifted] == ["web"]


def test_fields_another_manager_took_come_back(story: Story) -> None:
    web = story.members.resource("aws-use1-a", *WEB[:2])
    taken = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {"replicas": 9},
    }
    web.server_side_apply(
        body=taken, namespace="shop", field_manager="scaler", force_conflicts=True
    )
    assert story.web("aws-use1-a")["spec"]["replicas"] == 9
    rows = story.push()
    assert rows["aws-use1-a"]["converged"]
    live = story.web("aws-use1-a")
    assert live["spec"]["replicas"] == 2
    owners = {
        entry["manager"]
        for entry in live["metadata"]["managedFields"]
        if "f:replicas" in json.dumps(entry.get("fieldsV1", {}))
    }
    assert owners == {stamp.FIELD_MANAGER}


def test_an_immutable_field_is_refused_then_recreated(story: Story) -> None:
    web = (story.source / "apps/shop/web.yaml").read_text(encoding="utf-8")
    relabelled = re.sub(r"^( {6,})app: web\n", r"\1app: web\n\1track: stable\n", web, flags=re.M)
    assert relabelled.count("track: stable") == 2  # the selector and the pod template
    uid = story.web("aws-use1-b")["metadata"]["uid"]
    story.change("Select web's pods by track too", {"apps/shop/web.yaml": relabelled})
    rows = story.push()
    assert not rows["aws-use1-b"]["converged"]
    manifests = story.report("aws-use1-b", "works.yaml")["manifests"]
    (failed,) = [m for m in manifests if (m["kind"], m["name"]) == ("Deployment", "web")]
    assert not failed["applied"]
    assert "immutable" in failed["message"]
    assert stamp.RECREATE_ON_IMMUTABLE in failed["message"]
    assert story.web("aws-use1-b")["metadata"]["uid"] == uid

    head = "kind: Deployment\nmetadata:\n  name: web\n"
    opt_in = f'  annotations:\n    {stamp.RECREATE_ON_IMMUTABLE}: "true"\n'
    opted = relabelled.replace(head, head + opt_in)
    story.change("Let gitfleet recreate web", {"apps/shop/web.yaml": opted})
    rows = story.push()
    assert all(row["converged"] for row in rows.values()), rows
    recreated = story.web("aws-use1-b")
    assert recreated["metadata"]["uid"] != uid
    assert recreated["spec"]["selector"]["matchLabels"] == {"app": "web", "track": "stable"}
    code, pulled = story.pull()
    assert code == 0 and pulled["converged"], pulled


def test_a_preserved_template_stays_when_removed(story: Story) -> None:
    policy_path = "policies/propagation/widgets.yaml"
    policy = (story.source / policy_path).read_text(encoding="utf-8")
    preserving = policy.replace("spec:\n", "spec:\n  preserveResourcesOnDeletion: true\n", 1)
    story.change("Keep widgets when they go", {policy_path: preserving})
    assert all(row["converged"] for row in story.push().values())
    code, pulled = story.pull()
    assert code == 0 and pulled["converged"], pulled
    story.change("Retire the banner", {"apps/shop/widgets/banner.yaml": None})
    rows = story.push()
    assert all(row["converged"] for row in rows.values()), rows
    assert rows["aws-use1-a"]["released"] == 1
    code, pulled = story.pull()
    assert code == 0 and pulled["converged"], pulled
    assert pulled["released"] == 1
    for cluster in ("aws-use1-a", PULL):
        banner = story.members.get(
            cluster, "example.gitfleet.io/v1alpha1", "Widget", "banner", "shop"
        )
        assert banner is not None, cluster
        assert banner["spec"]["message"] == "Free shipping this week"
        marks = {
            **banner["metadata"].get("labels", {}),
            **banner["metadata"].get("annotations", {}),
        }
        assert not [k for k in marks if k.startswith("gitfleet.io/")], marks
    story.change("Widgets go with their templates again", {policy_path: policy})
    assert all(row["converged"] for row in story.push().values())


REPORTS = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: schedule
  namespace: reports
data:
  cron: "0 6 * * *"
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: reports
  namespace: reports
spec:
  resourceSelectors:
    - apiVersion: v1
      kind: ConfigMap
  placement:
    clusterAffinity:
      clusterNames: [aws-use1-a]
"""


def test_a_generated_namespace_stays_with_what_others_keep_in_it(story: Story) -> None:
    """The source does not define namespace `reports`: gitfleet generates it for the one
    manifest placed there. A Secret delivered another way lives beside it. When the manifest
    goes, the namespace is let go, not deleted: deleting it would delete the Secret."""
    story.change("Reports on one cluster", {"apps/reports.yaml": REPORTS})
    assert all(row["converged"] for row in story.push().values())
    secret = {
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "smtp", "namespace": "reports"}, "stringData": {"password": "x"},
    }  # fmt: skip
    story.members.resource("aws-use1-a", "v1", "Secret").create(body=secret, namespace="reports")
    story.change("No more reports", {"apps/reports.yaml": None})
    rows = story.push()
    assert rows["aws-use1-a"]["converged"], rows
    assert rows["aws-use1-a"]["released"] == 1
    namespace = story.members.get("aws-use1-a", "v1", "Namespace", "reports")
    assert namespace is not None
    assert namespace["metadata"].get("deletionTimestamp") is None
    labels = namespace["metadata"].get("labels") or {}
    assert not [k for k in labels if k.startswith("gitfleet.io/")], labels
    assert story.members.get("aws-use1-a", "v1", "Secret", "smtp", "reports") is not None
    assert story.members.get("aws-use1-a", "v1", "ConfigMap", "schedule", "reports") is None


def test_prune_and_its_guard(story: Story) -> None:
    story.change("Retire the hero widget", {"apps/shop/widgets/hero.yaml": None})
    rows = story.push()
    assert all(row["converged"] for row in rows.values())
    assert (
        story.members.get("aws-use1-a", "example.gitfleet.io/v1alpha1", "Widget", "hero", "shop")
        is None
    )

    shop = ("web", "api", "worker", "recommender")
    story.change("Close the shop", {f"apps/shop/{app}.yaml": None for app in shop})
    rows = story.push()
    assert not rows["aws-use1-b"]["converged"]
    assert "refusing to delete" in rows["aws-use1-b"]["error"]
    assert story.web("aws-use1-b") is not None

    namespaces = (story.source / "namespaces/namespaces.yaml").read_text(encoding="utf-8")
    closed = namespaces.replace("    team: storefront\n", "    team: storefront\n    open: 'no'\n")
    assert closed != namespaces
    story.change(
        "Close the shop\n\nGitfleet-Allow-Prune: all", {"namespaces/namespaces.yaml": closed}
    )
    rows = story.push()
    assert all(row["converged"] for row in rows.values()), rows
    assert story.web("aws-use1-b") is None
    code, pulled = story.pull()
    assert code == 0 and pulled["converged"], pulled
    assert story.web(PULL) is None


ROUTED = ("aws-use1-a", PULL)
STOREFRONT: Ref = ("networking.k8s.io/v1", "Ingress", "shop", "storefront")
BACKENDS = {
    "extensions/v1beta1": {"backend": {"serviceName": "web", "servicePort": 80}},
    "networking.k8s.io/v1": {
        "pathType": "ImplementationSpecific",
        "backend": {"service": {"name": "web", "port": {"number": 80}}},
    },
}
"""The storefront's one path as each group writes it: what the server stores for the first
(its path type defaulted) is what the second says, so a move changes nothing but the group."""


def _storefront(api_version: str) -> dict[str, str]:
    """The source file of Ingress shop/storefront in `api_version`, with its policy (which
    selects it in either group) placing it on `ROUTED`."""
    ingress = make_object(api_version, "Ingress", "storefront", "shop")
    path = {"path": "/", **BACKENDS[api_version]}
    ingress["spec"] = {"rules": [{"host": "shop.example.com", "http": {"paths": [path]}}]}
    policy = make_policy(
        "storefront",
        *(selector("Ingress", version, name="storefront") for version in BACKENDS),
        placement={"clusterAffinity": {"clusterNames": list(ROUTED)}},
    )
    return {"apps/shop/storefront.yaml": yaml.safe_dump_all([ingress, policy])}


def _uid(story: Story, cluster: str) -> str:
    api_version, kind, namespace, name = STOREFRONT
    return str(story.members.get(cluster, api_version, kind, name, namespace)["metadata"]["uid"])


def _inventory(story: Story, cluster: str) -> list[str]:
    """The apiVersion and kind of each entry of the cluster's inventory that names a
    storefront."""
    held = story.members.get(cluster, "v1", "ConfigMap", "gitfleet-inventory", "gitfleet-system")
    entries = [json.loads(line) for line in held["data"]["objects"].splitlines()]
    return [f"{e['apiVersion']} {e['kind']}" for e in entries if e["name"] == "storefront"]


def test_an_ingress_moved_to_another_group_stays(story: Story) -> None:
    from kubernetes.dynamic.exceptions import ResourceNotFoundError

    for cluster in ROUTED:
        try:
            story.members.resource(cluster, "extensions/v1beta1", "Ingress")
        except ResourceNotFoundError:
            pytest.skip(f"{cluster} serves Ingress in networking.k8s.io only")
    story.change("Route the shop", _storefront("extensions/v1beta1"))
    assert all(row["converged"] for row in story.push().values())
    code, pulled = story.pull()
    assert code == 0 and pulled["converged"], pulled
    uids = {c: _uid(story, c) for c in ROUTED}

    story.change("Move the storefront to networking.k8s.io/v1", _storefront("networking.k8s.io/v1"))
    no_deletions = ("--max-prune-share", "0")
    rows = story.push(*no_deletions)
    assert all(row["converged"] for row in rows.values()), rows
    assert rows["aws-use1-a"]["pruned"] == 0
    code, pulled = story.pull(*no_deletions)
    assert code == 0 and pulled["converged"] and pulled["pruned"] == 0, pulled
    assert {c: _uid(story, c) for c in ROUTED} == uids
    assert {c: _inventory(story, c) for c in ROUTED} == {
        c: ["networking.k8s.io/v1 Ingress"] for c in ROUTED
    }

    before = {c: story.members.resource_versions(c, [STOREFRONT]) for c in ROUTED}
    rows = story.push()
    assert rows["aws-use1-a"]["converged"] and rows["aws-use1-a"]["drifted"] == 0, rows
    code, pulled = story.pull()
    assert code == 0 and pulled["drifted"] == 0, pulled
    assert {c: story.members.resource_versions(c, [STOREFRONT]) for c in ROUTED} == before
    shown = json.loads(story.gitfleet("status", "--repo", str(story.remote), "-o", "json").stdout)
    clusters = {row["name"]: row for row in shown["clusters"]}
    assert [(clusters[c]["synced"], clusters[c]["drifted"]) for c in ROUTED] == [(True, 0)] * 2
    (storefront,) = [r for r in shown["resources"] if r["name"] == "storefront"]
    assert storefront["apiVersion"] == "networking.k8s.io/v1" and storefront["fullyApplied"]
