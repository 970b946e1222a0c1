// Answers Karmada's scheduling algorithm gives to scenarios read as JSON lines from stdin:
// {"clusters": [Cluster...], "spec": ResourceBindingSpec}, the binding's previous result in
// spec.clusters. Prints one JSON line each: the target clusters Karmada's generic scheduler
// (core.Schedule, with the in-tree plugins) suggests, or its error; with
// spec.placement.clusterAffinities, the terms are tried in order as Karmada's scheduler tries
// them, and the term that scheduled is named.
//
// gitfleet's own harness for tests/scheduler/karmada_oracle_scenarios.py, which builds it
// inside a Karmada checkout (the only place its vendored packages resolve) and removes it
// afterwards; it calls Karmada's exported API and holds none of Karmada's code.
package main

import (
	"context"

	"k8s.io/client-go/tools/cache"

	clusterv1alpha1 "github.com/karmada-io/karmada/pkg/apis/cluster/v1alpha1"
	workv1alpha2 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha2"
	clusterlister "github.com/karmada-io/karmada/pkg/generated/listers/cluster/v1alpha1"
	schedcache "github.com/karmada-io/karmada/pkg/scheduler/cache"
	"github.com/karmada-io/karmada/pkg/scheduler/core"
	"github.com/karmada-io/karmada/pkg/scheduler/framework/plugins"
)

type scenario struct {
	Clusters []clusterv1alpha1.Cluster        `json:"clusters"`
	Spec     workv1alpha2.ResourceBindingSpec `json:"spec"`
}

type answer struct {
	Clusters []workv1alpha2.TargetCluster `json:"clusters"`
	Error    string                       `json:"error,omitempty"`
	Affinity string                       `json:"affinity,omitempty"`
}

func main() {
	serve(schedule)
}

// schedule answers one scenario with a generic scheduler of its own clusters; the scheduler
// failing to build refuses the scenario.
func schedule(sc *scenario) (answer, error) {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for i := range sc.Clusters {
		_ = indexer.Add(&sc.Clusters[i])
	}
	algo, err := core.NewGenericScheduler(
		schedcache.NewCache(clusterlister.NewClusterLister(indexer), nil, 0),
		plugins.NewInTreeRegistry(),
	)
	if err != nil {
		return answer{}, err
	}
	option := &core.ScheduleAlgorithmOption{}
	var a answer
	if sc.Spec.Placement != nil && sc.Spec.Placement.ClusterAffinities != nil {
		var firstErr error
		for idx := 0; idx < len(sc.Spec.Placement.ClusterAffinities); idx++ {
			st := workv1alpha2.ResourceBindingStatus{SchedulerObservedAffinityName: sc.Spec.Placement.ClusterAffinities[idx].AffinityName}
			spec := sc.Spec.DeepCopy()
			res, err := algo.Schedule(context.Background(), spec, &st, option)
			if err == nil {
				a.Clusters = res.SuggestedClusters
				a.Affinity = st.SchedulerObservedAffinityName
				firstErr = nil
				break
			}
			if firstErr == nil {
				firstErr = err
			}
		}
		if firstErr != nil {
			a.Error = firstErr.Error()
		}
	} else {
		st := workv1alpha2.ResourceBindingStatus{}
		spec := sc.Spec.DeepCopy()
		res, err := algo.Schedule(context.Background(), spec, &st, option)
		if err != nil {
			a.Error = err.Error()
		} else {
			a.Clusters = res.SuggestedClusters
		}
	}
	return a, nil
}
