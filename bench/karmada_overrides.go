// Answers Karmada's override manager gives to scenarios read as JSON lines from stdin:
// {"object": {...}, "cluster": Cluster, "overridePolicies": [...], "clusterOverridePolicies":
// [...]}. Prints one JSON line each: the object as that cluster receives it after
// ApplyOverridePolicies (ClusterOverridePolicies, then the OverridePolicies of its namespace),
// or the error; a panic of the override manager counts as an error, as controller-runtime
// recovers a reconciler's panic.
//
// gitfleet's own harness for tests/overrides/override_oracle_scenarios.py, which builds it
// inside a Karmada checkout (the only place its vendored packages resolve) and removes it
// afterwards; it calls Karmada's exported API and holds none of Karmada's code.
package main

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	clusterv1alpha1 "github.com/karmada-io/karmada/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/karmada/pkg/apis/policy/v1alpha1"
	"github.com/karmada-io/karmada/pkg/util/gclient"
	"github.com/karmada-io/karmada/pkg/util/overridemanager"
)

type scenario struct {
	Object                  map[string]any                         `json:"object"`
	Cluster                 clusterv1alpha1.Cluster                `json:"cluster"`
	OverridePolicies        []policyv1alpha1.OverridePolicy        `json:"overridePolicies"`
	ClusterOverridePolicies []policyv1alpha1.ClusterOverridePolicy `json:"clusterOverridePolicies"`
}

type answer struct {
	Object map[string]any `json:"object,omitempty"`
	Error  string         `json:"error,omitempty"`
}

func main() {
	serve(func(sc *scenario) (answer, error) { return override(sc), nil })
}

// override answers one scenario with an override manager on a fake client holding the cluster
// and the policies.
func override(sc *scenario) answer {
	objects := []client.Object{&sc.Cluster}
	for i := range sc.OverridePolicies {
		objects = append(objects, &sc.OverridePolicies[i])
	}
	for i := range sc.ClusterOverridePolicies {
		objects = append(objects, &sc.ClusterOverridePolicies[i])
	}
	c := fake.NewClientBuilder().WithScheme(gclient.NewSchema()).WithObjects(objects...).Build()
	manager := overridemanager.New(c, &record.FakeRecorder{})
	return apply(manager, &unstructured.Unstructured{Object: sc.Object}, sc.Cluster.Name)
}

// apply recovers a panic of the override manager as an error, as controller-runtime recovers
// a reconciler's panic.
func apply(manager overridemanager.OverrideManager, obj *unstructured.Unstructured, cluster string) (a answer) {
	defer func() {
		if r := recover(); r != nil {
			a = answer{Error: fmt.Sprintf("panic: %v", r)}
		}
	}()
	if _, _, err := manager.ApplyOverridePolicies(obj, cluster); err != nil {
		return answer{Error: err.Error()}
	}
	return answer{Object: obj.Object}
}
