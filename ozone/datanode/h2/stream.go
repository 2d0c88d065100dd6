package h2

import (
	"context"
	"io"
	"time"

	"golang.org/x/net/http2"
	"google.golang.org/grpc/status"
)

// stream is one HTTP/2 stream and the call waiting on it. Streams are recycled per connection;
// refs counts who holds one (the caller, the id map, the writer's queue, an armed timer, the
// reader's current frame) and the last to let go puts it back. Fields are guarded by c.mu
// unless marked as the reader's.
type stream struct {
	c    *conn
	id   uint32
	refs int

	out        []byte        // request bytes still to send
	half       bool          // END_STREAM goes with the last of out
	sentEnd    bool          // END_STREAM was sent: the client's side is closed
	headers    bool          // HEADERS still to send
	timeout    time.Duration // sent as grpc-timeout; 0 sends none
	sendWindow int64
	inPending  bool
	inMap      bool
	closed     bool // the stream is over: ended by the server, reset, or its connection failed

	waiting   bool // a caller waits for the next message
	delivered bool // that caller has its outcome
	err       error
	size      int // the delivered message's length

	armed    bool
	deadline time.Time // of the call armed last
	timer    *time.Timer
	timerGen uint64 // bumped when a timer could not be stopped: its late run is ignored

	// the reader's
	msg        msgReader
	gotHeaders bool
	unacked    uint32

	done chan struct{} // cap 1: the outcome is delivered
}

// newStreamLocked takes a recycled stream or makes one; the caller holds the one reference.
func (c *conn) newStreamLocked() *stream {
	var st *stream
	if n := len(c.free); n > 0 {
		st = c.free[n-1]
		c.free = c.free[:n-1]
		fields := st.msg.fields
		timer, gen, done := st.timer, st.timerGen, st.done
		*st = stream{c: c, msg: msgReader{fields: fields[:0]}, timer: timer, timerGen: gen, done: done}
		select {
		case <-done: // an outcome nobody took
		default:
		}
	} else {
		st = &stream{c: c, done: make(chan struct{}, 1)}
	}
	st.refs = 1
	return st
}

// releaseLocked drops one reference; the last recycles the stream.
func (c *conn) releaseLocked(st *stream) {
	st.refs--
	if st.refs == 0 && c.err == nil {
		c.free = append(c.free, st)
	}
}

// queueLocked puts st on the writer's queue.
func (c *conn) queueLocked(st *stream) {
	if !st.inPending {
		st.inPending = true
		st.refs++
		c.pending = append(c.pending, st)
	}
}

// armLocked starts st's deadline.
func (c *conn) armLocked(st *stream, d time.Duration) {
	if st.timer == nil {
		gen := st.timerGen
		st.timer = time.AfterFunc(d, func() { st.expire(gen) })
	} else {
		st.timer.Reset(d)
	}
	st.armed = true
	st.deadline = time.Now().Add(d)
	st.refs++
}

// disarmLocked stops st's deadline. A timer that already fired runs late and is ignored: its
// generation is retired and the next deadline gets a new timer.
func (c *conn) disarmLocked(st *stream) {
	if !st.armed {
		return
	}
	st.armed = false
	if st.timer.Stop() {
		c.releaseLocked(st)
		return
	}
	st.timerGen++
	st.timer = nil // the late run releases its reference
}

// expire is the deadline: the waiting call fails with DEADLINE_EXCEEDED and the stream is
// cancelled (PROTOCOL-HTTP2.md, Client Cancellation).
func (st *stream) expire(gen uint64) {
	c := st.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != st.timerGen || !st.armed {
		c.releaseLocked(st)
		return
	}
	st.armed = false
	c.deliverLocked(st, errDeadline)
	c.resetLocked(st, http2.ErrCodeCancel, nil)
	c.releaseLocked(st)
}

// deliverLocked hands the waiting call its outcome.
func (c *conn) deliverLocked(st *stream, err error) {
	if st.waiting && !st.delivered {
		st.delivered, st.err = true, err
		st.done <- struct{}{}
	}
}

// endLocked closes st for whatever reason; err, when not nil, is the outcome of a call still
// waiting.
func (c *conn) endLocked(st *stream, err error) {
	if st.closed {
		return
	}
	st.closed = true
	if err != nil {
		c.deliverLocked(st, err)
	}
	st.out = nil
	if st.inMap {
		delete(c.streams, st.id)
		st.inMap = false
		c.active--
		c.releaseLocked(st)
		if len(c.pending) > 0 { // one may be waiting for a stream slot
			c.kick()
		}
	}
	c.disarmLocked(st)
	if c.drainedLocked() {
		c.kick()
	}
}

// resetLocked cancels st from the client's side with RST_STREAM (when the server knows it).
func (c *conn) resetLocked(st *stream, code http2.ErrCode, err error) {
	if st.closed {
		return
	}
	if st.inMap {
		c.queueCtrlLocked(ctrlFrame{typ: http2.FrameRSTStream, id: st.id, val: uint32(code)})
		c.kick()
	}
	c.endLocked(st, err)
}

// Reply is the first message of a call's answer.
type Reply struct {
	// Fields is the message with every length-delimited value longer than 32 bytes left out
	// (written with length 0) once its result field says SUCCESS; what a caller needs to judge
	// the reply. The buffer is exchanged with the stream's at each call: keep it between calls
	// to allocate nothing.
	Fields []byte
	// Size is the message's length on the wire, without its prefix.
	Size int
}

// RoundTrip is one call on a new stream: HEADERS with grpc-timeout, the message msg (prefix
// included, see PutPrefix) and END_STREAM, then the first response message into r. timeout
// bounds it; a call the server never processed (refused, or cut off by GOAWAY) goes once more
// on another connection, as grpc-go retries it transparently.
func (ch *Channel) RoundTrip(ctx context.Context, timeout time.Duration, msg []byte, r *Reply) error {
	for try := 0; ; try++ {
		c, err := ch.conn(ctx, timeout)
		if err != nil {
			return err
		}
		err = c.roundTrip(ctx, timeout, msg, r)
		if err == nil || try > 0 || !isUnprocessed(err) || ctx.Err() != nil {
			return err
		}
	}
}

func (c *conn) roundTrip(ctx context.Context, timeout time.Duration, msg []byte, r *Reply) error {
	c.mu.Lock()
	if c.err != nil || c.draining {
		c.mu.Unlock()
		return unprocessed("the connection to %s closed before the call was sent", c.ch.cfg.Addr)
	}
	st := c.newStreamLocked()
	st.out, st.half, st.headers, st.timeout, st.waiting = msg, true, true, timeout, true
	c.queueLocked(st)
	c.armLocked(st, timeout)
	c.mu.Unlock()
	c.kick()
	return c.wait(ctx, st, r)
}

// wait blocks until st's call has its outcome or ctx ends, and takes the outcome.
func (c *conn) wait(ctx context.Context, st *stream, r *Reply) error {
	if done := ctx.Done(); done == nil {
		<-st.done
	} else {
		select {
		case <-st.done:
		case <-done:
		}
	}
	c.mu.Lock()
	if !st.delivered { // the caller gave up
		st.delivered, st.err = true, status.FromContextError(ctx.Err()).Err()
		c.resetLocked(st, http2.ErrCodeCancel, nil)
	}
	err := st.err
	if err == nil {
		r.Size = st.size
		r.Fields, st.msg.fields = st.msg.fields, r.Fields[:0]
	}
	st.waiting = false
	c.releaseLocked(st)
	c.mu.Unlock()
	return err
}

// Stream is a long-lived stream that carries one call after another: a request message, then
// the response message, each round trip with its own deadline. Its HEADERS carry no
// grpc-timeout. One call at a time.
type Stream struct {
	c      *conn
	st     *stream
	broken bool
}

// Open starts a stream; its HEADERS go out with the first message.
func (ch *Channel) Open(ctx context.Context, timeout time.Duration) (*Stream, error) {
	c, err := ch.conn(ctx, timeout)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil || c.draining {
		return nil, unprocessed("the connection to %s closed before the stream opened", c.ch.cfg.Addr)
	}
	st := c.newStreamLocked()
	st.headers = true
	return &Stream{c: c, st: st}, nil
}

// RoundTrip sends msg and waits for the next response message. unsent reports a stream that
// had already ended before msg could go: the server closed it or the connection was lost
// while it was idle.
func (s *Stream) RoundTrip(ctx context.Context, timeout time.Duration, msg []byte, r *Reply) (unsent bool, err error) {
	c, st := s.c, s.st
	c.mu.Lock()
	if st.closed {
		err := st.err
		if err == nil || st.delivered {
			err = io.EOF
		}
		c.mu.Unlock()
		s.broken = true
		return true, err
	}
	select {
	case <-st.done:
	default:
	}
	st.waiting, st.delivered, st.err = true, false, nil
	st.out = msg
	c.queueLocked(st)
	c.armLocked(st, timeout)
	c.mu.Unlock()
	c.kick()
	err = s.wait(ctx, r)
	return false, err
}

// wait is conn.wait for a stream that lives on: its deadline is stopped after each call, and
// a stream whose call failed, or whose deadline fired at the same moment, is broken.
func (s *Stream) wait(ctx context.Context, r *Reply) error {
	c, st := s.c, s.st
	c.mu.Lock()
	st.refs++ // conn.wait lets one go
	c.mu.Unlock()
	err := c.wait(ctx, st, r)
	c.mu.Lock()
	if st.armed {
		c.disarmLocked(st)
		if st.timer == nil { // it fired as the reply came: the stream is being cancelled
			s.broken = true
		}
	}
	if err != nil || st.closed {
		s.broken = true
	}
	c.mu.Unlock()
	return err
}

// Broken reports a stream that must not carry another call.
func (s *Stream) Broken() bool { return s.broken }

// Close cancels the stream (the server ignores a CANCELLED stream) and lets it go.
func (s *Stream) Close() {
	c, st := s.c, s.st
	c.mu.Lock()
	c.resetLocked(st, http2.ErrCodeCancel, nil)
	c.releaseLocked(st)
	c.mu.Unlock()
}
