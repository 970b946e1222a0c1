"""Random dependency-distribution scenarios, and Karmada's answers to them.

Each scenario is made from its seed alone (`scenario`): one or two rounds, each a state of the
sources in namespace `shop`: resource templates (ConfigMaps, Secrets, a ServiceAccount, a
PersistentVolumeClaim, a ClusterRole, some labelled `tier: a` or `tier: b`, each present or
not, and a ConfigMap of namespace `other` named as one in `shop`) and one to three requirers:
Deployments naming some of them in their pod template (volumes, envFrom, env,
imagePullSecrets, serviceAccountName, claims), or `example.io/v1` Widgets whose Lua
customization (`WIDGET_DEPENDENCIES`) names them (or another Widget) by name or by label
selector, in their namespace, in `other`, or with no namespace (the ClusterRole, and some
namespaced ones), some without a kind (refused); and the ResourceBindings the detector and the
scheduler keep for them: the requirers' (propagateDeps or not, a schedule result of zero to
three clusters, conflictResolution, and preserveResourcesOnDeletion unset, true or false), and
bindings some dependencies have from a policy of their own (a placement and clusters, owned by
the template, or by an older template of the same name), some only from the second round on.
A second round redraws part of the first: requirers come, go, change their references (a
Widget may add one without a kind) or their clusters; templates come, go, or change their
labels; the Widgets' customization may be gone.

The answers in testdata/karmada_dependencies_answers.json are what Karmada's own dependencies
distributor gave for each (bench/karmada_dependencies.go): every ResourceBinding once each round
has settled, and Reconcile's errors; each dependencies annotation with the names of one kind
sorted (`canonical_dependencies`: their order is random in Karmada). To make them again (after a
change to this generator, or for another Karmada), from the repository root:

    python tests/detector/dependencies_oracle_scenarios.py --karmada PATH [--go GO] [--commit SHA]

PATH is a checkout of karmada-io/karmada with its vendored packages. The generator must not
change without making the answers again: a seed stands for the scenario it made when they were
made.

Within a round the harness reconciles the requirers in the order of their names; Karmada takes
them in the order their events come, so that the order of `requiredBy` snapshots of a
dependency required by several requirers is the order of events (docs/karmada-compatibility.md).
"""

from __future__ import annotations

import copy
import json
import random
import sys
from pathlib import Path
from typing import Any

Doc = dict[str, Any]

ANSWERS = Path(__file__).resolve().parent / "testdata" / "karmada_dependencies_answers.json"
SEEDS = 400
NAMESPACE = "shop"
RB_ID = "resourcebinding.karmada.io/permanent-id"
DEPENDENCIES_ANNOTATION = "resourcebinding.karmada.io/dependencies"
CLUSTERS = ("m1", "m2", "m3")
REQUIRERS = ("web", "api", "worker")

WIDGET_DEPENDENCIES = """
function GetDependencies(desiredObj)
  local refs = {}
  if desiredObj.spec == nil or desiredObj.spec.needs == nil then
    return refs
  end
  for i, need in ipairs(desiredObj.spec.needs) do
    local ref = {apiVersion = need.apiVersion, kind = need.kind}
    if need.namespace ~= nil then
      ref.namespace = need.namespace
    else
      ref.namespace = desiredObj.metadata.namespace
    end
    if need.name ~= nil then
      ref.name = need.name
    else
      ref.labelSelector = {matchLabels = need.labels}
    end
    refs[i] = ref
  end
  return refs
end
"""
"""A Widget's dependencies: its `spec.needs`, each by name or by labels, in the Widget's
namespace unless the need names one ("" for a cluster-scoped kind)."""

CUSTOMIZATION: Doc = {
    "apiVersion": "config.karmada.io/v1alpha1",
    "kind": "ResourceInterpreterCustomization",
    "metadata": {"name": "widget-dependencies"},
    "spec": {
        "target": {"apiVersion": "example.io/v1", "kind": "Widget"},
        "customizations": {"dependencyInterpretation": {"luaScript": WIDGET_DEPENDENCIES}},
    },
}

DEPENDENCIES = (
    ("v1", "ConfigMap", "settings"),
    ("v1", "ConfigMap", "flags"),
    ("v1", "ConfigMap", "extra"),
    ("v1", "Secret", "token"),
    ("v1", "Secret", "tls"),
    ("v1", "ServiceAccount", "robot"),
    ("v1", "PersistentVolumeClaim", "data"),
    ("rbac.authorization.k8s.io/v1", "ClusterRole", "reader"),
)
"""(apiVersion, kind, name) of every dependency a scenario may have."""


def uid(api_version: str, kind: str, name: str, generation: int = 0) -> str:
    """The template's uid, as the API server gave it (another one for an older template of the
    same name)."""
    return f"uid-{api_version}-{kind}-{name}-{generation}".replace("/", "-").lower()


def binding_name(name: str, kind: str) -> str:
    """Karmada's GenerateBindingName."""
    return f"{name}-{kind.lower()}"


def _dependency(r: random.Random, api_version: str, kind: str, name: str) -> Doc:
    meta: Doc = {"name": name, "uid": uid(api_version, kind, name)}
    if kind != "ClusterRole":
        meta["namespace"] = NAMESPACE
    if r.random() < 0.6:
        meta["labels"] = {"tier": r.choice("ab")}
    return {"apiVersion": api_version, "kind": kind, "metadata": meta}


def _pod_spec(r: random.Random, wanted: list[tuple[str, str, str]]) -> Doc:
    container: Doc = {"name": "main", "image": "nginx"}
    spec: Doc = {"containers": [container]}
    volumes: list[Doc] = []
    for _, kind, name in wanted:
        way = r.random()
        if kind == "ConfigMap":
            if way < 0.5:
                volumes.append({"name": f"v-{name}", "configMap": {"name": name}})
            elif way < 0.8:
                container.setdefault("envFrom", []).append({"configMapRef": {"name": name}})
            else:
                ref = {"configMapKeyRef": {"name": name, "key": "k"}}
                container.setdefault("env", []).append({"name": name.upper(), "valueFrom": ref})
        elif kind == "Secret":
            if way < 0.5:
                volumes.append({"name": f"v-{name}", "secret": {"secretName": name}})
            elif way < 0.8:
                container.setdefault("envFrom", []).append({"secretRef": {"name": name}})
            else:
                spec.setdefault("imagePullSecrets", []).append({"name": name})
        elif kind == "ServiceAccount":
            spec["serviceAccountName"] = name
        elif kind == "PersistentVolumeClaim":
            claim = {"claimName": name}
            volumes.append({"name": f"v-{name}", "persistentVolumeClaim": claim})
    if volumes:
        spec["volumes"] = volumes
    return spec


def _needs(r: random.Random) -> list[Doc]:
    needs: list[Doc] = []
    for _ in range(r.choice([0, 1, 1, 2, 3])):
        api_version, kind, name = r.choice(DEPENDENCIES)
        if r.random() < 0.08:
            api_version, kind, name = "example.io/v1", "Widget", r.choice(REQUIRERS)
        need: Doc = {"apiVersion": api_version, "kind": kind}
        if r.random() < 0.65:
            need["name"] = name
        else:
            need["labels"] = {"tier": r.choice("ab")}
        if kind == "ClusterRole":
            need["namespace"] = ""
        elif r.random() < 0.12:
            need["namespace"] = "other"
        elif r.random() < 0.06:
            need["namespace"] = ""
        if r.random() < 0.04:
            del need["kind"]
        needs.append(need)
    return needs


def _requirer(r: random.Random, name: str) -> Doc:
    meta = {"name": name, "namespace": NAMESPACE}
    if r.random() < 0.35:
        meta["uid"] = uid("example.io/v1", "Widget", name)
        return {"apiVersion": "example.io/v1", "kind": "Widget", "metadata": meta,
                "spec": {"needs": _needs(r)}}  # fmt: skip
    meta["uid"] = uid("apps/v1", "Deployment", name)
    pod_deps = [d for d in DEPENDENCIES if d[1] != "ClusterRole"]
    wanted = r.sample(pod_deps, r.choice([0, 1, 2, 2, 3, 4]))
    template = {"metadata": {"labels": {"app": name}}, "spec": _pod_spec(r, wanted)}
    spec = {"selector": {"matchLabels": {"app": name}}, "template": template}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta, "spec": spec}


def _binding(name: str, resource: Doc, spec: Doc, owner_uid: str) -> Doc:
    meta = resource["metadata"]
    reference = {"apiVersion": resource["apiVersion"], "kind": resource["kind"]}
    if meta.get("namespace"):
        reference["namespace"] = meta["namespace"]
    reference["name"] = meta["name"]
    owner = {
        "apiVersion": resource["apiVersion"],
        "kind": resource["kind"],
        "name": meta["name"],
        "uid": owner_uid,
        "controller": True,
        "blockOwnerDeletion": True,
    }
    return {
        "apiVersion": "work.karmada.io/v1alpha2",
        "kind": "ResourceBinding",
        "metadata": {
            "name": name,
            "namespace": NAMESPACE,
            "labels": {RB_ID: f"id-{name}"},
            "finalizers": ["karmada.io/binding-controller"],
            "ownerReferences": [owner],
        },
        "spec": {"resource": reference, **spec},
    }


def _clusters(r: random.Random) -> list[Doc]:
    chosen = sorted(r.sample(CLUSTERS, r.choices([0, 1, 2, 3], [0.15, 0.4, 0.3, 0.15])[0]))
    return [{"name": c, "replicas": 1} for c in chosen]


def _requirer_binding(r: random.Random, workload: Doc) -> Doc:
    meta = workload["metadata"]
    spec: Doc = {
        "propagateDeps": r.random() < 0.85,
        "placement": {"clusterAffinity": {"clusterNames": list(CLUSTERS)}},
        "conflictResolution": r.choice(["Abort", "Overwrite"]),
    }
    preserve = r.choice([None, True, False])
    if preserve is not None:
        spec["preserveResourcesOnDeletion"] = preserve
    clusters = _clusters(r)
    if clusters:
        spec["clusters"] = clusters
    name = binding_name(meta["name"], workload["kind"])
    return _binding(name, workload, spec, meta["uid"])


def _own_binding(r: random.Random, dependency: Doc, *, earlier_owner: bool = True) -> Doc:
    """The binding a policy of its own made for a dependency (some owned by an earlier template
    of the same name, where `earlier_owner`)."""
    meta = dependency["metadata"]
    spec: Doc = {
        "placement": {"clusterAffinity": {"clusterNames": ["m3"]}},
        "conflictResolution": r.choice(["Abort", "Overwrite"]),
        "clusters": [{"name": "m3"}],
    }
    owner = meta["uid"]
    if earlier_owner and r.random() < 0.15:
        owner = uid("v1", dependency["kind"], meta["name"], 1)
    return _binding(binding_name(meta["name"], dependency["kind"]), dependency, spec, owner)


def _first_round(r: random.Random) -> tuple[list[Doc], list[Doc], list[Doc]]:
    """(templates of dependencies, requirer workloads, bindings) of a first round."""
    dependencies = [_dependency(r, *d) for d in DEPENDENCIES if r.random() < 0.75]
    if r.random() < 0.3:
        elsewhere = _dependency(r, "v1", "ConfigMap", "settings")
        elsewhere["metadata"]["namespace"] = "other"
        elsewhere["metadata"]["uid"] += "-other"
        dependencies.append(elsewhere)
    workloads = [_requirer(r, n) for n in sorted(r.sample(REQUIRERS, r.choice([1, 1, 2, 3])))]
    bindings = [_requirer_binding(r, w) for w in workloads]
    bindings += [
        _own_binding(r, d)
        for d in dependencies
        if d["metadata"].get("namespace") == NAMESPACE and r.random() < 0.15
    ]
    return dependencies, workloads, bindings


def _next_round(
    r: random.Random, dependencies: list[Doc], workloads: list[Doc], bindings: list[Doc]
) -> tuple[list[Doc], list[Doc], list[Doc]]:
    """The first round with part of it redrawn."""
    present = {
        (d["apiVersion"], d["kind"], d["metadata"]["name"]): d
        for d in dependencies
        if d["metadata"].get("namespace", NAMESPACE) == NAMESPACE
    }
    next_dependencies = [d for d in dependencies if d["metadata"].get("namespace") == "other"]
    for d in DEPENDENCIES:
        old = present.get(d)
        if r.random() < 0.3:
            old = None if old is not None else _dependency(r, *d)
        elif old is not None and r.random() < 0.2:
            old = copy.deepcopy(old)
            old["metadata"]["labels"] = {"tier": r.choice("ab")}
        if old is not None:
            next_dependencies.append(old)
    by_name = {b["metadata"]["name"]: b for b in bindings}
    next_workloads, next_bindings = [], []
    for name in REQUIRERS:
        old_workload = next((w for w in workloads if w["metadata"]["name"] == name), None)
        pick = r.random()
        if old_workload is None:
            if pick < 0.2:
                workload = _requirer(r, name)
                next_workloads.append(workload)
                next_bindings.append(_requirer_binding(r, workload))
            continue
        if pick < 0.15:
            continue
        workload = _requirer(r, name) if pick < 0.5 else old_workload
        if workload["kind"] != old_workload["kind"]:
            workload = old_workload
        if workload["kind"] == "Widget" and r.random() < 0.25:
            workload = copy.deepcopy(workload)
            workload["spec"]["needs"].append({"apiVersion": "v1", "name": "settings"})
        binding = copy.deepcopy(by_name[binding_name(name, workload["kind"])])
        if r.random() < 0.4:
            clusters = _clusters(r)
            binding["spec"].pop("clusters", None)
            if clusters:
                binding["spec"]["clusters"] = clusters
        if r.random() < 0.1:
            binding["spec"]["propagateDeps"] = not binding["spec"]["propagateDeps"]
        next_workloads.append(workload)
        next_bindings.append(binding)
    own = {
        b["metadata"]["name"]: b
        for b in bindings
        if b["spec"]["resource"]["kind"] not in ("Deployment", "Widget")
    }
    for d in next_dependencies:
        name = binding_name(d["metadata"]["name"], d["kind"])
        if d["metadata"].get("namespace") != NAMESPACE:
            continue
        if name in own:
            next_bindings.append(own[name])
        elif r.random() < 0.12:
            next_bindings.append(_own_binding(r, d, earlier_owner=False))
    return next_dependencies, next_workloads, next_bindings


def scenario(seed: int) -> Doc:
    """The customization and the rounds of one scenario."""
    r = random.Random(seed)
    dependencies, workloads, bindings = _first_round(r)
    objects = [*dependencies, *workloads]
    rounds = [{"customizations": [CUSTOMIZATION], "objects": objects, "bindings": bindings}]
    if r.random() < 0.5:
        dependencies, workloads, bindings = _next_round(r, dependencies, workloads, bindings)
        customizations = [CUSTOMIZATION] if r.random() > 0.1 else []
        objects = [*dependencies, *workloads]
        rounds.append({"customizations": customizations, "objects": objects, "bindings": bindings})
    return {"rounds": copy.deepcopy(rounds)}


def canonical_dependencies(recorded: str) -> str:
    """A dependencies annotation with the names of each run of one kind sorted: Karmada's native
    rules gather a kind's names in a Go set, whose order is random."""
    refs = json.loads(recorded)
    if not isinstance(refs, list):
        return recorded
    runs: list[list[Any]] = []
    for ref in refs:
        if runs and runs[-1][0]["kind"] == ref["kind"]:
            runs[-1].append(ref)
        else:
            runs.append([ref])
    ordered = [r for run in runs for r in sorted(run, key=lambda r: json.dumps(r, sort_keys=True))]
    return json.dumps(ordered, separators=(",", ":"))


def _canonical(answer: Doc) -> Doc:
    """Karmada's answer with its dependencies annotations canonical, so that making the answers
    again gives the same file."""
    for round_ in answer["rounds"]:
        for b in round_["bindings"]:
            annotations = b.get("annotations") or {}
            if DEPENDENCIES_ANNOTATION in annotations:
                recorded = annotations[DEPENDENCIES_ANNOTATION]
                annotations[DEPENDENCIES_ANNOTATION] = canonical_dependencies(recorded)
    return answer


def main() -> None:
    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root))
    from bench import karmada_harness

    checkout = karmada_harness.checkout_from_command_line(__doc__.splitlines()[0])
    harness = root / "bench" / "karmada_dependencies.go"
    extras = {"pkg/dependenciesdistributor": root / "bench" / "karmada_dependencies_export.go"}
    cases: list[object] = [scenario(seed) for seed in range(SEEDS)]
    given = karmada_harness.answers(harness, checkout.path, checkout.go, cases, extras)
    karmada_harness.write_answers(ANSWERS, checkout.commit, [_canonical(a) for a in given])


if __name__ == "__main__":
    main()
