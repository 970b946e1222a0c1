"""Templates the detector never propagates, Namespaces that go everywhere anyway, and the
namespace a template ends up in (Karmada pkg/util/apigroup.go NewSkippedResourceConfig,
pkg/detector/detector.go EventFilter and Reconcile, pkg/controllers/namespace).

Aspects: Karmada's own API groups, events, Leases, reserved and skipped namespaces, the
extension-apiserver-authentication ConfigMap, the claimed-by label, non-deletable kinds;
namespace auto-propagation and its exceptions, and a warning when a policy also places such a
namespace; bindings in the effective namespace
(`model.scope`: default for namespaced kinds, none for cluster-scoped ones, CRD scope).
"""

from __future__ import annotations

from typing import Any

import pytest
from builders import make_cluster_policy, make_crd, make_object, selector
from detector.detector_checks import Detect, decision_of

from gitfleet.detector import detection
from gitfleet.model import diagnostic


def everything(api_version: str, kind: str) -> dict[str, Any]:
    return make_cluster_policy("all", selector(kind, api_version))


@pytest.mark.parametrize(
    ("template", "reason"),
    [
        pytest.param(
            make_object("work.karmada.io/v1alpha2", "ResourceBinding", "x", "shop"),
            "API group work.karmada.io",
            id="apigroup.go: Karmada's work group is skipped",
        ),
        pytest.param(
            make_object("apps.karmada.io/v1alpha1", "WorkloadRebalancer", "x"),
            "API group apps.karmada.io",
            id="apigroup.go: Karmada's apps group is skipped",
        ),
        pytest.param(
            make_object("events.k8s.io/v1", "Event", "x", "shop"),
            "API group events.k8s.io",
            id="apigroup.go: events.k8s.io is skipped",
        ),
        pytest.param(
            make_object("v1", "Event", "x", "shop"),
            "v1 Event objects",
            id="apigroup.go: core v1 Event is skipped",
        ),
        pytest.param(
            make_object("coordination.k8s.io/v1", "Lease", "x", "shop"),
            "coordination.k8s.io/v1",
            id="apigroup.go: coordination.k8s.io/v1 Leases are skipped",
        ),
        pytest.param(
            make_object("v1", "ConfigMap", "x", "karmada-system"),
            "reserved for Karmada",
            id="names.go IsReservedNamespace: karmada-system",
        ),
        pytest.param(
            make_object("v1", "ConfigMap", "x", "karmada-es-member1"),
            "reserved for Karmada",
            id="names.go IsReservedNamespace: karmada-es-* execution spaces",
        ),
        pytest.param(
            make_object("v1", "ConfigMap", "x", "kube-public"),
            "skipped namespaces",
            id="detector.go EventFilter: default skipped namespaces kube-.*",
        ),
        pytest.param(
            make_object("v1", "ConfigMap", "extension-apiserver-authentication", "kube-system"),
            "kube-system",
            id="detector.go EventFilter: extension-apiserver-authentication",
        ),
        pytest.param(
            make_object(
                "v1",
                "Service",
                "x",
                "shop",
                labels={"resourcetemplate.karmada.io/claimed-by": "mcs"},
            ),
            "another controller owns it",
            id="detector.go Reconcile: templates with claimed-by are left alone",
        ),
        pytest.param(
            make_object("authorization.k8s.io/v1", "SubjectAccessReview", "x"),
            "not a deletable resource",
            id="detector.go discoverResources: only deletable resources are watched",
        ),
    ],
)
def test_skipped(detect: Detect, template: dict[str, Any], reason: str) -> None:
    result = detect([template, everything(template["apiVersion"], template["kind"])])
    decision = result.decisions[0]
    assert decision.outcome == detection.Outcome.SKIPPED
    assert reason in decision.message
    assert result.bindings == ()


def test_anchored_namespace_pattern_keeps_lookalikes(detect: Detect) -> None:
    """The skipped-namespace pattern is anchored: `my-kube-ns` is propagated."""
    template = make_object("v1", "ConfigMap", "x", "my-kube-ns")
    result = detect([template, everything("v1", "ConfigMap")])
    assert result.decisions[0].outcome == detection.Outcome.APPLIED


def test_namespace_named_kube_is_not_skipped_by_the_detector(detect: Detect) -> None:
    """EventFilter tests the object's namespace; a Namespace object has none."""
    ns = make_object("v1", "Namespace", "kube-extra")
    result = detect([ns, everything("v1", "Namespace")])
    assert result.decisions[0].outcome == detection.Outcome.APPLIED
    assert result.auto_namespaces == ()


@pytest.mark.parametrize(
    ("name", "labels", "expected"),
    [
        pytest.param("shop", {}, True, id="namespace_sync_controller: ordinary namespace"),
        pytest.param("default", {}, False, id="namespace_sync_controller: not default"),
        pytest.param("kube-extra", {}, False, id="namespace_sync_controller: not kube-*"),
        pytest.param("karmada-es-m1", {}, False, id="namespace_sync_controller: not reserved"),
        pytest.param(
            "quiet",
            {"namespace.karmada.io/skip-auto-propagation": "True"},
            False,
            id="namespace_sync_controller: skip-auto-propagation (case-insensitive)",
        ),
    ],
)
def test_auto_propagated_namespaces(
    detect: Detect, name: str, labels: dict[str, str], expected: bool
) -> None:
    result = detect([make_object("v1", "Namespace", name, labels=labels)])
    assert (name in [k.name for k in result.auto_namespaces]) is expected
    message = result.decisions[0].message
    assert ("namespace controller sends it to every cluster" in message) is expected


@pytest.mark.parametrize(
    ("labels", "warned"),
    [
        pytest.param({}, True, id="placed by a policy and synced everywhere: a warning"),
        pytest.param(
            {"namespace.karmada.io/skip-auto-propagation": "true"},
            False,
            id="skip-auto-propagation: the policy alone places it",
        ),
    ],
)
def test_a_namespace_a_policy_places(detect: Detect, labels: dict[str, str], warned: bool) -> None:
    """namespace_sync_controller.go syncs it whether or not a policy claims it too (docs
    'Namespace Management', option C, turns the controller off; gitfleet has the label)."""
    policy = make_cluster_policy("ns", selector("Namespace", "v1", name="example"))
    result = detect([make_object("v1", "Namespace", "example", labels=labels), policy])
    assert decision_of(result, "example").binding is not None
    warnings = [str(d) for d in result.diagnostics]
    assert bool(warnings) is warned
    assert all(
        "the namespace controller sends it to every cluster all the same" in w for w in warnings
    )


@pytest.mark.parametrize(
    ("docs", "namespace", "binding_kind"),
    [
        pytest.param(
            [make_object("v1", "ConfigMap", "x")],
            "default",
            "ResourceBinding",
            id="a namespaced kind without namespace: in default",
        ),
        pytest.param(
            [
                make_crd("example.io", "Gadget", "Cluster"),
                make_object("example.io/v1", "Gadget", "x"),
            ],
            "",
            "ClusterResourceBinding",
            id="CRD spec.scope Cluster in the source",
        ),
    ],
)
def test_binding_follows_the_effective_namespace(
    detect: Detect, docs: list[dict[str, Any]], namespace: str, binding_kind: str
) -> None:
    kind, api_version = docs[-1]["kind"], docs[-1]["apiVersion"]
    result = detect([*docs, everything(api_version, kind)])
    decision = decision_of(result, "x")
    assert decision.key.namespace == namespace
    assert decision.binding is not None
    assert binding_kind == decision.binding.KIND
    assert decision.binding.namespace == namespace
    assert decision.binding.spec.resource.namespace == namespace


def test_same_object_twice_is_an_error(detect: Detect) -> None:
    """Both spellings name default/x: the second definition is refused."""
    docs = [make_object("v1", "ConfigMap", "x"), make_object("v1", "ConfigMap", "x", "default")]
    result = detect([*docs, everything("v1", "ConfigMap")])
    errors = [d for d in result.diagnostics if d.severity == diagnostic.Severity.ERROR]
    assert len(errors) == 1
    assert "already defined at source.yaml:1:1" in errors[0].message
    assert len(result.bindings) == 1
