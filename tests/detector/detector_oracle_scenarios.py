"""Random detector scenarios, and Karmada's answers to them.

Each scenario is made from its seed alone (`scenario`): one resource template (a Deployment,
ConfigMap, Service, Secret, custom resource, Namespace, ClusterRole, or a kind the detector never
watches, such as an Event or a Lease) in a namespace among default, kube-system, karmada-system,
karmada-es-*, gitfleet-system and ordinary ones, with labels; PropagationPolicies of its
namespace and of another one, and ClusterPropagationPolicies, each with one to three resource
selectors (apiVersion, kind, namespace, name, labelSelector with matchLabels and
matchExpressions of every operator), priority set or not, preemption Always or Never,
dependentOverrides, some being deleted; and the template's current claim, if any: a policy's
claim labels and annotations on it, complete or not, of a policy that still selects it or not,
of a higher or lower priority than the best match, or of one that no longer exists. Edge values
a user may type are among them: an empty labelSelector, an empty apiVersion or kind, selectors
in another letter case, operators and label keys or values Kubernetes refuses (Karmada's
conversion fails and the selector matches nothing), priorities at the ends of int32.

The answers in testdata/karmada_detector_answers.json are what Karmada's own detector code gave
for each (bench/karmada_detector.go): the policy that claims the template once the detector has
settled, whether it waits for dependentOverrides, that none does, or that the template is
never reconciled. To make them again (after a change to this generator, or for another
Karmada), from the repository root:

    python tests/detector/detector_oracle_scenarios.py --karmada PATH [--go GO] [--commit SHA]

PATH is a checkout of karmada-io/karmada with its vendored packages. The generator must not
change without making the answers again: a seed stands for the scenario it made when they were
made.

Left out on purpose, as Karmada's answer there is no steady state of its detector:
- a claim whose permanent id is not the claimed policy's, or by a PropagationPolicy of another
  namespace: once that policy no longer selects the template, Karmada's policy reconcile finds
  no binding of the template under its id (or namespace) and never cleans the claim, so the
  template stays claimed and unpropagated for good;
- `preemption: Always` with the PolicyPreemption feature gate on (it is off by default, and
  docs/karmada-compatibility.md says gitfleet follows the default);
- kinds Karmada never watches because the API server cannot delete them (Binding,
  ComponentStatus, reviews): which resources are served is the API server's to say, not the
  detector's;
- policies Karmada's admission refuses (a PropagationPolicy selector naming another namespace,
  preemption Always with a selector without a name), and templates with invalid labels, which
  never reach the detector.
"""

from __future__ import annotations

import json
import random
import sys
import uuid
from pathlib import Path
from typing import Any

Doc = dict[str, Any]

ANSWERS = Path(__file__).resolve().parent / "testdata" / "karmada_detector_answers.json"
SEEDS = 2000
POLICY_GROUP = "policy.karmada.io/v1alpha1"
PP_ID = "propagationpolicy.karmada.io/permanent-id"
PP_NAMESPACE = "propagationpolicy.karmada.io/namespace"
PP_NAME = "propagationpolicy.karmada.io/name"
CPP_ID = "clusterpropagationpolicy.karmada.io/permanent-id"
CPP_NAME = "clusterpropagationpolicy.karmada.io/name"
CLAIMED_BY = "resourcetemplate.karmada.io/claimed-by"

NAMESPACED = (
    ("apps/v1", "Deployment"),
    ("v1", "ConfigMap"),
    ("v1", "Service"),
    ("v1", "Secret"),
    ("example.io/v1", "Widget"),
    ("batch/v1", "Job"),
)
CLUSTER_SCOPED = (
    ("v1", "Namespace"),
    ("rbac.authorization.k8s.io/v1", "ClusterRole"),
    ("storage.k8s.io/v1", "StorageClass"),
)
NEVER_WATCHED = (
    ("v1", "Event"),
    ("events.k8s.io/v1", "Event"),
    ("coordination.k8s.io/v1", "Lease"),
    ("networking.karmada.io/v1alpha1", "MultiClusterIngress"),
    ("apps.karmada.io/v1alpha1", "WorkloadRebalancer"),
    ("remedy.karmada.io/v1alpha1", "Remedy"),
    ("work.karmada.io/v1alpha1", "Work"),
    ("events.k8s.io/v1beta1", "Event"),
)
WATCHED_ODDLY = (
    ("coordination.k8s.io/v1beta1", "Lease"),
    ("search.karmada.io/v1alpha1", "ResourceRegistry"),
    ("multicluster.x-k8s.io/v1alpha1", "ServiceImport"),
)
NAMESPACES = (
    "default",
    "default",
    "shop",
    "shop",
    "shop",
    "shop",
    "shop",
    "other",
    "other",
    "gitfleet-system",
    "kubeflow",
    "kube-system",
    "kube-public",
    "karmada-system",
    "karmada-cluster",
    "karmada-es-member1",
    "karmada-esx",
    "team-kube-system",
)
NAMES = (
    "web",
    "db",
    "api",
    "extension-apiserver-authentication",
    "kube-system",
    "default",
    "karmada-system",
    "karmada-es-member1",
)
POLICY_NAMES = ("a", "b", "c", "a-b", "a.b", "p-1", "p1", "p10", "p2", "zz")
PRIORITIES = (-2147483648, -1, 0, 0, 1, 1, 2, 5, 2147483647)
LABELS = {
    "app": ("web", "db"),
    "tier": ("front", "back"),
    "env": ("prod", "dev", ""),
    "version": ("1", "10", "2"),
    "example.com/team": ("x", "y"),
}
BAD_KEYS = ("bad key", "-app", "a/b/c", "x" * 64, "")
BAD_VALUES = ("a b", "-web", "v" * 64, "web!")


def permanent_id(kind: str, namespace: str, name: str) -> str:
    """A policy's permanent id (any fixed UUID per policy serves; Karmada's webhook draws one)."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"gitfleet-oracle/{kind}/{namespace}/{name}"))


def _labels(r: random.Random) -> dict[str, str]:
    found = {}
    for key, values in LABELS.items():
        if r.random() < 0.45:
            found[key] = r.choice(values)
    return found


def _template(r: random.Random) -> Doc:
    pick = r.random()
    if pick < 0.68:
        api_version, kind = r.choice(NAMESPACED)
    elif pick < 0.86:
        api_version, kind = r.choice(CLUSTER_SCOPED)
    elif pick < 0.95:
        api_version, kind = r.choice(NEVER_WATCHED)
    else:
        api_version, kind = r.choice(WATCHED_ODDLY)
    meta: Doc = {"name": r.choice(NAMES)}
    if (api_version, kind) not in CLUSTER_SCOPED:
        namespace = r.choice(NAMESPACES)
        if namespace != "default" or r.random() < 0.5:
            meta["namespace"] = namespace
    elif r.random() < 0.1:
        meta["namespace"] = r.choice(["shop", "kube-system", "karmada-system"])
    labels = _labels(r)
    if r.random() < 0.04:
        labels[CLAIMED_BY] = r.choice(["mcs", ""])
    if labels or r.random() < 0.3:
        meta["labels"] = labels
    elif r.random() < 0.1:
        meta["labels"] = None
    if r.random() < 0.05:
        meta["annotations"] = None
    return {"apiVersion": api_version, "kind": kind, "metadata": meta}


def namespace_of(template: Doc) -> str:
    """The namespace the template is stored in ("" when cluster-scoped)."""
    if (template["apiVersion"], template["kind"]) in CLUSTER_SCOPED:
        return ""
    return str(template["metadata"].get("namespace", "default"))


def _expression(r: random.Random, template_labels: dict[str, str]) -> Doc:
    keys = list(LABELS) + list(template_labels)
    pick = r.random()
    if pick < 0.08:
        return {"key": r.choice(BAD_KEYS), "operator": r.choice(["Exists", "DoesNotExist"])}
    if pick < 0.16:
        operator = r.choice(["in", "=", "==", "!=", "notin", "exists", "!", "Gt", "Lt", ""])
        found: Doc = {"key": r.choice(keys), "operator": operator}
        if r.random() < 0.7:
            found["values"] = [r.choice(["1", "5", "web"])]
        return found
    operator = r.choice(["In", "NotIn", "Exists", "DoesNotExist"])
    key = r.choice(keys)
    found = {"key": key, "operator": operator}
    if operator in ("In", "NotIn"):
        pool = [*LABELS.get(key, ("web",)), "none"]
        if key in template_labels:
            pool.append(template_labels[key])
        values = r.sample(pool, r.randint(1, min(3, len(pool))))
        if r.random() < 0.06:
            values = []
        elif r.random() < 0.06:
            values.append(r.choice(BAD_VALUES))
        found["values"] = values
    elif r.random() < 0.08:
        found["values"] = ["web"]
    elif r.random() < 0.2:
        found["values"] = []
    return found


def _label_selector(r: random.Random, template_labels: dict[str, str]) -> Doc:
    pick = r.random()
    if pick < 0.1:
        return r.choice([{}, {}, {"matchLabels": None}, {"matchExpressions": None}])
    found: Doc = {}
    if pick < 0.7:
        match: dict[str, str] = {}
        for _ in range(r.randint(0, 2)):
            if template_labels and r.random() < 0.6:
                key = r.choice(sorted(template_labels))
                match[key] = template_labels[key]
            else:
                key = r.choice(list(LABELS))
                match[key] = r.choice(LABELS[key])
        if r.random() < 0.05:
            match[r.choice(BAD_KEYS)] = "web"
        if r.random() < 0.05:
            match["app"] = r.choice(BAD_VALUES)
        if match or r.random() < 0.3:
            found["matchLabels"] = match
    if pick >= 0.5:
        found["matchExpressions"] = [
            _expression(r, template_labels) for _ in range(r.randint(0 if pick > 0.95 else 1, 2))
        ]
    return found


def _selector(r: random.Random, template: Doc, namespace: str | None, named: bool) -> Doc:
    """A resource selector aimed at `template` mostly; `namespace` is the policy's own for a
    PropagationPolicy (None for a ClusterPropagationPolicy)."""
    api_version, kind = template["apiVersion"], template["kind"]
    pick = r.random()
    if pick < 0.1:
        api_version, kind = r.choice(NAMESPACED + CLUSTER_SCOPED)
    elif pick < 0.14:
        api_version = r.choice(["", "apps/v1beta1", "V1", "v1", "apps/v1", "example.io/v2"])
    elif pick < 0.17:
        kind = r.choice(["", kind.lower(), kind.upper()])
    found: Doc = {"apiVersion": api_version, "kind": kind}
    if namespace is not None:
        if r.random() < 0.3:
            found["namespace"] = namespace
    elif r.random() < 0.3:
        found["namespace"] = r.choice([namespace_of(template) or "shop", "other", "default"])
    if named or r.random() < 0.35:
        found["name"] = r.choice([template["metadata"]["name"], template["metadata"]["name"], "zz"])
    if r.random() < 0.55:
        found["labelSelector"] = _label_selector(r, template["metadata"].get("labels") or {})
    elif r.random() < 0.05:
        found["labelSelector"] = None
    return found


def _policy(r: random.Random, kind: str, name: str, namespace: str, template: Doc) -> Doc:
    always = r.random() < 0.15
    count = r.choices([1, 2, 3], [0.6, 0.3, 0.1])[0]
    own = namespace if kind == "PropagationPolicy" else None
    spec: Doc = {"resourceSelectors": [_selector(r, template, own, always) for _ in range(count)]}
    if r.random() < 0.6:
        spec["priority"] = r.choice(PRIORITIES)
    elif r.random() < 0.05:
        spec["priority"] = None
    if always:
        spec["preemption"] = "Always"
    elif r.random() < 0.1:
        spec["preemption"] = "Never"
    if r.random() < 0.06:
        spec["dependentOverrides"] = ["ov"]
    meta: Doc = {"name": name}
    if kind == "PropagationPolicy":
        meta["namespace"] = namespace
    meta["labels"] = {(PP_ID if own else CPP_ID): permanent_id(kind, namespace, name)}
    if r.random() < 0.05:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {"apiVersion": POLICY_GROUP, "kind": kind, "metadata": meta, "spec": spec}


def _overrides(r: random.Random, namespace: str) -> tuple[list[Doc], list[Doc]]:
    """The override policies named `ov` that exist (dependentOverrides name them)."""
    spec: Doc = {"resourceSelectors": [], "overrideRules": []}
    ops, cops = [], []
    if namespace and r.random() < 0.5:
        meta = {"name": "ov", "namespace": namespace}
        ops.append({"apiVersion": POLICY_GROUP, "kind": "OverridePolicy", "metadata": meta})
        ops[-1]["spec"] = spec
    if r.random() < 0.5:
        meta = {"name": "ov"}
        cops.append({"apiVersion": POLICY_GROUP, "kind": "ClusterOverridePolicy", "metadata": meta})
        cops[-1]["spec"] = spec
    return ops, cops


def _claim(r: random.Random, template: Doc, pps: list[Doc], cpps: list[Doc]) -> None:
    """Writes a claim on the template, as an earlier reconcile left it (or a user typed it)."""
    pick = r.random()
    if pick > 0.45:
        return
    meta = template["metadata"]
    labels = meta["labels"] = meta.get("labels") or {}
    annotations = meta["annotations"] = meta.get("annotations") or {}
    own = [p for p in pps if p["metadata"]["namespace"] == namespace_of(template)]
    if pick < 0.2 and own:
        name, namespace = r.choice(own)["metadata"]["name"], namespace_of(template)
    elif pick < 0.25 and namespace_of(template):
        name, namespace = "gone", namespace_of(template)
    else:
        name, namespace = "", ""
    if name:
        labels[PP_ID] = permanent_id("PropagationPolicy", namespace, name)
        annotations[PP_NAMESPACE] = namespace
        annotations[PP_NAME] = name
        if r.random() < 0.1:
            part = r.choice([PP_ID, PP_NAME, PP_NAMESPACE])
            held = labels if part == PP_ID else annotations
            if r.random() < 0.5:
                del held[part]
            else:
                held[part] = ""
    if name and r.random() > 0.15:
        return
    cluster_name = r.choice([c["metadata"]["name"] for c in cpps]) if cpps else "gone"
    if r.random() < 0.15:
        cluster_name = "gone"
    labels[CPP_ID] = permanent_id("ClusterPropagationPolicy", "", cluster_name)
    annotations[CPP_NAME] = cluster_name
    if r.random() < 0.1:
        if r.random() < 0.5:
            del labels[CPP_ID]
        else:
            annotations[CPP_NAME] = ""


def scenario(seed: int) -> Doc:
    """The template (with its claim, if any) and the policies of one scenario."""
    r = random.Random(seed)
    template = _template(r)
    namespace = namespace_of(template)
    pps = []
    if namespace:
        for name in r.sample(POLICY_NAMES, r.choices([0, 1, 2, 3], [0.15, 0.35, 0.3, 0.2])[0]):
            pps.append(_policy(r, "PropagationPolicy", name, namespace, template))
    if r.random() < 0.2:
        other = "elsewhere" if namespace != "elsewhere" else "shop"
        pps.append(_policy(r, "PropagationPolicy", r.choice(POLICY_NAMES), other, template))
    cpps = []
    for name in r.sample(POLICY_NAMES, r.choices([0, 1, 2, 3], [0.3, 0.35, 0.25, 0.1])[0]):
        cpps.append(_policy(r, "ClusterPropagationPolicy", name, "", template))
    ops, cops = _overrides(r, namespace)
    _claim(r, template, pps, cpps)
    return {
        "template": template,
        "propagationPolicies": pps,
        "clusterPropagationPolicies": cpps,
        "overridePolicies": ops,
        "clusterOverridePolicies": cops,
    }


def as_stored(case: Doc) -> Doc:
    """The scenario as Karmada's API server stores it: a namespaced template without a namespace
    is in `default`, as `kubectl apply` puts it, and a cluster-scoped one has none, whatever
    its document says."""
    stored = json.loads(json.dumps(case))
    template = stored["template"]
    if namespace_of(template):
        template["metadata"]["namespace"] = namespace_of(template)
    else:
        template["metadata"].pop("namespace", None)
    return stored


def main() -> None:
    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root))
    from bench import karmada_harness

    checkout = karmada_harness.checkout_from_command_line(__doc__.splitlines()[0])
    harness = root / "bench" / "karmada_detector.go"
    extras = {"pkg/detector": root / "bench" / "karmada_detector_export.go"}
    cases: list[object] = [as_stored(scenario(seed)) for seed in range(SEEDS)]
    given = karmada_harness.answers(harness, checkout.path, checkout.go, cases, extras)
    karmada_harness.write_answers(ANSWERS, checkout.commit, given)


if __name__ == "__main__":
    main()
