"""kubectl's spellings of a kind (kind, plural, short name, group-qualified, a CRD's names from
the source) and of a resource (`KIND NAME` or `KIND/NAME`), for the commands that take a KIND:
explain and get."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

from gitfleet import errors
from gitfleet.model.template import ResourceTemplate

GroupKind = tuple[str, str]

BUILTIN: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("", "Pod", "pods", ("po",)),
    ("", "Service", "services", ("svc",)),
    ("", "ConfigMap", "configmaps", ("cm",)),
    ("", "Secret", "secrets", ()),
    ("", "ServiceAccount", "serviceaccounts", ("sa",)),
    ("", "PersistentVolumeClaim", "persistentvolumeclaims", ("pvc",)),
    ("", "PersistentVolume", "persistentvolumes", ("pv",)),
    ("", "Namespace", "namespaces", ("ns",)),
    ("", "Node", "nodes", ("no",)),
    ("", "Endpoints", "endpoints", ("ep",)),
    ("", "LimitRange", "limitranges", ("limits",)),
    ("", "ResourceQuota", "resourcequotas", ("quota",)),
    ("", "ReplicationController", "replicationcontrollers", ("rc",)),
    ("", "Event", "events", ("ev",)),
    ("", "PodTemplate", "podtemplates", ()),
    ("apps", "Deployment", "deployments", ("deploy",)),
    ("apps", "StatefulSet", "statefulsets", ("sts",)),
    ("apps", "DaemonSet", "daemonsets", ("ds",)),
    ("apps", "ReplicaSet", "replicasets", ("rs",)),
    ("apps", "ControllerRevision", "controllerrevisions", ()),
    ("batch", "Job", "jobs", ()),
    ("batch", "CronJob", "cronjobs", ("cj",)),
    ("autoscaling", "HorizontalPodAutoscaler", "horizontalpodautoscalers", ("hpa",)),
    ("networking.k8s.io", "Ingress", "ingresses", ("ing",)),
    ("networking.k8s.io", "IngressClass", "ingressclasses", ()),
    ("networking.k8s.io", "NetworkPolicy", "networkpolicies", ("netpol",)),
    ("policy", "PodDisruptionBudget", "poddisruptionbudgets", ("pdb",)),
    ("rbac.authorization.k8s.io", "Role", "roles", ()),
    ("rbac.authorization.k8s.io", "RoleBinding", "rolebindings", ()),
    ("rbac.authorization.k8s.io", "ClusterRole", "clusterroles", ()),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding", "clusterrolebindings", ()),
    ("storage.k8s.io", "StorageClass", "storageclasses", ("sc",)),
    (
        "apiextensions.k8s.io",
        "CustomResourceDefinition",
        "customresourcedefinitions",
        ("crd", "crds"),
    ),
    ("scheduling.k8s.io", "PriorityClass", "priorityclasses", ("pc",)),
    ("discovery.k8s.io", "EndpointSlice", "endpointslices", ()),
    ("certificates.k8s.io", "CertificateSigningRequest", "certificatesigningrequests", ("csr",)),
    ("events.k8s.io", "Event", "events", ("ev",)),
)
"""Kubernetes' kinds with their resource (plural) and short names, as kubectl knows them."""


KARMADA: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("cluster.karmada.io", "Cluster", "clusters", ()),
    ("policy.karmada.io", "PropagationPolicy", "propagationpolicies", ("pp",)),
    ("policy.karmada.io", "ClusterPropagationPolicy", "clusterpropagationpolicies", ("cpp",)),
    ("policy.karmada.io", "OverridePolicy", "overridepolicies", ("op",)),
    ("policy.karmada.io", "ClusterOverridePolicy", "clusteroverridepolicies", ("cop",)),
    ("policy.karmada.io", "ClusterTaintPolicy", "clustertaintpolicies", ()),
    ("work.karmada.io", "ResourceBinding", "resourcebindings", ("rb",)),
    ("work.karmada.io", "ClusterResourceBinding", "clusterresourcebindings", ("crb",)),
    ("autoscaling.karmada.io", "FederatedHPA", "federatedhpas", ("fhpa",)),
    (
        "config.karmada.io",
        "ResourceInterpreterCustomization",
        "resourceinterpretercustomizations",
        ("ric",),
    ),
)
"""Karmada's own kinds, as karmadactl spells them: they place templates and reach no member
cluster, so a command taking a template's KIND names them rather than call them unknown."""

KARMADA_UNREAD: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("networking.karmada.io", "MultiClusterService", "multiclusterservices", ("mcs",)),
    ("networking.karmada.io", "MultiClusterIngress", "multiclusteringresses", ("mci",)),
    ("autoscaling.karmada.io", "CronFederatedHPA", "cronfederatedhpas", ("cronfhpa",)),
    ("apps.karmada.io", "WorkloadRebalancer", "workloadrebalancers", ()),
    ("policy.karmada.io", "FederatedResourceQuota", "federatedresourcequotas", ()),
    ("remedy.karmada.io", "Remedy", "remedies", ()),
    ("work.karmada.io", "Work", "works", ("wk",)),
    (
        "config.karmada.io",
        "ResourceInterpreterWebhookConfiguration",
        "resourceinterpreterwebhookconfigurations",
        (),
    ),
)
"""Karmada's own kinds that gitfleet skips when it loads the source (with a warning): Karmada
never propagates them, and gitfleet runs none of their controllers. Named so that a command
taking a template's KIND says so rather than call the kind unknown and suggest another."""


def guess_plural(kind: str) -> str:
    """kubectl's guess of a kind's resource name (meta.UnsafeGuessKindToResource)."""
    singular = kind.lower()
    if singular.endswith("s"):
        return singular + "es"
    if singular.endswith("y"):
        return singular[:-1] + "ies"
    return singular + "s"


def _names(templates: Iterable[ResourceTemplate]) -> dict[GroupKind, set[str]]:
    """Every spelling of every kind: built-in, defined by a CRD in the source, or used."""
    names: dict[GroupKind, set[str]] = {}
    for group, kind, plural, short in BUILTIN:
        names[(group, kind)] = {kind.lower(), plural, *short}
    for t in templates:
        spelled = names.setdefault((t.key.group, t.kind), set())
        spelled.update({t.kind.lower(), guess_plural(t.kind)})
        if t.kind == "CustomResourceDefinition":
            spec = t.body.get("spec") or {}
            crd = spec.get("names") or {}
            if isinstance(crd, dict) and isinstance(crd.get("kind"), str):
                defined = names.setdefault((str(spec.get("group", "")), crd["kind"]), set())
                words = [crd.get("plural"), crd.get("singular"), *(crd.get("shortNames") or [])]
                defined.update(w.lower() for w in words if isinstance(w, str))
                defined.add(crd["kind"].lower())
    return names


def resolve(token: str, templates: Sequence[ResourceTemplate]) -> GroupKind:
    """The (group, kind) a kubectl-style KIND names; UsageError when none or several do.
    Several spellings may fit (`events`): kinds used in the source come first, then the core
    group, as kubectl prefers it."""
    word, _, qualifier = token.lower().partition(".")
    version, _, rest = qualifier.partition(".")
    groups = {qualifier}
    if version[:1] == "v" and version[1:2].isdigit():
        groups.add(rest)
    found = sorted(
        gk
        for gk, spelled in _names(templates).items()
        if word in spelled and (not qualifier or gk[0].lower() in groups)
    )
    if not found:
        _refuse_karmada_kind(word, groups if qualifier else set())
        kinds = {s: k.lower() for (_, k), spelled in _names(templates).items() for s in spelled}
        close = difflib.get_close_matches(word, sorted(kinds), n=5, cutoff=0.6)
        hint = did_you_mean(dict.fromkeys(kinds[s] for s in close))
        raise errors.UsageError(f"unknown kind {token!r}{hint}")
    used = {(t.key.group, t.kind) for t in templates}
    if len(found) > 1 and any(gk in used for gk in found):
        found = [gk for gk in found if gk in used]
    if len(found) > 1 and found[0][0] == "":
        found = found[:1]
    if len(found) > 1:
        spelled = ", ".join(f"{guess_plural(k)}.{g or 'core'}" for g, k in found)
        raise errors.UsageError(f"kind {token!r} is ambiguous: qualify it ({spelled})")
    return found[0]


def _refuse_karmada_kind(word: str, groups: set[str]) -> None:
    """`UsageError` when `word` (group-qualified by one of `groups`, if any) spells one of
    Karmada's own kinds."""
    for table, reason in (
        (KARMADA, ""),
        (KARMADA_UNREAD, " gitfleet does not read (it runs none of its controllers)"),
    ):
        for group, kind, plural, short in table:
            if word in (kind.lower(), plural, *short) and (not groups or group in groups):
                raise errors.UsageError(
                    f"{kind} is one of Karmada's own kinds{reason}, not a resource template: it"
                    " reaches no member cluster; name a template (explain shows its policy,"
                    " binding and autoscaler; status shows the clusters)"
                )


def kind_and_name(args: Sequence[str]) -> tuple[str, str]:
    """KIND and NAME ("" when not given) from the arguments, spelled either way kubectl takes
    them: `KIND NAME` or `KIND/NAME`; `UsageError`, with kubectl's reasons, for anything else
    (`requested`'s, or several kinds or names)."""
    if not args:
        raise errors.UsageError("expected KIND/NAME or KIND NAME")
    found = requested(args)
    if len(found) > 1 or len(found[0][1]) > 1:
        raise errors.UsageError(f"expected KIND/NAME or KIND NAME, got {' '.join(args)!r}")
    kind, names = found[0]
    return kind, names[0] if names else ""


Requested = tuple[str, tuple[str, ...]]
"""A KIND as typed and the NAMEs asked of it (none: every object)."""


def requested(args: Sequence[str]) -> list[Requested]:
    """The kinds and names `kubectl get` reads from its arguments, in the order typed: `KIND`,
    `KIND NAME...`, `KIND,KIND... [NAME...]` (each name of each kind) or `KIND/NAME...`, a
    kind given twice asked once; `UsageError`, with kubectl's reasons, for anything else."""
    if not args:
        raise errors.UsageError("expected KIND, KIND NAME... or KIND/NAME...")
    slashed = [arg for arg in args if "/" in arg]
    if slashed and len(slashed) < len(args):
        raise errors.UsageError(
            "there is no need to give the kind as a separate argument with KIND/NAME"
            f" (e.g. {slashed[0].partition('/')[0]}/NAME, not {' '.join(args)})"
        )
    found: dict[str, list[str]] = {}
    if slashed:
        for arg in args:
            kind, _, name = arg.partition("/")
            if "/" in name:
                raise errors.UsageError(f"{arg!r}: KIND/NAME may not have more than one slash")
            if not kind or not name:
                raise errors.UsageError(f"{arg!r}: KIND/NAME must have both a kind and a name")
            if "," in kind:
                raise errors.UsageError(f"{arg!r}: KIND/NAME must have a single kind")
            names = found.setdefault(kind, [])
            names += [] if name in names else [name]
        return [(kind, tuple(names)) for kind, names in found.items()]
    return [(kind, tuple(dict.fromkeys(args[1:]))) for kind in dict.fromkeys(args[0].split(","))]


def qualified(group: str, kind: str) -> str:
    """How kubectl names a kind before an object's name (`deployment.apps/web`, `service/web`)."""
    return f"{kind.lower()}.{group}" if group else kind.lower()


def resource(group: str, kind: str) -> str:
    """How kubectl names a kind's resource in its messages (`deployments.apps`, `services`)."""
    plural = next((p for g, k, p, _ in BUILTIN if (g, k) == (group, kind)), guess_plural(kind))
    return f"{plural}.{group}" if group else plural


def did_you_mean(close: Iterable[str], option: str = "") -> str:
    """` (did you mean a or b?)`, or "" when nothing is close."""
    words = [f"{option}{w}" for w in close]
    return f" (did you mean {' or '.join(words[:3])}?)" if words else ""
