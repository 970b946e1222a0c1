"""Realistic documents of every Karmada kind, shared by the validation tests.

Each is what a Karmada user would write (all values valid), so a test changes one field and
expects exactly the problem it introduces.
"""

from __future__ import annotations

CLUSTER = """\
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata:
  name: member1
  labels:
    env: production
spec:
  syncMode: Push
  apiEndpoint: https://10.0.0.1:6443
  secretRef:
    namespace: karmada-cluster
    name: member1
  provider: aws
  region: us-east-1
  zones: [us-east-1a, us-east-1b]
  taints:
    - key: dedicated
      value: gpu
      effect: NoSchedule
  resourceModels:
    - grade: 0
      ranges:
        - {name: cpu, min: "0", max: "4"}
    - grade: 1
      ranges:
        - {name: cpu, min: "4", max: "9223372036854775807"}
status:
  kubernetesVersion: v1.31.0
  resourceSummary:
    allocatable: {cpu: "64", memory: 256Gi, pods: "330"}
    allocated: {cpu: 16500m, memory: 64Gi}
"""

PROPAGATION = """\
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: web
  namespace: shop
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
      name: web
    - apiVersion: v1
      kind: ConfigMap
      labelSelector:
        matchLabels: {app: web}
        matchExpressions:
          - {key: tier, operator: In, values: [frontend]}
  priority: 10
  propagateDeps: true
  placement:
    clusterAffinity:
      clusterNames: [member1, member2]
      fieldSelector:
        matchExpressions:
          - {key: region, operator: In, values: [us-east-1]}
    clusterTolerations:
      - {key: dedicated, operator: Equal, value: gpu, effect: NoSchedule}
    spreadConstraints:
      - {spreadByField: cluster, maxGroups: 2, minGroups: 1}
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference:
        staticWeightList:
          - targetCluster: {clusterNames: [member1]}
            weight: 2
          - targetCluster: {clusterNames: [member2]}
            weight: 1
"""

CLUSTER_PROPAGATION = """\
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterPropagationPolicy
metadata:
  name: crds
spec:
  resourceSelectors:
    - apiVersion: apiextensions.k8s.io/v1
      kind: CustomResourceDefinition
  placement:
    clusterAffinities:
      - affinityName: primary
        clusterNames: [member1]
      - affinityName: backup
        labelSelector:
          matchLabels: {env: production}
    replicaScheduling:
      replicaSchedulingType: Duplicated
"""

OVERRIDE = """\
apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata:
  name: web
  namespace: shop
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
      name: web
  overrideRules:
    - targetCluster:
        clusterNames: [member1]
      overriders:
        plaintext:
          - {path: /spec/replicas, operator: replace, value: 3}
        imageOverrider:
          - predicate: {path: /spec/template/spec/containers/0/image}
            component: Registry
            operator: replace
            value: registry.example.com
        argsOverrider:
          - {containerName: web, operator: add, value: [--verbose]}
        labelsOverrider:
          - {operator: add, value: {team: shop}}
        annotationsOverrider:
          - {operator: add, value: {example.com/owner: shop}}
        fieldOverrider:
          - fieldPath: /data/config.json
            json:
              - {subPath: /log/level, operator: replace, value: debug}
"""

CLUSTER_OVERRIDE = """\
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterOverridePolicy
metadata:
  name: fleet-labels
spec:
  overrideRules:
    - overriders:
        labelsOverrider:
          - {operator: add, value: {fleet: gitfleet}}
"""

CUSTOMIZATION = """\
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: widgets
spec:
  target:
    apiVersion: example.io/v1
    kind: Widget
  customizations:
    replicaResource:
      luaScript: |
        function GetReplicas(obj)
          return obj.spec.replicas, nil
        end
    healthInterpretation:
      luaScript: |
        function InterpretHealth(obj)
          return obj.status ~= nil
        end
"""

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels: {app: web}
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx:1.27
"""

CONFIG_MAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config
  namespace: shop
  labels: {app: web, tier: frontend}
data:
  config.json: '{"log": {"level": "info"}}'
"""

CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.io
spec:
  group: example.io
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions: []
"""

MEMBER2 = CLUSTER.replace("member1", "member2").split("  taints:")[0]

FLEET = {
    "clusters/member1.yaml": CLUSTER,
    "clusters/member2.yaml": MEMBER2,
    "policies/web.yaml": PROPAGATION,
    "policies/crds.yaml": CLUSTER_PROPAGATION,
    "policies/web-override.yaml": OVERRIDE,
    "policies/fleet.yaml": CLUSTER_OVERRIDE,
    "interpreter/widgets.yaml": CUSTOMIZATION,
    "apps/web.yaml": DEPLOYMENT + "---\n" + CONFIG_MAP,
    "crds/widgets.yaml": CRD,
}
"""A consistent source in which every document above validates without a problem."""


def variant(path: str, old: str, new: str) -> dict[str, str]:
    """FLEET with one text replaced in one file (the text must be there)."""
    assert old in FLEET[path], f"{old!r} not in {path}"
    return {**FLEET, path: FLEET[path].replace(old, new, 1)}
