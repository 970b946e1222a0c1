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
	"bufio"
	"encoding/json"
	"fmt"
	"os"

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
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		var sc scenario
		if err := json.Unmarshal(in.Bytes(), &sc); err != nil {
			fmt.Fprintln(os.Stderr, "bad case:", err)
			os.Exit(1)
		}
		objects := []client.Object{&sc.Cluster}
		for i := range sc.OverridePolicies {
			objects = append(objects, &sc.OverridePolicies[i])
		}
		for i := range sc.ClusterOverridePolicies {
			objects = append(objects, &sc.ClusterOverridePolicies[i])
		}
		c := fake.NewClientBuilder().WithScheme(gclient.NewSchema()).WithObjects(objects...).Build()
		manager := overridemanager.New(c, &record.FakeRecorder{})
		obj := &unstructured.Unstructured{Object: sc.Object}
		a := apply(manager, obj, sc.Cluster.Name)
		b, err := json.Marshal(a)
		if err != nil {
			b, _ = json.Marshal(answer{Error: "marshal: " + err.Error()})
		}
		out.Write(b)
		out.WriteString("\n")
	}
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
