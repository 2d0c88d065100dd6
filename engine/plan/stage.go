package plan

import "time"

// Stage is one step of a ramp: reach Target (VUs, or iterations per timeUnit) linearly over
// Duration. Negative values count as 0.
type Stage struct {
	Duration time.Duration
	Target   int64
}

// StagesDuration is the sum of the stages' durations.
func StagesDuration(stages []Stage) time.Duration {
	var d time.Duration
	for _, s := range stages {
		d += max(s.Duration, 0)
	}
	return d
}
