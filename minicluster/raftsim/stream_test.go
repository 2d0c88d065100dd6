package raftsim_test

import (
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/dnecho/dnecho/minicluster/raftsim"
	"github.com/dnecho/dnecho/proto/hddspb"
	"github.com/dnecho/dnecho/proto/ratispb"
	"github.com/dnecho/dnecho/testsupport/testwait"
)

// TestStreamErrors: requests a real DataNode cannot take end the stream with INTERNAL and the
// Java exception class in the exception-type trailer.
func TestStreamErrors(t *testing.T) {
	p := startPipeline(t, raftsim.GroupOptions{}, dns(1)...)
	other := hddspb.NewRandomUUID()
	tests := []struct {
		name  string
		edit  func(r *raw, q *ratispb.RaftClientRequestProto)
		class string
	}{
		{"no sliding window entry", func(_ *raw, q *ratispb.RaftClientRequestProto) { q.RpcRequest.SlidingWindowEntry = nil }, ratispb.ClassNullPointer},
		{"short client id", func(_ *raw, q *ratispb.RaftClientRequestProto) { q.RpcRequest.RequestorId = []byte{1} }, ratispb.ClassIllegalState},
		{"empty reply id", func(_ *raw, q *ratispb.RaftClientRequestProto) { q.RpcRequest.ReplyId = nil }, ratispb.ClassIllegalState},
		{"no type", func(_ *raw, q *ratispb.RaftClientRequestProto) { q.Type = nil }, ratispb.ClassIllegalArgument},
		{"unknown group", func(_ *raw, q *ratispb.RaftClientRequestProto) { q.RpcRequest.RaftGroupId.Id = other[:] }, ratispb.ClassGroupMismatch},
		{"content too short", func(_ *raw, q *ratispb.RaftClientRequestProto) { q.Message.Content = []byte{0, 0, 0, 9, 1} }, ratispb.ClassIndexOutOfBounds},
		{"content does not parse", func(_ *raw, q *ratispb.RaftClientRequestProto) { q.Message.Content = ratispb.WrapEcho([]byte{0xff}) }, ratispb.ClassInvalidProtocolBuffer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := p.open(t, 0)
			q := r.request(1, 1, true, write, nil)
			tt.edit(r, q)
			r.send(q)
			if code, class := r.streamError(); code != codes.Internal || class != tt.class {
				t.Fatalf("stream ended with %v, exception-type %q; want INTERNAL, %q", code, class, tt.class)
			}
		})
	}
	t.Run("second group on one stream", func(t *testing.T) {
		r := p.open(t, 0)
		r.send(r.request(1, 1, true, read, nil))
		if rep := r.recv(); !rep.GetRpcReply().GetSuccess() {
			t.Fatalf("first read: %v", rep)
		}
		q := r.request(2, 2, false, read, nil)
		q.RpcRequest.RaftGroupId.Id = other[:]
		r.send(q)
		if code, class := r.streamError(); code != codes.Internal || class != ratispb.ClassGroupMismatch {
			t.Fatalf("stream ended with %v %q", code, class)
		}
	})
	if p.g.Stats().StreamErrors == 0 {
		t.Error("stream errors not counted")
	}
}

// TestWindow: nothing is taken before a first request, nothing behind a gap, and both are
// answered with AlreadyClosed ("will NEVER be processed") once the client half-closes.
func TestWindow(t *testing.T) {
	p := startPipeline(t, raftsim.GroupOptions{}, dns(1)...)
	t.Run("no first request", func(t *testing.T) {
		r := p.open(t, 0)
		r.send(r.request(5, 2, false, read, nil))
		replies := r.end()
		if len(replies) != 1 || replies[0].GetRpcReply().GetCallId() != 5 || !strings.Contains(replies[0].GetAlreadyClosedException().GetErrorMsg(), "will NEVER be processed") {
			t.Fatalf("replies %v", replies)
		}
	})
	t.Run("gap", func(t *testing.T) {
		r := p.open(t, 0)
		r.send(r.request(1, 1, true, read, nil))
		r.send(r.request(3, 3, false, read, nil))
		replies := r.end()
		if len(replies) != 2 || replies[0].GetRpcReply().GetCallId() != 1 || !replies[0].GetRpcReply().GetSuccess() ||
			replies[1].GetRpcReply().GetCallId() != 3 || replies[1].GetAlreadyClosedException() == nil {
			t.Fatalf("replies %v", replies)
		}
	})
	t.Run("early and duplicate requests wait for their turn", func(t *testing.T) {
		r := p.open(t, 0)
		r.send(r.request(12, 12, false, read, nil)) // before the first: buffered
		r.send(r.request(12, 12, false, read, nil)) // duplicate: dropped
		r.send(r.request(11, 11, true, read, nil))
		replies := r.end()
		if len(replies) != 2 || replies[0].GetRpcReply().GetCallId() != 11 || replies[1].GetRpcReply().GetCallId() != 12 {
			t.Fatalf("replies %v", replies)
		}
	})
	t.Run("replies in sequence order", func(t *testing.T) {
		r := p.open(t, 0)
		r.send(r.request(1, 1, true, write, echo(1, 50, false))) // slow write first
		r.send(r.request(2, 2, false, read, nil))                // quick read waits for it
		replies := r.end()
		if len(replies) != 2 || replies[0].GetRpcReply().GetCallId() != 1 || replies[0].GetLogIndex() == 0 ||
			replies[1].GetRpcReply().GetCallId() != 2 || !replies[1].GetRpcReply().GetSuccess() {
			t.Fatalf("replies %v", replies)
		}
	})
}

// TestStreamEnds: the group tells a stream the client half-closed (as the Java client ends its
// streams) from one it cancelled, which a real DataNode logs as a WARN.
func TestStreamEnds(t *testing.T) {
	p := startPipeline(t, raftsim.GroupOptions{}, dns(1)...)
	r := p.open(t, 0)
	r.send(r.request(1, 1, true, read, nil))
	r.recv()
	r.end()
	testwait.Eventually(t, testwait.Timeout, "the half-closed stream gone", func() bool { return p.g.Stats().HalfClosed == 1 })

	r = p.open(t, 0)
	r.send(r.request(1, 1, true, read, nil))
	r.recv()
	r.cancel()
	testwait.Eventually(t, testwait.Timeout, "the cancelled stream gone", func() bool { return p.g.Stats().Cancelled == 1 })
	if s := p.g.Stats(); s.HalfClosed != 1 || s.StreamErrors != 0 {
		t.Fatalf("stats %+v", s)
	}
}
