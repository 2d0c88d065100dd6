package dashboard

import (
	"math"
	"sync/atomic"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/engine/threshold"
)

// collector folds samples into one point per period, by sample time. A period closes once it
// ended more than Grace ago (the VUs' buffers and the fold delay hold samples back), so late
// samples still land in their own period; a sample for a period already closed goes to the
// oldest open one. It is owned by the output's fold goroutine.
type collector struct {
	period time.Duration
	start  time.Time // the test's, where the charts begin
	// epoch is where period 0 of the current period begins: start, until the period grows.
	epoch time.Time
	// grow lets the period move to the next of periods after AutoPoints points at it; atPeriod
	// counts them.
	grow     bool
	atPeriod int
	ths      *atomic.Pointer[threshold.Set] // the Output's; nil until known (the aggregator learns them late)
	charts   output.Charts                  // the metrics and tags charted as calls
	calls    bool                           // a charted call metric was seen: chart calls, not iterations

	open     map[int64]*window // by period index since start
	next     int64             // index of the oldest period not yet closed
	points   []Point
	lastTime int64 // end of the last closed period, Unix ms

	// The last closed period, kept so that the test's final partial period can be folded into it.
	lastWin  *window
	prevTime int64 // lastTime before lastWin closed

	lastSample time.Time // of the latest call or iteration
	end        time.Time // set by flush
	totals     totals
	servers    servers
}

// Grace is how long after its end a period stays open for late samples.
const Grace = 1500 * time.Millisecond

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
	Net          map[string]Split   `json:"net,omitempty"` // per Breakdown value, with Charts.Network
	ResultsPS    map[string]float64 `json:"res"`
	VUs          *float64           `json:"vus"` // the most VUs seen in the period
	FailingCount int                `json:"thf"`
}

func newCollector(period time.Duration, grow bool, start time.Time, ths *atomic.Pointer[threshold.Set], charts output.Charts) *collector {
	return &collector{period: period, start: start, epoch: start, grow: grow, ths: ths, charts: charts, open: map[int64]*window{},
		lastTime: start.UnixMilli(), totals: newTotals(), servers: servers{}}
}

func (c *collector) window(t time.Time) *window {
	return c.windowAt(max(int64(t.Sub(c.epoch)/c.period), c.next))
}

func (c *collector) windowAt(k int64) *window {
	w := c.open[k]
	if w == nil {
		w = newWindow()
		c.open[k] = w
	}
	return w
}

// add folds one sample into its period and into the test's totals.
func (c *collector) add(s *metrics.Sample) {
	w := c.window(s.Time)
	switch s.Metric.Name { // a metric is never named "", so unnamed charts match nothing
	case c.charts.Latency:
		c.calls = true
		w.latency.add(s.Value)
		if v, ok := c.tag(s, c.charts.Breakdown); ok {
			w.tag(v).add(s.Value)
		}
		c.addAttempt(s)
	case c.charts.Attempt:
		c.addAttempt(s)
		return // counted at its call's Latency sample too
	case c.charts.Network, c.charts.Retransmits:
		c.addNetwork(w, s)
		return // sampled apart from the calls: not where the test ends
	case c.charts.Requests:
		c.calls = true
		w.reqs += s.Value
		r, _ := c.tag(s, c.charts.Result)
		w.results[r] += s.Value
	case "iterations":
		w.iters += s.Value
	case "iteration_duration":
		w.iterDur.add(s.Value)
	case "vus":
		w.vus, w.hasVUs = max(w.vus, s.Value), true
	default:
		return
	}
	if s.Metric.Name != "vus" && s.Time.After(c.lastSample) {
		c.lastSample = s.Time
	}
	c.totals.add(s, c.charts)
}

// tag is s's value of key; an unnamed key has none.
func (c *collector) tag(s *metrics.Sample, key string) (string, bool) {
	if key == "" {
		return "", false
	}
	return s.Tags.Get(key)
}

// advance closes, in order, every period that ended before now - Grace; it reports whether any
// closed.
func (c *collector) advance(now time.Time) bool {
	closed := false
	for {
		end := c.periodEnd(c.next)
		if end.After(now.Add(-Grace)) {
			return closed
		}
		c.closeNext(end)
		closed = true
		if c.grow && c.atPeriod >= AutoPoints {
			c.lengthen()
		}
	}
}

func (c *collector) periodEnd(k int64) time.Time { return c.epoch.Add(time.Duration(k+1) * c.period) }

// lengthen moves to the next, longer period from the end of the last closed one on. The next is
// a whole multiple of the current one, so each period still open lies within one of the new.
func (c *collector) lengthen() {
	p := nextPeriod(c.period)
	if p == 0 {
		return
	}
	old, oldPeriod, from := c.open, c.period, c.next
	c.epoch, c.period, c.next, c.atPeriod = c.periodEnd(c.next-1), p, 0, 0
	c.open = map[int64]*window{}
	for k, w := range old {
		c.windowAt(int64(time.Duration(k-from) * oldPeriod / p)).merge(w)
	}
}

// flush closes every open period at the end of the test. The test ends with its last call (or
// iteration), not when the output stops, which comes later. The last period, cut short by the
// end, is folded into the one before: alone it would hold a few milliseconds of the ramp-down
// and end every chart in a drop.
func (c *collector) flush(now time.Time) {
	end := now
	if c.lastSample.UnixMilli() > c.lastTime && c.lastSample.Before(now) {
		end = c.lastSample
	}
	c.end = end
	k := max(int64(end.Sub(c.epoch)/c.period), c.next)
	for c.next < k {
		c.closeNext(c.periodEnd(c.next))
	}
	w := newWindow()
	for i, o := range c.open { // period k and anything stamped after the last call (vus)
		w.merge(o)
		delete(c.open, i)
	}
	c.next = k + 1
	if c.lastWin != nil && len(c.points) > 0 && end.Before(c.periodEnd(k)) {
		w.merge(c.lastWin)
		c.points = c.points[:len(c.points)-1]
		c.lastTime = c.prevTime
	}
	c.close(w, end)
}

func (c *collector) closeNext(end time.Time) {
	w := c.open[c.next]
	delete(c.open, c.next)
	c.next++
	if w == nil {
		w = newWindow()
	}
	c.close(w, end)
}

func (c *collector) close(w *window, end time.Time) {
	c.prevTime, c.lastWin = c.lastTime, w
	secs := float64(end.UnixMilli()-c.lastTime) / 1000
	c.lastTime = end.UnixMilli()
	if secs <= 0 {
		secs = c.period.Seconds()
	}
	lat, reqs := w.latency.ranker(), w.reqs
	if !c.calls {
		lat, reqs = w.iterDur.ranker(), w.iters
	}
	p := Point{Time: end.UnixMilli(), RequestsPS: reqs / secs, PerTagP99: map[string]float64{}, ResultsPS: map[string]float64{}}
	if lat.Count() > 0 {
		p.P50, p.P90, p.P95, p.P99 = ptr(percentile(lat, 50)), ptr(percentile(lat, 90)), ptr(percentile(lat, 95)), ptr(percentile(lat, 99))
		p.Max = ptr(lat.Max())
	}
	for k, s := range w.perTag {
		p.PerTagP99[k] = percentile(s.ranker(), 99)
	}
	for k, n := range w.results {
		p.ResultsPS[k] = n / secs
	}
	p.Net = splits(w)
	if w.hasVUs {
		p.VUs = ptr(w.vus)
	} else if len(c.points) > 0 {
		p.VUs = c.points[len(c.points)-1].VUs
	}
	p.FailingCount = len(c.thresholds(false))
	c.points = append(c.points, p)
	c.atPeriod++
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
