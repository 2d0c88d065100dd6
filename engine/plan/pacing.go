package plan

import (
	"math"
	"sort"
	"time"

	"github.com/dnecho/dnecho/internal/pacing"
)

// never is returned as the start of an iteration that can never start (pacing.Never).
const never = pacing.Never

// RampingSchedule is the piecewise-linear arrival rate of a ramping-arrival-rate scenario. The
// number of iterations due by time t is the integral N(t) of the rate; iteration i (0-based)
// starts when N reaches i+1, so with startRate 0 nothing starts at t=0 (k6 behaviour) and the
// first iteration waits until one whole iteration has accumulated.
type RampingSchedule struct {
	segs []rampSeg
	end  float64 // seconds
}

// rampSeg is one stage in seconds and iterations per second, with the area before it.
type rampSeg struct {
	start, dur float64
	from, to   float64
	areaBefore float64
}

// NewRampingSchedule builds the schedule: the rate starts at startRate and moves linearly to
// each stage's target over its duration; rates are iterations per timeUnit. Stages with an
// unset or negative duration count as 0 s.
func NewRampingSchedule(startRate int64, timeUnit time.Duration, stages []Stage) *RampingSchedule {
	perSec := 0.0
	if timeUnit > 0 {
		perSec = float64(time.Second) / float64(timeUnit)
	}
	r := &RampingSchedule{}
	from := float64(max(startRate, 0)) * perSec
	var t, area float64
	for _, s := range stages {
		to := float64(max(s.Target, 0)) * perSec
		dur := max(s.Duration, 0).Seconds()
		r.segs = append(r.segs, rampSeg{start: t, dur: dur, from: from, to: to, areaBefore: area})
		area += (from + to) / 2 * dur
		t += dur
		from = to
	}
	r.end = t
	return r
}

// total is how many iterations the whole schedule holds (its integral), possibly fractional.
func (r *RampingSchedule) total() float64 {
	if len(r.segs) == 0 {
		return 0
	}
	last := r.segs[len(r.segs)-1]
	return last.areaBefore + (last.from+last.to)/2*last.dur
}

// Start is when global iteration i (0-based) starts, relative to the scenario's start; ok is
// false when that iteration falls at or after the schedule's end. It inverts N(t) in closed form:
// within a stage with rates r0→r1 over d, reaching area a takes τ = 2a / (r0 + √(r0² + 2(r1−r0)a/d)),
// a form that stays accurate whether the rate rises, falls or starts at 0.
func (r *RampingSchedule) Start(i int64) (time.Duration, bool) {
	if i < 0 {
		return never, false
	}
	want := float64(i) + 1
	// The first stage whose end area reaches want; zero-area stages are skipped naturally.
	k := sort.Search(len(r.segs), func(k int) bool {
		s := r.segs[k]
		return s.areaBefore+(s.from+s.to)/2*s.dur >= want
	})
	if k == len(r.segs) {
		return never, false
	}
	s := r.segs[k]
	a := want - s.areaBefore
	disc := s.from*s.from + 2*(s.to-s.from)*a/s.dur
	den := s.from + math.Sqrt(max(disc, 0))
	if den <= 0 {
		return never, false
	}
	t := s.start + 2*a/den
	if t >= r.end {
		return never, false
	}
	return time.Duration(math.Round(t * float64(time.Second))), true
}

// RateAt is the rate at offset t, in iterations per second (0 outside the schedule).
func (r *RampingSchedule) RateAt(t time.Duration) float64 {
	sec := t.Seconds()
	for _, s := range r.segs {
		if sec < s.start+s.dur {
			return s.from + (s.to-s.from)*(sec-s.start)/s.dur
		}
	}
	return 0
}
