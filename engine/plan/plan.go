package plan

import (
	"slices"
	"time"
)

// Step is a scenario's VU requirement from At on (until the next step). The last step of a
// scenario's plan is at its hard end with zero VUs.
type Step struct {
	At time.Duration
	// PlannedVUs are VUs the scenario needs at that time; they are initialised before the test.
	PlannedVUs int64
	// UnplannedVUs are extra VUs an arrival-rate scenario may initialise mid-test (maxVUs −
	// preAllocatedVUs).
	UnplannedVUs int64
}

// Requirements sums up the plan of all scenarios, with their start times, for the run header,
// `inspect --execution-requirements` and VU pre-allocation.
type Requirements struct {
	// Steps is the combined plan: the sum over scenarios at each moment.
	Steps []Step
	// PlannedVUs is the peak of planned VUs: how many VUs to initialise before the test starts.
	PlannedVUs int64
	// MaxVUs is the peak of planned plus unplanned VUs: the run header's "max VUs".
	MaxVUs int64
	// TotalDuration is the end of the plan including graceful stops: the header's "max duration".
	TotalDuration time.Duration
}

// Combine adds up the plans of several scenarios, each already placed on the test's time axis
// (shifted by its startTime) and ending with its hard end. Because a VU returns to the pool when
// its scenario no longer needs it, scenarios that do not overlap share VUs, so the peak is
// usually less than the sum of the scenarios' peaks.
func Combine(plans ...[]Step) Requirements {
	type tracked struct {
		Step
		sc int
	}
	var all []tracked
	var req Requirements
	for i, p := range plans {
		for _, st := range p {
			all = append(all, tracked{st, i})
		}
		if len(p) > 0 {
			req.TotalDuration = max(req.TotalDuration, p[len(p)-1].At)
		}
	}
	// Stable: a scenario's steps at the same offset keep their order (the later one wins).
	slices.SortStableFunc(all, func(a, b tracked) int {
		if a.At != b.At {
			return compareDurations(a.At, b.At)
		}
		return a.sc - b.sc
	})
	planned := make([]int64, len(plans))
	unplanned := make([]int64, len(plans))
	for i, st := range all {
		planned[st.sc], unplanned[st.sc] = st.PlannedVUs, st.UnplannedVUs
		if i+1 < len(all) && all[i+1].At == st.At {
			continue // settle every change at this instant before recording it
		}
		var p, u int64
		for j := range plans {
			p += planned[j]
			u += unplanned[j]
		}
		if n := len(req.Steps); n == 0 || req.Steps[n-1].PlannedVUs != p || req.Steps[n-1].UnplannedVUs != u {
			req.Steps = append(req.Steps, Step{At: st.At, PlannedVUs: p, UnplannedVUs: u})
		}
		req.PlannedVUs = max(req.PlannedVUs, p)
		req.MaxVUs = max(req.MaxVUs, p+u)
	}
	return req
}

// Shift returns steps moved later by d (a scenario's startTime).
func Shift(steps []Step, d time.Duration) []Step {
	out := make([]Step, len(steps))
	for i, st := range steps {
		st.At += d
		out[i] = st
	}
	return out
}

func compareDurations(a, b time.Duration) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func sortDurations(d []time.Duration) { slices.Sort(d) }
