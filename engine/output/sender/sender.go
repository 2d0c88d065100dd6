// Package sender delivers the payloads of network outputs (InfluxDB, Prometheus remote write,
// OpenTelemetry) so that a store that is down or slow never stops or slows the load: payloads
// wait in a bounded queue, a fixed number of workers send them with retries and exponential
// back-off, the oldest payload is dropped (and counted) when the queue is full, and Stop gives
// the queue a bounded time to drain. Every sample is accounted for as written or dropped.
package sender

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// Defaults of Config.
const (
	DefaultQueueLimit  = 64
	DefaultMaxAttempts = 5
	DefaultBackoff     = 250 * time.Millisecond
	DefaultMaxBackoff  = 4 * time.Second
	DefaultStopTimeout = 5 * time.Second
)

// Config configures a Sender. Zero values take the defaults above.
type Config struct {
	Name    string // output name, in log messages
	Workers int    // concurrent sends; 1 when not positive
	// QueueLimit bounds the payloads waiting; the oldest is dropped to make room.
	QueueLimit int
	// Latest is for payloads that each hold cumulative values (Prometheus, OpenTelemetry): a new
	// payload replaces the waiting ones instead of queueing behind them, one worker sends them in
	// order, and a payload's Samples is the running total it covers, not its own count.
	Latest      bool
	MaxAttempts int // tries per payload
	Backoff     time.Duration
	MaxBackoff  time.Duration
	// StopTimeout bounds how long Stop waits for the queue to drain.
	StopTimeout time.Duration
	Logger      *slog.Logger
}

func (c *Config) defaults() {
	if c.Workers <= 0 || c.Latest {
		c.Workers = 1
	}
	if c.QueueLimit <= 0 {
		c.QueueLimit = DefaultQueueLimit
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = DefaultMaxAttempts
	}
	if c.Backoff <= 0 {
		c.Backoff = DefaultBackoff
	}
	if c.MaxBackoff <= 0 {
		c.MaxBackoff = DefaultMaxBackoff
	}
	if c.StopTimeout <= 0 {
		c.StopTimeout = DefaultStopTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// Payload is one write.
type Payload struct {
	Body []byte
	// Samples is how many samples the payload carries, or with Config.Latest the running total
	// of samples its cumulative values cover.
	Samples int64
}

// SendFunc performs one write attempt. It returns a Permanent error when retrying cannot help.
type SendFunc func(ctx context.Context, body []byte) error

type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// Permanent marks err as not worth retrying (the server rejected the payload itself).
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err}
}

// IsPermanent reports whether err was marked with Permanent.
func IsPermanent(err error) bool {
	var p *permanentError
	return errors.As(err, &p)
}

// Sender owns its worker goroutines: Start launches them, Stop ends them.
type Sender struct {
	cfg  Config
	send SendFunc

	ctx    context.Context // ends when Stop gives up waiting
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	queue    []Payload
	wake     chan struct{}
	stopping bool
	started  bool
	written  int64 // raw: sum of acknowledged payloads; Latest: highest acknowledged total
	dropped  int64 // raw only
	// firstErr and lastErr are the store's answers (or silences), never the cancellation of a
	// send that Stop gave up on, which would hide why the samples were lost.
	firstErr, lastErr error
	failures          int  // consecutive failed attempts, to log the first of a series only
	full              bool // the queue overflowed once (logged once)
}

// New returns a sender that calls send for each payload.
func New(cfg Config, send SendFunc) *Sender {
	cfg.defaults()
	ctx, cancel := context.WithCancel(context.Background())
	return &Sender{cfg: cfg, send: send, ctx: ctx, cancel: cancel, wake: make(chan struct{}, 1)}
}

// Start launches the workers.
func (s *Sender) Start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return
	}
	s.started = true
	for range s.cfg.Workers {
		s.wg.Go(s.work)
	}
}

// Enqueue adds a payload without blocking; when the queue is full the oldest payload is dropped.
func (s *Sender) Enqueue(p Payload) {
	s.mu.Lock()
	switch {
	case s.stopping && !s.started:
		s.dropLocked(p)
	case s.cfg.Latest:
		s.queue = append(s.queue[:0], p)
	default:
		if len(s.queue) >= s.cfg.QueueLimit {
			s.dropLocked(s.queue[0])
			s.queue = s.queue[1:]
			if !s.full {
				s.full = true
				s.cfg.Logger.Warn(fmt.Sprintf("output %s: %d writes waiting, dropping the oldest: the store is slower than the load", s.cfg.Name, s.cfg.QueueLimit))
			}
		}
		s.queue = append(s.queue, p)
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Sender) dropLocked(p Payload) {
	if !s.cfg.Latest {
		s.dropped += p.Samples
	}
}

// next returns the next payload, waiting for one; ok is false when stopping with nothing left.
func (s *Sender) next() (Payload, bool) {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			p := s.queue[0]
			s.queue = s.queue[1:]
			s.mu.Unlock()
			return p, true
		}
		stopping := s.stopping
		s.mu.Unlock()
		if stopping {
			return Payload{}, false
		}
		select {
		case <-s.wake:
		case <-s.ctx.Done():
		}
	}
}

func (s *Sender) work() {
	for {
		p, ok := s.next()
		if !ok {
			// Wake the other workers: they may be waiting for a payload that will not come.
			select {
			case s.wake <- struct{}{}:
			default:
			}
			return
		}
		err := s.deliver(p)
		s.mu.Lock()
		switch {
		case err == nil:
			if s.cfg.Latest {
				s.written = max(s.written, p.Samples)
			} else {
				s.written += p.Samples
			}
		default:
			s.dropLocked(p)
		}
		s.mu.Unlock()
	}
}

// deliver sends p, retrying with exponential back-off until it succeeds, fails permanently, runs
// out of attempts or the sender gives up at Stop.
func (s *Sender) deliver(p Payload) error {
	wait := s.cfg.Backoff
	for attempt := 1; ; attempt++ {
		err := s.send(s.ctx, p.Body)
		s.mu.Lock()
		if err == nil {
			if s.failures > 0 {
				s.cfg.Logger.Info(fmt.Sprintf("output %s: writes succeed again after %d failed attempts", s.cfg.Name, s.failures))
			}
			s.failures = 0
			s.mu.Unlock()
			return nil
		}
		s.noteLocked(err)
		s.mu.Unlock()
		if IsPermanent(err) || attempt >= s.cfg.MaxAttempts || s.ctx.Err() != nil {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-s.ctx.Done():
			t.Stop()
			return err
		}
		wait = min(2*wait, s.cfg.MaxBackoff)
	}
}

// noteLocked records a failure and logs the first of a series, so that a store that is down
// does not flood the log. A send cut short by Stop's give-up is recorded as what it was, no
// answer within StopTimeout, and only when nothing else went wrong before it.
func (s *Sender) noteLocked(err error) {
	if s.ctx.Err() != nil && errors.Is(err, context.Canceled) {
		if s.lastErr != nil {
			return
		}
		err = fmt.Errorf("no answer within the %s stop timeout", s.cfg.StopTimeout)
	}
	if s.firstErr == nil {
		s.firstErr = err
	}
	s.lastErr = err
	if s.failures == 0 {
		s.cfg.Logger.Warn(fmt.Sprintf("output %s: write failed, retrying with back-off: %v", s.cfg.Name, err))
	}
	s.failures++
}

// Stop waits up to StopTimeout for the queued payloads, then abandons the rest (counted as
// dropped) and ends the workers. Enqueue after Stop drops.
func (s *Sender) Stop() {
	s.mu.Lock()
	if s.stopping {
		s.mu.Unlock()
		return
	}
	s.stopping = true
	started := s.started
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	if started {
		done := make(chan struct{})
		go func() { s.wg.Wait(); close(done) }()
		t := time.NewTimer(s.cfg.StopTimeout)
		select {
		case <-done:
		case <-t.C:
			s.cfg.Logger.Warn(fmt.Sprintf("output %s: gave up waiting for the store after %s", s.cfg.Name, s.cfg.StopTimeout))
			s.cancel()
			<-done
		}
		t.Stop()
	}
	s.cancel()
	s.mu.Lock()
	for _, p := range s.queue {
		s.dropLocked(p)
	}
	s.queue = nil
	s.mu.Unlock()
}

// Account returns the samples written and dropped so far and the store's errors: the first, and
// the last as well when it says something else ("connection refused; last: HTTP 500"). With
// Latest, dropped is always 0: the caller knows the total and computes it.
func (s *Sender) Account() (written, dropped int64, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	err = s.firstErr
	if err != nil && s.lastErr.Error() != err.Error() {
		err = fmt.Errorf("%w; last: %v", err, s.lastErr)
	}
	return s.written, s.dropped, err
}
