package datanode

import (
	"context"
	"errors"
	"io"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// streamPool holds the idle long-lived streams of one DataNode for
// StreamReused. A call borrows a stream for its whole round trip, so a
// stream never carries two requests at once and responses cannot be
// mismatched; concurrent calls simply use different streams.
type streamPool struct {
	c    *Client
	m    *member
	idle idleStreams[*reusedStream]
}

func newStreamPool(c *Client, m *member) *streamPool {
	return &streamPool{c: c, m: m}
}

// reusedStream is one long-lived stream. The per-call deadline is a timer
// that cancels the stream, because a stream-level grpc-timeout cannot be
// renewed per request.
type reusedStream struct {
	cs      grpc.ClientStream
	cancel  context.CancelFunc
	timer   *time.Timer
	expired atomic.Bool
	used    bool  // has completed a round trip
	resp    reply // reused: one call at a time

	// The stream is cancelled when the context of its calls ends. Callers usually pass the same
	// context call after call (a freon worker, a VU's activation), so the registration is kept
	// across calls and only renewed for another context: registering per call cost ~6% of the
	// CPU of a reused-stream run.
	watchDone <-chan struct{}
	stopWatch func() bool
}

// watch makes ctx's end cancel the stream.
func (s *reusedStream) watch(ctx context.Context) {
	done := ctx.Done()
	if done == s.watchDone {
		return
	}
	s.unwatch()
	if done != nil {
		s.stopWatch = context.AfterFunc(ctx, s.cancel)
		s.watchDone = done
	}
}

func (s *reusedStream) unwatch() {
	if s.stopWatch != nil {
		s.stopWatch()
	}
	s.watchDone, s.stopWatch = nil, nil
}

// watchEnded reports whether the context the stream last served has ended, which cancelled it.
func (s *reusedStream) watchEnded() bool {
	select {
	case <-s.watchDone:
		return true
	default:
		return false
	}
}

// get borrows an idle stream or opens a new one. Opening is bounded by the call: its context and
// timeout cancel a stream that is still being opened (a DataNode that accepts TCP but never speaks
// HTTP/2 would otherwise hold the call until gRPC's own connect timeout), while an opened stream
// lives on under the Client's context.
func (p *streamPool) get(callCtx context.Context, timeout time.Duration) (s *reusedStream, fresh bool, err error) {
	for {
		var ok bool
		if s, ok = p.idle.take(); !ok {
			break
		}
		if s.watchDone != nil && s.watchEnded() {
			s.discard() // cancelled with the context of an earlier call
			continue
		}
		return s, false, nil
	}
	ctx, cancel := context.WithCancel(p.c.ctx)
	var timedOut atomic.Bool
	deadline := time.AfterFunc(callTimeout(callCtx, timeout), func() { timedOut.Store(true); cancel() })
	stopWatch := context.AfterFunc(callCtx, cancel)
	cs, err := p.m.newStream(ctx)
	if !deadline.Stop() || !stopWatch() {
		err = errors.Join(err, context.Canceled) // the call ended while the stream opened
	}
	if err != nil {
		cancel()
		switch {
		case timedOut.Load():
			err = status.Error(codes.DeadlineExceeded, "datanode: echo deadline exceeded while opening a stream")
		case callCtx.Err() != nil:
			err = status.FromContextError(callCtx.Err()).Err()
		}
		return nil, true, err
	}
	s = &reusedStream{cs: cs, cancel: cancel}
	s.timer = time.AfterFunc(time.Hour, s.expire)
	s.timer.Stop()
	return s, true, nil
}

// callTimeout is the time a call may take: the attempt timeout, or less when the caller's deadline
// comes first.
func callTimeout(ctx context.Context, timeout time.Duration) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		if left := time.Until(d); left < timeout {
			return left
		}
	}
	return timeout
}

func (s *reusedStream) expire() {
	s.expired.Store(true)
	s.cancel()
}

// discard ends a stream that is broken or not wanted any more. The
// DataNode sees a CANCELLED stream, which it ignores (docs/ozone-echo.md#stream-handling).
func (s *reusedStream) discard() {
	s.timer.Stop()
	s.unwatch()
	s.cancel()
}

func (p *streamPool) put(s *reusedStream) {
	if !p.idle.keep(s, p.c.opts.MaxIdleStreams) {
		s.discard()
	}
}

func (p *streamPool) close() {
	for _, s := range p.idle.close() {
		s.discard()
	}
}

// call is one attempt on a borrowed stream. A stream that ended while idle
// (DataNode restart, connection loss) is noticed when the request cannot be
// sent; the request then never left, so it goes once more on a new stream.
func (p *streamPool) call(ctx context.Context, res *Result, req *encoded) error {
	for {
		s, fresh, err := p.get(ctx, p.c.opts.Timeout)
		if err != nil {
			return p.m.grpcFailure(res, err)
		}
		stale, err := s.roundTrip(ctx, p.c.opts.Timeout, p.m, res, req)
		if stale && !fresh {
			s.discard()
			continue
		}
		return err
	}
}

// roundTrip sends req and waits for its response. On success the stream goes
// back to the pool, otherwise it is discarded. stale reports a stream that
// was already over before the request could be sent.
func (s *reusedStream) roundTrip(ctx context.Context, timeout time.Duration, m *member, res *Result, req *encoded) (stale bool, err error) {
	s.expired.Store(false)
	s.timer.Reset(callTimeout(ctx, timeout))
	s.watch(ctx)

	sendErr := s.cs.SendMsg(req)
	if sendErr != nil && !errors.Is(sendErr, io.EOF) {
		s.discard()
		return false, m.grpcFailure(res, sendErr)
	}
	if sendErr != nil && s.used {
		s.timer.Stop()
		return true, nil
	}
	recvErr := s.cs.RecvMsg(&s.resp)
	intact := s.timer.Stop() && ctx.Err() == nil
	if recvErr != nil {
		switch {
		case s.expired.Load():
			recvErr = status.Error(codes.DeadlineExceeded, "datanode: echo deadline exceeded on reused stream")
		case ctx.Err() != nil:
			recvErr = status.FromContextError(ctx.Err()).Err()
		}
		s.discard()
		return false, m.recvFailure(res, recvErr)
	}
	s.used = true
	err = m.response(res, &s.resp)
	if intact {
		m.pool.put(s)
	} else {
		s.discard() // the deadline or the caller cancelled it just after the reply
	}
	return false, err
}
