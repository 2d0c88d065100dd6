package dashboard

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/threshold"
)

func TestConfig(t *testing.T) {
	c, err := NewConfig(map[string]string{"K6_WEB_DASHBOARD_PORT": "7000", "K6_WEB_DASHBOARD_REPORT": "a.html"}, "period=2s&export=b.html&host=0.0.0.0")
	if err != nil || c.Port != 7000 || c.Export != "b.html" || c.Period != 2*time.Second || c.Host != "0.0.0.0" {
		t.Fatalf("%+v %v", c, err)
	}
	for _, arg := range []string{"port=x", "period=0", "colour=red"} {
		if _, err := NewConfig(nil, arg); err == nil || !strings.Contains(err.Error(), "=") {
			t.Errorf("%s: %v", arg, err)
		}
	}
}

// Samples land in the period of their own time, also when they arrive late, and the points'
// rates integrate back to the number of calls.
func TestCollectorPeriods(t *testing.T) {
	reg := metrics.NewRegistry()
	reqs := reg.MustNewMetric(RequestsMetric, metrics.Counter, metrics.Default)
	start := time.Unix(1000, 0)
	c := newCollector(time.Second, start, new(atomic.Pointer[threshold.Set]))
	tags := metrics.NewTags(map[string]string{ResultTag: "SUCCESS"})
	for i := range 30 { // 10 calls per second for 3 s, delivered out of order
		at := start.Add(time.Duration((i*7)%30) * 100 * time.Millisecond)
		c.add(&metrics.Sample{Metric: reqs, Time: at, Value: 1, Tags: tags})
	}
	if c.advance(start.Add(2 * time.Second)) { // within the grace of the first period
		t.Fatal("closed a period before its grace ended")
	}
	c.flush(start.Add(3 * time.Second))
	if len(c.points) != 3 {
		t.Fatalf("points %+v", c.points)
	}
	total := 0.0
	for _, p := range c.points {
		if p.RequestsPS != 10 || p.ResultsPS["SUCCESS"] != 10 {
			t.Errorf("point %+v, want 10 calls/s", p)
		}
		total += p.RequestsPS
	}
	if total != 30 {
		t.Errorf("total %v", total)
	}
}
