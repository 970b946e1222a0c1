// Answers Karmada's resource detector gives to scenarios read as JSON lines from stdin:
// {"template": {...}, "propagationPolicies": [...], "clusterPropagationPolicies": [...],
// "overridePolicies": [...], "clusterOverridePolicies": [...]}. The template carries its
// current claim (labels and annotations), if any. Prints one JSON line each: which policy
// claims the template once the detector has settled, as {"outcome": "applied" | "waiting",
// "kind", "namespace", "name"}, or {"outcome": "none"} when no policy claims it, or
// {"outcome": "skipped"} when the detector never reconciles it.
//
// The steps are those of the detector's Reconcile and propagateResource, each answered by
// Karmada's own code: the event filter (reserved and skipped namespaces), the skipped resource
// configuration, the claim read from the template's metadata, the claimed policy fetched and
// checked with util.ResourceMatchSelectors, LookForMatchedPolicy before
// LookForMatchedClusterPolicy, and helper.IsDependent(Cluster)OverridesPresent. Where Karmada
// reaches its steady state through another reconcile, the harness takes that step too: a claim
// whose policy is gone, being deleted, or no longer selects the template is cleaned up (the
// policy's own reconcile does that with CleanupPPClaimMetadata / CleanupCPPClaimMetadata) and
// the template is reconciled again. Policies pass the mutating webhook's defaulting of selector
// namespaces and the validating webhook's ValidatePropagationSpec first; a policy it refuses is
// an error of the scenario generator.
//
// The harness also builds bench/karmada_detector_export.go into pkg/detector, to ask Karmada's
// own preemptionEnabled whether a policy's preemption takes effect (at the default feature
// gates it never does; the harness refuses a scenario where it would, as it does not model
// preemption).
//
// gitfleet's own harness for tests/detector/detector_oracle_scenarios.py, which builds it
// inside a Karmada checkout (the only place its vendored packages resolve) and removes it
// afterwards; it calls Karmada's API and holds none of Karmada's code.
package main

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/karmada-io/karmada/cmd/controller-manager/app/options"
	policyv1alpha1 "github.com/karmada-io/karmada/pkg/apis/policy/v1alpha1"
	"github.com/karmada-io/karmada/pkg/detector"
	"github.com/karmada-io/karmada/pkg/util"
	"github.com/karmada-io/karmada/pkg/util/fedinformer/keys"
	"github.com/karmada-io/karmada/pkg/util/gclient"
	"github.com/karmada-io/karmada/pkg/util/helper"
	"github.com/karmada-io/karmada/pkg/util/validation"
)

type scenario struct {
	Template                   map[string]any                            `json:"template"`
	PropagationPolicies        []policyv1alpha1.PropagationPolicy        `json:"propagationPolicies"`
	ClusterPropagationPolicies []policyv1alpha1.ClusterPropagationPolicy `json:"clusterPropagationPolicies"`
	OverridePolicies           []policyv1alpha1.OverridePolicy           `json:"overridePolicies"`
	ClusterOverridePolicies    []policyv1alpha1.ClusterOverridePolicy    `json:"clusterOverridePolicies"`
}

type answer struct {
	Outcome   string `json:"outcome"`
	Kind      string `json:"kind,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	Error     string `json:"error,omitempty"`
}

// defaultSkippedNamespaces is --skipped-propagating-namespaces at its default, compiled as the
// controller manager compiles it.
var defaultSkippedNamespaces = (&options.Options{SkippedPropagatingNamespaces: []string{"kube-.*"}}).SkippedNamespacesRegexps()

func main() {
	serve(decide)
}

// admit applies what Karmada's admission webhooks do to a new policy that matters here: the
// mutating webhook's namespace for selectors without one and its finalizer (a policy being
// deleted still has it); then the validating webhook's check.
func admit(sc *scenario) error {
	for i := range sc.PropagationPolicies {
		p := &sc.PropagationPolicies[i]
		for j := range p.Spec.ResourceSelectors {
			if p.Spec.ResourceSelectors[j].Namespace == "" {
				p.Spec.ResourceSelectors[j].Namespace = p.Namespace
			}
		}
		controllerutil.AddFinalizer(p, util.PropagationPolicyControllerFinalizer)
		if errs := validation.ValidatePropagationSpec(p.Spec, p.Namespace); len(errs) > 0 {
			return fmt.Errorf("PropagationPolicy %s/%s: %v", p.Namespace, p.Name, errs.ToAggregate())
		}
	}
	for i := range sc.ClusterPropagationPolicies {
		p := &sc.ClusterPropagationPolicies[i]
		controllerutil.AddFinalizer(p, util.ClusterPropagationPolicyControllerFinalizer)
		if errs := validation.ValidatePropagationSpec(p.Spec, ""); len(errs) > 0 {
			return fmt.Errorf("ClusterPropagationPolicy %s: %v", p.Name, errs.ToAggregate())
		}
	}
	for _, p := range sc.PropagationPolicies {
		if detector.GitfleetPreemptionEnabled(p.Spec.Preemption) {
			return fmt.Errorf("preemption of %s/%s takes effect: not modelled", p.Namespace, p.Name)
		}
	}
	for _, p := range sc.ClusterPropagationPolicies {
		if detector.GitfleetPreemptionEnabled(p.Spec.Preemption) {
			return fmt.Errorf("preemption of %s takes effect: not modelled", p.Name)
		}
	}
	return nil
}

func newClient(sc *scenario) client.Client {
	var objects []client.Object
	for i := range sc.PropagationPolicies {
		objects = append(objects, &sc.PropagationPolicies[i])
	}
	for i := range sc.ClusterPropagationPolicies {
		objects = append(objects, &sc.ClusterPropagationPolicies[i])
	}
	for i := range sc.OverridePolicies {
		objects = append(objects, &sc.OverridePolicies[i])
	}
	for i := range sc.ClusterOverridePolicies {
		objects = append(objects, &sc.ClusterOverridePolicies[i])
	}
	return fake.NewClientBuilder().WithScheme(gclient.NewSchema()).WithObjects(objects...).Build()
}

// skipped says whether the detector never reconciles the template: its event filter, the
// resources it never watches, and the claimed-by label Reconcile leaves alone.
func skipped(d *detector.ResourceDetector, obj *unstructured.Unstructured) bool {
	if !d.EventFilter(obj) {
		return true
	}
	gvk := obj.GroupVersionKind()
	config := util.NewSkippedResourceConfig()
	if config.GroupVersionDisabled(gvk.GroupVersion()) || config.GroupDisabled(gvk.Group) ||
		config.GroupVersionKindDisabled(gvk) {
		return true
	}
	return util.GetLabelValue(obj.GetLabels(), util.ResourceTemplateClaimedByLabel) != ""
}

func decide(sc *scenario) (answer, error) {
	if err := admit(sc); err != nil {
		return answer{}, err
	}
	c := newClient(sc)
	d := &detector.ResourceDetector{Client: c, SkippedPropagatingNamespaces: defaultSkippedNamespaces}
	obj := &unstructured.Unstructured{Object: sc.Template}
	if skipped(d, obj) {
		return answer{Outcome: "skipped"}, nil
	}
	key, err := keys.ClusterWideKeyFunc(obj)
	if err != nil {
		return answer{}, err
	}
	// Each round is one reconcile of the template; a round that cleans a stale claim is
	// followed by another, as the template's update event triggers one.
	for round := 0; round < 3; round++ {
		a, again, err := reconcile(d, c, obj, key)
		if err != nil || !again {
			return a, err
		}
	}
	return answer{}, fmt.Errorf("no steady state")
}

// reconcile is one pass of propagateResource's decision: (answer, whether the claim was cleaned
// and the template is reconciled again, error).
func reconcile(d *detector.ResourceDetector, c client.Client, obj *unstructured.Unstructured, key keys.ClusterWideKey) (answer, bool, error) {
	annotations, labels := obj.GetAnnotations(), obj.GetLabels()
	ppNamespace := util.GetAnnotationValue(annotations, policyv1alpha1.PropagationPolicyNamespaceAnnotation)
	ppName := util.GetAnnotationValue(annotations, policyv1alpha1.PropagationPolicyNameAnnotation)
	ppID := util.GetLabelValue(labels, policyv1alpha1.PropagationPolicyPermanentIDLabel)
	if ppNamespace != "" && ppName != "" && ppID != "" {
		p := &policyv1alpha1.PropagationPolicy{}
		err := c.Get(context.TODO(), client.ObjectKey{Namespace: ppNamespace, Name: ppName}, p)
		if err != nil && !apierrors.IsNotFound(err) {
			return answer{}, false, err
		}
		if err != nil || !p.DeletionTimestamp.IsZero() || !util.ResourceMatchSelectors(obj, p.Spec.ResourceSelectors...) {
			detector.CleanupPPClaimMetadata(obj)
			return answer{}, true, nil
		}
		return applied(c, p), false, nil
	}
	cppName := util.GetAnnotationValue(annotations, policyv1alpha1.ClusterPropagationPolicyAnnotation)
	cppID := util.GetLabelValue(labels, policyv1alpha1.ClusterPropagationPolicyPermanentIDLabel)
	if cppName != "" && cppID != "" {
		p := &policyv1alpha1.ClusterPropagationPolicy{}
		err := c.Get(context.TODO(), client.ObjectKey{Name: cppName}, p)
		if err != nil && !apierrors.IsNotFound(err) {
			return answer{}, false, err
		}
		if err != nil || !p.DeletionTimestamp.IsZero() || !util.ResourceMatchSelectors(obj, p.Spec.ResourceSelectors...) {
			detector.CleanupCPPClaimMetadata(obj)
			return answer{}, true, nil
		}
		return appliedCluster(c, p), false, nil
	}
	pp, err := d.LookForMatchedPolicy(obj, key)
	if err != nil {
		return answer{}, false, err
	}
	if pp != nil {
		return applied(c, pp), false, nil
	}
	cpp, err := d.LookForMatchedClusterPolicy(obj, key)
	if err != nil {
		return answer{}, false, err
	}
	if cpp != nil {
		return appliedCluster(c, cpp), false, nil
	}
	return answer{Outcome: "none"}, false, nil
}

func applied(c client.Client, p *policyv1alpha1.PropagationPolicy) answer {
	a := answer{Outcome: "applied", Kind: "PropagationPolicy", Namespace: p.Namespace, Name: p.Name}
	if present, err := helper.IsDependentOverridesPresent(c, p); err != nil || !present {
		a.Outcome = "waiting"
	}
	return a
}

func appliedCluster(c client.Client, p *policyv1alpha1.ClusterPropagationPolicy) answer {
	a := answer{Outcome: "applied", Kind: "ClusterPropagationPolicy", Name: p.Name}
	if present, err := helper.IsDependentClusterOverridesPresent(c, p); err != nil || !present {
		a.Outcome = "waiting"
	}
	return a
}
