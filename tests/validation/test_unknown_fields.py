"""A field a built-in kind does not declare is an error of `gitfleet validate`, as a member's
API server (and the karmada-apiserver, under kubectl's strict field validation) refuses it;
so is a value of a JSON type the field can never take. Each source is a real repository, run
as a user types `gitfleet validate` and `gitfleet render`.

Aspects covered:
- a typo in the nginx Deployment (`spec.replicass`, no metadata.namespace): one error at the
  key in the API server's words, exit 1; `render` refuses and the rendered branch stays at the
  last good render;
- `metadata.lables`, a pod template's `metadata.lables`, an unknown top-level key of a
  ConfigMap, a key of a nested list item (a container's `imagePullPolicyy`), of a CRD's
  property schema;
- values of the wrong JSON type: a map where a list is, a list where a map is, a string for an
  integer and for a boolean;
- nothing reported where Kubernetes takes it: example-repo/ (its own test), a CRD with a large
  openAPIV3Schema, custom resources with or without their CRD, a Service's targetPort as a
  name, ConfigMap data keys, annotations, a Deployment using every common field (probes,
  resources given as numbers, affinity, tolerations, volumes, securityContext,
  topologySpreadConstraints, IntOrString maxSurge), nulls, a Job, a CronJob, a StatefulSet
  with volumeClaimTemplates, an HPA v2, an Ingress, a NetworkPolicy, RBAC objects, a PDB; a
  built-in kind at a version the kubernetes package has no model for is not checked; nor is a
  template's `status` (the render drops it): made-up fields there, or a `status` on a kind
  that has none, pass.
"""

from __future__ import annotations

import pytest
import yaml
from builders import NGINX_DEPLOYMENT as NGINX
from builders import make_cluster
from conftest import GitRepo, Invoke

PROPAGATION = """\
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: nginx-propagation
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
      name: nginx
  placement:
    clusterAffinity:
      clusterNames: [member1, member2]
    replicaScheduling:
      replicaDivisionPreference: Weighted
      replicaSchedulingType: Divided
      weightPreference:
        staticWeightList:
          - targetCluster: {clusterNames: [member1]}
            weight: 1
          - targetCluster: {clusterNames: [member2]}
            weight: 1
"""
REPLICASS = (
    "deployment.yaml:8:3: error: Deployment default/nginx: "
    'spec.replicass: unknown field "spec.replicass"'
)
FLEET = {
    "clusters.yaml": yaml.safe_dump_all([make_cluster("member1"), make_cluster("member2")]),
    "propagationpolicy.yaml": PROPAGATION,
}


def errors(cli: Invoke, repo: GitRepo, files: dict[str, str]) -> list[str]:
    """`gitfleet validate` of a commit of `files` beside the fleet: its error lines, with the
    repository's path cut; the exit code agrees."""
    repo.commit({**FLEET, **files})
    done = cli("validate", "--repo", str(repo.path))
    assert "Traceback" not in done.output
    found = [
        line.removeprefix(f"{repo.path}/")
        for line in done.output.splitlines()
        if ": error: " in line
    ]
    assert done.exit_code == (1 if found else 0), done.output
    return found


def test_a_typo_in_the_nginx_sample_is_an_error_at_the_key(cli: Invoke, git_repo: GitRepo) -> None:
    typo = NGINX.replace("  replicas: 2", "  replicass: 2")
    assert errors(cli, git_repo, {"deployment.yaml": typo}) == [REPLICASS]


def test_render_refuses_it_and_keeps_the_last_good_render(cli: Invoke, git_repo: GitRepo) -> None:
    git_repo.commit({**FLEET, "deployment.yaml": NGINX})
    assert cli("render", "--repo", str(git_repo.path)).exit_code == 0
    good = git_repo.git("rev-parse", "gitfleet/rendered")
    works = git_repo.git("ls-tree", "-r", "--name-only", good, "works").splitlines()
    for member in ("member1", "member2"):
        assert f"works/{member}/default/Deployment.apps/nginx.yaml" in works

    git_repo.commit({"deployment.yaml": NGINX.replace("  replicas: 2", "  replicass: 2")})
    done = cli("render", "--repo", str(git_repo.path))
    assert done.exit_code == 1, done.output
    assert f"{git_repo.path}/{REPLICASS}" in done.output.splitlines()
    assert git_repo.git("rev-parse", "gitfleet/rendered") == good


CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  key: value
"""
CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.io
spec:
  group: example.io
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList, shortNames: [wd]}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      subresources:
        status: {}
        scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
      additionalPrinterColumns:
        - {name: Size, type: integer, jsonPath: .spec.size, description: the size}
      schema:
        openAPIV3Schema:
          type: object
          description: A widget.
          required: [spec]
          properties:
            apiVersion: {type: string}
            kind: {type: string}
            metadata: {type: object}
            spec:
              type: object
              x-kubernetes-validations:
                - rule: self.size <= 10
                  message: too big
              properties:
                size: {type: integer, format: int32, minimum: 0, maximum: 10, default: 1}
                replicas: {type: integer, nullable: true}
                color: {type: string, enum: [red, blue], pattern: "^[a-z]+$", maxLength: 8}
                port:
                  x-kubernetes-int-or-string: true
                  anyOf: [{type: integer}, {type: string}]
                labels:
                  type: object
                  additionalProperties: {type: string}
                config:
                  type: object
                  x-kubernetes-preserve-unknown-fields: true
                items:
                  type: array
                  x-kubernetes-list-type: map
                  x-kubernetes-list-map-keys: [name]
                  items:
                    type: object
                    required: [name]
                    properties:
                      name: {type: string}
                      weight: {type: number, exclusiveMinimum: true, minimum: 0}
                template:
                  type: object
                  x-kubernetes-embedded-resource: true
                  x-kubernetes-preserve-unknown-fields: true
                  default: {apiVersion: v1, kind: ConfigMap, anything: [1, 2]}
                  example: {whatever: {nested: true}}
            status:
              type: object
              properties:
                replicas: {type: integer}
                conditions:
                  type: array
                  items: {type: object, x-kubernetes-preserve-unknown-fields: true}
"""


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param({"deployment.yaml": NGINX.replace("  labels:\n    app", "  lables:\n    app")},
                     ['deployment.yaml:5:3: error: Deployment default/nginx: metadata.lables: '
                      'unknown field "metadata.lables"'], id="metadata.lables"),
        pytest.param({"deployment.yaml": NGINX.replace("      labels:\n", "      lables:\n")},
                     ['deployment.yaml:14:7: error: Deployment default/nginx: '
                      'spec.template.metadata.lables: unknown field '
                      '"spec.template.metadata.lables"'], id="pod template metadata.lables"),
        pytest.param({"configmap.yaml": CONFIGMAP + "extra: 1\n"},
                     ['configmap.yaml:7:1: error: ConfigMap default/settings: extra: unknown '
                      'field "extra"'], id="unknown top-level key"),
        pytest.param({"deployment.yaml": NGINX + "        imagePullPolicyy: Always\n"},
                     ['deployment.yaml:20:9: error: Deployment default/nginx: '
                      'spec.template.spec.containers.0.imagePullPolicyy: unknown field '
                      '"spec.template.spec.containers[0].imagePullPolicyy"'],
                     id="a key of a list item"),
        pytest.param({"crd.yaml": CRD.replace("{type: string, enum:", "{type: string, enumm:")},
                     ['crd.yaml:35:39: error: CustomResourceDefinition widgets.example.io: '
                      'spec.versions.0.schema.openAPIV3Schema.properties.spec.properties.color.'
                      'enumm: unknown field "spec.versions[0].schema.openAPIV3Schema.properties.'
                      'spec.properties.color.enumm"'], id="a CRD's property schema"),
        pytest.param({"deployment.yaml": NGINX.replace("      containers:\n      - image: nginx\n"
                                                       "        name: nginx\n",
                                                       "      containers: {name: nginx}\n")},
                     ['deployment.yaml:17:7: error: Deployment default/nginx: '
                      'spec.template.spec.containers: must be a list, not a map'],
                     id="a map for a list"),
        pytest.param({"deployment.yaml": NGINX + "      affinity: []\n"},
                     ['deployment.yaml:20:7: error: Deployment default/nginx: '
                      'spec.template.spec.affinity: must be a map, not a list'],
                     id="a list for a map"),
        pytest.param({"deployment.yaml": NGINX + '      terminationGracePeriodSeconds: "30"\n'},
                     ['deployment.yaml:20:7: error: Deployment default/nginx: '
                      "spec.template.spec.terminationGracePeriodSeconds: must be an integer, "
                      "not '30'"], id="a string for an integer"),
        pytest.param({"deployment.yaml": NGINX.replace("  replicas: 2", '  paused: "yes"')},
                     ["deployment.yaml:8:3: error: Deployment default/nginx: spec.paused: must "
                      "be a boolean, not 'yes'"], id="a string for a boolean"),
    ],
)  # fmt: skip
def test_what_strict_validation_refuses_is_an_error(
    cli: Invoke, git_repo: GitRepo, files: dict[str, str], expected: list[str]
) -> None:
    assert errors(cli, git_repo, files) == expected


def test_every_problem_of_a_template_is_reported(cli: Invoke, git_repo: GitRepo) -> None:
    typos = NGINX.replace("  replicas: 2", "  replicass: 2").replace(
        "      - image", "      - imag"
    )
    assert [line.split(": error: ")[0] for line in errors(cli, git_repo, {"d.yaml": typos})] == [
        "d.yaml:8:3",
        "d.yaml:18:9",
    ]


WIDGET = """\
apiVersion: example.io/v1
kind: Widget
metadata:
  name: w1
spec:
  size: 3
  anything: {the: CRD's schema is the member's to apply}
"""
SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: web
  annotations:
    example.com/anything: "any text"
    kubectl.kubernetes.io/last-applied-configuration: '{"apiVersion":"v1"}'
spec:
  type: NodePort
  selector: {app: web}
  sessionAffinity: ClientIP
  sessionAffinityConfig: {clientIP: {timeoutSeconds: 600}}
  ipFamilyPolicy: SingleStack
  ports:
    - {name: http, port: 80, targetPort: http, protocol: TCP, nodePort: 30080}
    - {name: metrics, port: 9090, targetPort: 9090, appProtocol: http}
"""
CONFIG_DATA = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: files
  labels: {app: web}
  annotations: {note: "any", example.com/x: "y"}
data:
  app.properties: |
    a=b
  x-y_z: "1"
  UPPER: value
binaryData:
  logo.png: aGVsbG8=
immutable: true
"""
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels: {app: web}
  annotations: {deployment.kubernetes.io/revision: "3"}
  creationTimestamp: null
spec:
  replicas: 3
  minReadySeconds: 5
  revisionHistoryLimit: 4
  progressDeadlineSeconds: 600
  paused: false
  selector:
    matchLabels: {app: web}
    matchExpressions: [{key: tier, operator: In, values: [front]}]
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxSurge: 25%, maxUnavailable: 0}
  template:
    metadata:
      labels: {app: web, tier: front}
      annotations: {prometheus.io/scrape: "true"}
      creationTimestamp: null
    spec:
      serviceAccountName: web
      automountServiceAccountToken: false
      priorityClassName: high
      terminationGracePeriodSeconds: 30
      dnsPolicy: ClusterFirst
      restartPolicy: Always
      nodeSelector: {kubernetes.io/os: linux}
      hostAliases: [{ip: 10.0.0.1, hostnames: [db.local]}]
      imagePullSecrets: [{name: registry}]
      securityContext:
        runAsNonRoot: true
        runAsUser: 1000
        fsGroup: 2000
        seccompProfile: {type: RuntimeDefault}
        sysctls: [{name: net.core.somaxconn, value: "1024"}]
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
              - matchExpressions: [{key: zone, operator: In, values: [a, b]}]
          preferredDuringSchedulingIgnoredDuringExecution:
            - weight: 10
              preference: {matchExpressions: [{key: disk, operator: Exists}]}
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
            - weight: 100
              podAffinityTerm:
                labelSelector: {matchLabels: {app: web}}
                topologyKey: kubernetes.io/hostname
      tolerations:
        - {key: dedicated, operator: Equal, value: web, effect: NoSchedule}
        - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute,
           tolerationSeconds: 300}
      topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: topology.kubernetes.io/zone
          whenUnsatisfiable: ScheduleAnyway
          labelSelector: {matchLabels: {app: web}}
          minDomains: 2
          matchLabelKeys: [pod-template-hash]
      volumes:
        - name: config
          configMap: {name: files, items: [{key: app.properties, path: app.properties}],
                      defaultMode: 0644}
        - {name: secret, secret: {secretName: tls, defaultMode: 0400, optional: true}}
        - {name: cache, emptyDir: {medium: Memory, sizeLimit: 64Mi}}
        - {name: data, persistentVolumeClaim: {claimName: data, readOnly: false}}
        - name: projected
          projected:
            sources:
              - serviceAccountToken: {path: token, expirationSeconds: 3600, audience: api}
              - downwardAPI:
                  items: [{path: labels, fieldRef: {fieldPath: metadata.labels}}]
      initContainers:
        - name: init
          image: busybox
          command: [sh, -c, "true"]
          restartPolicy: Always
      containers:
        - name: web
          image: nginx:1.27
          imagePullPolicy: IfNotPresent
          args: [--port=8080]
          workingDir: /srv
          ports:
            - {name: http, containerPort: 8080, protocol: TCP}
          env:
            - {name: MODE, value: production}
            - name: POD_IP
              valueFrom: {fieldRef: {fieldPath: status.podIP}}
            - name: PASSWORD
              valueFrom: {secretKeyRef: {name: db, key: password, optional: false}}
            - name: LEVEL
              valueFrom: {configMapKeyRef: {name: files, key: level}}
            - name: CPU
              valueFrom: {resourceFieldRef: {resource: limits.cpu, divisor: 1m}}
            - {name: EMPTY, value: null}
          envFrom:
            - configMapRef: {name: files}
              prefix: CFG_
            - secretRef: {name: db}
          resources:
            requests: {cpu: 0.5, memory: 128Mi, ephemeral-storage: 1Gi}
            limits: {cpu: 1, memory: 1Gi}
          livenessProbe:
            httpGet: {path: /healthz, port: http, scheme: HTTP,
                      httpHeaders: [{name: X-Probe, value: "1"}]}
            initialDelaySeconds: 10
            periodSeconds: 5
            timeoutSeconds: 1
            failureThreshold: 3
          readinessProbe:
            tcpSocket: {port: 8080}
            successThreshold: 1
          startupProbe:
            exec: {command: [cat, /tmp/ready]}
            failureThreshold: 30
          lifecycle:
            preStop: {exec: {command: [sleep, "5"]}}
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities: {drop: [ALL], add: [NET_BIND_SERVICE]}
          volumeMounts:
            - {name: config, mountPath: /etc/web, readOnly: true}
            - {name: cache, mountPath: /cache, subPath: web}
        - name: grpc
          image: example/grpc
          livenessProbe:
            grpc: {port: 9000, service: health}
status: {}
"""
JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
spec:
  backoffLimit: 2
  completions: 3
  parallelism: 1
  activeDeadlineSeconds: 600
  ttlSecondsAfterFinished: 100
  completionMode: Indexed
  podFailurePolicy:
    rules:
      - action: FailJob
        onExitCodes: {containerName: main, operator: In, values: [42]}
      - action: Ignore
        onPodConditions: [{type: DisruptionTarget}]
  template:
    spec:
      restartPolicy: Never
      containers: [{name: main, image: migrate, resources: {limits: {cpu: 2}}}]
"""
CRONJOB = """\
apiVersion: batch/v1
kind: CronJob
metadata:
  name: report
spec:
  schedule: "0 3 * * *"
  timeZone: Etc/UTC
  concurrencyPolicy: Forbid
  startingDeadlineSeconds: 200
  successfulJobsHistoryLimit: 3
  failedJobsHistoryLimit: 1
  suspend: false
  jobTemplate:
    metadata:
      labels: {app: report}
    spec:
      backoffLimit: 1
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: report, image: report}]
"""
STATEFULSET = """\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  serviceName: db
  replicas: 3
  podManagementPolicy: Parallel
  updateStrategy: {type: RollingUpdate, rollingUpdate: {partition: 0, maxUnavailable: 1}}
  persistentVolumeClaimRetentionPolicy: {whenDeleted: Retain, whenScaled: Delete}
  ordinals: {start: 0}
  selector: {matchLabels: {app: db}}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers:
        - name: db
          image: postgres
          volumeMounts: [{name: data, mountPath: /var/lib/postgresql}]
  volumeClaimTemplates:
    - metadata:
        name: data
        labels: {app: db}
      spec:
        accessModes: [ReadWriteOnce]
        storageClassName: fast
        volumeMode: Filesystem
        resources:
          requests: {storage: 10Gi}
"""
HPA = """\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 10
  metrics:
    - type: Resource
      resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}
    - type: Pods
      pods:
        metric: {name: requests_per_second}
        target: {type: AverageValue, averageValue: 1k}
    - type: External
      external:
        metric: {name: queue, selector: {matchLabels: {queue: jobs}}}
        target: {type: Value, value: 30}
  behavior:
    scaleDown:
      stabilizationWindowSeconds: 300
      selectPolicy: Max
      policies: [{type: Percent, value: 10, periodSeconds: 60}]
    scaleUp:
      policies: [{type: Pods, value: 4, periodSeconds: 15}]
"""
INGRESS = """\
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  annotations: {nginx.ingress.kubernetes.io/rewrite-target: /}
spec:
  ingressClassName: nginx
  tls: [{hosts: [shop.example.com], secretName: shop-tls}]
  defaultBackend: {service: {name: web, port: {number: 80}}}
  rules:
    - host: shop.example.com
      http:
        paths:
          - path: /
            pathType: Prefix
            backend: {service: {name: web, port: {name: http}}}
"""
NETWORK_POLICY = """\
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: web
spec:
  podSelector: {matchLabels: {app: web}}
  policyTypes: [Ingress, Egress]
  ingress:
    - from:
        - namespaceSelector: {matchLabels: {team: shop}}
          podSelector: {matchLabels: {role: frontend}}
        - ipBlock: {cidr: 10.0.0.0/8, except: [10.1.0.0/16]}
      ports:
        - {protocol: TCP, port: 8080}
        - {protocol: TCP, port: http}
        - {protocol: TCP, port: 32000, endPort: 32768}
  egress:
    - to: [{podSelector: {}}]
"""
RBAC = """\
apiVersion: v1
kind: ServiceAccount
metadata:
  name: web
automountServiceAccountToken: false
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: reader
rules:
  - apiGroups: [""]
    resources: [configmaps]
    resourceNames: [files]
    verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: reader
subjects: [{kind: ServiceAccount, name: web, namespace: default}]
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: aggregate
aggregationRule:
  clusterRoleSelectors: [{matchLabels: {rbac.example.com/aggregate: "true"}}]
rules: []
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: aggregate
subjects: [{kind: Group, name: admins, apiGroup: rbac.authorization.k8s.io}]
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: aggregate}
"""
PDB = """\
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
spec:
  minAvailable: 50%
  selector: {matchLabels: {app: web}}
  unhealthyPodEvictionPolicy: AlwaysAllow
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: db
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: db}}
"""
SECRET = """\
apiVersion: v1
kind: Secret
metadata:
  name: db
type: Opaque
stringData: {password: hunter2}
data: {user: YWRtaW4=}
"""
UNKNOWN_VERSION = NGINX.replace("apps/v1", "apps/v1beta1").replace("replicas:", "replicass:")


@pytest.mark.parametrize(
    "files",
    [
        pytest.param({"crd.yaml": CRD, "widget.yaml": WIDGET}, id="CRD and custom resource"),
        pytest.param({"widget.yaml": WIDGET}, id="custom resource without its CRD"),
        pytest.param({"service.yaml": SERVICE}, id="Service, annotations"),
        pytest.param({"configmap.yaml": CONFIG_DATA}, id="ConfigMap data keys"),
        pytest.param({"deployment.yaml": DEPLOYMENT}, id="Deployment with every common field"),
        pytest.param({"job.yaml": JOB, "cronjob.yaml": CRONJOB}, id="Job and CronJob"),
        pytest.param({"statefulset.yaml": STATEFULSET}, id="StatefulSet"),
        pytest.param({"hpa.yaml": HPA}, id="HPA v2"),
        pytest.param({"ingress.yaml": INGRESS, "np.yaml": NETWORK_POLICY}, id="networking"),
        pytest.param({"rbac.yaml": RBAC}, id="RBAC"),
        pytest.param({"pdb.yaml": PDB, "secret.yaml": SECRET}, id="PDB and Secret"),
        pytest.param({"deployment.yaml": UNKNOWN_VERSION}, id="a version without a model"),
        pytest.param({"deployment.yaml": NGINX + "status: {phase: Bound, replicass: 1}\n",
                      "configmap.yaml": CONFIGMAP + "status: {replicas: 2}\n"},
                     id="a status, unknown fields and all"),
    ],
)  # fmt: skip
def test_what_kubernetes_takes_is_no_error(
    cli: Invoke, git_repo: GitRepo, files: dict[str, str]
) -> None:
    assert errors(cli, git_repo, files) == []


def test_the_common_fields_are_each_read(cli: Invoke, git_repo: GitRepo) -> None:
    """The valid Deployment above is checked, not skipped: a typo anywhere in it is found."""
    typo = DEPLOYMENT.replace("minDomains: 2", "minDomain: 2")
    assert errors(cli, git_repo, {"deployment.yaml": typo}) == [
        "deployment.yaml:65:11: error: Deployment shop/web: spec.template.spec."
        "topologySpreadConstraints.0.minDomain: unknown field "
        '"spec.template.spec.topologySpreadConstraints[0].minDomain"'
    ]
