// Times Karmada's generic scheduler (core.Schedule) over a fleet read as JSON from stdin:
// {"clusters": [Cluster...], "bindings": [ResourceBindingSpec...], "rounds": N}.
// Prints one JSON line: the seconds each round took to schedule every binding once, from an
// empty status (a first schedule), and how many schedules failed in the first round.
//
// gitfleet's own harness for bench/bench_schedule.py, which builds it inside a Karmada
// checkout (the only place its vendored packages resolve) and removes it afterwards; it calls
// Karmada's exported API and holds none of Karmada's code.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
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

func main() {
	var in fleet
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fmt.Fprintln(os.Stderr, "reading the fleet:", err)
		os.Exit(1)
	}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for i := range in.Clusters {
		if err := indexer.Add(&in.Clusters[i]); err != nil {
			fmt.Fprintln(os.Stderr, "adding a cluster:", err)
			os.Exit(1)
		}
	}
	scheduler, err := core.NewGenericScheduler(
		schedcache.NewCache(clusterlister.NewClusterLister(indexer), nil, 0),
		plugins.NewInTreeRegistry(),
	)
	if err != nil {
		fmt.Fprintln(os.Stderr, "building the scheduler:", err)
		os.Exit(1)
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
	out, _ := json.Marshal(map[string]any{"bindings": len(in.Bindings), "rounds": rounds, "failed": failed})
	fmt.Println(string(out))
}
