// Package stream is the instance side of a distributed test's aggregation: it folds the run's
// samples into one delta per series (metric and tag set), sends them to the aggregator every
// push interval over one TCP connection (package wire), and at the end hands over the run's
// outcome and receives the whole test's verdict.
package stream

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/dnecho/dnecho/engine/aggregate/wire"
	"github.com/dnecho/dnecho/engine/metrics"
)

// Defaults of Options.
const (
	DefaultInterval    = time.Second
	DefaultDialTimeout = 30 * time.Second
)

// Options configures a Stream.
type Options struct {
	// Addr is the aggregator's host:port.
	Addr string
	// Interval is how often deltas are pushed (DefaultInterval).
	Interval time.Duration
	// DialTimeout bounds how long Begin keeps trying to connect once the run is started (hold
	// returns false), for an aggregator that starts after its instances, e.g. a pod scheduled
	// later (DefaultDialTimeout).
	DialTimeout time.Duration
	// Token is the aggregator's shared secret ("" when it has none), sent before anything else.
	Token string
	// TLS, when set, is used to reach an aggregator that serves TLS; an empty ServerName is
	// Addr's host.
	TLS    *tls.Config
	Logger *slog.Logger
}

// Progress is the instance's state sent with each push.
type Progress struct {
	Elapsed     time.Duration
	VUs, VUsMax int64
}

// Stream is one instance's link to the aggregator. AddSamples may be called from any
// goroutine; Begin, then Finish, from the run's.
type Stream struct {
	o   Options
	log *slog.Logger

	mu      sync.Mutex
	byPtr   map[seriesPtr]*series // fast path: samples of one run share tag-set pointers
	byName  map[string]*series    // the series themselves, by metric and canonical tags
	order   []*series             // for deterministic pushes
	nextID  uint64
	pending []*series // series without their definition sent

	conn     net.Conn
	w        *bufio.Writer
	wmu      sync.Mutex // serialises frames
	progress func() Progress
	stop     chan struct{}
	pushDone chan struct{}
	verdict  chan verdictOrErr
	readDone chan struct{}
	stopped  chan struct{} // closed when the aggregator sends Stop
}

type seriesPtr struct {
	m    *metrics.Metric
	tags *metrics.Tags
}

type series struct {
	def   wire.SeriesDef
	delta *metrics.DeltaSink
}

type verdictOrErr struct {
	v   wire.Verdict
	err error
}

// maxPtrCache bounds the pointer cache; a module that builds a new tag set per sample must not
// grow it without limit (the series map is bounded by the distinct tag sets themselves).
const maxPtrCache = 1 << 14

// New returns a stream that is not connected yet.
func New(o Options) *Stream {
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = DefaultDialTimeout
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Stream{o: o, log: log, byPtr: map[seriesPtr]*series{}, byName: map[string]*series{},
		verdict: make(chan verdictOrErr, 1), stopped: make(chan struct{})}
}

// Begin connects to the aggregator, introduces the instance and starts pushing every interval;
// progress is read at each push. While hold (nil: never) returns true, the run waits to be
// started and Begin keeps trying without limit; then for DialTimeout more.
func (s *Stream) Begin(ctx context.Context, h wire.Hello, progress func() Progress, hold func() bool) error {
	conn, err := s.dial(ctx, hold)
	if err != nil {
		return err
	}
	s.conn, s.w, s.progress = conn, bufio.NewWriterSize(conn, 64<<10), progress
	if err := s.send(func() error { return s.hello(h) }); err != nil {
		conn.Close()
		return fmt.Errorf("aggregator %s: %w", s.o.Addr, err)
	}
	s.stop, s.pushDone, s.readDone = make(chan struct{}), make(chan struct{}), make(chan struct{})
	go s.read()
	go s.pushEvery()
	return nil
}

// Pauses of dial: between attempts, and at most per attempt (an address that drops packets).
const (
	redialPause  = 200 * time.Millisecond
	attemptLimit = 5 * time.Second
)

func (s *Stream) dial(ctx context.Context, hold func() bool) (net.Conn, error) {
	deadline := time.Now().Add(s.o.DialTimeout)
	var d net.Dialer
	held := false
	for {
		attempt, cancel := context.WithTimeout(ctx, attemptLimit)
		conn, err := s.dialOnce(attempt, &d)
		cancel()
		if err == nil {
			return conn, nil
		}
		if hold != nil && hold() {
			deadline = time.Now().Add(s.o.DialTimeout) // the limit counts from the start
			if !held {
				held = true
				s.log.Warn(fmt.Sprintf("aggregator %s not reachable yet (%v): retrying until the test is started, then for %s", s.o.Addr, err, s.o.DialTimeout))
			}
		}
		if !time.Now().Before(deadline) {
			return nil, fmt.Errorf("aggregator %s: not reachable within %s of the start: %w", s.o.Addr, s.o.DialTimeout, err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("aggregator %s: %w", s.o.Addr, err)
		case <-time.After(redialPause):
		}
	}
}

// dialOnce connects once, with the TLS handshake when Options.TLS asks for it.
func (s *Stream) dialOnce(ctx context.Context, d *net.Dialer) (net.Conn, error) {
	conn, err := d.DialContext(ctx, "tcp", s.o.Addr)
	if err != nil || s.o.TLS == nil {
		return conn, err
	}
	cfg := s.o.TLS.Clone()
	if cfg.ServerName == "" {
		cfg.ServerName, _, _ = net.SplitHostPort(s.o.Addr)
	}
	tc := tls.Client(conn, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return tc, nil
}

// hello writes the token (when there is one) and the Hello, and flushes.
func (s *Stream) hello(h wire.Hello) error {
	if s.o.Token != "" {
		if err := wire.WriteFrame(s.w, wire.FrameAuth, []byte(s.o.Token)); err != nil {
			return err
		}
	}
	return wire.WriteJSON(s.w, wire.FrameHello, h)
}

func (s *Stream) send(write func() error) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return write()
}

// Stopped is closed when the aggregator stops the test (an abortOnFail threshold failed on the
// whole test) through the stream, for an instance without a REST API.
func (s *Stream) Stopped() <-chan struct{} { return s.stopped }

// Addr is the aggregator's address.
func (s *Stream) Addr() string { return s.o.Addr }

// AddSamples implements ingest.Output: it only folds the samples into their series' deltas.
func (s *Stream) AddSamples(batch []metrics.Sample) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range batch {
		smp := &batch[i]
		if smp.Metric == nil {
			continue
		}
		s.seriesOf(smp).delta.Add(*smp)
	}
}

// seriesOf returns the sample's series, creating it. Callers hold mu.
func (s *Stream) seriesOf(smp *metrics.Sample) *series {
	p := seriesPtr{smp.Metric, smp.Tags}
	if ser := s.byPtr[p]; ser != nil {
		return ser
	}
	key := smp.Metric.Name + "\x00" + smp.Tags.Key()
	ser := s.byName[key]
	if ser == nil {
		s.nextID++
		ser = &series{
			def: wire.SeriesDef{ID: s.nextID, Metric: smp.Metric.Name, Type: smp.Metric.Type,
				Contains: smp.Metric.Contains, Tags: smp.Tags.List()},
			delta: metrics.NewDeltaSink(smp.Metric),
		}
		s.byName[key] = ser
		s.order = append(s.order, ser)
		s.pending = append(s.pending, ser)
	}
	if len(s.byPtr) >= maxPtrCache {
		clear(s.byPtr)
	}
	s.byPtr[p] = ser
	return ser
}

// take builds the State of everything gathered since the last push.
func (s *Stream) take() *wire.State {
	st := &wire.State{}
	if s.progress != nil {
		p := s.progress()
		st.Elapsed, st.VUs, st.VUsMax = p.Elapsed, p.VUs, p.VUsMax
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ser := range s.pending {
		st.NewSeries = append(st.NewSeries, ser.def)
	}
	s.pending = s.pending[:0]
	for _, ser := range s.order {
		if !ser.delta.Empty() {
			st.Deltas = append(st.Deltas, wire.SeriesDelta{ID: ser.def.ID, Type: ser.def.Type, Delta: ser.delta.Take()})
		}
	}
	return st
}

func (s *Stream) push() error {
	b := wire.AppendState(nil, s.take())
	return s.send(func() error {
		if err := wire.WriteFrame(s.w, wire.FrameState, b); err != nil {
			return err
		}
		return s.w.Flush()
	})
}

func (s *Stream) pushEvery() {
	defer close(s.pushDone)
	t := time.NewTicker(s.o.Interval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			if err := s.push(); err != nil {
				s.log.Error(fmt.Sprintf("aggregator %s: %v (the whole test's results will miss this instance)", s.o.Addr, err))
				return
			}
		}
	}
}

// read handles what the aggregator sends: Stop, the Verdict, or an Error.
func (s *Stream) read() {
	defer close(s.readDone)
	r := bufio.NewReader(s.conn)
	stopped := false
	for {
		typ, p, err := wire.ReadFrame(r)
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
				err = errors.New("the aggregator closed the connection")
			}
			s.verdict <- verdictOrErr{err: err}
			return
		}
		switch typ {
		case wire.FrameStop:
			if !stopped {
				stopped = true
				close(s.stopped)
			}
		case wire.FrameVerdict:
			var v wire.Verdict
			err := json.Unmarshal(p, &v)
			s.verdict <- verdictOrErr{v: v, err: err}
			return
		case wire.FrameError:
			var e wire.Error
			_ = json.Unmarshal(p, &e)
			err := fmt.Errorf("refused: %s", e.Message)
			s.log.Error(fmt.Sprintf("aggregator %s: %v (the whole test's results will miss this instance)", s.o.Addr, err))
			s.verdict <- verdictOrErr{err: err}
			return
		}
	}
}

// Finish pushes what is left, reports how the run ended and waits for the whole test's
// verdict, until ctx ends. It closes the connection.
func (s *Stream) Finish(ctx context.Context, f wire.Final) (wire.Verdict, error) {
	if s.conn == nil {
		return wire.Verdict{}, errors.New("not connected")
	}
	close(s.stop)
	<-s.pushDone
	defer func() {
		s.conn.Close()
		<-s.readDone
	}()
	err := s.push()
	if err == nil {
		err = s.send(func() error { return wire.WriteJSON(s.w, wire.FrameFinal, f) })
	}
	if err != nil {
		return wire.Verdict{}, fmt.Errorf("aggregator %s: %w", s.o.Addr, err)
	}
	select {
	case r := <-s.verdict:
		if r.err != nil {
			return wire.Verdict{}, fmt.Errorf("aggregator %s: %w", s.o.Addr, r.err)
		}
		return r.v, nil
	case <-ctx.Done():
		return wire.Verdict{}, fmt.Errorf("aggregator %s: no verdict: %w", s.o.Addr, ctx.Err())
	}
}
