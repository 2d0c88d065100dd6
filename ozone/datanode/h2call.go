package datanode

import (
	"context"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/dnecho/dnecho/ozone/datanode/h2"
)

// h2Reply is a reply as package h2 delivers it: the message without its payload, and its size.
type h2Reply struct {
	msg   h2.Reply
	reply reply
}

// h2Replies recycles the replies of new-stream h2 calls (a reused stream keeps its own).
var h2Replies = sync.Pool{New: func() any { return new(h2Reply) }}

// check judges the received message as the grpc-go codec does (wire.go), with grpc-go's error
// for one it cannot parse.
func (r *h2Reply) check() error {
	if err := r.reply.check(r.msg.Fields, r.msg.Size); err != nil {
		return status.Errorf(codes.Internal, "grpc: failed to unmarshal the received message: %v", err)
	}
	return nil
}

// callH2 is callNewStream over package h2: the same attempt (a new stream with grpc-timeout,
// one request, half-closed; the first response completes it) with the same outcomes. The end
// of the stream is read by the connection's reader, not waited for.
func (c *Client) callH2(ctx context.Context, m *member, res *Result, req *encoded) error {
	r := h2Replies.Get().(*h2Reply)
	defer h2Replies.Put(r)
	if err := m.h2.RoundTrip(ctx, callTimeout(ctx, c.opts.Timeout), req.framed, &r.msg); err != nil {
		return m.recvFailure(res, err)
	}
	res.answered = time.Now()
	if err := r.check(); err != nil {
		return m.grpcFailure(res, err)
	}
	return m.response(res, &r.reply)
}
