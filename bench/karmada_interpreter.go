// Answers Karmada's default native resource interpreter gives to scenarios read as JSON lines
// from stdin: {"operation": ..., "object": {...}} plus what the operation needs besides the
// object: "desiredReplica" (ReviseReplica), "observed" (Retain: the member's object),
// "items" (AggregateStatus: one AggregatedStatusItem per member cluster). Operations:
// GetReplicas, ReviseReplica, Retain, AggregateStatus, ReflectStatus, InterpretHealth,
// GetDependencies. Prints one JSON line each:
//
//	{"enabled": false}                      the interpreter has no rule for the kind
//	{"error": true, "message": "..."}       the rule failed (or panicked)
//	{"replicas": n, "requirements": {...}}  GetReplicas
//	{"object": {...}}                       ReviseReplica, Retain, AggregateStatus
//	{"status": {...} | null}                ReflectStatus
//	{"healthy": bool}                       InterpretHealth
//	{"dependencies": [...]}                 GetDependencies
//
// Objects are read as the API server's JSON decoder gives them to Karmada (integral numbers
// as int64, others as float64); a status item's status is kept as raw JSON, as Karmada keeps
// it. Feature gates stay at their defaults.
//
// gitfleet's own harness for tests/interpreter/interpreter_oracle_scenarios.py, which builds it
// inside a Karmada checkout (the only place its vendored packages resolve) and removes it
// afterwards; it calls Karmada's exported API and holds none of Karmada's code.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	configv1alpha1 "github.com/karmada-io/karmada/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha2"
	"github.com/karmada-io/karmada/pkg/resourceinterpreter/default/native"
)

type scenario struct {
	Operation      string                              `json:"operation"`
	Object         json.RawMessage                     `json:"object"`
	Observed       json.RawMessage                     `json:"observed"`
	DesiredReplica int64                               `json:"desiredReplica"`
	Items          []workv1alpha2.AggregatedStatusItem `json:"items"`
}

var operations = map[string]configv1alpha1.InterpreterOperation{
	"GetReplicas":     configv1alpha1.InterpreterOperationInterpretReplica,
	"ReviseReplica":   configv1alpha1.InterpreterOperationReviseReplica,
	"Retain":          configv1alpha1.InterpreterOperationRetain,
	"AggregateStatus": configv1alpha1.InterpreterOperationAggregateStatus,
	"ReflectStatus":   configv1alpha1.InterpreterOperationInterpretStatus,
	"InterpretHealth": configv1alpha1.InterpreterOperationInterpretHealth,
	"GetDependencies": configv1alpha1.InterpreterOperationInterpretDependency,
}

func main() {
	interpreter := native.NewDefaultInterpreter()
	serve(func(sc *scenario) (map[string]any, error) { return interpret(interpreter, sc), nil })
}

// object reads a document as the API server's decoder hands it to Karmada.
func object(raw json.RawMessage) *unstructured.Unstructured {
	var doc map[string]any
	if len(raw) > 0 {
		if err := utiljson.Unmarshal(raw, &doc); err != nil {
			fmt.Fprintln(os.Stderr, "bad object:", err)
			os.Exit(1)
		}
	}
	if doc == nil {
		doc = map[string]any{}
	}
	return &unstructured.Unstructured{Object: doc}
}

func failed(err error) map[string]any {
	return map[string]any{"error": true, "message": err.Error()}
}

// interpret runs one operation; a panic counts as an error, as the controllers calling the
// interpreter recover it.
func interpret(interpreter *native.DefaultInterpreter, sc *scenario) (a map[string]any) {
	defer func() {
		if r := recover(); r != nil {
			a = map[string]any{"error": true, "message": fmt.Sprintf("panic: %v", r)}
		}
	}()
	obj := object(sc.Object)
	operation, known := operations[sc.Operation]
	if !known {
		fmt.Fprintln(os.Stderr, "unknown operation:", sc.Operation)
		os.Exit(1)
	}
	if !interpreter.HookEnabled(obj.GroupVersionKind(), operation) {
		return map[string]any{"enabled": false}
	}
	switch sc.Operation {
	case "GetReplicas":
		replicas, requirements, err := interpreter.GetReplicas(obj)
		if err != nil {
			return failed(err)
		}
		return map[string]any{"replicas": replicas, "requirements": requirements}
	case "ReviseReplica":
		revised, err := interpreter.ReviseReplica(obj, sc.DesiredReplica)
		if err != nil {
			return failed(err)
		}
		return map[string]any{"object": revised.Object}
	case "Retain":
		retained, err := interpreter.Retain(obj, object(sc.Observed))
		if err != nil {
			return failed(err)
		}
		return map[string]any{"object": retained.Object}
	case "AggregateStatus":
		aggregated, err := interpreter.AggregateStatus(obj, sc.Items)
		if err != nil {
			return failed(err)
		}
		return map[string]any{"object": aggregated.Object}
	case "ReflectStatus":
		status, err := interpreter.ReflectStatus(obj)
		if err != nil {
			return failed(err)
		}
		if status == nil {
			return map[string]any{"status": nil}
		}
		return map[string]any{"status": json.RawMessage(status.Raw)}
	case "InterpretHealth":
		healthy, err := interpreter.InterpretHealth(obj)
		if err != nil {
			return failed(err)
		}
		return map[string]any{"healthy": healthy}
	default:
		dependencies, err := interpreter.GetDependencies(obj)
		if err != nil {
			return failed(err)
		}
		if dependencies == nil {
			dependencies = []configv1alpha1.DependentObjectReference{}
		}
		return map[string]any{"dependencies": dependencies}
	}
}
