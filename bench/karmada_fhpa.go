// Answers Karmada's FederatedHPA replica calculator gives to scenarios read as JSON lines from
// stdin: the pods of a target across its member clusters (phase, deletion, Ready condition,
// start time, containers' requests, the metrics API's usage, sample time and window), a
// Resource metric's target (averageUtilization, or averageValue in thousandths), the template's
// replicas and the calibration (the members' summed replicas over the template's). Times are
// seconds from the moment the harness reads the scenario. Prints one JSON line each:
// {"replicas", "utilization", "average"} (utilization absent for averageValue targets), or
// {"error": true} when Karmada computes no proposal.
//
// The answer is that of Karmada's own ReplicaCalculator (GetResourceReplicas,
// GetRawResourceReplicas) with the controller manager's default tolerance, cpu initialization
// period and initial readiness delay; only the metrics API is stood in for, by a client that
// returns the scenario's usage.
//
// gitfleet's own harness for tests/autoscaling/fhpa_oracle_scenarios.py, which builds it
// inside a Karmada checkout (the only place its vendored packages resolve) and removes it
// afterwards; it calls Karmada's API and holds none of Karmada's code.
package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/karmada-io/karmada/pkg/controllers/federatedhpa"
	metricsclient "github.com/karmada-io/karmada/pkg/controllers/federatedhpa/metrics"
)

type pod struct {
	Name         string   `json:"name"`
	Phase        string   `json:"phase"`
	Deleting     bool     `json:"deleting"`
	Ready        *bool    `json:"ready"`
	ReadyChanged *int64   `json:"readyChanged"`
	Started      *int64   `json:"started"`
	Requests     []*int64 `json:"requests"`
	Usage        *int64   `json:"usage"`
	Measured     int64    `json:"measured"`
	Window       int64    `json:"window"`
}

type scenario struct {
	Resource     string  `json:"resource"`
	Utilization  *int32  `json:"utilization"`
	AverageValue int64   `json:"averageValue"`
	Current      int32   `json:"current"`
	Calibration  float64 `json:"calibration"`
	Pods         []pod   `json:"pods"`
}

type answer struct {
	Replicas    *int32 `json:"replicas,omitempty"`
	Utilization *int32 `json:"utilization,omitempty"`
	Average     *int64 `json:"average,omitempty"`
	Error       bool   `json:"error,omitempty"`
}

// usage stands in for the metrics API: it returns the scenario's samples, and no metrics at
// all as the resource metrics client reports them.
type usage struct{ metrics metricsclient.PodMetricsInfo }

func (u usage) GetResourceMetric(context.Context, corev1.ResourceName, string, labels.Selector, string) (metricsclient.PodMetricsInfo, time.Time, error) {
	if len(u.metrics) == 0 {
		return nil, time.Time{}, errors.New("no metrics returned from resource metrics API")
	}
	return u.metrics, time.Time{}, nil
}

func (usage) GetRawMetric(string, string, labels.Selector, labels.Selector) (metricsclient.PodMetricsInfo, time.Time, error) {
	return nil, time.Time{}, errors.New("not asked")
}

func (usage) GetObjectMetric(string, string, *autoscalingv2.CrossVersionObjectReference, labels.Selector) (int64, time.Time, error) {
	return 0, time.Time{}, errors.New("not asked")
}

func (usage) GetExternalMetric(string, string, labels.Selector) ([]int64, time.Time, error) {
	return nil, time.Time{}, errors.New("not asked")
}

func at(now time.Time, offset int64) time.Time { return now.Add(time.Duration(offset) * time.Second) }

func build(now time.Time, resourceName corev1.ResourceName, p pod) *corev1.Pod {
	built := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: "default"}}
	built.Status.Phase = corev1.PodPhase(p.Phase)
	if p.Deleting {
		deleted := metav1.NewTime(now)
		built.DeletionTimestamp = &deleted
	}
	if p.Started != nil {
		started := metav1.NewTime(at(now, *p.Started))
		built.Status.StartTime = &started
	}
	if p.Ready != nil {
		condition := corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionFalse}
		if *p.Ready {
			condition.Status = corev1.ConditionTrue
		}
		if p.ReadyChanged != nil {
			condition.LastTransitionTime = metav1.NewTime(at(now, *p.ReadyChanged))
		}
		built.Status.Conditions = []corev1.PodCondition{condition}
	}
	for i, request := range p.Requests {
		container := corev1.Container{Name: fmt.Sprintf("c%d", i)}
		if request != nil {
			container.Resources.Requests = corev1.ResourceList{resourceName: *resource.NewMilliQuantity(*request, resource.DecimalSI)}
		}
		built.Spec.Containers = append(built.Spec.Containers, container)
	}
	return built
}

func run(sc *scenario) answer {
	now := time.Now()
	name := corev1.ResourceName(sc.Resource)
	metrics := metricsclient.PodMetricsInfo{}
	var pods []*corev1.Pod
	for _, p := range sc.Pods {
		pods = append(pods, build(now, name, p))
		if p.Usage != nil {
			metrics[p.Name] = metricsclient.PodMetric{Timestamp: at(now, p.Measured), Window: time.Duration(p.Window) * time.Second, Value: *p.Usage}
		}
	}
	calc := federatedhpa.NewReplicaCalculator(usage{metrics}, 0.1, 5*time.Minute, 30*time.Second)
	ctx := context.Background()
	if sc.Utilization != nil {
		replicas, utilization, average, _, err := calc.GetResourceReplicas(ctx, sc.Current, *sc.Utilization, name, "default", labels.Everything(), "", pods, sc.Calibration)
		if err != nil {
			return answer{Error: true}
		}
		return answer{Replicas: &replicas, Utilization: &utilization, Average: &average}
	}
	replicas, average, _, err := calc.GetRawResourceReplicas(ctx, sc.Current, sc.AverageValue, name, "default", labels.Everything(), "", pods, sc.Calibration)
	if err != nil {
		return answer{Error: true}
	}
	return answer{Replicas: &replicas, Average: &average}
}

func main() {
	serve(func(sc *scenario) (answer, error) { return run(sc), nil })
}
