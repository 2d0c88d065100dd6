package dashboard

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/engine/threshold"
)

// The period follows the test's length: at least 10 points from 5 s on (an 8 s demo gets 16, not
// the one a fixed 10 s period gave), at most AutoPoints, and MinPeriod when the length is unknown.
func TestAutoPeriod(t *testing.T) {
	tests := []struct {
		length, want time.Duration
	}{
		{0, 500 * time.Millisecond},
		{8 * time.Second, 500 * time.Millisecond},
		{2 * time.Minute, 500 * time.Millisecond},
		{5 * time.Minute, time.Second},
		{10 * time.Minute, 5 * time.Second},
		{time.Hour, 30 * time.Second},
		{24 * time.Hour, 5 * time.Minute},
		{1000 * time.Hour, time.Hour},
	}
	for _, tt := range tests {
		got := AutoPeriod(tt.length)
		if got != tt.want {
			t.Errorf("AutoPeriod(%s) = %s, want %s", tt.length, got, tt.want)
		}
		if n := tt.length / got; tt.length >= 5*time.Second && (n < 10 || (n > AutoPoints && got != time.Hour)) {
			t.Errorf("AutoPeriod(%s) = %s: %d points", tt.length, got, n)
		}
	}
	for i := 1; i < len(periods); i++ {
		if periods[i]%periods[i-1] != 0 || nextPeriod(periods[i-1]) != periods[i] {
			t.Errorf("period %s is not a multiple of %s, or does not follow it", periods[i], periods[i-1])
		}
	}
}

// An explicit period (K6_WEB_DASHBOARD_PERIOD or period=) wins over the test's length.
func TestPeriodSetting(t *testing.T) {
	tests := []struct {
		env    map[string]string
		arg    string
		length time.Duration
		want   time.Duration
		grow   bool
	}{
		{nil, "port=-1", 8 * time.Second, 500 * time.Millisecond, true},
		{nil, "port=-1", time.Hour, 30 * time.Second, true},
		{nil, "port=-1&period=10s", 8 * time.Second, 10 * time.Second, false},
		{map[string]string{"K6_WEB_DASHBOARD_PERIOD": "2s"}, "port=-1", 8 * time.Second, 2 * time.Second, false},
	}
	for _, tt := range tests {
		o, err := New(output.Params{Env: tt.env, Arg: tt.arg, Length: tt.length})
		if err != nil {
			t.Fatal(err)
		}
		if o.period != tt.want || o.grow != tt.grow || o.document(false, 0).Period != tt.want.Milliseconds() {
			t.Errorf("%v %q, length %s: period %s (grow %v), want %s (grow %v)", tt.env, tt.arg, tt.length, o.period, o.grow, tt.want, tt.grow)
		}
	}
}

// A test that outlasts AutoPoints points at its period goes on at the next period: every point
// covers one period (the old one, then the new one), calls sent ahead of the change land in the
// new periods, and the points still integrate to every call.
func TestCollectorLengthensThePeriod(t *testing.T) {
	reg := metrics.NewRegistry()
	reqs := reg.MustNewMetric(RequestsMetric, metrics.Counter, metrics.Default)
	start := time.Unix(1000, 0)
	c := newCollector(500*time.Millisecond, true, start, new(atomic.Pointer[threshold.Set]), testCharts)
	const secs = 200 // 10 calls a second: 150 s at 500 ms (300 points), then 1 s periods
	tags := metrics.NewTags(nil)
	for i := range secs * 10 {
		at := start.Add(time.Duration(i)*100*time.Millisecond + 50*time.Millisecond)
		c.add(&metrics.Sample{Metric: reqs, Time: at, Value: 1, Tags: tags})
		if i%10 == 9 {
			c.advance(at) // periods close 1.5 s (Grace) behind the calls
		}
	}
	c.flush(start.Add(secs * time.Second))
	if got := integrate(c, start); got != secs*10 {
		t.Errorf("points integrate to %v calls, want %d", got, secs*10)
	}
	var half, whole int
	prev := start.UnixMilli()
	for i, p := range c.points {
		switch d := p.Time - prev; {
		case d == 500 && whole == 0:
			half++
		case d == 1000 || (i == len(c.points)-1 && d > 1000 && d < 2000): // the last, folded
			whole++
		default:
			t.Fatalf("point %d spans %d ms after %d of 500 ms and %d of 1 s", i, d, half, whole)
		}
		if p.RequestsPS != 10 && i < len(c.points)-1 { // the last ends with the last call
			t.Errorf("point %d: %v calls/s, want 10", i, p.RequestsPS)
		}
		prev = p.Time
	}
	if half != AutoPoints || whole != secs-AutoPoints/2-1 {
		t.Errorf("%d points of 500 ms and %d of 1 s; want %d and %d", half, whole, AutoPoints, secs-AutoPoints/2-1)
	}
}
