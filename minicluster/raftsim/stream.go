package raftsim

import (
	"context"
	"errors"
	"io"
	"slices"
	"sync"

	"google.golang.org/grpc"

	"github.com/dnecho/dnecho/proto/ratispb"
)

// orderedStream is one ordered stream as a Ratis server handles it (Ratis: ratis-grpc/src/main/
// java/org/apache/ratis/grpc/server/GrpcClientProtocolService.java and ratis-common/src/main/
// java/org/apache/ratis/util/SlidingWindow.java): the first request with isFirst fixes the next
// sequence number, requests are taken strictly in order (early ones wait, duplicates are
// dropped, nothing behind a gap is ever taken), a read is taken only after the previous read
// has finished, and replies leave strictly in sequence order.
//
// run's goroutine owns the window (the fields up to busy) and sends every reply; a receiving
// goroutine feeds it requests, reads and watches run in goroutines of their own (wg), and writes
// complete through retry-cache subscriptions.
type orderedStream struct {
	svc *Service
	ss  grpc.BidiStreamingServer[ratispb.RaftClientRequestProto, ratispb.RaftClientReplyProto]
	ctx context.Context
	wg  sync.WaitGroup

	g        *Group
	m        *member
	num      uint64 // the stream's number in its group (Received.Stream)
	started  bool
	next     uint64
	buffered map[uint64]*ratispb.RaftClientRequestProto
	busy     bool // a read is running

	readDone chan error    // a read finished (with the error that ends the stream); capacity 1
	wake     chan struct{} // a reply is ready; capacity 1
	down     chan struct{} // closed when the member stepped down
	downOnce sync.Once

	mu    sync.Mutex
	queue []*slot // taken requests in sequence order
}

// slot is a taken request and, once known, its reply.
type slot struct {
	rpc   *ratispb.RaftRpcRequestProto
	reply *ratispb.RaftClientReplyProto
	never bool // a sequence number sent again: stored, never answered, blocks what follows
}

func newOrderedStream(s *Service, ss grpc.BidiStreamingServer[ratispb.RaftClientRequestProto, ratispb.RaftClientReplyProto]) *orderedStream {
	return &orderedStream{svc: s, ss: ss, buffered: map[uint64]*ratispb.RaftClientRequestProto{},
		readDone: make(chan error, 1), wake: make(chan struct{}, 1), down: make(chan struct{})}
}

type received struct {
	req *ratispb.RaftClientRequestProto
	err error
}

// run serves the stream until the client half-closes and every taken request is answered
// (status OK), the member steps down (unanswered requests get NotLeader, then OK), a request
// breaks a rule (an error status), or the client goes away.
func (st *orderedStream) run() error {
	ctx, cancel := context.WithCancel(st.ss.Context())
	st.ctx = ctx
	halfClosed := false
	defer func() {
		cancel()
		st.wg.Wait()
		if st.g != nil {
			st.g.removeStream(st, st.ending(halfClosed))
		}
	}()
	in := make(chan received)
	// The receiver is not waited for: it is blocked in RecvMsg until the handler returns, and
	// ends right after (it sends nothing once ctx is cancelled).
	go st.receive(in)
	for {
		reqs := in
		if st.busy || halfClosed {
			reqs = nil
		}
		select {
		case r := <-reqs:
			if errors.Is(r.err, io.EOF) {
				halfClosed = true
				if err := st.closeWindow(); err != nil {
					return err
				}
			} else if r.err != nil {
				return r.err
			} else if err := st.onRequest(r.req); err != nil {
				return err
			}
		case err := <-st.readDone:
			st.busy = false
			if err != nil {
				return st.fail(err)
			}
			if err := st.takeReady(); err != nil {
				return err
			}
		case <-st.wake:
		case <-st.down:
		case <-ctx.Done():
			return ctx.Err()
		}
		empty, err := st.flush()
		if err != nil {
			return err
		}
		if empty && (halfClosed || st.steppedDown()) {
			return nil
		}
	}
}

// ending says how the stream ended, once run is about to return: the client's stream context
// ends when it cancels (RST_STREAM) or its connection goes away, which a real DataNode logs as a
// WARN ("OrderedRequestStreamObserver…: onError: …CANCELLED: client cancelled"; Ratis:
// GrpcClientProtocolService.OrderedRequestStreamObserver.onError).
func (st *orderedStream) ending(halfClosed bool) streamEnd {
	switch {
	case st.ss.Context().Err() != nil:
		return endCancelled
	case halfClosed:
		return endHalfClosed
	}
	return endByServer
}

// receive feeds run the client's requests until the stream ends.
func (st *orderedStream) receive(in chan<- received) {
	for {
		req := new(ratispb.RaftClientRequestProto)
		err := st.ss.RecvMsg(req)
		select {
		case in <- received{req: req, err: err}:
		case <-st.ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

// flush sends the replies at the head of the queue, in order; empty says the queue is empty.
func (st *orderedStream) flush() (empty bool, err error) {
	for {
		st.mu.Lock()
		if len(st.queue) == 0 || st.queue[0].reply == nil {
			empty = len(st.queue) == 0
			st.mu.Unlock()
			return empty, nil
		}
		r := st.queue[0].reply
		st.queue = st.queue[1:]
		st.mu.Unlock()
		if err := st.ss.Send(r); err != nil {
			return false, err
		}
	}
}

// signal wakes run to send replies.
func (st *orderedStream) signal() {
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

// answer sets s's reply unless it has one (a step-down may have answered it first).
func (st *orderedStream) answer(s *slot, r *ratispb.RaftClientReplyProto) {
	st.mu.Lock()
	if s.reply == nil && !s.never {
		s.reply = r
	}
	st.mu.Unlock()
	st.signal()
}

// closeWindow handles the client's half-close: requests that can never be taken (behind a gap,
// or without a first request) are answered at once, out of order, with AlreadyClosed; taken
// ones still get their replies.
func (st *orderedStream) closeWindow() error {
	seqs := make([]uint64, 0, len(st.buffered))
	for s := range st.buffered {
		seqs = append(seqs, s)
	}
	slices.Sort(seqs)
	for _, s := range seqs {
		if err := st.ss.Send(alreadyClosed(st, st.buffered[s])); err != nil {
			return err
		}
		delete(st.buffered, s)
	}
	return nil
}

// stepDown answers every unanswered request with NotLeader; run then ends the stream with OK.
func (st *orderedStream) stepDown() {
	st.mu.Lock()
	var open []*slot
	for _, s := range st.queue {
		if s.reply == nil && !s.never {
			open = append(open, s)
		}
	}
	st.mu.Unlock()
	g, m := st.g, st.m
	for _, s := range open {
		g.mu.Lock()
		r := g.notLeaderLocked(m, [16]byte(s.rpc.GetRequestorId()), s.rpc)
		g.mu.Unlock()
		st.answer(s, r)
	}
	st.downOnce.Do(func() { close(st.down) })
}

func (st *orderedStream) steppedDown() bool {
	select {
	case <-st.down:
		return true
	default:
		return false
	}
}
