package freon

import (
	"math"
	"testing"
	"time"
)

// The alphas must be bit-identical to the JVM's: these bit patterns were printed by Java
// (Double.doubleToLongBits(1 - Math.exp(-5 / 60.0 / m))).
func TestEWMAAlphaMatchesJava(t *testing.T) {
	for m, want := range map[int]uint64{1: 4590425827774870040, 5: 4580421250490660064, 15: 4573037382527628032} {
		if got := math.Float64bits(newEWMA(m).alpha); got != want {
			t.Errorf("alpha(%d) bits = %d, want %d", m, got, want)
		}
	}
}

func TestEWMAHandComputed(t *testing.T) {
	e := newEWMA(1)
	if e.currentRate() != 0 {
		t.Fatal("rate before any tick must be 0")
	}
	e.tick(60) // the first tick sets the rate: 60 events / 5 s
	if e.currentRate() != 12 {
		t.Fatalf("first tick rate = %v, want 12", e.currentRate())
	}
	e.tick(0) // decays by exp(-5/60)
	if want := 12 * math.Exp(-1.0/12); math.Abs(e.currentRate()-want) > 1e-12 {
		t.Errorf("after an idle tick rate = %v, want %v", e.currentRate(), want)
	}
}

func TestMeterRates(t *testing.T) {
	perTick := []int64{4, 5, 3} // completions in [0,5s), [5s,10s), [10s,15s)
	tests := []struct {
		name        string
		elapsed     time.Duration
		m1, m5, m15 float64
	}{
		{"shorter than a tick", 4 * time.Second, 0, 0, 0},
		{"exactly one tick is not yet due", 5 * time.Second, 0, 0, 0},
		{"one tick", 6 * time.Second, 0.8, 0.8, 0.8},
		// rate = 0.8 + alpha·(1.0 − 0.8); hand-computed with alpha = 1 − exp(−5/60/m).
		{"two ticks, third interval not counted", 12 * time.Second, 0.8159911170741354, 0.8033057092356766, 0.8011080303990207},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := meterRates(perTick, 12, tt.elapsed)
			for i, p := range [][2]float64{{r.OneMinute, tt.m1}, {r.FiveMinute, tt.m5}, {r.FifteenMinute, tt.m15}} {
				if math.Abs(p[0]-p[1]) > 1e-12 {
					t.Errorf("rate %d = %v, want %v", i, p[0], p[1])
				}
			}
			if want := 12 / tt.elapsed.Seconds(); math.Abs(r.Mean-want) > 1e-9 {
				t.Errorf("mean = %v, want %v", r.Mean, want)
			}
		})
	}
	if r := meterRates(nil, 0, time.Minute); r != (rateSet{}) {
		t.Errorf("no events: %+v", r)
	}
}
