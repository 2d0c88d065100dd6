package echometrics

import (
	"context"
	"time"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/engine/output/builtin"
	"github.com/dnecho/dnecho/ozone/echo"
)

// DefaultFeedInterval is how often buffered calls reach the outputs (and the vus gauge is
// sampled) when OutputsConfig.Interval is zero.
const DefaultFeedInterval = time.Second

// OutputsConfig is what StartOutputs needs: the outputs and the tags and gauge of one session.
type OutputsConfig struct {
	Set *builtin.Set // the outputs, opened but not started
	// Tags are the tags of every sample (FixedTags); Mode is the session's one mode.
	Tags *metrics.Tags
	Mode echo.Mode
	// VUs is the value of the vus gauge: the number of workers calling.
	VUs int
	// Interval is how often the feed is flushed; zero means DefaultFeedInterval.
	Interval time.Duration
}

// Outputs feeds the calls of a front end without the script engine (the freon command) to an
// output set: the dnecho_* samples of every call, the same series `dnecho run` writes, plus a
// vus gauge. A nil *Outputs (no outputs) accepts calls at no cost.
type Outputs struct {
	set  *builtin.Set
	feed *Feed
	net  *Network
	vus  *metrics.Metric
	n    float64
	stop chan struct{}
	done chan struct{}
}

// StartOutputs starts cfg.Set and the goroutine that flushes the feed; Close stops both.
func StartOutputs(cfg OutputsConfig) (*Outputs, error) {
	reg := metrics.NewRegistry()
	m, err := Register(reg)
	if err != nil {
		return nil, err
	}
	vus, err := reg.NewMetric("vus", metrics.Gauge, metrics.Default)
	if err != nil {
		return nil, err
	}
	if err := cfg.Set.Start(); err != nil {
		return nil, err
	}
	interval := cfg.Interval
	if interval <= 0 {
		interval = DefaultFeedInterval
	}
	o := &Outputs{
		set: cfg.Set, feed: NewFeed(cfg.Set, m, cfg.Tags, cfg.Mode), net: NewNetwork(m, cfg.Tags, cfg.Mode), vus: vus, n: float64(cfg.VUs),
		stop: make(chan struct{}), done: make(chan struct{}),
	}
	go o.loop(interval)
	return o, nil
}

// Record feeds one call of worker; interrupted calls are not measurements.
func (o *Outputs) Record(worker int, r *echo.Result) {
	if o != nil && !r.Interrupted {
		o.feed.Record(uint64(worker), time.Now(), r)
	}
}

// RecordNetwork feeds one tick of the session's network watch, as dnecho_tcp_rtt and
// dnecho_tcp_retransmits samples; call it from the watch (one goroutine) and not after Close.
func (o *Outputs) RecordNetwork(tick []echo.NetworkSample) {
	if o == nil {
		return
	}
	if batch := o.net.Samples(tick); len(batch) > 0 {
		o.set.PushSamples(batch)
	}
}

func (o *Outputs) loop(interval time.Duration) {
	defer close(o.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-o.stop:
			return
		case now := <-t.C:
			o.feed.Flush()
			o.set.PushSamples([]metrics.Sample{{Metric: o.vus, Time: now, Value: o.n, Tags: metrics.NewTags(nil)}})
		}
	}
}

// Close flushes the calls and stops the outputs, returning each one's account; when hard ends
// first (a second Ctrl-C) it stops waiting for them, and their accounts show them abandoned.
func (o *Outputs) Close(hard context.Context) []builtin.Stopped {
	if o == nil {
		return nil
	}
	close(o.stop)
	<-o.done
	o.feed.Flush()
	return o.set.StopContext(hard)
}

// Finish gives end to the outputs that want it (the web dashboard's report); call it after Close,
// whose accounts a front end may want to log first.
func (o *Outputs) Finish(end output.End) error {
	if o == nil {
		return nil
	}
	return o.set.Finish(end)
}
