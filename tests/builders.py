"""Builders of the documents tests feed gitfleet: templates, policies and clusters as the plain
dictionaries a user writes in YAML, and `object_set` turning a list of them into the typed
`ObjectSet` every stage after `load` reads (Karmada kinds typed, anything else a template).

Importable as `builders` from any test (tests/ is on the path through tests/conftest.py).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from gitfleet.model import autoscaling, cluster, config, objects, policy, scope, work
from gitfleet.model.origin import Origin
from gitfleet.model.template import ResourceKey, ResourceTemplate

Doc = dict[str, Any]

_TYPED: dict[str, tuple[Any, str]] = {
    "PropagationPolicy": (policy.PropagationPolicy, "propagation_policies"),
    "ClusterPropagationPolicy": (policy.ClusterPropagationPolicy, "cluster_propagation_policies"),
    "OverridePolicy": (policy.OverridePolicy, "override_policies"),
    "ClusterOverridePolicy": (policy.ClusterOverridePolicy, "cluster_override_policies"),
    "ClusterTaintPolicy": (policy.ClusterTaintPolicy, "cluster_taint_policies"),
    "Cluster": (cluster.Cluster, "clusters"),
    "ResourceInterpreterCustomization": (config.ResourceInterpreterCustomization, "customizations"),
    "FederatedHPA": (autoscaling.FederatedHPA, "federated_hpas"),
}


def object_set(docs: Iterable[Doc], path: str = "source.yaml") -> objects.ObjectSet:
    """The typed objects of `docs`, each in its effective namespace as the loader gives them
    (`model.scope`); document i is at `path` line i+1."""
    made: list[Any] = []
    for line, doc in enumerate(docs, start=1):
        origin = Origin(path, line, 1)
        typed = _TYPED.get(str(doc.get("kind", "")))
        if typed and str(doc.get("apiVersion", "")).endswith(".karmada.io/v1alpha1"):
            made.append(typed[0].from_doc(copy.deepcopy(doc), origin))
        else:
            body: Any = copy.deepcopy(doc)
            made.append(ResourceTemplate(body, origin))
    groups: dict[str, list[Any]] = {"templates": [], **{f: [] for _, f in _TYPED.values()}}
    for item in scope.effective(made)[0]:
        typed = _TYPED.get(type(item).KIND if not isinstance(item, ResourceTemplate) else "")
        groups[typed[1] if typed else "templates"].append(item)
    return objects.ObjectSet(**{k: tuple(v) for k, v in groups.items()})


def make_federated_hpa(
    name: str = "web",
    namespace: str = "shop",
    *,
    target: str = "web",
    min_replicas: int = 1,
    max_replicas: int = 10,
    utilization: int = 50,
    **spec: Any,
) -> Doc:
    """A FederatedHPA scaling Deployment `target` on cpu utilization."""
    metric = {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": utilization}}
    return {
        "apiVersion": "autoscaling.karmada.io/v1alpha1",
        "kind": "FederatedHPA",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": target},
            "minReplicas": min_replicas,
            "maxReplicas": max_replicas,
            "metrics": [{"type": "Resource", "resource": metric}],
            **spec,
        },
    }


def previous_map(
    bindings: Iterable[work.ResourceBinding | work.ClusterResourceBinding] | None,
) -> dict[ResourceKey, work.ResourceBinding | work.ClusterResourceBinding]:
    """A previous render's bindings keyed by the template each is for, as a render reads them
    back from the rendered branch."""
    result = {}
    for b in bindings or ():
        r = b.spec.resource
        result[ResourceKey(r.api_version, r.kind, r.namespace, r.name)] = b
    return result


def make_deployment(
    name: str = "web",
    namespace: str = "shop",
    replicas: int | None = 3,
    *,
    cpu: str = "100m",
    volumes: list[Doc] | None = None,
    **meta: Any,
) -> Doc:
    pod: Doc = {
        "containers": [{"name": "main", "image": "nginx", "resources": {"requests": {"cpu": cpu}}}]
    }
    if volumes:
        pod["volumes"] = volumes
    metadata: Doc = {"name": name, **meta}
    if namespace:
        metadata["namespace"] = namespace
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": metadata,
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": pod},
        },
    }


def make_configmap(
    name: str = "settings",
    namespace: str = "shop",
    data: dict[str, str] | None = None,
    **meta: Any,
) -> Doc:
    """A ConfigMap with `data` (default one key); other keywords go into its metadata."""
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, **meta},
        "data": {"key": "value"} if data is None else data,
    }


def make_object(api_version: str, kind: str, name: str, namespace: str = "", **meta: Any) -> Doc:
    metadata: Doc = {"name": name, **meta}
    if namespace:
        metadata["namespace"] = namespace
    return {"apiVersion": api_version, "kind": kind, "metadata": metadata}


def make_crd(group: str, kind: str, scope: str = "Namespaced", version: str = "v1") -> Doc:
    """A CustomResourceDefinition of `kind` in `group` (scope Namespaced or Cluster)."""
    plural = kind.lower() + "s"
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "scope": scope,
            "names": {"kind": kind, "plural": plural},
            "versions": [{"name": version, "served": True, "storage": True}],
        },
    }


def selector(kind: str = "Deployment", api_version: str = "apps/v1", **rest: Any) -> Doc:
    """A resource selector; `rest` is name=, namespace=, labelSelector=."""
    return {"apiVersion": api_version, "kind": kind, **rest}


def make_policy(
    name: str,
    *selectors: Doc,
    namespace: str = "shop",
    priority: int | None = None,
    **spec: Any,
) -> Doc:
    """A PropagationPolicy (selecting Deployments when no selector is given)."""
    body: Doc = {"resourceSelectors": list(selectors) or [selector()], **spec}
    if priority is not None:
        body["priority"] = priority
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": name, "namespace": namespace},
        "spec": body,
    }


def make_push_and_pull(push: str, pull: str, replicas: int = 4) -> list[Doc]:
    """A Push and a Pull cluster, namespace shop, and Deployment shop/web duplicated on both."""
    pulled = make_cluster(pull)
    pulled["spec"]["syncMode"] = "Pull"
    return [
        make_cluster(push),
        pulled,
        make_object("v1", "Namespace", "shop"),
        make_deployment(replicas=replicas),
        make_policy("web"),
    ]


DYNAMIC_WEIGHT = {
    "replicaScheduling": {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted",
        "weightPreference": {"dynamicWeight": "AvailableReplicas"},
    }
}
"""A placement that divides replicas by the clusters' available replicas (it reads capacity)."""


def make_cluster_policy(
    name: str, *selectors: Doc, priority: int | None = None, **spec: Any
) -> Doc:
    """A ClusterPropagationPolicy (selecting Deployments when no selector is given)."""
    doc = make_policy(name, *selectors, priority=priority, **spec)
    doc["kind"] = "ClusterPropagationPolicy"
    doc["metadata"] = {"name": name}
    return doc


API_ENABLEMENTS = [
    {
        "groupVersion": "v1",
        "resources": [
            {"name": "configmaps", "kind": "ConfigMap"},
            {"name": "namespaces", "kind": "Namespace"},
            {"name": "secrets", "kind": "Secret"},
            {"name": "services", "kind": "Service"},
        ],
    },
    {
        "groupVersion": "apps/v1",
        "resources": [
            {"name": "deployments", "kind": "Deployment"},
            {"name": "statefulsets", "kind": "StatefulSet"},
        ],
    },
    {
        "groupVersion": "rbac.authorization.k8s.io/v1",
        "resources": [{"name": "clusterroles", "kind": "ClusterRole"}],
    },
]
"""What `make_cluster` declares its clusters serve."""


def make_cluster(
    name: str, *, labels: dict[str, str] | None = None, cpu: str | None = None, **spec: Any
) -> Doc:
    """A ready Push cluster serving `API_ENABLEMENTS`; `cpu` declares allocatable CPU (with
    64Gi of memory and room for 110 pods)."""
    status: Doc = {
        "apiEnablements": API_ENABLEMENTS,
        "conditions": [{"type": "Ready", "status": "True", "reason": "ClusterReady"}],
    }
    if cpu is not None:
        status["resourceSummary"] = {"allocatable": {"cpu": cpu, "memory": "64Gi", "pods": 110}}
    return {
        "apiVersion": "cluster.karmada.io/v1alpha1",
        "kind": "Cluster",
        "metadata": {"name": name, "labels": labels or {}},
        "spec": {"syncMode": "Push", **spec},
        "status": status,
    }


def make_taint_policy(
    name: str,
    *taints: tuple[str, str],
    add_on: Doc | None = None,
    remove_on: Doc | None = None,
    **spec: Any,
) -> Doc:
    """A ClusterTaintPolicy with `taints` ((key, effect) each), added when `add_on` matches and
    removed when `remove_on` does (match conditions, e.g. `not_ready()`)."""
    body: Doc = {"taints": [{"key": k, "effect": e} for k, e in taints], **spec}
    if add_on is not None:
        body["addOnConditions"] = [add_on]
    if remove_on is not None:
        body["removeOnConditions"] = [remove_on]
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "ClusterTaintPolicy",
        "metadata": {"name": name},
        "spec": body,
    }


def ready_is(operator: str, *statuses: str) -> Doc:
    """A match condition on the Ready condition."""
    return {"conditionType": "Ready", "operator": operator, "statusValues": list(statuses)}


def make_size_bomb(configmap: str, part: int, namespace: str = "shop") -> Doc:
    """An OverridePolicy adding 400 KiB to ConfigMap `configmap` under `data.k<part>`: each
    file stays under a source's size limit, and four make the manifest over 1.5 MiB."""
    value = "x" * (400 * 1024)
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "metadata": {"name": f"bomb-{part}", "namespace": namespace},
        "spec": {
            "resourceSelectors": [{"apiVersion": "v1", "kind": "ConfigMap", "name": configmap}],
            "overrideRules": [
                {"overriders": {"plaintext": [
                    {"path": f"/data/k{part}", "operator": "add", "value": value}
                ]}}
            ],
        },
    }  # fmt: skip


NGINX_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx
  labels:
    app: nginx
spec:
  replicas: 2
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
"""The Deployment of Karmada's samples/nginx as it is written there (no metadata.namespace),
named nginx, with 2 replicas: tests assert at its lines."""
