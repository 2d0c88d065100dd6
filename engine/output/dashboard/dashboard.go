// Package dashboard is the web dashboard (`K6_WEB_DASHBOARD=true` or `-o web-dashboard[=query]`,
// k6's K6_WEB_DASHBOARD_* settings): a live page on 127.0.0.1:5665 by default, and with
// K6_WEB_DASHBOARD_EXPORT a self-contained HTML report written at the end, with the same charts,
// the end-of-test summary and the thresholds.
//
// Charts (of the calls output.Params.Charts names, else of iterations): calls per second,
// latency percentiles per period, p99 per value of a tag (per DataNode), calls per result
// code, VUs, the thresholds' state and a histogram of the whole test's latency; the header shows
// the whole test's rate and p99. The page and the report use uPlot (MIT), vendored under
// assets/uplot with its licence; k6's own dashboard assets are AGPL and not used.
//
// An open tab never slows the run: samples are folded on the output's own goroutine, and each
// period publishes one immutable JSON document that the HTTP handlers only copy out. A port in use
// is a warning, not a failure: the run goes on without the page.
package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/engine/threshold"
)

// Output serves the live dashboard and writes the report.
type Output struct {
	cfg Config
	// period is the first period of the charts (the Config's, or AutoPeriod's of the test's
	// length); with grow the collector lengthens it on a test longer than expected.
	period  time.Duration
	grow    bool
	charts  output.Charts
	log     *slog.Logger
	batcher *output.Batcher
	now     func() time.Time

	col      *collector // owned by the fold goroutine, then by Stop and Finish
	ths      atomic.Pointer[threshold.Set]
	received atomic.Int64
	data     atomic.Value // []byte: the latest published document

	srv      *http.Server
	listener net.Listener
	served   sync.WaitGroup
	url      string
}

// New builds the dashboard from -o web-dashboard[=query] and K6_WEB_DASHBOARD_*.
func New(p output.Params) (*Output, error) {
	cfg, err := NewConfig(p.Env, p.Arg)
	if err != nil {
		return nil, err
	}
	log := p.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	o := &Output{cfg: cfg, charts: p.Charts, log: log, now: time.Now, period: cfg.Period}
	if o.period == 0 {
		o.period, o.grow = AutoPeriod(p.Length), true
	}
	o.ths.Store(p.Thresholds)
	o.col = newCollector(o.period, o.grow, time.Now(), &o.ths, o.charts)
	o.data.Store([]byte(`{"points":[]}`))
	o.batcher = output.NewBatcher(min(time.Second, o.period), o.fold)
	o.batcher.SetLimit(output.DefaultPendingLimit)
	return o, nil
}

// SetThresholds gives the page and the report the thresholds to show when they were not known
// at New (the aggregator learns them from the first instance). Safe at any time.
func (o *Output) SetThresholds(ths *threshold.Set) { o.ths.Store(ths) }

// Description implements output.Output.
func (o *Output) Description() string { return o.cfg.description() }

// URL is the live page's address once started ("" without a server).
func (o *Output) URL() string { return o.url }

// Start opens the page's port (a port in use only warns) and starts folding samples.
func (o *Output) Start() error {
	if o.cfg.Record != "" {
		o.log.Warn("web-dashboard: recording events (K6_WEB_DASHBOARD_RECORD) is not supported; use K6_WEB_DASHBOARD_EXPORT for a report")
	}
	o.col = newCollector(o.period, o.grow, o.now(), &o.ths, o.charts)
	if o.cfg.Port >= 0 {
		o.serve()
	}
	o.batcher.Start()
	return nil
}

func (o *Output) serve() {
	l, err := net.Listen("tcp", o.cfg.addr())
	if err != nil {
		o.log.Warn(fmt.Sprintf("web-dashboard: cannot listen on %s, running without the live page: %v", o.cfg.addr(), err))
		return
	}
	o.listener = l
	o.url = "http://" + l.Addr().String()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", o.handlePage)
	mux.HandleFunc("GET /data", o.handleData)
	mux.HandleFunc("GET /assets/{name}", handleAsset)
	o.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	o.served.Go(func() { _ = o.srv.Serve(l) })
	msg := "web-dashboard: live page at " + o.url
	if o.cfg.Open {
		msg += " (open it in a browser: dnecho does not start one)"
	}
	o.log.Info(msg)
}

func (o *Output) handlePage(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = page(w, pageData{Live: true, PeriodMS: o.period.Milliseconds()})
}

func (o *Output) handleData(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(o.data.Load().([]byte))
}

// AddSamples implements output.Output.
func (o *Output) AddSamples(batch []metrics.Sample) {
	o.received.Add(int64(len(batch)))
	o.batcher.AddSamples(batch)
}

func (o *Output) fold(batches [][]metrics.Sample) error {
	for s := range output.Samples(batches) {
		o.col.add(s)
	}
	if o.col.advance(o.now()) {
		o.publish(false)
	}
	return nil
}

// document is what the page reads: every point so far, the thresholds and the totals.
type document struct {
	Start      int64            `json:"start"`  // Unix ms: the first period's start
	Period     int64            `json:"period"` // ms
	Points     []Point          `json:"points"`
	Totals     Totals           `json:"totals"`
	Thresholds []ThresholdState `json:"thresholds"`
	Iterations bool             `json:"iterations"` // charts show iterations, not echo calls
	Final      bool             `json:"final"`
	// Servers is the per-server table (per DataNode) and Verdict what Charts.Judge says of it.
	Servers []ServerRow `json:"servers"`
	Verdict []string    `json:"verdict"`
	Network bool        `json:"network"` // Charts.Network is named: the page shows the network chart
}

// document is what the page shows now; run is the test's duration once the front end gives it
// (Finish), else 0.
func (o *Output) document(final bool, run time.Duration) document {
	rows, verdict := o.col.serverTable()
	return document{Start: o.col.start.UnixMilli(), Period: o.col.period.Milliseconds(), Points: o.col.points,
		Totals: o.col.wholeTest(o.now(), run), Thresholds: o.col.thresholds(true), Iterations: !o.col.calls, Final: final,
		Servers: rows, Verdict: verdict, Network: o.charts.Network != ""}
}

func (o *Output) publish(final bool) {
	b, err := json.Marshal(o.document(final, 0))
	if err == nil {
		o.data.Store(b)
	}
}

// Account implements output.Accounter: the dashboard drops samples only when its queue is full.
func (o *Output) Account() output.Account {
	d := o.batcher.Dropped()
	return output.Account{Written: o.received.Load() - d, Dropped: d}
}

// Stop folds what is left into a last point and stops the page.
func (o *Output) Stop() error {
	err := o.batcher.Stop()
	o.col.flush(o.now())
	o.publish(true)
	if o.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if serr := o.srv.Shutdown(ctx); serr != nil && !errors.Is(serr, http.ErrServerClosed) {
			_ = o.srv.Close()
		}
		o.served.Wait()
	}
	return err
}
