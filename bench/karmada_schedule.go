// Times Karmada's generic scheduler (core.Schedule) over fleets read as JSON lines from stdin
// (the bench gives one): {"clusters": [Cluster...], "bindings": [ResourceBindingSpec...],
// "rounds": N}. Prints one JSON line each: the seconds each round took to schedule every binding
// once, from an empty status (a first schedule), and how many schedules failed in the first
// round.
//
// gitfleet's own harness for bench/bench_schedule.py, which builds it inside a Karmada
// checkout (the only place its vendored packages resolve) and removes it afterwards; it calls
// Karmada's exported API and holds none of Karmada's code.
package main

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/tools/cache"

	clusterv1alpha1 "github.com/karmada-io/karmada/pkg/apis/cluster/v1alpha1"
	workv1alpha2 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha2"
	clusterlister "github.com/karmada-io/karmada/pkg/generated/listers/cluster/v1alpha1"
	schedcache "github.com/karmada-io/karmada/pkg/scheduler/cache"
	"github.com/karmada-io/karmada/pkg/scheduler/core"
	"github.com/karmada-io/karmada/pkg/scheduler/framework/plugins"
)

type fleet struct {
	Clusters []clusterv1alpha1.Cluster          `json:"clusters"`
	Bindings []workv1alpha2.ResourceBindingSpec `json:"bindings"`
	Rounds   int                                `json:"rounds"`
}

type timings struct {
	Bindings int       `json:"bindings"`
	Failed   int       `json:"failed"`
	Rounds   []float64 `json:"rounds"`
}

func main() {
	serve(measure)
}

// measure times the rounds of one fleet.
func measure(in *fleet) (timings, error) {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for i := range in.Clusters {
		if err := indexer.Add(&in.Clusters[i]); err != nil {
			return timings{}, fmt.Errorf("adding a cluster: %w", err)
		}
	}
	scheduler, err := core.NewGenericScheduler(
		schedcache.NewCache(clusterlister.NewClusterLister(indexer), nil, 0),
		plugins.NewInTreeRegistry(),
	)
	if err != nil {
		return timings{}, fmt.Errorf("building the scheduler: %w", err)
	}
	ctx := context.Background()
	option := &core.ScheduleAlgorithmOption{}
	rounds := make([]float64, 0, in.Rounds)
	failed := -1
	for r := 0; r < max(in.Rounds, 1); r++ {
		specs := make([]workv1alpha2.ResourceBindingSpec, len(in.Bindings))
		for i := range in.Bindings {
			in.Bindings[i].DeepCopyInto(&specs[i])
		}
		failures := 0
		start := time.Now()
		for i := range specs {
			status := workv1alpha2.ResourceBindingStatus{}
			if _, err := scheduler.Schedule(ctx, &specs[i], &status, option); err != nil {
				failures++
			}
		}
		rounds = append(rounds, time.Since(start).Seconds())
		if failed < 0 {
			failed = failures
		}
	}
	return timings{Bindings: len(in.Bindings), Rounds: rounds, Failed: failed}, nil
}
