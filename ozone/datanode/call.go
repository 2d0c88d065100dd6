package datanode

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/dnecho/dnecho/proto/dnpb"
)

// The one method Echo uses (Ozone: DatanodeClientProtocol.proto,
// XceiverClientProtocolService.send, bidirectional streaming). Calling
// NewStream directly skips the generated client's per-call option slice.
var (
	sendDesc   = &dnpb.XceiverClientProtocolService_ServiceDesc.Streams[0]
	sendMethod = dnpb.XceiverClientProtocolService_Send_FullMethodName
)

// callNewStream is one attempt the Java way
// (docs/ozone-echo.md#one-stream-per-request): a new stream with the
// attempt's deadline as grpc-timeout, one request, an immediate half-close,
// and the first response completes the call (RTT ends there). The end of the
// stream is then read, as grpc-java's transport does after the call
// completed: the DataNode sends its trailers right after the response (the
// request was already half-closed), so this costs no wait and spares the
// RST_STREAM a cancelled, unfinished stream would cost both sides. A DataNode
// that never ends the stream holds it until the attempt deadline. With the h2
// transport every attempt comes here (Echo knows only grpc-go's pool) and goes
// to h2call.go or, on a reused stream, h2pool.go.
func (c *Client) callNewStream(ctx context.Context, m *member, res *Result, req *encoded) error {
	if m.h2s != nil {
		return m.h2s.call(ctx, res, req)
	}
	if m.h2 != nil {
		return c.callH2(ctx, m, res, req)
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	cs, err := m.conn.NewStream(ctx, sendDesc, sendMethod)
	if err != nil {
		return m.grpcFailure(res, err)
	}
	// On io.EOF the stream is already over and RecvMsg reports why.
	if err := cs.SendMsg(req); err == nil {
		_ = cs.CloseSend() // never fails for client streams
	} else if !errors.Is(err, io.EOF) {
		return m.grpcFailure(res, err)
	}
	resp := replies.Get().(*reply)
	defer replies.Put(resp)
	if err := cs.RecvMsg(resp); err != nil {
		return m.recvFailure(res, err)
	}
	res.answered = time.Now()
	err = m.response(res, resp)
	_ = cs.RecvMsg(resp) // normally io.EOF at once; resp has been read
	return err
}

// response records a DataNode answer. A non-SUCCESS result is a failure, as
// the Java client's response validator makes it one (docs/ozone-echo.md#retries-across-members).
func (m *member) response(res *Result, resp *reply) error {
	res.BytesReceived += resp.size
	res.GRPCCode = codes.OK
	res.Code = resp.result
	if res.Code == dnpb.Result_SUCCESS {
		res.Message = ""
		return nil
	}
	res.Message = resp.message
	return &EchoError{DataNode: m.node, Code: res.Code, Message: res.Message}
}

// recvFailure records a stream that ended without a response.
func (m *member) recvFailure(res *Result, err error) error {
	if errors.Is(err, io.EOF) {
		res.Code, res.GRPCCode, res.Message = 0, codes.OK, ErrNoReply.Error()
		return fmt.Errorf("datanode %s (%s): %w", m.node.UUID, m.node.Addr, ErrNoReply)
	}
	return m.grpcFailure(res, err)
}

// grpcFailure records a gRPC error; the returned error keeps the status
// (status.Code works on it).
func (m *member) grpcFailure(res *Result, err error) error {
	st := status.Convert(err)
	res.Code, res.GRPCCode, res.Message = 0, st.Code(), st.Message()
	return fmt.Errorf("datanode %s (%s): echo: %w", m.node.UUID, m.node.Addr, err)
}

// newStream opens a stream for StreamReused.
func (m *member) newStream(ctx context.Context) (grpc.ClientStream, error) {
	return m.conn.NewStream(ctx, sendDesc, sendMethod)
}
