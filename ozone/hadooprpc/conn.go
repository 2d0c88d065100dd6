package hadooprpc

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/dnecho/dnecho/proto/hadooppb"
)

var (
	// errConnGone: the connection was closed for idleness before the call
	// was registered, so the call was never sent and may go out on a new one.
	errConnGone = errors.New("connection already closed")
	errIdle     = errors.New("closed after idle timeout")
	longAgo     = time.Unix(1, 0)
)

// conn is one client connection: a reader goroutine matches replies to
// pending calls by callId; writers share the socket under wmu.
type conn struct {
	c    *Client
	nc   net.Conn
	ping []byte // the prebuilt ping frame
	wmu  sync.Mutex

	mu         sync.Mutex
	closed     bool
	err        error // why it closed; nil after an idle close
	pending    map[int32]chan callResult
	lastUse    time.Time // last call sent or answered: the idle clock
	quietSince time.Time // last byte read or ping sent: the ping clock
	lastRead   time.Time // last byte read: the silence clock of CallWithin
	done       chan struct{}
}

// wait is how long a call may hear nothing from the server: quiet from start or from the last
// byte read, whichever is later; quiet <= 0 for no bound.
type wait struct {
	start time.Time
	quiet time.Duration
}

type callResult struct {
	r   *response
	err error
}

func (cn *conn) isClosed() bool {
	cn.mu.Lock()
	defer cn.mu.Unlock()
	return cn.closed
}

// call sends one request frame and waits for its reply.
func (cn *conn) call(ctx context.Context, id int32, frame []byte, w wait) (*response, error) {
	ch := make(chan callResult, 1)
	cn.mu.Lock()
	if cn.closed {
		err := cn.err
		cn.mu.Unlock()
		if err == nil {
			err = errConnGone // closed for idleness: dial again
		}
		return nil, err
	}
	cn.pending[id] = ch
	cn.lastUse = time.Now()
	if len(cn.pending) == 1 {
		// Silence counts from when we start waiting, as in Java, whose reader
		// only reads while calls are outstanding. Re-arm: the reader may be
		// sleeping on the idle deadline.
		cn.quietSince = cn.lastUse
		cn.armReadDeadline()
	}
	cn.mu.Unlock()

	if n, err := cn.write(ctx, frame); err != nil {
		if n == 0 && ctx.Err() != nil {
			cn.forget(id) // nothing was sent: the connection is intact
			return nil, ctx.Err()
		}
		return cn.writeFailed(ctx, ch, err)
	}
	return cn.await(ctx, id, ch, w)
}

// await waits for the call's reply, the end of ctx, or the end of its quiet time.
func (cn *conn) await(ctx context.Context, id int32, ch chan callResult, w wait) (*response, error) {
	var alarm <-chan time.Time
	if w.quiet > 0 {
		t := time.NewTimer(time.Until(cn.silentUntil(w)))
		defer t.Stop()
		alarm = t.C
	}
	for {
		select {
		case res := <-ch:
			return res.r, res.err
		case <-ctx.Done():
			cn.forget(id) // a late reply is dropped by deliver
			return nil, ctx.Err()
		case <-alarm:
			if left := time.Until(cn.silentUntil(w)); left > 0 {
				alarm = time.After(left) // bytes came meanwhile: the answer is on its way
				continue
			}
			cn.fail(&ConnError{Addr: cn.c.addr, Op: "read", Err: &SilenceError{After: w.quiet}})
			res := <-ch // the failure, or a reply delivered just before it
			return res.r, res.err
		}
	}
}

// silentUntil is when the call's quiet time ends if nothing more is read.
func (cn *conn) silentUntil(w wait) time.Time {
	cn.mu.Lock()
	defer cn.mu.Unlock()
	from := w.start
	if cn.lastRead.After(from) {
		from = cn.lastRead
	}
	return from.Add(w.quiet)
}

// writeFailGrace is how long a failed write waits for the reader to report
// why the server closed the connection.
const writeFailGrace = 200 * time.Millisecond

// writeFailed handles a write that left the stream unusable. The server may
// have closed the socket after a FATAL reply that still sits in our receive
// buffer (a Kerberos-only server does this right after the preamble), so the
// reader gets a moment to deliver that more precise error first.
func (cn *conn) writeFailed(ctx context.Context, ch chan callResult, err error) (*response, error) {
	select {
	case <-cn.done:
	case <-time.After(writeFailGrace):
	case <-ctx.Done():
	}
	cn.fail(&ConnError{Addr: cn.c.addr, Op: "write", Err: err})
	res := <-ch // filled by whichever fail ran first, or by a real reply
	if res.err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return res.r, res.err
}

// write sends one frame under the write lock; n is how much of it went out.
func (cn *conn) write(ctx context.Context, frame []byte) (int, error) {
	cn.wmu.Lock()
	defer cn.wmu.Unlock()
	restore := interruptOnDone(ctx, cn.nc.SetWriteDeadline)
	defer restore()
	return cn.nc.Write(frame)
}

func (cn *conn) forget(id int32) {
	cn.mu.Lock()
	delete(cn.pending, id)
	cn.mu.Unlock()
}

func (cn *conn) deliver(id int32, res callResult) {
	cn.mu.Lock()
	ch := cn.pending[id]
	delete(cn.pending, id)
	cn.lastUse = time.Now()
	cn.mu.Unlock()
	if ch != nil {
		ch <- res
	}
}

// fail closes the connection and fails every outstanding call with err.
func (cn *conn) fail(err error) {
	cn.mu.Lock()
	if cn.closed {
		cn.mu.Unlock()
		return
	}
	cn.closed = true
	cn.err = err
	pending := cn.pending
	cn.pending = map[int32]chan callResult{}
	cn.mu.Unlock()
	cn.nc.Close()
	for _, ch := range pending {
		ch <- callResult{err: err}
	}
}

// close fails the connection and waits for its reader to exit.
func (cn *conn) close(err error) {
	cn.fail(err)
	<-cn.done
}

func (cn *conn) readLoop() {
	defer close(cn.done)
	br := bufio.NewReader(pingReader{cn})
	for first := true; ; first = false {
		r, err := readResponse(br, cn.c.opts.MaxResponseLength, first)
		if err != nil {
			var re *RemoteError
			if !errors.As(err, &re) {
				err = &ConnError{Addr: cn.c.addr, Op: "read", Err: err}
			}
			cn.fail(err)
			return
		}
		if !cn.dispatch(r) {
			return
		}
	}
}

// dispatch routes one reply; it returns false when the connection is over.
func (cn *conn) dispatch(r *response) bool {
	h := r.header
	if len(h.GetClientId()) > 0 && !bytes.Equal(h.GetClientId(), cn.c.opts.ClientID) {
		cn.fail(&ConnError{Addr: cn.c.addr, Op: "read", Err: fmt.Errorf("%w: client IDs not matched", ErrBadResponse)})
		return false
	}
	// callId is uint32 on the wire; negative ids arrive as large values
	// (docs/hadoop-rpc.md#encoding-pitfalls).
	id := int32(h.GetCallId())
	switch h.GetStatus() {
	case hadooppb.RpcResponseHeaderProto_SUCCESS:
		cn.deliver(id, callResult{r: r})
	case hadooppb.RpcResponseHeaderProto_ERROR:
		cn.deliver(id, callResult{err: remoteError(h)})
	default: // FATAL: the server closes the connection after this reply
		cn.fail(remoteError(h))
		return false
	}
	return true
}

func remoteError(h *hadooppb.RpcResponseHeaderProto) *RemoteError {
	return &RemoteError{
		Class:   h.GetExceptionClassName(),
		Message: h.GetErrorMsg(),
		Detail:  h.GetErrorDetail(),
		Fatal:   h.GetStatus() == hadooppb.RpcResponseHeaderProto_FATAL,
	}
}
