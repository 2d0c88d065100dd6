package dashboard

import (
	"math"
	"sort"
	"sync/atomic"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/threshold"
)

// The metrics and tags the charts read. They are the k6/x/dnecho module's (xdnecho/metrics.go);
// a script without that module gets its iterations and iteration_duration instead.
const (
	LatencyMetric  = "dnecho_req_duration"
	RequestsMetric = "dnecho_reqs"
	BreakdownTag   = "datanode"
	ResultTag      = "result"
)

// collector folds samples into one point per period, by sample time. A period closes once it
// ended more than Grace ago (the VUs' buffers and the fold delay hold samples back), so late
// samples still land in their own period; a sample for a period already closed goes to the
// oldest open one. It is owned by the output's fold goroutine.
type collector struct {
	period time.Duration
	start  time.Time
	ths    *atomic.Pointer[threshold.Set] // the Output's; nil until known (the aggregator learns them late)
	dnecho bool                           // a dnecho metric was seen: chart echo calls, not iterations

	open     map[int64]*window // by period index since start
	next     int64             // index of the oldest period not yet closed
	points   []Point
	lastTime int64 // end of the last closed period, Unix ms
}

// Grace is how long after its end a period stays open for late samples.
const Grace = 1500 * time.Millisecond

// window is one period being filled.
type window struct {
	end     time.Time
	reqs    float64
	iters   float64
	latency *metrics.TrendSink
	iterDur *metrics.TrendSink
	perTag  map[string]*metrics.TrendSink
	results map[string]float64
	vus     float64
	hasVUs  bool
}

// Point is one period of the charts. Per-second values are over the period.
type Point struct {
	Time         int64              `json:"t"` // end of the period, Unix ms
	RequestsPS   float64            `json:"rps"`
	P50          *float64           `json:"p50"`
	P90          *float64           `json:"p90"`
	P95          *float64           `json:"p95"`
	P99          *float64           `json:"p99"`
	Max          *float64           `json:"max"`
	PerTagP99    map[string]float64 `json:"dn"`
	ResultsPS    map[string]float64 `json:"res"`
	VUs          *float64           `json:"vus"`
	FailingCount int                `json:"thf"`
}

func newCollector(period time.Duration, start time.Time, ths *atomic.Pointer[threshold.Set]) *collector {
	return &collector{period: period, start: start, ths: ths, open: map[int64]*window{}, lastTime: start.UnixMilli()}
}

func (c *collector) window(t time.Time) *window {
	k := max(int64(t.Sub(c.start)/c.period), c.next)
	w := c.open[k]
	if w == nil {
		w = &window{end: c.start.Add(time.Duration(k+1) * c.period), latency: metrics.NewTrendSink(metrics.Time),
			iterDur: metrics.NewTrendSink(metrics.Time), perTag: map[string]*metrics.TrendSink{}, results: map[string]float64{}}
		c.open[k] = w
	}
	return w
}

// add folds one sample into its period.
func (c *collector) add(s *metrics.Sample) {
	w := c.window(s.Time)
	switch s.Metric.Name {
	case LatencyMetric:
		c.dnecho = true
		w.latency.Add(*s)
		if dn, ok := s.Tags.Get(BreakdownTag); ok {
			sink := w.perTag[dn]
			if sink == nil {
				sink = metrics.NewTrendSink(metrics.Time)
				w.perTag[dn] = sink
			}
			sink.Add(*s)
		}
	case RequestsMetric:
		c.dnecho = true
		w.reqs += s.Value
		r, _ := s.Tags.Get(ResultTag)
		w.results[r] += s.Value
	case "iterations":
		w.iters += s.Value
	case "iteration_duration":
		w.iterDur.Add(*s)
	case "vus":
		w.vus, w.hasVUs = s.Value, true
	}
}

// advance closes, in order, every period that ended before now - Grace; it reports whether any
// closed.
func (c *collector) advance(now time.Time) bool {
	closed := false
	for {
		end := c.start.Add(time.Duration(c.next+1) * c.period)
		if end.After(now.Add(-Grace)) {
			return closed
		}
		c.closeNext(end)
		closed = true
	}
}

// flush closes every open period at the end of the test, the last one ending at now.
func (c *collector) flush(now time.Time) {
	last := c.next
	for k := range c.open {
		last = max(last, k)
	}
	for c.next <= last {
		end := c.start.Add(time.Duration(c.next+1) * c.period)
		if c.next == last && now.Before(end) {
			end = now
		}
		c.closeNext(end)
	}
}

func (c *collector) closeNext(end time.Time) {
	w := c.open[c.next]
	delete(c.open, c.next)
	c.next++
	if w == nil {
		w = &window{latency: metrics.NewTrendSink(metrics.Time), iterDur: metrics.NewTrendSink(metrics.Time)}
	}
	w.end = end
	c.close(w)
}

func (c *collector) close(w *window) {
	secs := float64(w.end.UnixMilli()-c.lastTime) / 1000
	c.lastTime = w.end.UnixMilli()
	if secs <= 0 {
		secs = c.period.Seconds()
	}
	lat, reqs := w.latency, w.reqs
	if !c.dnecho {
		lat, reqs = w.iterDur, w.iters
	}
	p := Point{Time: w.end.UnixMilli(), RequestsPS: reqs / secs, PerTagP99: map[string]float64{}, ResultsPS: map[string]float64{}}
	if lat.Count() > 0 {
		p.P50, p.P90, p.P95, p.P99, p.Max = ptr(lat.Percentile(50)), ptr(lat.Percentile(90)), ptr(lat.Percentile(95)), ptr(lat.Percentile(99)), ptr(lat.Max())
	}
	for k, s := range w.perTag {
		p.PerTagP99[k] = s.Percentile(99)
	}
	for k, n := range w.results {
		p.ResultsPS[k] = n / secs
	}
	if w.hasVUs {
		p.VUs = ptr(w.vus)
	} else if len(c.points) > 0 {
		p.VUs = c.points[len(c.points)-1].VUs
	}
	p.FailingCount = len(c.thresholds(false))
	c.points = append(c.points, p)
	if len(c.points) > MaxPoints {
		c.points = c.points[len(c.points)-MaxPoints:]
	}
}

func ptr(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// ThresholdState is one threshold's latest evaluation (the runner evaluates every 2 s).
type ThresholdState struct {
	Metric    string   `json:"metric"`
	Source    string   `json:"source"`
	OK        bool     `json:"ok"`
	Value     *float64 `json:"value"`
	Evaluated bool     `json:"evaluated"`
}

// thresholds returns every threshold, or only the failing ones.
func (c *collector) thresholds(all bool) []ThresholdState {
	ths := c.ths.Load()
	if ths == nil {
		return nil
	}
	var out []ThresholdState
	for _, e := range ths.Entries() {
		for _, o := range ths.Outcomes(e.Name) {
			if !all && o.OK {
				continue
			}
			st := ThresholdState{Metric: e.Name, Source: o.Source, OK: o.OK, Evaluated: o.Evaluated}
			if o.HasValue {
				st.Value = ptr(o.Value)
			}
			out = append(out, st)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Metric < out[j].Metric })
	return out
}
