package ratis_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/dnecho/dnecho/minicluster/raftsim"
	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/ozone/ratis"
	"github.com/dnecho/dnecho/testsupport/testwait"
)

// TestStreamsEndWithHalfClose: a stream given up after NotLeader and the stream Close ends are
// half-closed and end with the server's OK, as the Java client's do; cancelled streams are what
// a real DataNode logs a WARN for. A server that does not end the stream within CloseTimeout
// has it cancelled.
func TestStreamsEndWithHalfClose(t *testing.T) {
	p := startPipeline(t, raftsim.GroupOptions{}, dns(3)...)
	if err := p.g.TransferLeadership(2); err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, testwait.Timeout, "new leader ready", func() bool { return p.g.Stats().Committed == 2 })
	c, err := ratis.New(p.proto, ratis.Options{Retry: quick})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []datanode.Request{write, read} {
		if res, err := echo(t, c, r); err != nil {
			t.Fatalf("%+v: %+v, %v", r, res, err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	// One stream to the member SCM named, given up after its NotLeader, one to the leader.
	testwait.Eventually(t, testwait.Timeout, "both streams ended", func() bool { s := p.g.Stats(); return s.HalfClosed+s.Cancelled == 2 })
	if s := p.g.Stats(); s.HalfClosed != 2 || s.Cancelled != 0 {
		t.Fatalf("%d streams half-closed, %d cancelled; want 2, 0", s.HalfClosed, s.Cancelled)
	}

	stuck := startPipeline(t, raftsim.GroupOptions{Delays: []time.Duration{0, time.Hour, time.Hour}}, dns(3)...)
	c, err = ratis.New(stuck.proto, ratis.Options{CloseTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := echo(t, c, write)
		done <- err
	}()
	testwait.Eventually(t, testwait.Timeout, "the write logged", func() bool { return stuck.g.Stats().LastIndex == 2 })
	start := time.Now()
	c.Close()
	if err := <-done; !errors.Is(err, ratis.ErrClosed) {
		t.Fatalf("write in flight: %v", err)
	}
	testwait.Eventually(t, testwait.Timeout, "the stream ended", func() bool { return stuck.g.Stats().Cancelled == 1 })
	if took := time.Since(start); took < 50*time.Millisecond || took > testDeadline/2 {
		t.Errorf("Close took %s with a write the server never answers; want about CloseTimeout (50ms)", took)
	}
}

// TestSequenceNumbersKeptOnResend: after a leader change every call is resent with the sequence
// number it was first sent with, the oldest flagged first (Ratis: OrderedAsync,
// SlidingWindow.Client); each stream starts at its oldest call and numbers densely from there.
func TestSequenceNumbersKeptOnResend(t *testing.T) {
	const n = 8
	var rec recorder
	p := startPipeline(t, raftsim.GroupOptions{Delays: []time.Duration{0, time.Hour, time.Hour}, OnRequest: rec.add}, dns(3)...)
	c := newClient(t, p.proto, ratis.Options{Retry: quick})
	if _, err := echo(t, c, read); err != nil { // the watch and a read: seqNum 1 and 2
		t.Fatal(err)
	}
	pw, err := c.Prepare(write)
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range writesAcrossLeaderMove(t, p, c, pw, n) {
		t.Fatal(err)
	}
	streams, seqs := rec.check(t)
	if streams < 2 {
		t.Fatalf("%d streams; want the first leader's and the new leader's", streams)
	}
	for call, s := range seqs {
		if len(s) != 1 || s[0] != call {
			t.Errorf("call %d went out as seqNum %v; want %d on every stream", call, s, call)
		}
	}
}

// TestAbandonedCallLeavesNoGap: a call its caller gave up is not resent; the calls after it move
// down, since a server holds everything behind a missing number.
func TestAbandonedCallLeavesNoGap(t *testing.T) {
	var rec recorder
	p := startPipeline(t, raftsim.GroupOptions{Delays: []time.Duration{0, time.Hour, time.Hour}, OnRequest: rec.add}, dns(3)...)
	c := newClient(t, p.proto, ratis.Options{Retry: quick})
	pw, err := c.Prepare(write)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 3)
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	abandon, giveUp := context.WithCancel(ctx)
	for i, cx := range []context.Context{ctx, abandon, ctx} {
		go func() {
			_, err := c.Echo(cx, pw)
			errs <- err
		}()
		testwait.Eventually(t, testwait.Timeout, "the write logged", func() bool { return p.g.Stats().LastIndex == uint64(2+i) })
	}
	giveUp()
	if err := <-errs; !errors.Is(err, context.Canceled) {
		t.Fatalf("abandoned call: %v", err)
	}
	if err := p.g.TransferLeadership(1); err != nil {
		t.Fatal(err)
	}
	if err := p.g.SetDelay(1, 0); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	// The watch, then calls 2 (kept), 3 (abandoned) and 4 as seqNum 2, 3, 4; on the new
	// leader's stream call 2 keeps seqNum 2 and call 4 moves down to 3.
	if _, seqs := rec.check(t); len(seqs[2]) != 1 || seqs[2][0] != 2 || len(seqs[4]) != 2 || seqs[4][0] != 4 || seqs[4][1] != 3 {
		t.Fatalf("seqNums by call %v; want call 2 as [2], call 4 as [4 3]", seqs)
	}
}

// recorder keeps the requests the members' ordered streams received (GroupOptions.OnRequest).
type recorder struct {
	mu  sync.Mutex
	got []raftsim.Received
}

func (r *recorder) add(x raftsim.Received) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, x)
}

// check asserts what the Java client does on every stream: the first request flagged first,
// the others not, sequence numbers dense from the first. It returns the number of streams and
// the distinct sequence numbers each call id went out with, in order.
func (r *recorder) check(t *testing.T) (streams int, seqs map[uint64][]uint64) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	seqs = map[uint64][]uint64{}
	last := map[uint64]uint64{} // stream → last seqNum
	for _, x := range r.got {
		rpc := x.Req.GetRpcRequest()
		call, w := rpc.GetCallId(), rpc.GetSlidingWindowEntry()
		prev, seen := last[x.Stream]
		switch {
		case !seen && !w.GetIsFirst():
			t.Errorf("stream %d to member %d starts with call %d seqNum %d, not flagged first", x.Stream, x.Member, call, w.GetSeqNum())
		case seen && w.GetIsFirst():
			t.Errorf("stream %d: call %d seqNum %d flagged first after seqNum %d", x.Stream, call, w.GetSeqNum(), prev)
		case seen && w.GetSeqNum() != prev+1:
			t.Errorf("stream %d: call %d seqNum %d after seqNum %d", x.Stream, call, w.GetSeqNum(), prev)
		}
		last[x.Stream] = w.GetSeqNum()
		if s := seqs[call]; len(s) == 0 || s[len(s)-1] != w.GetSeqNum() {
			seqs[call] = append(s, w.GetSeqNum())
		}
	}
	return len(last), seqs
}
