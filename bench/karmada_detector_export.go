// Built into Karmada's pkg/detector beside its own files, for bench/karmada_detector.go, by
// tests/detector/detector_oracle_scenarios.py (bench/karmada_harness.py's extras), and removed
// afterwards: exports what that harness asks of the package's unexported code. gitfleet's own
// code; it holds none of Karmada's.
package detector

import policyv1alpha1 "github.com/karmada-io/karmada/pkg/apis/policy/v1alpha1"

// GitfleetPreemptionEnabled tells whether a policy's preemption takes effect, at the feature
// gates the harness runs with.
func GitfleetPreemptionEnabled(preemption policyv1alpha1.PreemptionBehavior) bool {
	return preemptionEnabled(preemption)
}
