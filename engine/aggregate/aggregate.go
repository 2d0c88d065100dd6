// Package aggregate judges a distributed test as one: the instances of the test (one execution
// segment each, e.g. k6-operator's runner pods) stream what every series of samples gained
// (package stream), the aggregator merges it into one set of sinks — HDR histograms merge
// exactly, so a percentile of the whole test equals a single-process run's within histogram
// precision — evaluates the thresholds on the whole test as the data comes in, stops every
// instance when an abortOnFail threshold fails, and at the end sends each instance the verdict
// and hands the caller one summary. k6 itself judges each instance on its own share (grafana/k6
// #140, k6-operator #115, #413, #812; docs/k6-compat.md, "Distributed runs").
package aggregate

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dnecho/dnecho/engine/aggregate/wire"
	"github.com/dnecho/dnecho/engine/ingest"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/engine/summary"
	"github.com/dnecho/dnecho/engine/threshold"
)

// Defaults of Options.
const (
	DefaultInterval    = threshold.DefaultInterval
	DefaultJoinTimeout = 10 * time.Minute
)

// Options configures an Aggregator.
type Options struct {
	// Listener accepts the instances' connections. Required.
	Listener net.Listener
	// Interval is how often thresholds are evaluated during the test (DefaultInterval, k6's).
	Interval time.Duration
	// JoinTimeout bounds how long, after the first instance joined, the others may take to
	// join; those that have not are reported lost (DefaultJoinTimeout).
	JoinTimeout time.Duration
	// Instances is how many instances to expect; 0 takes the number of segments of the
	// first instance's segment sequence.
	Instances int
	// HTTPClient stops instances through their REST API; nil uses a client with a 10 s timeout.
	HTTPClient *http.Client
	// Samples, when set, receives samples synthesised from the deltas of the metrics the web
	// dashboard charts (see Synthesize), for one HTML report of the whole test.
	Samples metrics.Pusher
	// Charts names the metrics Samples receives besides the iteration metrics (the report's
	// Charts, filled by the front end).
	Charts output.Charts
	// Thresholds, when set, is told the test's thresholds once the first instance brings them
	// (the report shows their state). It must not block.
	Thresholds func(*threshold.Set)
	// Breakdowns are merged per tag value for the hooks below; the summary shows them too.
	Breakdowns []ingest.ByTag
	// Computed names the metrics the front end sets on the whole test through the hooks below
	// (a verdict gauge): the instances' own samples of them, each made from its own share, are
	// not merged.
	Computed []string
	// DuringTest, when set, is called every Interval, just before the thresholds are evaluated,
	// with the Breakdowns merged so far: what it pushes counts for that evaluation, so an
	// abortOnFail threshold on the gauge it sets stops every instance. It must return quickly.
	DuringTest func(ingest.View)
	// EndOfTest, when set, is called once every instance has ended, before the thresholds'
	// final evaluation: what it pushes counts for it, and the sections it returns are
	// Report.Sections (runner.Config.EndOfTest for the whole test).
	EndOfTest func(ingest.View) []summary.Section
	// Token, when set, is the secret every instance must present (its Auth frame) before
	// anything else it sends is read: without it anyone who reaches the listener could join the
	// test, or post a passing outcome with no samples.
	Token  string
	Logger *slog.Logger
}

// Aggregator is one distributed test's judge. Use New, then Run.
type Aggregator struct {
	o   Options
	log *slog.Logger

	reg       *metrics.Registry
	builtins  *metrics.Builtins
	charted   map[string]bool // the metrics whose deltas go to o.Samples
	computed  map[string]bool // o.Computed
	collector *ingest.Collector
	testTags  *metrics.Tags // of the gauges the aggregator computes (none)

	mu        sync.Mutex
	hello     *wire.Hello // the first instance's
	ths       *threshold.Set
	expected  int
	instances []*instance
	aborted   bool
	changed   chan struct{} // closed and replaced when an instance joins or ends
	// unidentified holds a slot per connection that has not sent its Hello yet.
	unidentified chan struct{}
	verdict      chan struct{} // closed once the verdict is known
	final        wire.Verdict
}

// New returns an aggregator that has not started.
func New(o Options) *Aggregator {
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.JoinTimeout <= 0 {
		o.JoinTimeout = DefaultJoinTimeout
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	reg := metrics.NewRegistry()
	b := metrics.RegisterBuiltins(reg)
	charted := map[string]bool{}
	for _, m := range o.Charts.Metrics() {
		charted[m] = true
	}
	computed := map[string]bool{}
	for _, m := range o.Computed {
		computed[m] = true
	}
	collector := ingest.New(ingest.Options{Builtins: b})
	for _, bd := range o.Breakdowns {
		collector.TrackByTag(bd)
	}
	return &Aggregator{o: o, log: log, reg: reg, builtins: b, charted: charted, computed: computed, testTags: metrics.NewTags(nil),
		collector: collector,
		changed:   make(chan struct{}), verdict: make(chan struct{}), unidentified: make(chan struct{}, maxUnidentified)}
}

// Run accepts instances until every expected instance has ended (sent its outcome, or
// disappeared), then gives the verdict to the instances and returns the whole test's result.
// Ending ctx ends the wait: instances still running are reported lost. Run closes the listener.
func (a *Aggregator) Run(ctx context.Context) (*Report, error) {
	// Connections outlive the wait: each handler sends its instance the verdict, then ends.
	connCtx, closeConns := context.WithCancel(context.Background())
	defer closeConns()
	stopConns := context.AfterFunc(ctx, closeConns) // interrupted: drop the instances
	defer stopConns()
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	var conns, bg sync.WaitGroup
	bg.Go(func() { a.accept(connCtx, &conns) })
	bg.Go(func() { a.watch(watchCtx) })
	a.waitEnded(ctx)
	res := a.conclude()
	close(a.verdict)
	stopWatch()
	a.o.Listener.Close()
	bg.Wait()
	// Instances still running (lost to a timeout) would keep their handlers reading: give the
	// others time to receive the verdict, then close every connection.
	handled := make(chan struct{})
	go func() { conns.Wait(); close(handled) }()
	select {
	case <-handled:
	case <-time.After(verdictGrace):
		closeConns()
		<-handled
	}
	return res, nil
}

// verdictGrace bounds how long Run waits for the verdict to reach the instances.
const verdictGrace = 10 * time.Second

// maxUnidentified bounds the connections that have not identified themselves yet: with
// wire.MaxHello each, they hold at most 32 MiB together.
const maxUnidentified = 32

func (a *Aggregator) accept(ctx context.Context, conns *sync.WaitGroup) {
	for {
		conn, err := a.o.Listener.Accept()
		if err != nil {
			return
		}
		select {
		case a.unidentified <- struct{}{}:
		default:
			a.log.Warn(fmt.Sprintf("connection from %s refused: %d others have not identified themselves yet", conn.RemoteAddr(), maxUnidentified))
			conn.Close()
			continue
		}
		conns.Go(func() { a.serve(ctx, conn) })
	}
}

// notify wakes waitEnded. Callers hold mu.
func (a *Aggregator) notify() {
	close(a.changed)
	a.changed = make(chan struct{})
}

// waitEnded returns once every expected instance has ended, the join timeout passed for those
// that never joined, or ctx ended.
func (a *Aggregator) waitEnded(ctx context.Context) {
	var joinDeadline <-chan time.Time
	for {
		a.mu.Lock()
		if a.hello != nil && joinDeadline == nil {
			t := time.NewTimer(a.o.JoinTimeout)
			defer t.Stop()
			joinDeadline = t.C
		}
		ended := 0
		for _, in := range a.instances {
			if in.ended() {
				ended++
			}
		}
		done := a.expected > 0 && ended >= a.expected
		changed := a.changed
		a.mu.Unlock()
		if done {
			return
		}
		select {
		case <-changed:
		case <-joinDeadline:
			a.mu.Lock()
			missing := a.expected - len(a.instances)
			a.mu.Unlock()
			if missing > 0 {
				a.log.Error(fmt.Sprintf("%d instance(s) did not join within %s: the results miss their share", missing, a.o.JoinTimeout))
				return
			}
			joinDeadline = make(chan time.Time) // all joined: wait for them to end
		case <-ctx.Done():
			return
		}
	}
}

// elapsed is the test run time: the longest of the instances'.
func (a *Aggregator) elapsed() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	var d time.Duration
	for _, in := range a.instances {
		d = max(d, in.elapsed())
	}
	return d
}

// watch runs DuringTest and evaluates the thresholds, once the first instance brought them,
// every interval; an abortOnFail failure stops every instance, and DuringTest goes on.
func (a *Aggregator) watch(ctx context.Context) {
	threshold.Watch{Set: a.thresholds, Source: a.collector, Elapsed: a.elapsed, Interval: a.o.Interval, Tick: a.duringTest,
		OnAbort: func(err error) { a.abort(ctx, err) }, TickAfterAbort: true}.Run(ctx)
}

// thresholds are the whole test's thresholds; nil until the first instance brings them.
func (a *Aggregator) thresholds() *threshold.Set {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.ths
}

// isAborted says whether an abortOnFail threshold has stopped the test.
func (a *Aggregator) isAborted() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.aborted
}

// abort stops every instance that has not ended; those that join later are stopped as they
// join (serve).
func (a *Aggregator) abort(ctx context.Context, err error) {
	a.mu.Lock()
	a.aborted = true
	list := append([]*instance(nil), a.instances...)
	a.mu.Unlock()
	a.log.Error(err.Error() + " (on the whole test): stopping every instance")
	var wg sync.WaitGroup
	for _, in := range list {
		if !in.ended() {
			wg.Go(func() { in.stop(ctx, a.o.HTTPClient, a.log) })
		}
	}
	wg.Wait()
}

// conclude makes the final evaluation and the result.
func (a *Aggregator) conclude() *Report {
	if _, ok := a.collector.Sink(a.builtins.VUs.Name); !ok {
		a.pushVUs(true) // some instance never reported its VUs: sum those that did
	}
	sections := a.endOfTest()
	a.mu.Lock()
	defer a.mu.Unlock()
	res := &Report{Snapshot: a.collector.Snapshot(), Thresholds: a.ths, Hello: a.hello, Expected: a.expected, Sections: sections}
	for _, in := range a.instances {
		res.Instances = append(res.Instances, in.report())
		res.Duration = max(res.Duration, in.elapsed())
	}
	sort.Slice(res.Instances, func(i, j int) bool { return res.Instances[i].Segment < res.Instances[j].Segment })
	v := wire.Verdict{Aborted: a.aborted}
	if a.ths != nil {
		r := a.ths.Evaluate(res.Snapshot, res.Duration, true)
		v.Failed = r.Failed
	}
	for _, in := range res.Instances {
		if in.Lost {
			v.Lost = append(v.Lost, in.Name)
		}
	}
	if missing := a.expected - len(a.instances); missing > 0 {
		v.Lost = append(v.Lost, fmt.Sprintf("%d that never joined", missing))
	}
	if len(v.Failed) == 0 {
		v.Aborted = false
	}
	a.final = v
	res.Verdict = v
	return res
}

// register admits an instance after its Hello: the first one fixes the sequence, thresholds
// and metrics; the others must run another segment of the same sequence.
func (a *Aggregator) register(in *instance) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	h := &in.hello
	if a.hello == nil {
		if err := a.setup(h); err != nil {
			return err
		}
	} else if h.Sequence != a.hello.Sequence {
		return fmt.Errorf("instance %s runs sequence %s, the test %s", h.Instance, h.Sequence, a.hello.Sequence)
	}
	for _, other := range a.instances {
		if other.hello.Segment == h.Segment {
			return fmt.Errorf("segment %s is already run by instance %s", h.Segment, other.hello.Instance)
		}
	}
	if err := a.registerMetrics(h.Metrics); err != nil {
		return err
	}
	a.instances = append(a.instances, in)
	a.notify()
	return nil
}

// setup takes the test's settings from the first instance. Callers hold mu.
func (a *Aggregator) setup(h *wire.Hello) error {
	a.expected = a.o.Instances
	if a.expected == 0 {
		a.expected = len(strings.Split(h.Sequence, ",")) - 1
	}
	if err := a.registerMetrics(h.Metrics); err != nil {
		return err
	}
	if len(h.Thresholds) > 0 && string(h.Thresholds) != "null" {
		cfg, err := threshold.DecodeConfig(h.Thresholds)
		if err != nil {
			return err
		}
		set, _, err := threshold.New(cfg, a.reg)
		if err != nil {
			return err
		}
		for _, m := range set.Metrics() {
			a.collector.Track(m)
		}
		for _, sm := range set.Submetrics() {
			a.collector.TrackSubmetric(sm)
		}
		a.ths = set
		if a.o.Thresholds != nil {
			a.o.Thresholds(set)
		}
	}
	a.hello = h
	a.log.Info(fmt.Sprintf("test of %d instances (sequence %s), first instance %s", a.expected, h.Sequence, h.Instance))
	return nil
}

func (a *Aggregator) registerMetrics(defs []wire.MetricDef) error {
	for _, d := range defs {
		typ, contains, err := parseTypes(d.Type, d.Contains)
		if err != nil {
			return fmt.Errorf("metric %s: %w", d.Name, err)
		}
		if _, err := a.reg.NewMetric(d.Name, typ, contains); err != nil {
			return err
		}
	}
	return nil
}

// parseTypes reads k6's type names ("trend", "time").
func parseTypes(typ, contains string) (metrics.MetricType, metrics.ValueType, error) {
	t, c := metrics.MetricType(-1), metrics.ValueType(-1)
	for _, mt := range []metrics.MetricType{metrics.Counter, metrics.Gauge, metrics.Rate, metrics.Trend} {
		if mt.String() == typ {
			t = mt
		}
	}
	for _, vt := range []metrics.ValueType{metrics.Default, metrics.Time, metrics.Data} {
		if vt.String() == contains {
			c = vt
		}
	}
	if t < 0 || c < 0 {
		return t, c, fmt.Errorf("unknown type %q or value type %q", typ, contains)
	}
	return t, c, nil
}

// ended records that an instance ended and wakes waitEnded.
func (a *Aggregator) ended() {
	a.mu.Lock()
	a.notify()
	a.mu.Unlock()
}
