// Built into Karmada's pkg/dependenciesdistributor beside its own files, for
// bench/karmada_dependencies.go, by tests/detector/dependencies_oracle_scenarios.py
// (bench/karmada_harness.py's extras), and removed afterwards: exports what that harness asks of
// the package's unexported code. gitfleet's own code; it holds none of Karmada's.
package dependenciesdistributor

import workv1alpha2 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha2"

// GitfleetDependedOn tells whether a change of the resource template `key` wakes the requirer
// `binding` up, as the distributor's template event handler decides.
func GitfleetDependedOn(key *LabelsKey, binding *workv1alpha2.ResourceBinding) (bool, error) {
	return matchesWithBindingDependencies(key, binding)
}
