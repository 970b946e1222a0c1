// Answers Karmada's binding controller gives to scenarios read as JSON lines from stdin:
// {"template": {...}, "binding": ResourceBinding | ClusterResourceBinding, "clusters":
// [Cluster...], "overridePolicies": [...], "clusterOverridePolicies": [...]}. The template is
// the resource template as the API server stores it (it carries the policy's claim). Prints
// one JSON line each: {"clusters": {name: {"manifest": {...}} | {"error": true}}, "error":
// "..."}: for each cluster the binding targets, the manifest of the Work ensureWork left in
// the client, or that none was made (the cluster's step failed); `error` is ensureWork's
// aggregated error, if any. A panic counts as an error of every cluster without a Work, as
// controller-runtime recovers a reconciler's panic.
//
// ensureWork runs with controller-runtime's fake client holding the clusters and override
// policies, Karmada's override manager on that client, and a resource interpreter answering
// with Karmada's default native interpreter alone (no customizations, no third-party rules).
// Feature gates stay at their defaults.
//
// gitfleet's own harness for tests/render/work_oracle_scenarios.py, which builds it inside a
// Karmada checkout (the only place its vendored packages resolve) together with
// bench/karmada_work_export.go, which exports ensureWork, and removes both afterwards; it
// calls Karmada's API and holds none of Karmada's code.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	clusterv1alpha1 "github.com/karmada-io/karmada/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/karmada/pkg/apis/policy/v1alpha1"
	workv1alpha1 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha2"
	"github.com/karmada-io/karmada/pkg/controllers/binding"
	"github.com/karmada-io/karmada/pkg/resourceinterpreter/default/native"
	"github.com/karmada-io/karmada/pkg/util/gclient"
	"github.com/karmada-io/karmada/pkg/util/names"
	"github.com/karmada-io/karmada/pkg/util/overridemanager"
)

type scenario struct {
	Template                json.RawMessage                        `json:"template"`
	Binding                 json.RawMessage                        `json:"binding"`
	Clusters                []clusterv1alpha1.Cluster              `json:"clusters"`
	OverridePolicies        []policyv1alpha1.OverridePolicy        `json:"overridePolicies"`
	ClusterOverridePolicies []policyv1alpha1.ClusterOverridePolicy `json:"clusterOverridePolicies"`
}

type outcome struct {
	Manifest json.RawMessage `json:"manifest,omitempty"`
	Error    bool            `json:"error,omitempty"`
}

type answer struct {
	Clusters map[string]outcome `json:"clusters"`
	Error    string             `json:"error,omitempty"`
}

// nativeOnly is the resource interpreter the binding controller asks, answering with the
// default native interpreter (which has every method but Start).
type nativeOnly struct {
	*native.DefaultInterpreter
}

func (nativeOnly) Start(context.Context) error { return nil }

func main() {
	interpreter := nativeOnly{native.NewDefaultInterpreter()}
	serve(func(sc *scenario) (answer, error) { return run(sc, interpreter), nil })
}

func fail(what string, err error) {
	fmt.Fprintln(os.Stderr, what, err)
	os.Exit(1)
}

// run answers one scenario.
func run(sc *scenario, interpreter nativeOnly) answer {
	template := served(sc.Template)
	bindingObj, scope, spec := decodeBinding(sc.Binding)
	objects := []client.Object{}
	for i := range sc.Clusters {
		objects = append(objects, &sc.Clusters[i])
	}
	for i := range sc.OverridePolicies {
		objects = append(objects, &sc.OverridePolicies[i])
	}
	for i := range sc.ClusterOverridePolicies {
		objects = append(objects, &sc.ClusterOverridePolicies[i])
	}
	c := fake.NewClientBuilder().WithScheme(gclient.NewSchema()).WithObjects(objects...).Build()
	manager := overridemanager.New(c, &record.FakeRecorder{})
	a := answer{Clusters: map[string]outcome{}}
	if err := ensure(c, interpreter, &unstructured.Unstructured{Object: template}, manager, bindingObj, scope); err != nil {
		a.Error = err.Error()
	}
	works := &workv1alpha1.WorkList{}
	if err := c.List(context.TODO(), works); err != nil {
		fail("list works:", err)
	}
	for _, w := range works.Items {
		name, err := names.GetClusterName(w.Namespace)
		if err != nil {
			fail("work namespace:", err)
		}
		a.Clusters[name] = outcome{Manifest: w.Spec.Workload.Manifests[0].Raw}
	}
	for _, name := range targetNames(spec) {
		if _, ok := a.Clusters[name]; !ok {
			a.Clusters[name] = outcome{Error: true}
		}
	}
	return a
}

// served is the template as the API server serves it to Karmada: stored as the JSON Go
// writes (a float holding an integer is written without a fraction: kubectl's YAML to JSON
// conversion writes 2.0 as 2) and decoded as unstructured objects are (integers as int64,
// other numbers as float64).
func served(raw json.RawMessage) map[string]any {
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.UseNumber()
	var written any
	if err := decoder.Decode(&written); err != nil {
		fail("bad template:", err)
	}
	stored, err := json.Marshal(integral(written))
	if err != nil {
		fail("bad template:", err)
	}
	var template map[string]any
	if err := utiljson.Unmarshal(stored, &template); err != nil {
		fail("bad template:", err)
	}
	return template
}

// integral writes each number of `value` as Go writes a float64 (or an int64 it fits).
func integral(value any) any {
	switch v := value.(type) {
	case map[string]any:
		for k, item := range v {
			v[k] = integral(item)
		}
	case []any:
		for i, item := range v {
			v[i] = integral(item)
		}
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, err := v.Float64()
		if err != nil {
			fail("bad number:", err)
		}
		return f
	}
	return value
}

func decodeBinding(raw json.RawMessage) (metav1.Object, apiextensionsv1.ResourceScope, workv1alpha2.ResourceBindingSpec) {
	var head metav1.TypeMeta
	if err := json.Unmarshal(raw, &head); err != nil {
		fail("bad binding:", err)
	}
	if head.Kind == "ClusterResourceBinding" {
		crb := &workv1alpha2.ClusterResourceBinding{}
		if err := json.Unmarshal(raw, crb); err != nil {
			fail("bad binding:", err)
		}
		return crb, apiextensionsv1.ClusterScoped, crb.Spec
	}
	rb := &workv1alpha2.ResourceBinding{}
	if err := json.Unmarshal(raw, rb); err != nil {
		fail("bad binding:", err)
	}
	return rb, apiextensionsv1.NamespaceScoped, rb.Spec
}

// targetNames are the clusters the binding targets: its own, then those of the bindings that
// require it.
func targetNames(spec workv1alpha2.ResourceBindingSpec) []string {
	found := []string{}
	for _, t := range spec.Clusters {
		found = append(found, t.Name)
	}
	for _, snapshot := range spec.RequiredBy {
		for _, t := range snapshot.Clusters {
			found = append(found, t.Name)
		}
	}
	return found
}

// ensure recovers a panic of ensureWork as an error, as controller-runtime recovers a
// reconciler's panic.
func ensure(c client.Client, interpreter nativeOnly, workload *unstructured.Unstructured,
	manager overridemanager.OverrideManager, bindingObj metav1.Object, scope apiextensionsv1.ResourceScope) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", strings.TrimSpace(fmt.Sprint(r)))
		}
	}()
	return binding.GitfleetEnsureWork(context.TODO(), c, interpreter, workload, manager, bindingObj, scope)
}
