"""`gitfleet get` (karmada-search) end to end: a source pushed to a bare remote, `gitfleet render`,
the push agent for two Push clusters and a pull agent for a Pull cluster, on simulated members;
then `gitfleet get` from another directory with `--repo` relative to it.

Aspects covered:
- a kind is listed across every cluster, in kubectl's columns with CLUSTER after NAME and
  ADOPTION last, READY counted from what the agents reported; kind spelled as kubectl does
  (`deploy`, `deployments.apps`, `Deployment`), a NAME narrows to one object, given as
  `KIND NAME` or `KIND/NAME` as kubectl takes both;
- `-l` in kubectl's selector syntax, `--cluster` (and karmadactl's `-C a,b`; an unknown
  cluster is an error naming the closest), `-n`, `-A` (NAMESPACE first, for a namespaced kind
  only; "No resources found" names no namespace for a cluster-scoped one), `-o wide`
  (containers, images, selector), a Service's columns;
- several kinds (`deploy,svc`, in the order asked; one kind spelled twice asked once) print a
  table each, a blank line between, names prefixed with their kind; several names (`KIND A B`,
  `KIND/A KIND/B`, `KIND,KIND A`), a name found nowhere said after what was found, exit 1;
  `-o name` (each object once), `--no-headers` (no blank lines either), `--show-labels`;
- `-o json`: a kubectl List, each item annotated with its cluster and holding the labels and
  status reported, byte-identical from one run to the next, and to kubectl's output of the same
  objects read live, the annotation aside; `-o yaml` the same List;
- an object whose change its cluster refuses (a Deployment's selector, immutable) is listed
  all the same, as it runs there unchanged;
- `--live`: Push clusters read through their kubeconfigs (an object nobody applied shows with
  ADOPTION N), the Pull cluster shown as last reported with a note saying so;
- bad input: an unknown kind (with a suggestion), one of Karmada's own kinds (said so), a
  selector that does not parse, a NAME found nowhere, an empty kind in a list, a folder that is
  not a repository: exit 1 with a message; conflicting flags, or `KIND/NAME` with two slashes,
  no name, several kinds, or beside a bare KIND or NAME: exit 2.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from builders import make_cluster, make_deployment, make_object, make_policy, selector
from simfixture import KUBECTL, RunningSim, SimFactory, make_sim_cluster_fixture, needs_kubectl

__all__ = ["make_sim_cluster_fixture"]

PUSH, PULL = ("p1", "p2"), ("q1",)


def _service() -> dict[str, Any]:
    service = make_object("v1", "Service", "web", "shop", labels={"app": "web"})
    service["spec"] = {"selector": {"app": "web"}, "ports": [{"port": 80, "protocol": "TCP"}]}
    return service


def _source() -> str:
    clusters = [make_cluster(name) for name in (*PUSH, *PULL)]
    clusters[-1]["spec"]["syncMode"] = "Pull"
    docs = [
        *clusters,
        make_object("v1", "Namespace", "shop"),
        make_deployment("web", replicas=2, labels={"app": "web", "tier": "front"}),
        make_deployment("api", replicas=1, labels={"app": "api", "tier": "back"}),
        _service(),
        make_policy("shop", selector(), selector("Service", "v1")),
    ]
    return yaml.safe_dump_all(docs)


class Fleet:
    def __init__(self, git_repo: Any, remote: Path, cli: Any, members: dict[str, RunningSim]):
        self.repo, self.remote, self.cli, self.members = git_repo, remote, cli, members
        self.kubeconfigs = next(iter(members.values())).kubeconfig.parent
        self.cache = remote.parent / "cache"

    def agents(self) -> None:
        url = f"file://{self.remote}"
        push = self.cli(
            "agent", "push", "--repo", url, "--kubeconfig-dir", str(self.kubeconfigs),
            "--cache-dir", str(self.cache / "push"), "--once",
        )  # fmt: skip
        assert push.exit_code == 0, push.output
        for name in PULL:
            pull = self.cli(
                "agent", "pull", "--repo", url, "--cluster", name,
                "--kubeconfig", str(self.kubeconfigs / f"{name}.yaml"),
                "--cache-dir", str(self.cache / name), "--once",
            )  # fmt: skip
            assert pull.exit_code == 0, pull.output

    def get(self, *args: str, code: int = 0) -> Any:
        done = self.cli("get", *args, "--repo", "../remote.git")
        assert done.exit_code == code, done.output
        return done


@pytest.fixture(name="fleet")
def fleet_fixture(
    git_repo: Any,
    bare_remote: Path,
    cli: Any,
    make_sim_cluster: SimFactory,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Fleet:
    members = {name: make_sim_cluster(name) for name in (*PUSH, *PULL)}
    git_repo.commit({"fleet.yaml": _source()}, "shop")
    assert cli("render", "--repo", str(git_repo.path)).exit_code == 0
    git_repo.git("push", "-q", "origin", "main", "+refs/heads/gitfleet/*:refs/heads/gitfleet/*")
    fleet = Fleet(git_repo, bare_remote, cli, members)
    fleet.agents()
    for member in members.values():
        member.cluster.settle()
    fleet.agents()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    return fleet


def _rows(text: str) -> list[list[str]]:
    return [line.split() for line in text.splitlines()]


def _without_age(rows: list[list[str]]) -> list[list[str]]:
    """Two listings a second apart differ in AGE alone."""
    at = rows[0].index("AGE")
    return [row[:at] + row[at + 1 :] for row in rows]


def test_a_kind_is_listed_across_every_cluster(fleet: Fleet) -> None:
    rows = _rows(fleet.get("deploy", "-n", "shop").stdout)
    assert rows[0] == ["NAME", "CLUSTER", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "ADOPTION"]
    assert [(r[0], r[1], r[2], r[3], r[4], r[6]) for r in rows[1:]] == [
        ("api", "p1", "1/1", "1", "1", "Y"),
        ("api", "p2", "1/1", "1", "1", "Y"),
        ("api", "q1", "1/1", "1", "1", "Y"),
        ("web", "p1", "2/2", "2", "2", "Y"),
        ("web", "p2", "2/2", "2", "2", "Y"),
        ("web", "q1", "2/2", "2", "2", "Y"),
    ]
    assert all(r[5] != "<unknown>" for r in rows[1:])
    by_resource = _rows(fleet.get("deployments.apps", "-n", "shop").stdout)
    by_kind = _rows(fleet.get("Deployment", "-n", "shop").stdout)
    assert _without_age(by_resource) == _without_age(by_kind)
    one = _rows(fleet.get("deploy", "web", "-n", "shop").stdout)
    assert [r[:2] for r in one[1:]] == [["web", "p1"], ["web", "p2"], ["web", "q1"]]
    slashed = _rows(fleet.get("deploy/web", "-n", "shop").stdout)
    assert _without_age(slashed) == _without_age(one)


def test_selectors_clusters_and_namespaces(fleet: Fleet) -> None:
    front = _rows(fleet.get("deploy", "-n", "shop", "-l", "tier=front").stdout)
    assert {r[0] for r in front[1:]} == {"web"}
    both = _rows(fleet.get("deploy", "-n", "shop", "-l", "tier in (front,back),!canary").stdout)
    assert len(both) == 7
    assert fleet.get("deploy", "-n", "shop", "-l", "tier!=front,tier!=back").stderr == (
        "No resources found in shop namespace.\n"
    )
    p1 = _rows(fleet.get("deploy", "-n", "shop", "--cluster", "p1").stdout)
    assert [r[:2] for r in p1[1:]] == [["api", "p1"], ["web", "p1"]]
    assert fleet.get("deploy").stderr == "No resources found in default namespace.\n"
    everywhere = _rows(fleet.get("deploy", "-A", "--cluster", "q1").stdout)
    assert everywhere[0][:3] == ["NAMESPACE", "NAME", "CLUSTER"]
    assert [r[:3] for r in everywhere[1:]] == [["shop", "api", "q1"], ["shop", "web", "q1"]]
    ignored = fleet.get("deploy", "-A", "-n", "elsewhere", "--cluster", "q1")  # as kubectl does
    assert _rows(ignored.stdout) == everywhere
    two = _rows(fleet.get("deploy", "api", "-n", "shop", "-C", "q1,p2").stdout)
    assert [r[:2] for r in two[1:]] == [["api", "p2"], ["api", "q1"]]
    unknown = fleet.get("deploy", "-n", "shop", "--clusters", "p1,q11,zz", code=1)
    assert unknown.stderr == "error: clusters don't exist: q11,zz; did you mean 'q1' for 'q11'?\n"


def test_a_cluster_scoped_kind_has_no_namespace(fleet: Fleet) -> None:
    everywhere = _rows(fleet.get("ns", "-A", "--cluster", "p1").stdout)
    assert everywhere[0][:2] == ["NAME", "CLUSTER"]
    assert ["shop", "p1"] in [r[:2] for r in everywhere[1:]]
    assert fleet.get("namespaces", "-l", "x=y").stderr == "No resources found.\n"
    assert fleet.get("clusterroles", "-n", "shop").stderr == "No resources found.\n"


def test_wide_and_service_columns(fleet: Fleet) -> None:
    wide = _rows(fleet.get("deploy", "web", "-n", "shop", "-o", "wide", "--cluster", "p2").stdout)
    assert wide[0][-4:] == ["CONTAINERS", "IMAGES", "SELECTOR", "ADOPTION"]
    assert wide[1][-4:] == ["main", "nginx", "app=web", "Y"]
    services = fleet.get("svc", "-n", "shop", "--cluster", "p1").stdout.splitlines()
    assert services[0].split() == [
        "NAME", "CLUSTER", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "ADOPTION"
    ]  # fmt: skip
    cells = services[1].split()
    assert (cells[0], cells[1], cells[2], cells[4], cells[5]) == (
        "web", "p1", "ClusterIP", "<none>", "80/TCP"
    )  # fmt: skip


def test_several_kinds_print_one_table_each(fleet: Fleet) -> None:
    """As kubectl prints `get deploy,svc`: a table per kind in the order asked, a blank line
    between, each name prefixed with its kind; one kind spelled twice is asked once."""
    tables = fleet.get("deploy,svc", "-n", "shop").stdout.split("\n\n")
    assert len(tables) == 2
    deployments, services = (_rows(t) for t in tables)
    assert deployments[0] == [
        "NAME", "CLUSTER", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "ADOPTION"
    ]  # fmt: skip
    assert [r[:2] for r in deployments[1:3]] == [
        ["deployment.apps/api", "p1"], ["deployment.apps/api", "p2"]
    ]  # fmt: skip
    assert services[0][:3] == ["NAME", "CLUSTER", "TYPE"]
    assert [r[:2] for r in services[1:]] == [["service/web", c] for c in ("p1", "p2", "q1")]
    reversed_order = fleet.get("svc,deploy", "-n", "shop", "--cluster", "p1").stdout
    assert [t.splitlines()[1].split()[0] for t in reversed_order.split("\n\n")] == [
        "service/web", "deployment.apps/api"
    ]  # fmt: skip
    same = _rows(fleet.get("deploy,deployments.apps", "-n", "shop", "--cluster", "p1").stdout)
    assert [r[0] for r in same[1:]] == ["api", "web"]
    none_of_one = fleet.get("deploy,ing", "-n", "shop", "--cluster", "p1").stdout
    assert [r[0] for r in _rows(none_of_one)[1:]] == ["deployment.apps/api", "deployment.apps/web"]
    assert fleet.get("ing,pvc", "-n", "shop").stderr == "No resources found in shop namespace.\n"


def test_several_names(fleet: Fleet) -> None:
    """`KIND NAME NAME`, `KIND/NAME KIND/NAME` and `KIND,KIND NAME` as kubectl reads them; a
    name found nowhere is said on stderr after what was found, exit 1."""
    two = _rows(fleet.get("deploy", "web", "api", "-n", "shop", "--cluster", "p1").stdout)
    assert [r[0] for r in two[1:]] == ["api", "web"]
    slashed = fleet.get("deploy/web", "svc/web", "-n", "shop", "--cluster", "p1").stdout
    assert [_rows(t)[1][0] for t in slashed.split("\n\n")] == [
        "deployment.apps/web", "service/web"
    ]  # fmt: skip
    both = fleet.get("deploy,svc", "web", "-n", "shop", "--cluster", "q1").stdout
    assert [_rows(t)[1][0] for t in both.split("\n\n")] == ["deployment.apps/web", "service/web"]
    partly = fleet.get("deploy", "web", "nope", "-n", "shop", "--cluster", "p1", code=1)
    assert [r[0] for r in _rows(partly.stdout)[1:]] == ["web"]
    assert partly.stderr == 'error: deployments.apps "nope" not found in p1\n'
    nowhere = fleet.get("svc/nope", "deploy/gone", "-n", "shop", code=1)
    assert nowhere.stdout == ""
    assert nowhere.stderr == (
        'error: services "nope" not found in any cluster\n'
        'error: deployments.apps "gone" not found in any cluster\n'
    )


def test_names_headers_and_labels(fleet: Fleet) -> None:
    """`-o name` names each object once (a name to hand to another command: the clusters are
    the table's business); `--no-headers` drops the header rows and the blank lines between
    tables, as kubectl does; `--show-labels` adds LABELS last."""
    names = fleet.get("deploy,svc", "-n", "shop", "-o", "name")
    assert names.stdout == "deployment.apps/api\ndeployment.apps/web\nservice/web\n"
    assert fleet.get("ing", "-n", "shop", "-o", "name").output == ""
    bare = fleet.get("deploy,svc", "-n", "shop", "--cluster", "p1", "--no-headers").stdout
    assert [line.split()[0] for line in bare.splitlines()] == [
        "deployment.apps/api", "deployment.apps/web", "service/web"
    ]  # fmt: skip
    labelled = _rows(fleet.get("deploy", "web", "-n", "shop", "--show-labels", "-C", "p2").stdout)
    assert labelled[0][-2:] == ["ADOPTION", "LABELS"]
    assert labelled[1][-1].startswith(
        "app=web,gitfleet.io/cluster=p2,gitfleet.io/managed-by=gitfleet,"
    )
    assert labelled[1][-1].endswith(",tier=front")


def test_an_object_whose_change_is_refused_is_still_listed(fleet: Fleet) -> None:
    docs = list(yaml.safe_load_all(fleet.repo.git("show", "main:fleet.yaml")))
    web = next(d for d in docs if d["kind"] == "Deployment" and d["metadata"]["name"] == "web")
    web["spec"]["selector"]["matchLabels"]["app"] = "web-2"
    web["spec"]["template"]["metadata"]["labels"]["app"] = "web-2"
    fleet.repo.commit({"fleet.yaml": yaml.safe_dump_all(docs)}, "web: a new selector")
    assert fleet.cli("render", "--repo", str(fleet.repo.path)).exit_code == 0
    fleet.repo.git("push", "-q", "origin", "main", "+refs/heads/gitfleet/*:refs/heads/gitfleet/*")
    push = fleet.cli(
        "agent", "push", "--repo", f"file://{fleet.remote}", "--kubeconfig-dir",
        str(fleet.kubeconfigs), "--cache-dir", str(fleet.cache / "push"), "--once",
    )  # fmt: skip
    assert push.exit_code == 1 and "1 failed" in push.output
    rows = _rows(fleet.get("deploy", "web", "-n", "shop", "-o", "wide").stdout)
    assert [(r[0], r[1], r[-2]) for r in rows[1:]] == [
        ("web", "p1", "app=web"),
        ("web", "p2", "app=web"),
        ("web", "q1", "app=web"),
    ]


def test_json_is_a_list_annotated_with_clusters_and_stable(fleet: Fleet) -> None:
    first = fleet.get("deploy", "-n", "shop", "-o", "json").stdout
    assert fleet.get("deploy", "-n", "shop", "-o", "json").stdout == first
    assert first.startswith('{\n    "apiVersion": "v1",\n    "items": [\n        {\n')
    listed = json.loads(first)
    assert (listed["apiVersion"], listed["kind"]) == ("v1", "List")
    items = listed["items"]
    cached_from = "resource.karmada.io/cached-from-cluster"
    where = [(i["metadata"]["name"], i["metadata"]["annotations"][cached_from]) for i in items]
    assert where == [(n, c) for n in ("api", "web") for c in ("p1", "p2", "q1")]
    web = items[-1]
    assert web["metadata"]["labels"]["tier"] == "front"
    assert web["metadata"]["labels"]["gitfleet.io/cluster"] == "q1"
    assert web["spec"]["replicas"] == 2
    assert web["status"]["readyReplicas"] == 2
    as_yaml = yaml.safe_load(fleet.get("deploy", "-n", "shop", "-o", "yaml").stdout)
    assert as_yaml == listed


def test_live_reads_push_clusters_and_leaves_pull_ones_to_their_reports(fleet: Fleet) -> None:
    stray = make_deployment("stray", replicas=1)
    fleet.members["p1"].objects.put(stray)
    args = ("deploy", "-n", "shop", "--live", "--kubeconfig-dir", str(fleet.kubeconfigs))
    done = fleet.get(*args)
    rows = _rows(done.stdout)
    assert [(r[0], r[1], r[-1]) for r in rows[1:]] == [
        ("api", "p1", "Y"),
        ("api", "p2", "Y"),
        ("api", "q1", "Y"),
        ("stray", "p1", "N"),
        ("web", "p1", "Y"),
        ("web", "p2", "Y"),
        ("web", "q1", "Y"),
    ]
    assert "note: q1: shown as last reported (a Pull cluster is not reachable from here)" in (
        done.stderr
    )
    assert "stray" not in fleet.get("deploy", "-n", "shop").stdout
    Path("empty").mkdir()
    missing = fleet.get("deploy", "-n", "shop", "--live", "--kubeconfig-dir", "empty")
    expected = "no kubeconfig for cluster p1: expected empty/p1.yaml"
    assert f"note: p1: shown as last reported ({expected})" in missing.stderr
    assert len(_rows(missing.stdout)) == 7


def test_one_name_in_one_cluster_is_printed_alone(fleet: Fleet) -> None:
    one = json.loads(
        fleet.get("deploy", "web", "-n", "shop", "--cluster", "p1", "-o", "json").stdout
    )
    assert (one["kind"], one["metadata"]["name"]) == ("Deployment", "web")
    assert (
        yaml.safe_load(fleet.get("deploy/web", "-n", "shop", "-C", "p1", "-o", "yaml").stdout)
        == one
    )
    everywhere = fleet.get("deploy", "web", "-n", "shop", "-o", "jsonpath={.kind}").stdout
    assert everywhere == "List"
    two_names = fleet.get(
        "deploy", "web", "api", "-n", "shop", "-C", "p1", "-o", "jsonpath={.kind}"
    )
    assert two_names.stdout == "List"


def test_jsonpath_and_custom_columns(fleet: Fleet, tmp_path: Path) -> None:
    where = (
        "-o=jsonpath={range .items[*]}{.metadata.name}@"
        '{.metadata.annotations.resource\\.karmada\\.io/cached-from-cluster}{"\\n"}{end}'
    )
    printed = fleet.get("deploy", "-n", "shop", where).stdout
    assert printed == "".join(f"{n}@{c}\n" for n in ("api", "web") for c in ("p1", "p2", "q1"))
    ready = fleet.get(
        "deploy", "web", "-n", "shop", "-C", "q1", "-o", "jsonpath={.status.readyReplicas}"
    )
    assert ready.stdout == "2"
    as_json = fleet.get(
        "deploy", "-n", "shop", "-C", "p2", "-o", "jsonpath-as-json={.items[*].metadata.name}"
    )
    assert json.loads(as_json.stdout) == ["api", "web"]
    cluster = ".metadata.annotations.resource\\.karmada\\.io/cached-from-cluster"
    spec = f"NAME:.metadata.name,CLUSTER:{cluster}"
    table = fleet.get(
        "deploy", "-n", "shop", "-l", "tier=front", "-o", f"custom-columns={spec},X:.nothing"
    )
    assert _rows(table.stdout) == [
        ["NAME", "CLUSTER", "X"],
        *(["web", c, "<none>"] for c in ("p1", "p2", "q1")),
    ]
    bare = fleet.get(
        "deploy", "-n", "shop", "-C", "p1", "--no-headers", "-o", "custom-columns=N:metadata.name"
    )
    assert bare.stdout == "api\nweb\n"
    template = tmp_path / "columns.txt"
    template.write_text("NAME  REPLICAS\n.metadata.name  {.spec.replicas}\n")
    from_file = fleet.get(
        "deploy", "-n", "shop", "-C", "p1", "-o", f"custom-columns-file={template}"
    )
    assert _rows(from_file.stdout) == [["NAME", "REPLICAS"], ["api", "1"], ["web", "2"]]
    strict = fleet.get(
        "deploy",
        "-n",
        "shop",
        "-o",
        "jsonpath={.nothing}",
        "--allow-missing-template-keys=false",
        code=1,
    )
    assert "nothing is not found" in strict.stderr


@needs_kubectl
def test_templates_print_what_kubectl_prints(fleet: Fleet, tmp_path: Path) -> None:
    """`-o jsonpath` and `-o custom-columns` of one cluster read live, beside kubectl's."""
    args = (
        "deploy",
        "-n",
        "shop",
        "--live",
        "--kubeconfig-dir",
        str(fleet.kubeconfigs),
        "--cluster",
        "p1",
    )
    for output in (
        "jsonpath={range .items[*]}{.metadata.name}:{.spec.replicas}:{.metadata.labels}"
        '{"\\n"}{end}',
        "jsonpath={.items[0].spec.template.spec.containers[0]}",
        "custom-columns=NAME:.metadata.name,IMAGES:.spec.template.spec.containers[*].image,"
        "LABELS:.metadata.labels,NONE:.spec.nothing,REPLICAS:{.spec.replicas}",
    ):
        kubectl = subprocess.run(
            [str(KUBECTL), "--kubeconfig", str(fleet.kubeconfigs / "p1.yaml"), "get", "deploy",
             "-n", "shop", "-o", output],
            capture_output=True, text=True, env={"HOME": str(tmp_path)}, check=True, timeout=60,
        ).stdout  # fmt: skip
        assert fleet.get(*args, "-o", output).stdout == kubectl


@needs_kubectl
def test_json_and_yaml_are_kubectls_byte_for_byte(fleet: Fleet, tmp_path: Path) -> None:
    """`get --live -o json` (and `-o yaml`) of one cluster prints what `kubectl get` prints
    there: four spaces of indent, keys sorted, `<`, `>` and `&` escaped as Go escapes them, no
    managedFields; strings quoted as Go's YAML encoder quotes them; the cluster's annotation
    aside."""
    stray = make_deployment("stray", replicas=1)
    stray["metadata"]["annotations"] = {
        "note": "<a&b> é", "lines": "one\ntwo\n", "count": "0123", "spaced": "a: b", "yes": "on"
    }  # fmt: skip
    fleet.members["p1"].objects.put(stray)
    args = ("deploy", "-n", "shop", "--live", "--kubeconfig-dir", str(fleet.kubeconfigs))
    printed = {}
    for output, cached in [
        ("json", re.compile(r',\n *"resource\.karmada\.io/cached-from-cluster": "p1"')),
        ("yaml", re.compile(r"\n *resource\.karmada\.io/cached-from-cluster: p1(?=\n)")),
    ]:
        kubectl = subprocess.run(
            [str(KUBECTL), "--kubeconfig", str(fleet.kubeconfigs / "p1.yaml"), "get", "deploy",
             "-n", "shop", "-o", output],
            capture_output=True, text=True, env={"HOME": str(tmp_path)}, check=True, timeout=60,
        ).stdout  # fmt: skip
        ours = fleet.get(*args, "--cluster", "p1", "-o", output).stdout
        assert len(cached.findall(ours)) == 3
        assert cached.sub("", ours) == kubectl
        printed[output] = ours
    assert '"note": "\\u003ca\\u0026b\\u003e é"' in printed["json"]
    assert all(
        line in printed["yaml"]
        for line in ('count: "0123"\n', "lines: |\n", "spaced: 'a: b'\n", '"yes": "on"\n')
    )


def test_live_finds_a_kubeconfig_where_the_push_agent_does(
    fleet: Fleet, cli: Any, tmp_path: Path
) -> None:
    """A Cluster with `spec.secretRef` is read through `<dir>/<namespace>/<name>.yaml`, the
    file the push agent takes from the same folder."""
    source = yaml.safe_load_all(fleet.repo.git("show", "main:fleet.yaml"))
    docs = list(source)
    p1 = next(d for d in docs if d["kind"] == "Cluster" and d["metadata"]["name"] == "p1")
    p1["spec"]["secretRef"] = {"namespace": "karmada-cluster", "name": "p1-secret"}
    fleet.repo.commit({"fleet.yaml": yaml.safe_dump_all(docs)}, "p1 by its secret")
    fleet.repo.git("push", "-q", "origin", "main")
    folder = tmp_path / "credentials"
    (folder / "karmada-cluster").mkdir(parents=True)
    (folder / "karmada-cluster" / "p1-secret.yaml").write_bytes(
        fleet.members["p1"].kubeconfig.read_bytes()
    )
    (folder / "p2.yaml").write_bytes(fleet.members["p2"].kubeconfig.read_bytes())
    fleet.members["p1"].objects.put(make_deployment("stray", replicas=1))
    done = fleet.get("deploy", "-n", "shop", "--live", "--kubeconfig-dir", str(folder))
    assert ["stray", "p1"] in [r[:2] for r in _rows(done.stdout)]
    assert "p1: shown as last reported" not in done.stderr


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        pytest.param(("deploymnts",), 1, "did you mean deployment", id="unknown kind"),
        pytest.param(("pp",), 1, "one of Karmada's own kinds", id="a Karmada kind"),
        pytest.param(("deploy", "-l", "a in b"), 1, "unable to parse", id="bad selector"),
        pytest.param(("deploy", "nope", "-n", "shop"), 1, "not found", id="name found nowhere"),
        pytest.param(("deploy", "--live"), 2, "--kubeconfig-dir", id="live without dir"),
        pytest.param(("deploy/web/x",), 2, "more than one slash", id="two slashes"),
        pytest.param(("deploy", "deploy/web"), 2, "no need to give the kind", id="kind twice"),
        pytest.param(("deploy/web", "api"), 2, "no need to give the kind", id="a name alone"),
        pytest.param(("deploy,svc/web",), 2, "must have a single kind", id="kinds/NAME"),
        pytest.param(("deploy/",), 2, "must have both a kind and a name", id="no name"),
        pytest.param(("deploy,",), 1, "unknown kind ''", id="an empty kind"),
        pytest.param(("deploy,deploymnts",), 1, "did you mean deployment", id="one unknown"),
        pytest.param(
            ("deploy", "-o", "jsonpath={.x"),
            1,
            "error parsing jsonpath {.x, unclosed action",
            id="jsonpath",
        ),
        pytest.param(
            ("deploy", "-o", "jsonpath={.items[9]}"),
            1,
            "array index out of bounds: index 9",
            id="index",
        ),
        pytest.param(("deploy", "-o", "jsonpath="), 1, "no template given", id="no template"),
        pytest.param(
            ("deploy", "-o", "custom-columns=NAME"),
            1,
            "expected <header>:<json-path-expr>",
            id="columns",
        ),
        pytest.param(
            ("deploy", "-o", "custom-columns=N:{.a}{.b}"), 1, "unexpected path string", id="path"
        ),
        pytest.param(
            ("deploy", "-o", "jsonpath-file=absent.txt"),
            1,
            "error reading template absent.txt",
            id="file",
        ),
        pytest.param(("deploy", "-o", "table"), 2, "unable to match a printer", id="format"),
    ],
)
def test_bad_input(fleet: Fleet, args: tuple[str, ...], code: int, message: str) -> None:
    done = fleet.get(*args, code=code)
    assert message in done.output


def test_not_a_repository(fleet: Fleet, tmp_path: Path) -> None:
    done = fleet.cli("get", "deploy", "--repo", ".")
    assert done.exit_code == 1
    assert "not a Git repository" in done.output
