package aggregate

import (
	"bufio"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/dnecho/dnecho/engine/aggregate/wire"
	"github.com/dnecho/dnecho/engine/ingest"
	"github.com/dnecho/dnecho/engine/metrics"
	"github.com/dnecho/dnecho/engine/summary"
	"github.com/dnecho/dnecho/engine/threshold"
)

// instance is one connected instance of the test.
type instance struct {
	hello  wire.Hello
	remote string // the connection's peer address
	conn   net.Conn
	w      *bufio.Writer
	wmu    sync.Mutex

	mu        sync.Mutex
	series    map[uint64]seriesRef
	elapsedNs int64
	// gauges are the last values of the instance's own vus and vus_max gauges (pushVUs).
	gauges [2]struct {
		v  float64
		ok bool
	}
	final   *wire.Final
	lost    error // why the connection ended before Final
	samples int64
}

type seriesRef struct {
	m    *metrics.Metric
	tags *metrics.Tags
}

// Report is the whole distributed test's outcome, as the aggregator concludes it.
type Report struct {
	// Snapshot holds the merged sinks, Thresholds their final evaluation (nil without).
	Snapshot   *ingest.Snapshot
	Thresholds *threshold.Set
	// Duration is the test run time: the longest instance's.
	Duration time.Duration
	// Hello is the first instance's introduction (nil when none joined): its summary options
	// apply to the whole test.
	Hello     *wire.Hello
	Expected  int
	Instances []InstanceReport
	Verdict   wire.Verdict
	// Sections are Options.EndOfTest's, for the text summary.
	Sections []summary.Section
}

// InstanceReport is how one instance ended.
type InstanceReport struct {
	Name, Segment string
	// ExitCode is the instance's own outcome (its Final); -1 when lost.
	ExitCode int
	Error    string
	Lost     bool
	// Samples counts the samples its deltas carried.
	Samples int64
	Elapsed time.Duration
}

func (in *instance) ended() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.final != nil || in.lost != nil
}

func (in *instance) elapsed() time.Duration {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.final != nil {
		return time.Duration(in.final.DurationNs)
	}
	return time.Duration(in.elapsedNs)
}

func (in *instance) report() InstanceReport {
	in.mu.Lock()
	defer in.mu.Unlock()
	r := InstanceReport{Name: in.hello.Instance, Segment: in.hello.Segment, Samples: in.samples, Elapsed: time.Duration(in.elapsedNs), ExitCode: -1}
	switch {
	case in.final != nil:
		r.ExitCode, r.Error, r.Elapsed = in.final.ExitCode, in.final.Error, time.Duration(in.final.DurationNs)
	default:
		r.Lost = true
		if in.lost != nil {
			r.Error = in.lost.Error()
		} else {
			r.Error = "still running when the aggregator stopped waiting"
		}
	}
	return r
}

// serve runs one instance's connection: Hello, States, Final, then the verdict.
func (a *Aggregator) serve(ctx context.Context, conn net.Conn) {
	defer conn.Close()
	stopOnEnd := context.AfterFunc(ctx, func() { conn.Close() })
	defer stopOnEnd()
	r := bufio.NewReader(conn)
	in := &instance{remote: conn.RemoteAddr().String(), conn: conn, w: bufio.NewWriter(conn), series: map[uint64]seriesRef{}}
	err := a.identify(conn, r, in)
	<-a.unidentified
	if err == nil {
		err = a.register(in)
	}
	if err != nil {
		a.log.Error(fmt.Sprintf("instance from %s refused: %v", in.remote, err))
		in.send(wire.FrameError, wire.Error{Message: err.Error()})
		return
	}
	a.log.Info(fmt.Sprintf("instance %s joined (segment %s, from %s)", in.hello.Instance, in.hello.Segment, in.remote))
	var late sync.WaitGroup
	defer late.Wait()
	if a.isAborted() {
		// abort stopped the instances that had joined; this one would run its whole duration.
		a.log.Warn(fmt.Sprintf("instance %s joined after the whole test was aborted: stopping it", in.hello.Instance))
		late.Go(func() { in.stop(ctx, a.o.HTTPClient, a.log) })
	}
	if err := a.readStates(r, in); err != nil {
		in.mu.Lock()
		in.lost = err
		elapsed := time.Duration(in.elapsedNs)
		in.mu.Unlock()
		a.log.Error(fmt.Sprintf("instance %s (segment %s) was lost after %s: %v; the whole test's results include its samples up to then",
			in.hello.Instance, in.hello.Segment, elapsed.Round(time.Millisecond), err))
		a.ended()
		return
	}
	a.ended()
	select {
	case <-a.verdict:
		in.send(wire.FrameVerdict, a.final)
	case <-ctx.Done():
	}
}

// identify reads the connection's token and Hello. Until they are read the connection may hold
// little (wire.MaxAuth, then wire.MaxHello) for little time (identifyTimeout), and with a token
// nothing but the token is read before it is checked.
func (a *Aggregator) identify(conn net.Conn, r *bufio.Reader, in *instance) error {
	_ = conn.SetReadDeadline(time.Now().Add(identifyTimeout))
	first := wire.MaxHello
	if a.o.Token != "" {
		first = wire.MaxAuth
	}
	if b, err := r.Peek(1); err != nil {
		return err
	} else if b[0] != wire.FrameAuth && a.o.Token != "" {
		return errors.New("no token: this aggregator requires DNECHO_AGGREGATOR_TOKEN")
	}
	typ, p, err := wire.ReadFrameLimit(r, first)
	switch {
	case err != nil:
		return err
	case typ == wire.FrameAuth && a.o.Token != "" && subtle.ConstantTimeCompare(p, []byte(a.o.Token)) != 1:
		return errors.New("wrong token (its DNECHO_AGGREGATOR_TOKEN is not the aggregator's)")
	case typ == wire.FrameAuth: // a token the aggregator does not need
		if typ, p, err = wire.ReadFrameLimit(r, wire.MaxHello); err != nil {
			return err
		}
	}
	if typ != wire.FrameHello {
		return fmt.Errorf("expected a hello, got frame %q", typ)
	}
	if err := json.Unmarshal(p, &in.hello); err != nil {
		return err
	}
	return conn.SetReadDeadline(time.Time{})
}

// identifyTimeout bounds how long a connection may take to send its token and Hello.
const identifyTimeout = 10 * time.Second

// readStates applies States until the instance's Final.
func (a *Aggregator) readStates(r *bufio.Reader, in *instance) error {
	for {
		typ, p, err := wire.ReadFrame(r)
		switch {
		case errors.Is(err, io.EOF):
			return errors.New("the connection closed before the instance's end")
		case err != nil:
			return err
		}
		switch typ {
		case wire.FrameState:
			st, err := wire.DecodeState(p)
			if err != nil {
				return err
			}
			if err := a.apply(in, st); err != nil {
				return err
			}
		case wire.FrameFinal:
			var f wire.Final
			if err := json.Unmarshal(p, &f); err != nil {
				return fmt.Errorf("final: %w", err)
			}
			in.mu.Lock()
			in.final = &f
			in.mu.Unlock()
			a.log.Info(fmt.Sprintf("instance %s (segment %s) ended: exit code %d", in.hello.Instance, in.hello.Segment, f.ExitCode))
			return nil
		default:
			return fmt.Errorf("unexpected frame %q", typ)
		}
	}
}

// apply merges one State into the whole test.
func (a *Aggregator) apply(in *instance, st *wire.State) error {
	for _, d := range st.NewSeries {
		m, err := a.reg.NewMetric(d.Metric, d.Type, d.Contains)
		if err != nil {
			return err
		}
		tags := make(map[string]string, len(d.Tags))
		for _, t := range d.Tags {
			tags[t.Key] = t.Value
		}
		in.series[d.ID] = seriesRef{m: m, tags: metrics.NewTags(tags)}
	}
	var n int64
	for i := range st.Deltas {
		sd := &st.Deltas[i]
		ref, ok := in.series[sd.ID]
		if !ok || ref.m.Type != sd.Type {
			return fmt.Errorf("delta for unknown series %d", sd.ID)
		}
		n += sd.Delta.N
		if a.computed[ref.m.Name] {
			continue // the whole test's value is the front end's (Options.Computed)
		}
		if g := a.gaugeIndex(ref.m); g >= 0 {
			if sd.Delta.N > 0 {
				in.mu.Lock()
				in.gauges[g].v, in.gauges[g].ok = sd.Delta.Value, true
				in.mu.Unlock()
			}
			continue // one instance's count: the test's is the sum (pushVUs)
		}
		a.collector.AddDelta(ref.m, ref.tags, &sd.Delta)
		if a.o.Samples != nil && a.charted[ref.m.Name] {
			if smp := Synthesize(ref.m, ref.tags, &sd.Delta); len(smp) > 0 {
				a.o.Samples.PushSamples(smp)
			}
		}
	}
	in.mu.Lock()
	in.elapsedNs = int64(st.Elapsed)
	in.samples += n
	in.mu.Unlock()
	a.pushVUs(false)
	return nil
}

// gaugeIndex is m's index in instance.gauges, -1 for other metrics.
func (a *Aggregator) gaugeIndex(m *metrics.Metric) int {
	switch m {
	case a.builtins.VUs:
		return 0
	case a.builtins.VUsMax:
		return 1
	}
	return -1
}

// pushVUs records the whole test's vus and vus_max gauges: the sums of the instances' latest
// values (an instance that ended keeps its last ones, as a single run's last sample does).
// Merging the instances' gauges as one series would keep whichever instance reported last. Sums
// start once every expected instance has reported, so that staggered joins do not show as a
// dip in the minimum; at the end (force) whatever has been reported counts.
func (a *Aggregator) pushVUs(force bool) {
	var sums [2]float64
	a.mu.Lock()
	complete := len(a.instances) >= a.expected
	for _, in := range a.instances {
		in.mu.Lock()
		for g := range sums {
			sums[g] += in.gauges[g].v
			complete = complete && in.gauges[g].ok
		}
		in.mu.Unlock()
	}
	a.mu.Unlock()
	if !complete && !force {
		return
	}
	now := time.Now()
	a.collector.PushSamples([]metrics.Sample{
		{Metric: a.builtins.VUs, Time: now, Value: sums[0], Tags: a.testTags},
		{Metric: a.builtins.VUsMax, Time: now, Value: sums[1], Tags: a.testTags},
	})
}

// send writes one JSON frame; failures only mean the instance is gone.
func (in *instance) send(typ byte, v any) {
	in.wmu.Lock()
	defer in.wmu.Unlock()
	_ = in.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	_ = wire.WriteJSON(in.w, typ, v)
}

// stopBody is the PATCH k6-operator sends to stop a runner.
const stopBody = `{"data":{"attributes":{"paused":false,"stopped":true},"id":"default","type":"status"}}`

// stop ends the instance's run: through its REST API when it has one (k6's PATCH /v1/status
// with stopped: true, exit code 103 there), else with a Stop frame on the stream.
func (in *instance) stop(ctx context.Context, hc *http.Client, log *slog.Logger) {
	addr := in.apiAddr()
	if addr == "" {
		in.send(wire.FrameStop, struct{}{})
		return
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPatch, "http://"+addr+"/v1/status", strings.NewReader(stopBody))
	if err == nil {
		req.Header.Set("Content-Type", "application/json")
		var resp *http.Response
		if resp, err = hc.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode >= 400 {
				err = fmt.Errorf("HTTP %s", resp.Status)
			}
		}
	}
	if err != nil {
		log.Warn(fmt.Sprintf("stop instance %s through %s: %v; stopping it through the stream", in.hello.Instance, addr, err))
		in.send(wire.FrameStop, struct{}{})
	}
}

// apiAddr is the instance's REST API address, with an unspecified host (0.0.0.0, as
// k6-operator passes it) replaced by the address the instance connected from.
func (in *instance) apiAddr() string {
	if in.hello.API == "" {
		return ""
	}
	host, port, err := net.SplitHostPort(in.hello.API)
	if err != nil {
		return in.hello.API
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		if rh, _, err := net.SplitHostPort(in.remote); err == nil {
			host = rh
		}
	}
	return net.JoinHostPort(host, port)
}
