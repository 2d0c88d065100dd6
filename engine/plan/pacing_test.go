package plan

import (
	"math"
	"testing"
	"time"
)

func stages(pairs ...any) []Stage {
	var out []Stage
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, Stage{Duration: pairs[i].(time.Duration), Target: int64(pairs[i+1].(int))})
	}
	return out
}

func TestRampingScheduleStart(t *testing.T) {
	s := time.Second
	ms := time.Millisecond
	cases := []struct {
		name  string
		start int64
		unit  time.Duration
		st    []Stage
		want  []time.Duration // starts of iterations 0, 1, 2, …; then Start must say "no more"
	}{
		// A flat 10/s: area i+1 is reached at (i+1)/10 s; the 10th (at exactly 1 s) is the end.
		{"flat", 10, s, stages(s, 10), []time.Duration{100 * ms, 200 * ms, 300 * ms, 400 * ms, 500 * ms, 600 * ms, 700 * ms, 800 * ms, 900 * ms}},
		// 0→10/s over 1 s: N(t)=5t², so iteration i starts at √((i+1)/5) s.
		{"ramp up", 0, s, stages(s, 10), []time.Duration{447213595, 632455532, 774596669, 894427191}},
		// 10→0/s over 1 s: N(t)=10t−5t²; N(1)=5 so four iterations fit before the end.
		{"ramp down", 10, s, stages(s, 0), []time.Duration{105572809, 225403331, 367544468, 552786405}},
		// Rate per minute: 60/min for 3 s = 1/s.
		{"per minute", 60, time.Minute, stages(3*s, 60), []time.Duration{s, 2 * s}},
		// A 0 s stage jumps the rate: 0 until 1 s, then 4/s.
		{"jump", 0, s, stages(s, 0, 0*s, 4, s, 4), []time.Duration{1250 * ms, 1500 * ms, 1750 * ms}},
		// Two stages: 0→2/s over 1 s (area 1), then flat 2/s.
		{"two stages", 0, s, stages(s, 2, s, 2), []time.Duration{s - 1, 1500 * ms}},
		{"zero", 0, s, stages(s, 0), nil},
	}
	for _, c := range cases {
		r := NewRampingSchedule(c.start, c.unit, c.st)
		for i, want := range c.want {
			got, ok := r.Start(int64(i))
			if !ok || (got-want).Abs() > time.Microsecond {
				t.Errorf("%s: Start(%d) = %v, %v; want %v", c.name, i, got, ok, want)
			}
		}
		if got, ok := r.Start(int64(len(c.want))); ok {
			t.Errorf("%s: Start(%d) = %v, want no more iterations", c.name, len(c.want), got)
		}
	}
}

// TestRampingScheduleMatchesIntegral: the number of starts before t is ⌊N(t)⌋ for every t, and
// starts never go backwards.
func TestRampingScheduleMatchesIntegral(t *testing.T) {
	st := stages(2*time.Second, 50, 3*time.Second, 50, time.Second, 0, time.Duration(0), 30, 2*time.Second, 5)
	r := NewRampingSchedule(7, time.Second, st)
	var prev time.Duration
	n := int64(0)
	for {
		at, ok := r.Start(n)
		if !ok {
			break
		}
		if at < prev {
			t.Fatalf("start %d at %v before start %d at %v", n, at, n-1, prev)
		}
		prev = at
		n++
	}
	total := r.total()
	// 7→50 over 2s = 57, flat 150, 50→0 over 1s = 25, 30→5 over 2s = 35.
	if math.Abs(total-267) > 1e-9 {
		t.Errorf("Total = %v, want 267", total)
	}
	// The last area value (267) lands exactly at the end and is excluded.
	if n != 266 {
		t.Errorf("%d iterations scheduled, want 266", n)
	}
	if got := r.RateAt(2500 * time.Millisecond); got != 50 {
		t.Errorf("RateAt(2.5s) = %v", got)
	}
	if got := r.RateAt(7 * time.Second); got != 17.5 {
		t.Errorf("RateAt(7s) = %v", got)
	}
}

func BenchmarkRampingStart(b *testing.B) {
	r := NewRampingSchedule(0, time.Second, stages(time.Minute, 1000, time.Minute, 1000, time.Minute, 0))
	var sink time.Duration
	for i := range b.N {
		d, _ := r.Start(int64(i % 100000))
		sink += d
	}
	_ = sink
}
