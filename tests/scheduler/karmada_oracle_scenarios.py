"""Random scheduling scenarios, and Karmada's answers to them.

Each scenario is made from its profile and seed alone (`scenario`): a few clusters with random
labels, provider, region, zones, taints, served APIs, resource summaries and resource models,
and one Deployment's binding with random replicas, requests, placement (cluster affinity or
affinity terms, tolerations, spread constraints, every replica scheduling type and division
preference, static weight lists) and, for some, a previous result; the `edges` profile adds
overflow affinities, evictions in progress, several taints and every toleration form, and
quantities in every spelling; the `extras` profile adds clusters being deleted, not ready or
serving the kind under other groups (with or without a complete API list), ephemeral storage
and pod counts in summaries, requests and resource models, node claims, priority classes and
components in the binding, spread constraints of zero groups or by label, previous results
naming clusters that are gone, and StatefulSets. The answers in
testdata/karmada_oracle_answers.json are what Karmada's own scheduler gave for each:
bench/karmada_oracle.go runs its generic scheduler on the scenarios. To make them again (after
a change to this generator, or for another Karmada), from the repository root:

    python tests/scheduler/karmada_oracle_scenarios.py --karmada PATH [--go GO] [--commit SHA]

PATH is a checkout of karmada-io/karmada with its vendored packages; the answers name its
commit. The generator must not change without making the answers again: a seed stands for the
scenario it made when they were made.
"""

from __future__ import annotations

import dataclasses
import json
import random
import sys
from pathlib import Path
from typing import Any

Doc = dict[str, Any]

ANSWERS = Path(__file__).resolve().parent / "testdata" / "karmada_oracle_answers.json"
PROVIDERS = ("aws", "gcp", "az")
REGIONS = ("r0", "r1", "r2", "r3")
ZONES = ("z0", "z1", "z2", "z3", "z4")


@dataclasses.dataclass(frozen=True)
class Profile:
    """How the scenarios of one part of the answers are drawn."""

    clusters: int
    """The most clusters a scenario has."""
    spread: float
    """How often the placement has spread constraints."""
    previous: float
    """How often the binding has a previous result."""
    large: bool = False
    """Replicas up to 2,000 (else a few dozen at most)."""
    edges: bool = False
    """Also what the other profiles leave out (`_edges`): overflow affinities, evictions in
    progress, several taints and every toleration form, quantities in every spelling."""
    extras: bool = False
    """Also what no other profile varies (`_extras`): cluster lifecycle and API lists, node
    claims and components, odd spread constraints and previous results."""


PROFILES = {
    "small": Profile(clusters=8, spread=0.25, previous=0.3),
    "wide": Profile(clusters=20, spread=0.6, previous=0.5),
    "few": Profile(clusters=4, spread=0.5, previous=0.6),
    "large": Profile(clusters=12, spread=0.3, previous=0.5, large=True),
    "edges": Profile(clusters=10, spread=0.3, previous=0.5, edges=True),
    "extras": Profile(clusters=10, spread=0.4, previous=0.5, extras=True),
}
SEEDS = 500
"""Scenarios per profile."""


def _cluster(r: random.Random, i: int) -> Doc:
    labels = {}
    if r.random() < 0.7:
        labels["env"] = r.choice(["prod", "dev"])
    if r.random() < 0.5:
        labels["tier"] = r.choice(["a", "b", "c"])
    spec: Doc = {"syncMode": "Push"}
    if r.random() < 0.85:
        spec["provider"] = r.choice(PROVIDERS)
    if r.random() < 0.85:
        spec["region"] = r.choice(REGIONS)
    zoned = r.random()
    if zoned < 0.4:
        spec["zone"] = r.choice(ZONES)
    elif zoned < 0.8:
        spec["zones"] = sorted(r.sample(ZONES, r.randint(1, 2)))
    if r.random() < 0.2:
        taint = {"key": r.choice(["gpu", "dedicated"]), "value": r.choice(["x", "y"])}
        spec["taints"] = [{**taint, "effect": r.choice(["NoSchedule", "NoExecute"])}]
    ready = {"type": "Ready", "status": "True", "reason": "ClusterReady", "message": "ok"}
    status: Doc = {"conditions": [{**ready, "lastTransitionTime": "2026-01-01T00:00:00Z"}]}
    if r.random() < 0.92:
        deployments = [{"name": "deployments", "kind": "Deployment"}]
        status["apiEnablements"] = [{"groupVersion": "apps/v1", "resources": deployments}]
    if r.random() < 0.85:
        status["resourceSummary"] = _summary(r, spec)
    return {
        "apiVersion": "cluster.karmada.io/v1alpha1",
        "kind": "Cluster",
        "metadata": {"name": f"m{i}", "labels": labels},
        "spec": spec,
        "status": status,
    }


def _summary(r: random.Random, spec: Doc) -> Doc:
    """A resource summary; sometimes resource models too (into `spec`)."""
    cpu, memory = r.randint(0, 40), r.randint(0, 160)
    pods = str(r.choice([0, 3, 10, 110]))
    summary: Doc = {"allocatable": {"cpu": str(cpu), "memory": f"{memory}Gi", "pods": pods}}
    if r.random() < 0.6:
        summary["allocated"] = {
            "cpu": str(r.randint(0, cpu)),
            "memory": f"{r.randint(0, memory)}Gi",
            "pods": str(r.randint(0, 5)),
        }
    if r.random() < 0.3:
        summary["allocating"] = {"cpu": str(r.randint(0, 3)), "memory": "1Gi", "pods": "1"}
    if r.random() < 0.4:
        spec["resourceModels"] = [
            {
                "grade": g,
                "ranges": [
                    {"name": "cpu", "min": str(g * 2), "max": str((g + 1) * 2)},
                    {"name": "memory", "min": f"{g * 8}Gi", "max": f"{(g + 1) * 8}Gi"},
                ],
            }
            for g in range(3)
        ]
        summary["allocatableModelings"] = [{"grade": g, "count": r.randint(0, 6)} for g in range(3)]
    return summary


def _affinity(r: random.Random, names: list[str]) -> Doc:
    found: Doc = {}
    pick = r.random()
    if pick < 0.3:
        found["clusterNames"] = sorted(r.sample(names, r.randint(1, len(names))))
    elif pick < 0.5:
        found["labelSelector"] = {"matchLabels": {"env": r.choice(["prod", "dev"])}}
    elif pick < 0.6:
        operator = r.choice(["In", "NotIn", "Exists", "DoesNotExist"])
        expression: Doc = {"key": "tier", "operator": operator}
        if operator in ("In", "NotIn"):
            expression["values"] = ["a", "b"]
        found["labelSelector"] = {"matchExpressions": [expression]}
    elif pick < 0.7:
        expression = {
            "key": r.choice(["provider", "region", "zone"]),
            "operator": r.choice(["In", "NotIn"]),
            "values": r.sample(PROVIDERS + REGIONS + ZONES, 3),
        }
        found["fieldSelector"] = {"matchExpressions": [expression]}
    if r.random() < 0.2:
        found["exclude"] = r.sample(names, 1)
    return found


def _toleration(r: random.Random) -> Doc:
    found: Doc = {"key": "gpu", "operator": r.choice(["Exists", "Equal"])}
    if found["operator"] == "Equal":
        found["value"] = "x"
    effect = r.choice(["NoSchedule", "NoExecute", ""])
    if effect:
        found["effect"] = effect
    return found


def _spread(r: random.Random) -> list[Doc]:
    field = r.choice(["cluster", "region", "zone", "provider"])
    least = r.randint(1, 3)
    found = [{"spreadByField": field, "minGroups": least, "maxGroups": least + r.randint(0, 2)}]
    if field != "cluster" and r.random() < 0.6:
        least = r.randint(1, 4)
        most = least + r.randint(0, 3)
        found.append({"spreadByField": "cluster", "minGroups": least, "maxGroups": most})
    return found


def _replica_scheduling(r: random.Random, names: list[str]) -> Doc | None:
    divided = {"replicaSchedulingType": "Divided"}
    weighted = {**divided, "replicaDivisionPreference": "Weighted"}
    pick = r.random()
    if pick < 0.25:
        return {"replicaSchedulingType": "Duplicated"}
    if pick < 0.45:
        return {**divided, "replicaDivisionPreference": "Aggregated"}
    if pick < 0.7:
        return {**weighted, "weightPreference": {"dynamicWeight": "AvailableReplicas"}}
    if pick < 0.92:
        weights = [
            {
                "targetCluster": _affinity(r, names) or {"clusterNames": [r.choice(names)]},
                "weight": r.randint(1, 5),
            }
            for _ in range(r.randint(1, 3))
        ]
        return {**weighted, "weightPreference": {"staticWeightList": weights}}
    if pick < 0.96:
        return weighted
    return None


def _placement(r: random.Random, names: list[str], profile: Profile) -> Doc:
    placement: Doc = {}
    if r.random() < 0.15:
        placement["clusterAffinities"] = [
            {**_affinity(r, names), "affinityName": f"t{k}"} for k in range(r.randint(1, 3))
        ]
    elif r.random() < 0.85:
        placement["clusterAffinity"] = _affinity(r, names)
    if r.random() < 0.2:
        placement["clusterTolerations"] = [_toleration(r)]
    if r.random() < profile.spread:
        placement["spreadConstraints"] = _spread(r)
    scheduling = _replica_scheduling(r, names)
    if scheduling is not None:
        placement["replicaScheduling"] = scheduling
    return placement


CPU_SPELLINGS = ("1500m", "0.5", "2.25", "1e1", "250m", "100u", "3k")
MEMORY_SPELLINGS = ("1536Mi", "1.5Gi", "2G", "500M", "1e9", "64Ki", "0.25Ti", "3000000k")


def _odd_summary(r: random.Random, summary: Doc) -> None:
    """The summary's quantities respelled, some allocations beyond what is allocatable."""
    for part in ("allocatable", "allocated", "allocating"):
        if part in summary and r.random() < 0.6:
            summary[part]["cpu"] = r.choice(CPU_SPELLINGS)
        if part in summary and r.random() < 0.6:
            summary[part]["memory"] = r.choice(MEMORY_SPELLINGS)
    if r.random() < 0.3:
        summary["allocatable"]["nvidia.com/gpu"] = str(r.randint(0, 4))


def _odd_taints(r: random.Random) -> list[Doc]:
    effects = ("NoSchedule", "NoExecute")  # Karmada's validation refuses PreferNoSchedule here
    return [
        {
            "key": r.choice(["gpu", "dedicated", "cluster.karmada.io/not-ready"]),
            "value": r.choice(["x", "y", ""]),
            "effect": r.choice(effects),
        }
        for _ in range(r.randint(1, 3))
    ]


def _odd_toleration(r: random.Random) -> Doc:
    pick = r.random()
    if pick < 0.2:
        return {"operator": "Exists"}
    found: Doc = {"key": r.choice(["gpu", "dedicated", "cluster.karmada.io/not-ready"])}
    found["operator"] = r.choice(["Exists", "Equal", ""])
    if found["operator"] != "Exists":
        found["value"] = r.choice(["x", "y", ""])
    effect = r.choice(["NoSchedule", "NoExecute", "PreferNoSchedule", ""])
    if effect:
        found["effect"] = effect
    if effect == "NoExecute" and r.random() < 0.5:
        found["tolerationSeconds"] = r.choice([0, 30, 300])
    return found


def _overflow_terms(r: random.Random, names: list[str]) -> list[Doc]:
    """Affinity terms whose primary group is never empty, some with overflow groups."""
    terms = []
    for k in range(r.randint(1, 3)):
        term: Doc = {**(_affinity(r, names) or {"clusterNames": [r.choice(names)]})}
        term["affinityName"] = f"t{k}"
        if r.random() < 0.7:
            term["overflowAffinities"] = [
                {
                    **(_affinity(r, names) or {"clusterNames": r.sample(names, 1)}),
                    "affinityName": f"t{k}o{j}",
                }
                for j in range(r.randint(1, 3))
            ]
        terms.append(term)
    return terms


def _edges(r: random.Random, case: Doc) -> None:
    """What only the `edges` profile draws, on top of a scenario."""
    names = [c["metadata"]["name"] for c in case["clusters"]]
    for c in case["clusters"]:
        if r.random() < 0.35:
            c["spec"]["taints"] = _odd_taints(r)
        summary = c["status"].get("resourceSummary")
        if summary and r.random() < 0.5:
            _odd_summary(r, summary)
    spec, placement = case["spec"], case["spec"]["placement"]
    if r.random() < 0.5:
        placement.pop("clusterAffinity", None)
        placement["clusterAffinities"] = _overflow_terms(r, names)
    if r.random() < 0.4:
        placement["clusterTolerations"] = [_odd_toleration(r) for _ in range(r.randint(1, 3))]
    if r.random() < 0.3:
        spec["gracefulEvictionTasks"] = [
            {
                "fromCluster": name,
                "reason": "TaintUntolerated",
                "producer": "TaintManager",
                "purgeMode": r.choice(["Gracefully", "Directly", "Never"]),
                "creationTimestamp": "2026-01-01T00:00:00Z",
            }
            for name in r.sample(names, r.randint(1, min(2, len(names))))
        ]
    requirements = spec.get("replicaRequirements")
    if requirements and r.random() < 0.5:
        request = requirements["resourceRequest"]
        request["cpu"] = r.choice(CPU_SPELLINGS)
        request["memory"] = r.choice(MEMORY_SPELLINGS)
        if r.random() < 0.3:
            request["nvidia.com/gpu"] = str(r.randint(1, 2))


def _extra_cluster(r: random.Random, c: Doc) -> None:
    """Deleting, not ready, other API groups, ephemeral storage and odd resource models."""
    status = c["status"]
    pick = r.random()
    if pick < 0.08:
        c["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    elif pick < 0.2:
        status["conditions"][0]["status"] = r.choice(["False", "Unknown"])
    if r.random() < 0.15:
        kind = r.choice(["Deployment", "StatefulSet"])
        group = r.choice(["apps/v1beta1", "extensions/v1beta1", "apps/v1"])
        resources = [{"name": "deployments", "kind": kind}]
        status.setdefault("apiEnablements", []).append(
            {"groupVersion": group, "resources": resources}
        )
    if r.random() < 0.1:
        complete = {"type": "CompleteAPIEnablements", "status": r.choice(["True", "False"])}
        moment = {"lastTransitionTime": "2026-01-01T00:00:00Z"}
        status["conditions"].append({**complete, "reason": "x", "message": "", **moment})
    summary = status.get("resourceSummary")
    if summary and r.random() < 0.2:
        summary["allocatable"]["ephemeral-storage"] = r.choice(["10Gi", "0", "100Gi"])
        summary["allocatable"]["pods"] = r.choice(["0", "1", "5", "500", "1k"])
    if summary and "allocatableModelings" in summary and r.random() < 0.4:
        for model in c["spec"].get("resourceModels", []):
            if r.random() < 0.3:
                name = r.choice(["pods", "ephemeral-storage", "nvidia.com/gpu"])
                model["ranges"].append({"name": name, "min": str(r.randint(0, 3)), "max": "100"})
        if r.random() < 0.3:
            summary["allocatableModelings"].append(
                {"grade": r.randint(0, 5), "count": r.randint(0, 4)}
            )


def _extras(r: random.Random, case: Doc) -> None:
    """What only the `extras` profile draws, on top of a scenario."""
    for c in case["clusters"]:
        _extra_cluster(r, c)
    spec, placement = case["spec"], case["spec"]["placement"]
    requirements = spec.get("replicaRequirements")
    if requirements and r.random() < 0.5:
        claim: Doc = {}
        if r.random() < 0.5:
            claim["nodeSelector"] = {"a": "b"}
        if r.random() < 0.5:
            claim["tolerations"] = [{"key": "k", "operator": "Exists"}]
        if r.random() < 0.5:
            term = {"matchExpressions": [{"key": "x", "operator": "In", "values": ["y"]}]}
            claim["hardNodeAffinity"] = {"nodeSelectorTerms": [term]}
        requirements["nodeClaim"] = claim
        if r.random() < 0.5:
            requirements["priorityClassName"] = "high"
        if r.random() < 0.5:
            requirements["namespace"] = "ns"
        request = requirements["resourceRequest"]
        if r.random() < 0.3:
            request["ephemeral-storage"] = r.choice(["1Gi", "0", "500Mi"])
        if r.random() < 0.2:
            request["pods"] = r.choice(["1", "2"])
        if r.random() < 0.2:
            request["cpu"] = "0"
    spread = placement.get("spreadConstraints")
    if spread and r.random() < 0.4:
        for constraint in spread:
            if r.random() < 0.3:
                constraint["minGroups"] = 0
            if r.random() < 0.3:
                constraint["maxGroups"] = r.randint(0, 2)
    if r.random() < 0.1:
        by_label = {"spreadByLabel": "env", "minGroups": 1, "maxGroups": 2}
        by_cluster = {"spreadByField": "cluster", "minGroups": 1, "maxGroups": 3}
        placement["spreadConstraints"] = [by_label] + ([by_cluster] if r.random() < 0.5 else [])
    if spec.get("clusters") and r.random() < 0.3:
        spec["clusters"].append({"name": "gone", "replicas": r.randint(0, 5)})
    if r.random() < 0.1:
        spec["resource"]["kind"] = "StatefulSet"
    if r.random() < 0.1:
        spec["replicas"] = r.choice([0, 1, 3, 1000])
    if r.random() < 0.35:
        _components(r, spec, placement)


def _components(r: random.Random, spec: Doc, placement: Doc) -> None:
    """Components of a multi-template workload, sometimes instead of replicas or requirements,
    sometimes with the one-cluster spread constraint Karmada's multi-template scheduling looks
    for."""
    found = []
    for i in range(r.randint(1, 3)):
        component: Doc = {"name": f"comp{i}", "replicas": r.choice([0, 1, 2, 3])}
        if r.random() < 0.7:
            request = {"cpu": r.choice(["100m", "1", "2"]), "memory": r.choice(["128Mi", "1Gi"])}
            component["replicaRequirements"] = {"resourceRequest": request}
        found.append(component)
    spec["components"] = found
    if r.random() < 0.3:
        spec.pop("replicas", None)
    if r.random() < 0.3:
        spec.pop("replicaRequirements", None)
    if r.random() < 0.3:
        placement["spreadConstraints"] = [
            {"spreadByField": "cluster", "minGroups": 1, "maxGroups": 1}
        ]


def scenario(profile: Profile, seed: int) -> Doc:
    """The clusters and the binding spec of one scenario."""
    r = random.Random(seed)
    clusters = [_cluster(r, i) for i in range(r.randint(1, profile.clusters))]
    names = [c["metadata"]["name"] for c in clusters]
    uid = f"{seed:08x}-0000-0000-0000-000000000000"
    resource = {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "ns"}
    spec: Doc = {"resource": {**resource, "name": f"app{seed}", "uid": uid}}
    if r.random() < 0.9:
        few = [0, 1, 2, 3, 5, 7, 10, 13, 20, 31, 50]
        spec["replicas"] = r.randint(0, 2000) if profile.large else r.choice(few)
    if r.random() < 0.7:
        request = {
            "cpu": r.choice(["100m", "500m", "1", "2", "3"]),
            "memory": r.choice(["128Mi", "1Gi", "4Gi", "10Gi"]),
        }
        spec["replicaRequirements"] = {"resourceRequest": request}
    spec["placement"] = _placement(r, names, profile)
    if r.random() < profile.previous:
        most = 400 if profile.large else 8
        chosen = r.sample(names, r.randint(1, len(names)))
        spec["clusters"] = [{"name": n, "replicas": r.randint(0, most)} for n in chosen]
    case = {"clusters": clusters, "spec": spec}
    if profile.edges:
        _edges(r, case)
    if profile.extras:
        _extras(r, case)
    return case


def _kept(answer: Any, case: Doc) -> Doc:
    """What the answers keep of Karmada's, so that making them again gives the same file: not
    a failure's message, since which filter a cluster fails first follows the order of a Go
    map; nor, after a previous result, the order of the clusters, since Karmada appends those
    it keeps in a Go map's order (sorted by name instead)."""
    if answer.get("error"):
        return {"error": True}
    if case["spec"].get("clusters") and answer.get("clusters"):
        return {**answer, "clusters": sorted(answer["clusters"], key=lambda t: t["name"])}
    return dict(answer)


def main() -> None:
    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root))
    from bench import karmada_harness

    checkout = karmada_harness.checkout_from_command_line(__doc__.splitlines()[0])
    harness = root / "bench" / "karmada_oracle.go"
    found: dict[str, Any] = {"karmada": checkout.commit}
    for name, profile in PROFILES.items():
        cases = [scenario(profile, seed) for seed in range(SEEDS)]
        given = karmada_harness.answers(harness, checkout.path, checkout.go, list(cases))
        found[name] = [_kept(a, c) for a, c in zip(given, cases, strict=True)]
    ANSWERS.write_text(json.dumps(found, separators=(",", ":"), sort_keys=True) + "\n")
    print(f"wrote {ANSWERS}: {len(PROFILES)} x {SEEDS} answers of Karmada {found['karmada']}")


if __name__ == "__main__":
    main()
