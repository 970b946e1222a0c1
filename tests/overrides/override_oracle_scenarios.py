"""Random override scenarios, and Karmada's answers to them.

Each scenario is made from its seed alone (`scenario`): one object (a Deployment, Pod,
StatefulSet or Job with containers, init containers, commands, args and images of every
spelling; or a ConfigMap holding JSON and YAML documents), one cluster, up to three
OverridePolicies and two ClusterOverridePolicies with random resource selectors, target
clusters and rules of every overrider (plaintext, image, command, args, labels, annotations,
field with JSON and YAML operations), valid or not. Seeds from `DOCUMENTS` on are of another
profile (`_document_scenario`): a ConfigMap holding a YAML and a JSON document of odd content
(YAML 1.1 scalars of every type, quoting and escapes, block scalars, anchors, aliases and
`<<` merges before and after a map's own keys, repeated keys, null keys and keys past int64,
tags of every kind on scalars and collections, binary, tabs, directives, lists and scalars
as documents; JSON numbers and escapes of every spelling) and one policy patching one of them,
mostly adding a key, so that what is compared is how each document is read and written back.
The answers in testdata/karmada_oracle_answers.json are what Karmada's own override manager
gave for each (bench/karmada_overrides.go): a digest of the object as the cluster receives it
(`digest`), or that it failed. To make them again (after a change to this generator, or for
another Karmada), from the repository root:

    python tests/overrides/override_oracle_scenarios.py --karmada PATH [--go GO] [--commit SHA]

PATH is a checkout of karmada-io/karmada with its vendored packages. The generator must not
change without making the answers again: a seed stands for the scenario it made when they were
made. No scenario changes an object's apiVersion, kind, namespace or name, which gitfleet
refuses on purpose (docs/karmada-compatibility.md).
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

Doc = dict[str, Any]

ANSWERS = Path(__file__).resolve().parent / "testdata" / "karmada_oracle_answers.json"
SEEDS = 1800
DOCUMENTS = 1500
"""Seeds from it on are of the document profile (`_document_scenario`)."""
IMAGES = (
    "nginx",
    "nginx:1.19",
    "docker.io/library/nginx:1.19",
    "registry:5000/a/b:v1",
    "gcr.io/proj/app@sha256:" + "a" * 64,
    "fictional.registry.us/busybox:1.0",
    "busybox:latest",
    "localhost/x/y/z:t",
    "quay.io/coreos/etcd",
)
CONFIG_JSON = json.dumps({"db": {"host": "a", "port": 5432}, "list": [1, 2, 3], "flag": True})
CONFIG_YAML = "db:\n  host: a\n  port: 5432\nlist:\n- 1\n- 2\nflag: true\n"


def digest(obj: Any) -> str:
    """A digest of `obj` as JSON (keys sorted; a float holding an integer is that integer, as
    Go's JSON gives it back)."""
    text = json.dumps(_integral(obj), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _integral(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _integral(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_integral(v) for v in value]
    return value


def _containers(r: random.Random, count: int) -> list[Doc]:
    found = []
    for i in range(count):
        container: Doc = {"name": f"c{i}", "image": r.choice(IMAGES)}
        if r.random() < 0.5:
            container["command"] = r.sample(["/bin/sh", "-c", "run", "--x=1"], r.randint(0, 3))
        if r.random() < 0.5:
            container["args"] = r.sample(["a", "b", "--v=2", "c d"], r.randint(0, 3))
        found.append(container)
    return found


def _pod_spec(r: random.Random) -> Doc:
    spec: Doc = {"containers": _containers(r, r.randint(1, 3))}
    if r.random() < 0.3:
        spec["initContainers"] = _containers(r, 1)
    return spec


def _metadata(r: random.Random) -> Doc:
    labels = {"app": r.choice(["web", "db"])} if r.random() < 0.8 else {}
    if r.random() < 0.3:
        labels["tier"] = r.choice(["a", "b"])
    name = r.choice(["web", "db", "api"])
    meta: Doc = {"name": name, "namespace": r.choice(["ns", "ns", "ns", "other"])}
    if labels or r.random() < 0.4:
        meta["labels"] = labels
    if r.random() < 0.4:
        meta["annotations"] = {"note": r.choice(["x", "y"]), "a/b": "c"}
    return meta


def _object(r: random.Random) -> Doc:
    pick = r.random()
    meta = _metadata(r)
    selector = {"matchLabels": {"app": "web"}}
    template = {"metadata": {"labels": {"app": "web"}}, "spec": _pod_spec(r)}
    if pick < 0.4:
        spec = {"replicas": r.randint(0, 5), "selector": selector, "template": template}
        return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta, "spec": spec}
    if pick < 0.5:
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": _pod_spec(r)}
    if pick < 0.6:
        spec = {"replicas": 1, "serviceName": "s", "selector": selector, "template": template}
        return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": meta, "spec": spec}
    if pick < 0.7:
        spec = {"template": {"spec": _pod_spec(r)}}
        return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": spec}
    data = {"plain": "hello"}
    if r.random() < 0.7:
        data["config.json"] = CONFIG_JSON
    if r.random() < 0.7:
        data["config.yaml"] = CONFIG_YAML
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data}


def _plaintext(r: random.Random, obj: Doc) -> Doc:
    paths = [
        "/metadata/labels/extra",
        "/metadata/labels/app",
        "/metadata/annotations/x~1y",
        "/metadata/annotations",
        "/spec/nothing/here",
        "/metadata/labels",
    ]
    if obj["kind"] in ("Deployment", "StatefulSet"):
        containers = "/spec/template/spec/containers"
        paths += ["/spec/replicas", f"{containers}/0/image", f"{containers}/-"]
        paths += [f"{containers}/5/image", "/spec/paused"]
    if obj["kind"] == "ConfigMap":
        paths += ["/data/plain", "/data/new", "/data/config.json"]
    if obj["kind"] == "Pod":
        paths += ["/spec/containers/0/image", "/spec/nodeName"]
    operator = r.choice(["add", "replace", "remove"])
    path = r.choice(paths)
    found: Doc = {"path": path, "operator": operator}
    if operator == "remove":
        return found
    if path.endswith("/-"):
        found["value"] = {"name": "side", "image": "busybox"}
    elif path.endswith(("/labels", "/annotations")):
        found["value"] = {"k": "v"}
    elif "replicas" in path:
        found["value"] = r.randint(0, 9)
    elif path.endswith("paused"):
        found["value"] = True
    else:
        found["value"] = r.choice(["v1", "busybox:2", "", "x"])
    return found


def _image(r: random.Random) -> Doc:
    component = r.choice(["Registry", "Repository", "Tag"])
    found: Doc = {"component": component, "operator": r.choice(["add", "remove", "replace"])}
    if found["operator"] != "remove" or r.random() < 0.3:
        values = ["registry.k8s.io", "v2", "myrepo/app", "-suffix", "", ".cn", "sha256:" + "b" * 64]
        found["value"] = r.choice(values)
    if r.random() < 0.25:
        paths = [
            "/spec/template/spec/containers/0/image",
            "/spec/containers/0/image",
            "/spec/template/spec/containers/1/image",
            "/spec/nope",
        ]
        found["predicate"] = {"path": r.choice(paths)}
    return found


def _command_args(r: random.Random) -> Doc:
    return {
        "containerName": r.choice(["c0", "c1", "zz"]),
        "operator": r.choice(["add", "remove"]),
        "value": r.sample(["--x=1", "a", "extra", "run", "b"], r.randint(0, 3)),
    }


def _labels(r: random.Random) -> Doc:
    values = [{"app": "z"}, {"new": "1"}, {"tier": "c", "app": "web"}, {"a/b": "x"}, {"note": ""}]
    return {"operator": r.choice(["add", "remove", "replace"]), "value": r.choice(values)}


def _field(r: random.Random) -> Doc:
    path = r.choice(["/data/config.json", "/data/config.yaml", "/data/plain", "/data/missing"])
    sub_paths = ["/db/host", "/db/port", "/list/0", "/list/-", "/flag", "/new", "/db", "/nope/x"]
    operation: Doc = {
        "subPath": r.choice(sub_paths),
        "operator": r.choice(["add", "replace", "remove"]),
    }
    if operation["operator"] != "remove":
        operation["value"] = r.choice(["b", 1, 2.5, {"x": 1}, [1, 2], True, None, "1e3", "yes"])
    return {"fieldPath": path, r.choice(["json", "yaml"]): [operation]}


def _overriders(r: random.Random, obj: Doc) -> Doc:
    found: dict[str, list[Doc]] = {}
    for _ in range(r.randint(1, 3)):
        pick = r.random()
        if pick < 0.25:
            found.setdefault("plaintext", []).append(_plaintext(r, obj))
        elif pick < 0.45:
            found.setdefault("imageOverrider", []).append(_image(r))
        elif pick < 0.55:
            found.setdefault("commandOverrider", []).append(_command_args(r))
        elif pick < 0.65:
            found.setdefault("argsOverrider", []).append(_command_args(r))
        elif pick < 0.75:
            found.setdefault("labelsOverrider", []).append(_labels(r))
        elif pick < 0.85:
            found.setdefault("annotationsOverrider", []).append(_labels(r))
        else:
            found.setdefault("fieldOverrider", []).append(_field(r))
    return found


def _target(r: random.Random) -> Doc | None:
    pick = r.random()
    if pick < 0.3:
        return None
    if pick < 0.5:
        return {"clusterNames": [r.choice(["c1", "c2"])]}
    if pick < 0.65:
        return {"labelSelector": {"matchLabels": {"env": r.choice(["prod", "dev"])}}}
    if pick < 0.75:
        region = {"key": "region", "operator": r.choice(["In", "NotIn"]), "values": ["r1"]}
        return {"fieldSelector": {"matchExpressions": [region]}}
    if pick < 0.85:
        return {"exclude": ["c1"]}
    return {}


def _selectors(r: random.Random, obj: Doc) -> list[Doc]:
    pick = r.random()
    if pick < 0.2:
        return []
    found: Doc = {"apiVersion": obj["apiVersion"], "kind": obj["kind"]}
    if pick < 0.4:
        found["name"] = r.choice([obj["metadata"]["name"], "other"])
    elif pick < 0.55:
        found["labelSelector"] = {"matchLabels": {"app": r.choice(["web", "db"])}}
    elif pick < 0.6:
        found["apiVersion"] = "v2"
    return [found]


def _policy(r: random.Random, kind: str, name: str, obj: Doc, namespace: str | None) -> Doc:
    spec: Doc = {}
    selectors = _selectors(r, obj)
    if selectors:
        spec["resourceSelectors"] = selectors
    rules = []
    for _ in range(r.randint(1, 2)):
        rule: Doc = {"overriders": _overriders(r, obj)}
        target = _target(r)
        if target is not None:
            rule["targetCluster"] = target
        rules.append(rule)
    spec["overrideRules"] = rules
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": kind,
        "metadata": meta,
        "spec": spec,
    }


SCALARS = (
    *("yes", "No", "on", "OFF", "y", "n", "~", "null", "", "True"),
    *("0x1F", "0o17", "017", "08", "1_000", "+1", "-0", ".inf", "-.Inf", ".nan", "1e3", "1."),
    *("3.14159265358979323846", "12345678901234567890", "9223372036854775807"),
    *("2001-12-14", "2001-12-14t21:59:43.10-05:00", "12:30:45", "1:20", "0b101"),
    *("a: b", "a #c", "#x", "- x", "[a]", "{a: 1}", "é", "日本", "x\ty", "line1\nline2"),
    *("trailing ", "  lead", "a" * 90 + " " + "b" * 20, "word " * 25, "<>&", "\\", "*", "&a"),
    *("!tag", "%x", "@x", "`x", "?", "-", ":", "<<"),
)
"""Scalars of the document profile: each of a type YAML 1.1 gives it, or text that needs
quoting."""
_MUST_QUOTE = ("- ", "[", "{", "*", "&", "!", "%", "@", "`", "#", "? ")


def _scalar(r: random.Random) -> str:
    text = r.choice(SCALARS)
    plain = not any(c in text for c in "\n\t") and ": " not in text and " #" not in text
    if plain and not text.startswith(_MUST_QUOTE) and text not in ("-", "?", ":"):
        return text if r.random() < 0.7 else json.dumps(text, ensure_ascii=False)
    return json.dumps(text, ensure_ascii=False)


def _yaml_lines(r: random.Random, depth: int = 0) -> list[str]:
    lines = []
    for _ in range(r.randint(1, 4)):
        key = r.choice(["a", "b", "a10", "a2", "1", "true", "a", "~", "k k", "x:y", "-k", "é"])
        pick = r.random()
        if depth < 2 and pick < 0.25:
            lines += [f"{key}:", *("  " + line for line in _yaml_lines(r, depth + 1))]
        elif depth < 2 and pick < 0.4:
            items = [f"- {_scalar(r)}" for _ in range(r.randint(0, 3))]
            lines += [f"{key}:", *items] if items else [f"{key}: []"]
        elif pick < 0.45:
            lines.append(f"{key}: |\n  multi\n  line")
        elif pick < 0.5:
            lines.append(f"{key}: >\n  folded\n  text")
        elif pick < 0.55:
            lines.append(f"{key}: {{x: 1, y: [a, 2]}}")
        else:
            lines.append(f"{key}: {_scalar(r)}")
    return lines


def _yaml_document(r: random.Random) -> str:
    lines = _yaml_lines(r)
    pick = r.random()
    if pick < 0.3:
        lines.insert(0, "base: &b {a: 1, b: [x, y], c: {d: 2}}")
        merge = ["<<: *b", "<<: [*b, {a: 5}]", "<<: {a: 9}", "c: *b", "e: *b"]
        lines.insert(r.randint(1, len(lines)), r.choice(merge))
    elif pick < 0.4:
        lines = ["# comment", *lines, "z: 1 # trailing"]
    elif pick < 0.5:
        lines = ["  " + line if line.startswith(" ") else "- " + line for line in lines]
    elif pick < 0.55:
        lines = [r.choice(["plain scalar", '"q"', "1", "~", "[1, 2]", "{}", "[]"])]
    elif pick < 0.6:
        lines.insert(0, r.choice(["%YAML 1.1\n---", "--- !!map", "---", "%TAG ! tag:x,2000:\n---"]))
    elif pick < 0.65:
        tagged = ["!!str 12", "!!int '12'", "!!float 1", "!custom x", "!!null ''", "!!bool yes"]
        tagged += ["!!timestamp 2001-01-01", "!!binary aGk=", "!!binary 4oI=", "!!binary 'aG k='"]
        tagged += ["!!map 12", "! 12", "!!str [1]", "!!set {x: 1}", "!!omap [{b: 1}]"]
        lines.append("t: " + r.choice(tagged))
    elif pick < 0.7:
        keys = ["!!binary aGk=", "!!merge 12", "9223372036854775808", "9223372036854775807"]
        lines.append(r.choice(keys) + ": k")
    elif pick < 0.75:  # tabs where go-yaml's scanner takes them, and where it does not
        lines = [line.replace(": ", r.choice([":\t", ": \t", ":\t "]), 1) for line in lines]
        lines.append(r.choice(["t: a\tb", "t: [1,\t2]", "t: !custom\tx", "t: |\n \tx", "\tt: 1"]))
    return "\n".join(lines) + r.choice(["\n", "", "\n\n", "\n---\n"])


def _json_value(r: random.Random, depth: int = 0) -> Any:
    found = {}
    for _ in range(r.randint(1, 4)):
        key = r.choice(["a", "b", "<k>", "&", "é", "\u2028", "B", "10", "2"])
        pick = r.random()
        if depth < 2 and pick < 0.3:
            found[key] = _json_value(r, depth + 1)
        elif pick < 0.5:
            numbers = [1.0, 1e21, 1e20, 10**29, -0.0, 0.1, 1.5e-7, 2**53 + 1, 2**63]
            found[key] = r.choice([*numbers, True, None])
        else:
            found[key] = r.choice(SCALARS)
    return found


def _document_scenario(r: random.Random) -> Doc:
    """A ConfigMap holding a YAML and a JSON document, and a policy patching one of them."""
    text = json.dumps(_json_value(r), ensure_ascii=r.random() < 0.5, indent=r.choice([None, 2]))
    data = {"y": _yaml_document(r), "j": text.replace("1.0", "1.00") if r.random() < 0.2 else text}
    meta = {"name": "web", "namespace": "ns"}
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data}
    paths = [
        "/zz",
        "/zz",
        "/zz",
        "/zz",
        "/zz",
        "/0",
        "/-",
        "/base/a",
        "/c/a",
        "/t",
        "/a",
        "/b",
        "/a/x",
        "/1",
    ]
    operation: Doc = {
        "subPath": r.choice([*paths, "/true", "/a/0", "/a/-", "/b/0"]),
        "operator": r.choice(["add", "add", "add", "replace", "remove"]),
    }
    form = r.choice(["yaml", "json"])
    if operation["operator"] != "remove":
        values = ["yes", "1e3", 1.5, 10**20, "x\ny", "", None, {"z": "on"}, [1, "2"], "<&>"]
        values += ["a" * 100 + " b", 0.1, "2001-12-14"]
        if form == "yaml":
            # separators, a leading BOM, a CR in a key (not for JSON: a patch value keeps the
            # spelling of its JSON text, here Python's escapes, where kubectl sends Go's)
            values += ["a\u2028\ufeff", "\ufeffa b", {"ga\r": ""}, "\nx\u2028\u2028"]
        operation["value"] = r.choice(values)
    field = {"fieldPath": "/data/y" if form == "yaml" else "/data/j", form: [operation]}
    rule = {"overriders": {"fieldOverrider": [field]}}
    policy = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "metadata": {"name": "a", "namespace": "ns"},
        "spec": {"overrideRules": [rule]},
    }
    member = {
        "apiVersion": "cluster.karmada.io/v1alpha1",
        "kind": "Cluster",
        "metadata": {"name": "c1"},
        "spec": {"syncMode": "Push"},
    }
    return {
        "object": obj,
        "cluster": member,
        "overridePolicies": [policy],
        "clusterOverridePolicies": [],
    }


def scenario(seed: int) -> Doc:
    """The object, the cluster and the policies of one scenario."""
    r = random.Random(seed)
    if seed >= DOCUMENTS:
        return _document_scenario(r)
    obj = _object(r)
    name = r.choice(["c1", "c2"])
    member = {
        "apiVersion": "cluster.karmada.io/v1alpha1",
        "kind": "Cluster",
        "metadata": {"name": name, "labels": {"env": r.choice(["prod", "dev"])}},
        "spec": {"syncMode": "Push", "region": r.choice(["r1", "r2"])},
    }
    names = r.sample(["a", "b", "c", "zz"], r.randint(0, 3))
    policies = [_policy(r, "OverridePolicy", n, obj, "ns") for n in names]
    names = r.sample(["ca", "cb", "cz"], r.randint(0, 2))
    cluster_policies = [_policy(r, "ClusterOverridePolicy", n, obj, None) for n in names]
    return {
        "object": obj,
        "cluster": member,
        "overridePolicies": policies,
        "clusterOverridePolicies": cluster_policies,
    }


def main() -> None:
    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root))
    from bench import karmada_harness

    checkout = karmada_harness.checkout_from_command_line(__doc__.splitlines()[0])
    harness = root / "bench" / "karmada_overrides.go"
    cases: list[object] = [scenario(seed) for seed in range(SEEDS)]
    given = karmada_harness.answers(harness, checkout.path, checkout.go, cases)
    kept = [{"error": True} if a.get("error") else {"digest": digest(a["object"])} for a in given]
    karmada_harness.write_answers(ANSWERS, checkout.commit, kept)


if __name__ == "__main__":
    main()
