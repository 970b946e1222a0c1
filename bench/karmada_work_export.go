// Built into Karmada's pkg/controllers/binding beside its own files, for bench/karmada_work.go,
// by tests/render/work_oracle_scenarios.py (bench/karmada_harness.py's extras), and removed
// afterwards: exports the binding controller's unexported ensureWork. gitfleet's own code; it
// holds none of Karmada's.
package binding

import (
	"context"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/karmada-io/karmada/pkg/resourceinterpreter"
	"github.com/karmada-io/karmada/pkg/util/overridemanager"
)

// GitfleetEnsureWork makes (or updates) one Work per target cluster of `binding` from
// `workload`, as the binding controllers do when they sync a binding.
func GitfleetEnsureWork(
	ctx context.Context, c client.Client, interpreter resourceinterpreter.ResourceInterpreter,
	workload *unstructured.Unstructured, overrides overridemanager.OverrideManager,
	binding metav1.Object, scope apiextensionsv1.ResourceScope,
) error {
	return ensureWork(ctx, c, interpreter, workload, overrides, binding, scope)
}
