// Package promrw is the `-o experimental-prometheus-rw` output: Prometheus remote write 1.0
// (snappy-compressed protobuf) with k6's settings (K6_PROMETHEUS_RW_*) and naming: k6_ prefix,
// counters as k6_<m>_total, rates as k6_<m>_rate, gauges as k6_<m>, trends as one gauge per
// trend stat in seconds (k6_<m>_p99) or as native histograms (k6_<m>_seconds).
//
// Unlike k6, which keeps every sample of every Trend series for its stats (k6 issues #3269,
// #3498), each series here is an HDR-histogram sink (engine/metrics.TrendSink) or a native
// histogram, so memory stays flat on long runs. Every push sends one sample per series, all at
// the push time, in increasing time order: the cumulative values of the whole test so far, as
// k6 does, so a lost or replaced write loses no data, only resolution, and Prometheus never sees
// an out-of-order sample.
package promrw

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/golang/snappy"
	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/output"
	"github.com/dnecho/dnecho/engine/output/sender"
	"github.com/dnecho/dnecho/proto/promrwpb"
)

// FoldPeriod is how often queued samples are folded into the series between pushes, so that no
// more than this much of the run's samples is held in memory.
const FoldPeriod = 100 * time.Millisecond

// Output aggregates samples per series and writes them to a remote-write endpoint.
type Output struct {
	cfg     Config
	batcher *output.Batcher
	sender  *sender.Sender
	post    sender.HTTPPost
	now     func() time.Time

	// Owned by the fold goroutine (and by Stop after it ended).
	series   *output.SeriesIndex[*series]
	folded   int64 // samples folded in
	lastPush time.Time
	lastTS   int64 // ms of the last push
}

// New builds the output from -o experimental-prometheus-rw[=k=v,...].
func New(p output.Params) (*Output, error) {
	cfg, err := NewConfig(p.Env, p.Arg)
	if err != nil {
		return nil, err
	}
	tlsCfg := sender.TLS{InsecureSkipVerify: cfg.InsecureSkipTLSVerify, MinVersion: cfg.TLSMinVersion, CertFile: cfg.ClientCert, KeyFile: cfg.ClientKey}
	client, err := sender.NewHTTPClient(tlsCfg, DefaultTimeout, "")
	if err != nil {
		return nil, fmt.Errorf("experimental-prometheus-rw: %w", err)
	}
	log := p.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	post := sender.HTTPPost{Client: client, URL: cfg.URL, Header: headers(cfg)}
	native := cfg.NativeHistogram
	o := &Output{cfg: cfg, post: post, now: time.Now, series: output.NewSeriesIndex(func(m *metrics.Metric, t *metrics.Tags) *series {
		return newSeries(m, t, native)
	})}
	o.sender = sender.New(sender.Config{Name: "experimental-prometheus-rw", Latest: true, Logger: log}, post.Send)
	o.batcher = output.NewBatcher(min(FoldPeriod, cfg.PushInterval), o.fold)
	o.batcher.SetLimit(output.DefaultPendingLimit)
	return o, nil
}

// headers are remote write 1.0's, then authentication, then the user's own.
func headers(c Config) http.Header {
	h := http.Header{
		"Content-Type": {"application/x-protobuf"}, "Content-Encoding": {"snappy"},
		"X-Prometheus-Remote-Write-Version": {"0.1.0"}, "User-Agent": {"dnecho"},
	}
	if c.Username != "" {
		h.Set("Authorization", sender.BasicAuth(c.Username, c.Password))
	}
	for k, v := range c.Headers {
		h.Set(k, v)
	}
	if c.BearerToken != "" {
		h.Set("Authorization", "Bearer "+c.BearerToken)
	}
	return h
}

// Description implements output.Output.
func (o *Output) Description() string { return o.cfg.description() }

// Start starts folding and pushing.
func (o *Output) Start() error {
	o.lastPush = o.now()
	o.sender.Start()
	o.batcher.Start()
	return nil
}

// AddSamples implements output.Output.
func (o *Output) AddSamples(batch []metrics.Sample) { o.batcher.AddSamples(batch) }

// Stop folds what is queued, pushes the final values (and the stale markers when asked) and
// waits, bounded, for the writes.
func (o *Output) Stop() error {
	err := o.batcher.Stop()
	if len(o.series.All()) > 0 {
		o.sender.Enqueue(o.payload(false))
	}
	o.sender.Stop()
	if o.cfg.StaleMarkers && len(o.series.All()) > 0 {
		// After the final values are in (a queued payload would replace them), as k6 does.
		ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
		defer cancel()
		if serr := o.post.Send(ctx, o.payload(true).Body); serr != nil {
			err = errors.Join(err, fmt.Errorf("stale markers: %w", serr))
		}
	}
	return err
}

// Account implements output.Accounter: samples folded in after the last acknowledged write are
// dropped.
func (o *Output) Account() output.Account {
	w, _, err := o.sender.Account()
	return output.Account{Written: w, Dropped: o.folded - w + o.batcher.Dropped(), Err: err}
}

func (o *Output) fold(batches [][]metrics.Sample) error {
	for s := range output.Samples(batches) {
		o.series.Get(s.Metric, s.Tags).add(s.Value)
		o.folded++
	}
	if now := o.now(); now.Sub(o.lastPush) >= o.cfg.PushInterval && len(o.series.All()) > 0 {
		o.lastPush = now
		o.sender.Enqueue(o.payload(false))
	}
	return nil
}

// lookup finds the series of (m, tags): by identity first (the engine shares tag sets between
// samples), then by content (equal sets built by different VUs are one series).
// payload is a write of every series at the current time (or of stale markers just after the
// last write), in increasing time order.
func (o *Output) payload(stale bool) sender.Payload {
	ts := o.now().UnixMilli()
	if ts <= o.lastTS {
		ts = o.lastTS + 1
	}
	o.lastTS = ts
	req := &promrwpb.WriteRequest{}
	for _, s := range o.series.All() {
		req.Timeseries = s.appendTimeSeries(req.Timeseries, o.cfg.TrendStats, ts, stale)
	}
	// Marshalling these messages cannot fail; an empty body would only be refused by the store.
	b, _ := proto.Marshal(req)
	return sender.Payload{Body: snappy.Encode(nil, b), Samples: o.folded}
}
