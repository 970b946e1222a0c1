// Answers Karmada's Lua resource interpreter (declarative.ConfigurableInterpreter, with
// customizations loaded as karmadactl interpret loads them) gives to scenarios read as JSON
// lines from stdin: {"operation": InterpretReplica | InterpretComponent | ReviseReplica |
// Retain | AggregateStatus | InterpretHealth | InterpretStatus | InterpretDependency,
// "customizations": [ResourceInterpreterCustomization...], "object": {...}, "observed":
// {...}, "items": [AggregatedStatusItem...] or null, "replicas": n}. Prints one JSON line each,
// keyed as Karmada's interpreter test data (`replica` and `requires`, `components`, `revised`,
// `retained`, `aggregatedStatus`, `healthy`, `status`, `dependencies`), or {"error": true,
// "message": ...} when the operation fails or no customization handles it; a panic counts as an
// error.
//
// gitfleet's own harness for tests/interpreter/lua/lua_oracle_scenarios.py, which builds it
// inside a Karmada checkout (the only place its vendored packages resolve) and removes it
// afterwards; it calls Karmada's exported API and holds none of Karmada's code.
package main

import (
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	configv1alpha1 "github.com/karmada-io/karmada/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha2"
	"github.com/karmada-io/karmada/pkg/resourceinterpreter/customized/declarative"
)

type scenario struct {
	Operation      string                                             `json:"operation"`
	Customizations []*configv1alpha1.ResourceInterpreterCustomization `json:"customizations"`
	Object         map[string]any                                     `json:"object"`
	Observed       map[string]any                                     `json:"observed"`
	Items          []workv1alpha2.AggregatedStatusItem                `json:"items"`
	Replicas       int64                                              `json:"replicas"`
}

func main() {
	serve(func(sc *scenario) (map[string]any, error) { return run(sc), nil })
}

// failed is an error answer; the message is there for reading, not for comparing.
func failed(message string) map[string]any {
	return map[string]any{"error": true, "message": message}
}

// run answers one scenario with a fresh interpreter, recovering a panic as an error.
func run(sc *scenario) (answer map[string]any) {
	defer func() {
		if r := recover(); r != nil {
			answer = failed(fmt.Sprintf("panic: %v", r))
		}
	}()
	ipt := declarative.NewConfigurableInterpreter(nil)
	ipt.LoadConfig(sc.Customizations)
	obj := &unstructured.Unstructured{Object: sc.Object}
	var enabled bool
	var err error
	answer = map[string]any{}
	switch sc.Operation {
	case "InterpretReplica":
		var replica int32
		var requires *workv1alpha2.ReplicaRequirements
		replica, requires, enabled, err = ipt.GetReplicas(obj)
		answer["replica"], answer["requires"] = replica, requires
	case "InterpretComponent":
		var components []workv1alpha2.Component
		components, enabled, err = ipt.GetComponents(obj)
		answer["components"] = components
	case "ReviseReplica":
		var revised *unstructured.Unstructured
		revised, enabled, err = ipt.ReviseReplica(obj, sc.Replicas)
		if err == nil && enabled {
			answer["revised"] = revised.Object
		}
	case "Retain":
		var retained *unstructured.Unstructured
		observed := &unstructured.Unstructured{Object: sc.Observed}
		retained, enabled, err = ipt.Retain(obj, observed)
		if err == nil && enabled {
			answer["retained"] = retained.Object
		}
	case "AggregateStatus":
		var aggregated *unstructured.Unstructured
		aggregated, enabled, err = ipt.AggregateStatus(obj, sc.Items)
		if err == nil && enabled {
			answer["aggregatedStatus"] = aggregated.Object
		}
	case "InterpretHealth":
		answer["healthy"], enabled, err = ipt.InterpretHealth(obj)
	case "InterpretStatus":
		status, on, e := ipt.ReflectStatus(obj)
		enabled, err = on, e
		if err == nil && enabled {
			answer["status"] = status
		}
	case "InterpretDependency":
		answer["dependencies"], enabled, err = ipt.GetDependencies(obj)
	default:
		fmt.Fprintln(os.Stderr, "unknown operation:", sc.Operation)
		os.Exit(1)
	}
	if err != nil {
		return failed(err.Error())
	}
	if !enabled {
		return failed("no customization handles " + sc.Operation)
	}
	return answer
}
