"""What a member cluster's API server refuses in a template is a validate error, located at the
field, with a hint to quote what YAML read as a boolean or a number.

Aspects covered:
- labels and annotations: values that YAML reads as booleans or numbers (`true`, `yes`, `on`,
  `1`, `1.5`, `0123`), label values too long or with other characters, label and annotation
  keys that are not qualified names (annotation keys lower-cased first, as Kubernetes checks
  them), annotations over 256 KiB, a map that is a list;
- ConfigMap `data` and `binaryData`, Secret `data` and `stringData`: string values, base64
  where bytes are meant, key syntax, a key in both data and binaryData;
- containers (in every pod template: Deployment, StatefulSet, Job, CronJob, Pod, init
  containers): env values and names, command and args items, image, port numbers;
- workloads and Services: replicas (an int32 of 0 or more), selectors, ports; a Job's counts
  and limits (integers; parallelism and completions int32s of 0 or more) and manualSelector
  (a boolean), also in a CronJob's job template;
- apiVersion: what the API server's reading refuses (`group/version` or a version alone: no
  empty part as in `/v1`, `/` or `example.io/`, no other `/`, a group that is a DNS-1123
  subdomain, a version that is a DNS-1035 label, without spaces), at the apiVersion;
- names: what render refuses (non-ASCII, too long, kinds and namespaces that cannot be a
  folder), and each built-in kind's own rule (Deployment names are DNS subdomains, Service
  names DNS-1035 labels, Namespace names DNS labels, CronJob names 52 characters, webhook
  configuration names DNS subdomains, where a ClusterRole's may have a ':'); custom resources
  keep the path rule only;
- every problem of a file is reported, not only the first; valid templates (nulls, IntOrString
  ports, integral floats, quoted values) report nothing.
"""

from __future__ import annotations

import subprocess
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from gitfleet import source, validation

Check = Callable[[dict[str, str]], list[str]]

QUOTE = "quote it as written"


def doc(kind: str, body: str, api_version: str = "v1", name: str = "web") -> str:
    head = f"apiVersion: {api_version}\nkind: {kind}\nmetadata:\n  name: {name}\n"
    return head + body


def pod(containers: str, kind: str = "Deployment", api_version: str = "apps/v1") -> str:
    """A workload whose pod template holds `containers` (at line 9, column 5 onwards)."""
    body = "spec:\n  template:\n    spec:\n      containers:\n" + textwrap.indent(
        textwrap.dedent(containers), "      "
    )
    return doc(kind, body, api_version)


CASES = [
    # labels and annotations
    pytest.param(doc("ConfigMap", "  labels: {enabled: true}\n"), "5:12",
                 f"metadata.labels.enabled: must be a string, not the boolean true: {QUOTE}",
                 id="label true"),
    pytest.param(doc("ConfigMap", "  labels: {on: yes}\n"), "5:12",
                 f"metadata.labels.true: must be a string, not the boolean true: {QUOTE}",
                 id="label on: yes"),
    pytest.param(doc("ConfigMap", "  labels: {tier: 1}\n"), "5:12",
                 f"metadata.labels.tier: must be a string, not the number 1: {QUOTE}",
                 id="label number"),
    pytest.param(doc("ConfigMap", "  labels: {v: 1.5}\n"), "5:12",
                 f"metadata.labels.v: must be a string, not the number 1.5: {QUOTE}",
                 id="label float"),
    pytest.param(doc("ConfigMap", "  labels: {app: " + "a" * 64 + "}\n"), "5:12",
                 "metadata.labels.app: '" + "a" * 64 + "' must be no more than 63 characters",
                 id="label value too long"),
    pytest.param(doc("ConfigMap", "  labels: {app: a b}\n"), "5:12",
                 "metadata.labels.app: 'a b' must be empty or consist of", id="label value"),
    pytest.param(doc("ConfigMap", "  labels: {-app: a}\n"), "5:12",
                 "metadata.labels.-app: '-app': name part must consist of", id="label key"),
    pytest.param(doc("ConfigMap", "  labels: {Ex.com/app: a}\n"), "5:12",
                 "metadata.labels.Ex.com/app: 'Ex.com/app': prefix part must be a DNS-1123",
                 id="label key prefix"),
    pytest.param(doc("ConfigMap", "  labels: [app]\n"), "5:3",
                 "metadata.labels: must be a map, not a list", id="labels a list"),
    pytest.param(doc("ConfigMap", "  annotations: {enabled: true}\n"), "5:17",
                 f"metadata.annotations.enabled: must be a string, not the boolean true: {QUOTE}",
                 id="annotation true"),
    pytest.param(doc("ConfigMap", "  annotations: {replicas: 3}\n"), "5:17",
                 f"metadata.annotations.replicas: must be a string, not the number 3: {QUOTE}",
                 id="annotation number"),
    pytest.param(doc("ConfigMap", "  annotations: {'a b': x}\n"), "5:17",
                 "metadata.annotations.a b: 'a b': name part must consist of",
                 id="annotation key"),
    pytest.param(doc("ConfigMap", "  annotations: {big: " + "x" * 262_142 + "}\n"), "5:3",
                 "metadata.annotations: annotations are 262145 bytes, more than 262144",
                 id="annotations too big"),
    # ConfigMap and Secret data
    pytest.param(doc("ConfigMap", "data: {a: yes}\n"), "5:8",
                 f"data.a: must be a string, not the boolean true: {QUOTE}", id="data yes"),
    pytest.param(doc("ConfigMap", "data: {b: 0123}\n"), "5:8",
                 f"data.b: must be a string, not the number 83: {QUOTE}", id="data octal"),
    pytest.param(doc("ConfigMap", "data: {c: 1e3}\n"), "5:8",
                 f"data.c: must be a string, not the number 1000: {QUOTE}", id="data float"),
    pytest.param(doc("ConfigMap", "data: {c: {d: e}}\n"), "5:8",
                 "data.c: must be a string, not a map", id="data map"),
    pytest.param(doc("ConfigMap", "data: {a/b: x}\n"), "5:8",
                 "data.a/b: 'a/b' must consist of alphanumeric characters", id="data key"),
    pytest.param(doc("ConfigMap", "data: [a]\n"), "5:1", "data: must be a map, not a list",
                 id="data a list"),
    pytest.param(doc("ConfigMap", "binaryData: {a: not base64!}\n"), "5:14",
                 "binaryData.a: is not base64", id="binaryData"),
    pytest.param(doc("ConfigMap", "data: {a: x}\nbinaryData: {a: eA==}\n"), "6:14",
                 "binaryData.a: 'a' is a key of data as well", id="key in both"),
    pytest.param(doc("Secret", "data: {password: hunter2}\n"), "5:8",
                 "data.password: is not base64: encode it, or put the text under stringData",
                 id="secret data"),
    pytest.param(doc("Secret", "stringData: {port: 5432}\n"), "5:14",
                 f"stringData.port: must be a string, not the number 5432: {QUOTE}",
                 id="secret stringData"),
    pytest.param(doc("Secret", "type: 1\n"), "5:1",
                 f"type: must be a string, not the number 1: {QUOTE}", id="secret type"),
    # containers
    pytest.param(pod("- {name: c, env: [{name: A, value: 1}]}\n"), "9:35",
                 "spec.template.spec.containers.0.env.0.value: must be a string, not the number 1",
                 id="env value"),
    pytest.param(pod("- {name: c, env: [{name: A, value: on}]}\n"), "9:35",
                 "containers.0.env.0.value: must be a string, not the boolean true",
                 id="env value on"),
    pytest.param(pod("- {name: c, env: [{name: 1, value: a}]}\n"), "9:26",
                 "containers.0.env.0.name: must be a string, not the number 1", id="env name"),
    pytest.param(pod("- {name: c, args: [--port, 8080]}\n"), "9:34",
                 "containers.0.args.1: must be a string, not the number 8080", id="args"),
    pytest.param(pod("- {name: c, command: [sleep, 10]}\n"), "9:36",
                 "containers.0.command.1: must be a string, not the number 10", id="command"),
    pytest.param(pod("- {name: c, image: 1.25}\n"), "9:19",
                 "containers.0.image: must be a string, not the number 1.25", id="image"),
    pytest.param(pod("- {name: c, ports: [{containerPort: '80'}]}\n"), "9:28",
                 "containers.0.ports.0.containerPort: must be an integer, not '80'",
                 id="container port"),
    pytest.param(
        doc("Pod", "spec:\n  initContainers: [{name: i, env: [{name: A, value: true}]}]\n"),
        "6:46", "spec.initContainers.0.env.0.value: must be a string, not the boolean true",
        id="pod init container",
    ),
    pytest.param(pod("- {name: c, env: [{name: A, value: 2}]}\n", "StatefulSet"), "9:35",
                 "containers.0.env.0.value: must be a string", id="statefulset"),
    pytest.param(pod("- {name: c, env: [{name: A, value: 2}]}\n", "Job", "batch/v1"), "9:35",
                 "containers.0.env.0.value: must be a string", id="job"),
    pytest.param(
        doc("CronJob", "spec:\n  jobTemplate:\n    spec:\n      template:\n        spec:\n"
            "          containers: [{name: c, args: [1]}]\n", "batch/v1"),
        "10:41", "spec.jobTemplate.spec.template.spec.containers.0.args.0: must be a string",
        id="cronjob",
    ),
    # workloads and services
    pytest.param(doc("Deployment", "spec: {replicas: '3'}\n", "apps/v1"), "5:8",
                 "spec.replicas: must be an integer, not '3'", id="replicas"),
    pytest.param(doc("Deployment", "spec: {replicas: -1}\n", "apps/v1"), "5:8",
                 "spec.replicas: must be 0 or more, not -1", id="negative replicas"),
    pytest.param(doc("StatefulSet", "spec: {replicas: 2147483648}\n", "apps/v1"), "5:8",
                 "spec.replicas: must be at most 2147483647 (int32), not 2147483648",
                 id="replicas past int32"),
    pytest.param(doc("Deployment", f"spec: {{replicas: {10**29}}}\n", "apps/v1"), "5:8",
                 "spec.replicas: must be at most 2147483647 (int32), not 1e+29",
                 id="replicas past int64"),
    pytest.param(doc("Job", "spec: {completions: 1, parallelism: 3e10}\n", "batch/v1"), "5:24",
                 "spec.parallelism: must be at most 2147483647 (int32), not 30000000000",
                 id="job parallelism past int32"),
    pytest.param(doc("Deployment", f"spec: {{replicas: {'9' * 5000}}}\n", "apps/v1"), "5:8",
                 "spec.replicas: must be an integer, not '" + "9" * 77 + "...'",
                 id="replicas of 5000 digits, cut in the message"),
    pytest.param(doc("Deployment", "spec: {selector: {matchLabels: {app: true}}}\n", "apps/v1"),
                 "5:33", "spec.selector.matchLabels.app: must be a string, not the boolean true",
                 id="selector"),
    pytest.param(
        doc("Deployment", "spec:\n  template:\n    metadata: {labels: {on: yes}}\n", "apps/v1"),
        "7:25", "spec.template.metadata.labels.true: must be a string, not the boolean true",
        id="pod template label",
    ),
    pytest.param(doc("Job", "spec: {parallelism: x}\n", "batch/v1"), "5:8",
                 "spec.parallelism: must be an integer, not 'x'", id="job parallelism"),
    pytest.param(doc("Job", "spec: {manualSelector: 'yes'}\n", "batch/v1"), "5:8",
                 "spec.manualSelector: must be a boolean, not 'yes'", id="job manual selector"),
    pytest.param(doc("CronJob", "spec: {jobTemplate: {spec: {backoffLimit: 1.5}}}\n", "batch/v1"),
                 "5:29", "spec.jobTemplate.spec.backoffLimit: must be an integer, not 1.5",
                 id="cronjob's job backoff limit"),
    pytest.param(doc("Service", "spec: {ports: [{port: '80'}]}\n"), "5:17",
                 "spec.ports.0.port: must be an integer, not '80'", id="service port"),
    pytest.param(doc("Service", "spec: {ports: [{port: 80, targetPort: true}]}\n"), "5:27",
                 "spec.ports.0.targetPort: must be an integer, not the boolean true",
                 id="target port"),
    pytest.param(doc("Service", "spec: {selector: {app: 1}}\n"), "5:19",
                 "spec.selector.app: must be a string, not the number 1", id="service selector"),
    # names
    pytest.param(doc("ConfigMap", "", name="wéb"), "4:3",
                 "metadata.name: name 'wéb' is not made of ASCII letters", id="unicode name"),
    pytest.param(doc("ConfigMap", "", name="a" * 251), "4:3",
                 "metadata.name: name '" + "a" * 77 + "...' is not made of ASCII letters",
                 id="name too long for a file"),
    pytest.param(doc("ConfigMap", "", name="Web"), "4:3",
                 "metadata.name: 'Web' must consist of lower case", id="uppercase name"),
    pytest.param(doc("Deployment", "", "apps/v1", name="a" * 254), "4:3",
                 "metadata.name: name '" + "a" * 77 + "...' is not made of", id="long name"),
    pytest.param(doc("Service", "", name="1web"), "4:3",
                 "metadata.name: '1web' must start with a lower case letter", id="service name"),
    pytest.param(doc("Namespace", "", name="a.b"), "4:3",
                 "metadata.name: 'a.b' is not a DNS-1123 label",
                 id="namespace name"),
    pytest.param(doc("CronJob", "", "batch/v1", name="c" * 53), "4:3",
                 "metadata.name: '" + "c" * 53 + "' must be no more than 52 characters",
                 id="cronjob name"),
    pytest.param(doc("ValidatingWebhookConfiguration", "", "admissionregistration.k8s.io/v1",
                     name="team:validator"), "4:3",
                 "metadata.name: 'team:validator' must consist of lower case",
                 id="webhook configuration name"),
    pytest.param(doc("Widget", "  namespace: shop\n", "example.io/v1", name="wídget"), "4:3",
                 "metadata.name: name 'wídget' is not made of ASCII", id="custom resource name"),
    pytest.param(doc("ConfigMap", "  namespace: prödukt\n"), "5:3",
                 "metadata.namespace: namespace 'prödukt' is not a DNS-1123 label",
                 id="unicode namespace"),
    pytest.param(doc("Bad_Kind", "  namespace: shop\n", "example.io/v1"), "2:1",
                 "kind: kind 'bad_kind' is not a DNS-1035 label when lowercased", id="kind"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "where", "message"), CASES)
def test_a_field_the_api_server_refuses(check: Check, text: str, where: str, message: str) -> None:
    found = check({"t.yaml": text})
    assert len(found) == 1, found
    assert found[0].startswith(f"t.yaml:{where}: error: "), found[0]
    assert message in found[0], found[0]


NS = "  namespace: shop\n"
VERSION_RULE = (
    "must consist of at most 63 lower case alphanumeric characters or '-', start with a letter"
    " and end with an alphanumeric character (a DNS-1035 label)"
)
GROUP_VERSION = "(an apiVersion is group/version, or the version alone for the core group)"
EMPTY_GROUP = "has an empty group: the core group's apiVersion is its version alone, such as 'v1'"


@pytest.mark.parametrize(
    ("api_version", "message"),
    [
        ('"/v1"', f"'/v1' {EMPTY_GROUP}"),
        ('"/"', f"'/' {EMPTY_GROUP}"),
        ('"example.io/"', "'example.io/' has no version after its group"),
        ('" v1"', f"version ' v1' {VERSION_RULE}"),
        ("example.io/V1", f"version 'V1' {VERSION_RULE}"),
        ("example.io//v1", f"unexpected GroupVersion string: 'example.io//v1' {GROUP_VERSION}"),
        ("a/b/c", f"unexpected GroupVersion string: 'a/b/c' {GROUP_VERSION}"),
        ("Example.io/v1", "group 'Example.io' must consist of lower case alphanumeric characters,"
         " '-' or '.', and start and end with an alphanumeric character"),
    ],
    ids=["empty group", "a slash alone", "empty version", "a space", "upper case version",
         "two slashes", "three parts", "group"],
)  # fmt: skip
def test_an_api_version_the_api_server_refuses(
    check: Check, api_version: str, message: str
) -> None:
    """apimachinery reads `version` or `group/version`; an empty part, another `/` or a part
    that is no DNS name is an error at the apiVersion, as it is a request no server takes."""
    found = check({"t.yaml": doc("Widget", NS, api_version)})
    assert found == [f"t.yaml:1:1: error: Widget shop/web: apiVersion: {message}"]


def test_a_malformed_api_version_and_a_bad_kind_are_both_reported(check: Check) -> None:
    """The apiVersion's group is reported at the apiVersion, once; the kind still at the kind."""
    found = check({"t.yaml": doc("Bad_Kind", NS, "Example.io/")})
    assert [line.split(": error: ")[0] for line in found] == ["t.yaml:1:1", "t.yaml:2:1"], found
    assert "apiVersion: group 'Example.io' must consist of" in found[0]
    assert "kind: kind 'bad_kind' is not a DNS-1035 label" in found[1]


def test_every_problem_is_reported(check: Check) -> None:
    text = doc(
        "ConfigMap",
        "  labels: {a: true, b: 1}\n  annotations: {c: false}\ndata: {d: yes, e: 0123}\n",
        name="Web",
    )
    found = check({"t.yaml": text})
    assert [line.split(": error: ")[0] for line in found] == [
        "t.yaml:4:3", "t.yaml:5:12", "t.yaml:5:21", "t.yaml:6:17", "t.yaml:7:8", "t.yaml:7:16",
    ]  # fmt: skip


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(doc("ConfigMap", "  labels: {a: 'true', b: '1'}\ndata: {c: '0123'}\n"),
                     id="quoted"),
        pytest.param(doc("ConfigMap", "  labels: {a: null}\ndata: {b: null}\n"), id="nulls"),
        pytest.param(doc("Secret", "data: {a: aHVudGVyMg==}\nstringData: {b: x}\n"), id="secret"),
        pytest.param(doc("Service", "spec: {ports: [{port: 80, targetPort: http}]}\n"),
                     id="named target port"),
        pytest.param(doc("Deployment", "spec: {replicas: 2.0}\n", "apps/v1"), id="2.0"),
        pytest.param(pod("- {name: c, env: [{name: A, value: '1'}, {name: B}]}\n"), id="env"),
        pytest.param(doc("ConfigMap", "  annotations: {Example.COM/Owner: a, \u0130d: b}\n"),
                     id="annotation keys of any case"),
        pytest.param(doc("ClusterRole", "", "rbac.authorization.k8s.io/v1",
                         name="system:aggregate-to-admin"), id="rbac name"),
        pytest.param(doc("Widget", "  namespace: shop\nspec: {labels: {a: true}}\n",
                         "example.io/v1", name="Big_W"),
                     id="custom resource"),
    ],
)  # fmt: skip
def test_valid_templates(check: Check, text: str) -> None:
    assert check({"t.yaml": text}) == []


def test_a_template_changed_between_commits_is_checked_again(tmp_path: Path) -> None:
    """The source loader hands out the same template objects for unchanged files, and their
    problems are remembered by object: a file fixed, then broken again, is checked each time."""

    def commit(text: str) -> str:
        (tmp_path / "web.yaml").write_text(text)
        (tmp_path / "other.yaml").write_text(
            doc("ConfigMap", "  labels: {app: other}\n", name="other")
        )
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
        subprocess.run([*git, "add", "-A"], cwd=tmp_path, check=True)
        subprocess.run([*git, "commit", "-q", "-m", "x"], cwd=tmp_path, check=True)
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=tmp_path, check=True, capture_output=True
        )
        return out.stdout.decode().strip()

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    broken = commit(doc("ConfigMap", "  labels: {enabled: true}\n"))
    fixed = commit(doc("ConfigMap", "  labels: {enabled: 'true'}\n"))

    def errors(rev: str) -> list[str]:
        return [str(d) for d in validation.validate(source.load(tmp_path, rev))]

    assert [e.split(": ", 1)[0] for e in errors(broken)] == ["web.yaml:5:12"]
    assert errors(fixed) == []
    assert len(errors(broken)) == 1
