package dashboard

import (
	"math"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
)

// totals are the whole test's numbers the header and the histogram show. The latency sinks are
// the summary's own kind, so the header's p99 is the summary's.
type totals struct {
	reqs, iters       float64
	latency, iterDur  *metrics.TrendSink
	latHist, iterHist histogram
	vusMax            float64
	hasVUs            bool
}

func newTotals() totals {
	return totals{latency: metrics.NewTrendSink(metrics.Time), iterDur: metrics.NewTrendSink(metrics.Time)}
}

func (t *totals) add(s *metrics.Sample, charts output.Charts) {
	switch s.Metric.Name {
	case charts.Latency:
		t.latency.Add(*s)
		t.latHist.add(s.Value)
	case charts.Requests:
		t.reqs += s.Value
	case "iterations":
		t.iters += s.Value
	case "iteration_duration":
		t.iterDur.Add(*s)
		t.iterHist.add(s.Value)
	case "vus":
		t.vusMax, t.hasVUs = max(t.vusMax, s.Value), true
	}
}

// Totals is the whole test so far: what the header shows, and the latency histogram.
type Totals struct {
	Count  float64  `json:"n"`    // echo calls (or iterations)
	Secs   float64  `json:"secs"` // since the start
	Rate   float64  `json:"rate"` // Count / Secs
	P99    *float64 `json:"p99"`  // ms
	VUsMax *float64 `json:"vusMax"`
	Hist   []Bin    `json:"hist"`
}

// wholeTest is the test so far at now. The rate is over the time since the output started (or
// until the last call, once the test ended), unless the front end gives the test's duration
// (run > 0), the one its summary's rates are over: then the report's header shows the summary's
// figure.
func (c *collector) wholeTest(now time.Time, run time.Duration) Totals {
	if !c.end.IsZero() {
		now = c.end
	}
	n, lat, h := c.totals.reqs, c.totals.latency, &c.totals.latHist
	if !c.calls {
		n, lat, h = c.totals.iters, c.totals.iterDur, &c.totals.iterHist
	}
	t := Totals{Count: n, Secs: now.Sub(c.start).Seconds(), Hist: h.bins()}
	if run > 0 {
		t.Secs = run.Seconds()
	}
	if t.Secs > 0 {
		t.Rate = n / t.Secs
	}
	if lat.Count() > 0 {
		t.P99 = ptr(lat.Percentile(99))
	}
	if c.totals.hasVUs {
		t.VUsMax = ptr(c.totals.vusMax)
	}
	return t
}

// histogram counts time values (ms) in logarithmic bins, BinsPerDecade to a factor of ten, from
// 1 µs; smaller values go to the first bin. A few hundred int64 at most, whatever the test's length.
type histogram struct{ n []int64 }

// BinsPerDecade sets the histogram's resolution: bins about 12% wide.
const BinsPerDecade = 20

const histFloor = 1e-3 // ms

func (h *histogram) add(v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	i := 0
	if v > histFloor {
		i = int(math.Floor(BinsPerDecade * math.Log10(v/histFloor)))
	}
	if i >= len(h.n) {
		h.n = append(h.n, make([]int64, i+1-len(h.n))...)
	}
	h.n[i]++
}

// Bin is one bar of the latency histogram: Count values in [Lo, Hi) ms.
type Bin struct {
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	Count int64   `json:"n"`
}

func binEdge(i int) float64 { return histFloor * math.Pow(10, float64(i)/BinsPerDecade) }

// bins returns the bins from the first to the last that holds a value.
func (h *histogram) bins() []Bin {
	first := 0
	for first < len(h.n) && h.n[first] == 0 {
		first++
	}
	out := []Bin{}
	for i := first; i < len(h.n); i++ {
		out = append(out, Bin{Lo: binEdge(i), Hi: binEdge(i + 1), Count: h.n[i]})
	}
	return out
}
