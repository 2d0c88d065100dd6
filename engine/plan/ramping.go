package plan

import (
	"math/bits"
	"time"
)

// VUStep says that from At on, VUs VUs should be looping.
type VUStep struct {
	At  time.Duration
	VUs int64
}

// RampingVUSteps returns the number of VUs that should be starting iterations over time, before
// any graceful ramp-down. Between stage targets the global count moves one VU at a time along the
// straight line, reaching from±k at k·d/|to−from| into the stage (so the count is the line's value
// truncated towards the stage's starting value); a 0 s stage jumps at once. Each instance's
// count is its share (et.Scale) of the global count, and a step is emitted only when that share
// changes, so the instances together follow the single-instance ramp exactly. Steps at or after
// the end of the last stage are dropped: nothing starts then.
func RampingVUSteps(startVUs int64, stages []Stage, et *ExecutionTuple) []VUStep {
	steps := []VUStep{{At: 0, VUs: et.Scale(max(startVUs, 0))}}
	end := StagesDuration(stages)
	emit := func(at time.Duration, global int64) {
		if at >= end {
			return
		}
		local := et.Scale(global)
		last := &steps[len(steps)-1]
		switch {
		case last.VUs == local:
		case last.At == at:
			last.VUs = local
			if len(steps) > 1 && steps[len(steps)-2].VUs == local {
				steps = steps[:len(steps)-1]
			}
		default:
			steps = append(steps, VUStep{At: at, VUs: local})
		}
	}
	from := max(startVUs, 0)
	var offset time.Duration
	for _, s := range stages {
		to, d := max(s.Target, 0), max(s.Duration, 0)
		switch {
		case d == 0:
			emit(offset, to)
		case to != from:
			diff := to - from
			sign := int64(1)
			if diff < 0 {
				diff, sign = -diff, -1
			}
			for k := int64(1); k <= diff; k++ {
				emit(offset+mulDiv(d, k, diff), from+sign*k)
			}
		}
		from = to
		offset += d
	}
	return steps
}

// mulDiv returns d·k/n without overflowing (d, k, n ≥ 0, k ≤ n).
func mulDiv(d time.Duration, k, n int64) time.Duration {
	hi, lo := bits.Mul64(uint64(d), uint64(k))
	q, _ := bits.Div64(hi, lo, uint64(n))
	return time.Duration(q)
}

// ReserveForRampDown turns raw steps into the VUs a ramping-vus scenario holds: a VU removed by a
// ramp-down stays reserved for gracefulRampDown (it may still be finishing an iteration), and at
// the regular end the VUs still looping stay until the hard end (end + gracefulStop). So the
// reservation at t is the largest raw count within [t − gracefulRampDown, t], with the count
// just before the end carried on until the hard end. A monotonic deque keeps this linear.
func ReserveForRampDown(raw []VUStep, rampDown, end, hardEnd time.Duration) []Step {
	// Candidate times: every rise happens at a raw step; every fall at a raw step + rampDown.
	var times []time.Duration
	for _, s := range raw {
		times = append(times, s.At, s.At+rampDown)
	}
	times = append(times, end)
	sortDurations(times)

	var out []Step
	var deque []int // indexes into raw with decreasing VUs
	next := 0       // next raw step to enter the window
	// until(i) is when raw step i stops being in force.
	until := func(i int) time.Duration {
		if i+1 < len(raw) {
			return raw[i+1].At
		}
		return hardEnd
	}
	for _, t := range times {
		if t >= hardEnd {
			break
		}
		for next < len(raw) && raw[next].At <= t {
			for len(deque) > 0 && raw[deque[len(deque)-1]].VUs <= raw[next].VUs {
				deque = deque[:len(deque)-1]
			}
			deque = append(deque, next)
			next++
		}
		for len(deque) > 1 && until(deque[0]) <= t-rampDown {
			deque = deque[1:]
		}
		var v int64
		if len(deque) > 0 {
			v = raw[deque[0]].VUs
		}
		if len(out) == 0 || out[len(out)-1].PlannedVUs != v {
			if len(out) > 0 && out[len(out)-1].At == t {
				out[len(out)-1].PlannedVUs = v
			} else {
				out = append(out, Step{At: t, PlannedVUs: v})
			}
		}
	}
	return append(out, Step{At: hardEnd})
}
