package scenario

import "github.com/dnecho/dnecho/engine/plan"

// Requirements combines the plans of scs, each shifted by its startTime, into the VUs to
// initialise before the test, the run header's max VUs and max duration. et may be nil.
func Requirements(scs []Config, et *plan.ExecutionTuple) plan.Requirements {
	plans := make([][]plan.Step, len(scs))
	for i, c := range scs {
		plans[i] = plan.Shift(c.Plan(et), c.Base().StartOffset())
	}
	return plan.Combine(plans...)
}
