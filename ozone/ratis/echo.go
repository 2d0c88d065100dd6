package ratis

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/proto/dnpb"
	"github.com/dnecho/dnecho/proto/ratispb"
)

// call is one request of the client's window, sent (again) on each new stream until answered.
type call struct {
	id       uint64
	seq      uint64 // sliding-window sequence number, kept on every stream (Ratis: OrderedAsync)
	typ      reqType
	msg      *ratispb.ClientMessageEntryProto // nil for the watch
	replied  []uint64                         // the repliedCallIds it carries on every attempt
	created  time.Time
	counts   [numFailures]int // failures by class
	attempts int
	sent     int          // bytes over all attempts
	done     chan outcome // capacity 1; nil for the watch, which nobody waits for
	finished bool
}

// outcome ends a call.
type outcome struct {
	resp     *dnpb.ContainerCommandResponseProto
	err      error
	node     datanode.DataNode
	at       time.Time // when the reply arrived (zero: none did)
	received int
}

// Echo sends p once and waits for its reply, as Ozone's XceiverClientRatis.sendCommand does:
// the call takes one of MaxOutstanding slots, joins the client's window, and is resent on a new
// stream after NotLeader, LeaderNotReady, a broken stream or a timeout until the retry policy
// gives up. The Result's RTT runs from the call (before the slot wait) to the reply that ended
// it. The error is nil on SUCCESS, a *datanode.EchoError for another Ozone result, an *Error for
// a Raft exception, a *StreamError for a broken stream, or the context's error.
func (c *Client) Echo(ctx context.Context, p *Prepared) (datanode.Result, error) {
	if p == nil || p.client != c {
		return datanode.Result{}, fmt.Errorf("ratis: request prepared by another client")
	}
	start := time.Now()
	select {
	case c.slots <- struct{}{}:
		defer func() { <-c.slots }()
	case <-ctx.Done():
		return c.failed(start, nil, ctx.Err())
	}
	k := &call{typ: p.typ, msg: p.msg, created: start, done: make(chan outcome, 1)}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return c.failed(start, nil, ErrClosed)
	}
	if !c.watched {
		// Java's first async request is a watch for index 0; the Echo waits for its reply.
		c.watched = true
		select {
		case c.slots <- struct{}{}:
			c.submitLocked(&call{typ: typeWatch, created: start})
		default: // every slot taken: skip the watch rather than block under the lock
		}
	}
	c.submitLocked(k)
	c.mu.Unlock()
	timer := time.NewTimer(c.opts.RequestTimeout)
	defer timer.Stop()
	for {
		select {
		case o := <-k.done:
			return result(start, k, o)
		case <-ctx.Done():
			c.abandon(k)
			return c.failed(start, k, ctx.Err())
		case <-timer.C:
			c.timedOut(k)
			timer.Reset(c.opts.RequestTimeout)
		}
	}
}

// result turns an outcome into the call's Result.
func result(start time.Time, k *call, o outcome) (datanode.Result, error) {
	r := datanode.Result{DataNode: o.node, BytesSent: k.sent, BytesReceived: o.received, Attempts: k.attempts, RTT: time.Since(start)}
	if !o.at.IsZero() {
		r.RTT = o.at.Sub(start)
	}
	if o.err != nil {
		st := status.Convert(o.err)
		r.GRPCCode, r.Message = st.Code(), st.Message()
		var e *Error
		switch {
		case errors.As(o.err, &e):
			r.GRPCCode, r.Message = codes.OK, e.Message
		case errors.Is(o.err, ErrClosed):
			r.GRPCCode = codes.Canceled
		}
		return r, o.err
	}
	r.GRPCCode, r.Code = codes.OK, o.resp.GetResult()
	if r.Code != dnpb.Result_SUCCESS {
		r.Message = o.resp.GetMessage()
		return r, &datanode.EchoError{DataNode: o.node, Code: r.Code, Message: r.Message}
	}
	return r, nil
}

// failed is the Result of a call that ended without a reply for a local reason.
func (c *Client) failed(start time.Time, k *call, err error) (datanode.Result, error) {
	r := datanode.Result{RTT: time.Since(start)}
	if k != nil {
		r.Attempts, r.BytesSent = k.attempts, k.sent
	}
	st := status.FromContextError(err)
	if err == ErrClosed {
		st = status.New(codes.Canceled, err.Error())
	}
	r.GRPCCode, r.Message = st.Code(), st.Message()
	return r, err
}

// submitLocked adds a new request to the window and sends it when the stream allows.
func (c *Client) submitLocked(k *call) {
	c.nextCall++
	k.id = c.nextCall
	c.nextSeq++
	k.seq = c.nextSeq
	k.replied, c.replied = c.replied, nil
	c.window = append(c.window, k)
	switch {
	case c.st != nil:
		c.st.submitLocked(k)
	case c.retryTimer == nil:
		c.openLocked()
	}
}

// renumberLocked moves k and every later call of the window down so that k gets seq. Only a
// call its caller gave up leaves such a gap (Java's calls cannot be given up); a server would
// hold everything behind it forever. The calls moved have not been sent on the current stream.
func (c *Client) renumberLocked(k *call, seq uint64) {
	d := k.seq - seq
	for _, w := range c.window[slices.Index(c.window, k):] {
		w.seq -= d
	}
	c.nextSeq -= d
}

// finishLocked ends a call (once) and takes it out of the window and the stream.
func (c *Client) finishLocked(k *call, o outcome) {
	if k.finished {
		return
	}
	k.finished = true
	if i := slices.Index(c.window, k); i >= 0 {
		c.window = slices.Delete(c.window, i, i+1)
	}
	if c.st != nil {
		delete(c.st.inflight, k.id)
	}
	if k.done != nil {
		k.done <- o
	} else {
		<-c.slots // the watch's slot
	}
}

// abandon drops a call whose caller gave up; a reply that still comes is ignored.
func (c *Client) abandon(k *call) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.finishLocked(k, outcome{})
}

// timedOut handles a call without a reply after RequestTimeout: when it is in flight, the
// stream is given up and the window resent as after any failure (Java fails the request with a
// timeout and retries it per the policy).
func (c *Client) timedOut(k *call) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st := c.st; st != nil && st.inflight[k.id] == k && !k.finished {
		c.resetLocked(st, failTimeout, &StreamError{DataNode: st.peer.node, Code: codes.DeadlineExceeded,
			Description: fmt.Sprintf("no reply to call %d within %s", k.id, c.opts.RequestTimeout)}, nil, nil)
	}
}
