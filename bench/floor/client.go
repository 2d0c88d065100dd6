package floor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/dnecho/dnecho/proto/dnpb"
)

// DefaultDeadline is the Java client's deadline of one Echo (ozone.client.read.timeout), which it
// sends as grpc-timeout on every new stream.
const DefaultDeadline = 30 * time.Second

// MaxMessageSize is the 32 MiB message limit of the Java client and the DataNode.
const MaxMessageSize = 32 << 20

// The one method Echo uses (Ozone: DatanodeClientProtocol.proto, XceiverClientProtocolService.send,
// bidirectional streaming), called through ClientConn.NewStream without the generated stub.
var (
	sendDesc   = &dnpb.XceiverClientProtocolService_ServiceDesc.Streams[0]
	sendMethod = dnpb.XceiverClientProtocolService_Send_FullMethodName
)

// ErrNoReply reports a stream that ended without a reply.
var ErrNoReply = errors.New("floor: stream ended without a reply")

// ResultError is a reply whose result is not SUCCESS.
type ResultError struct {
	// Result is the reply's result field.
	Result dnpb.Result
}

func (e *ResultError) Error() string { return "floor: reply result " + e.Result.String() }

// Conn is one gRPC channel (one TCP connection) to a DataNode that sends one fixed request. It is
// safe for concurrent use.
type Conn struct {
	cc       *grpc.ClientConn
	req      *Request
	deadline time.Duration
}

// Options configures a Conn. The zero value sends no deadline and keeps grpc-go's transport
// defaults.
type Options struct {
	// Deadline is sent with every new-stream call as grpc-timeout; 0 sends none. The Java client
	// sends DefaultDeadline.
	Deadline time.Duration
	// Window, when > 0, fixes the HTTP/2 stream and connection flow-control windows at this
	// many bytes (at least 64 KiB), which turns off grpc-go's bandwidth-delay estimation and
	// its PING frames.
	Window int32
}

// Dial builds a Conn to addr (host:port, plaintext) that sends req. It connects on the first call.
func Dial(addr string, req *Request, opts Options) (*Conn, error) {
	dial := []grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.ForceCodecV2(Codec{}), grpc.MaxCallRecvMsgSize(MaxMessageSize)),
		grpc.WithNoProxy(),
	}
	if opts.Window > 0 {
		dial = append(dial, grpc.WithInitialWindowSize(opts.Window), grpc.WithInitialConnWindowSize(opts.Window))
	}
	cc, err := grpc.NewClient("passthrough:///"+addr, dial...)
	if err != nil {
		return nil, fmt.Errorf("floor: dial %s: %w", addr, err)
	}
	return &Conn{cc: cc, req: req, deadline: opts.Deadline}, nil
}

// Close closes the channel; calls in flight fail.
func (c *Conn) Close() error { return c.cc.Close() }

// Call is one Echo the Java way: a new stream with the deadline, the request, a half-close, the
// reply, then the end of the stream, which the DataNode sends right after the reply. reply is
// overwritten; reuse one per goroutine.
func (c *Conn) Call(ctx context.Context, reply *Reply) error {
	if c.deadline > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.deadline)
		defer cancel()
	}
	cs, err := c.cc.NewStream(ctx, sendDesc, sendMethod)
	if err != nil {
		return err
	}
	// On io.EOF the stream is already over and RecvMsg reports why.
	if err := cs.SendMsg(c.req); err == nil {
		_ = cs.CloseSend() // never fails for client streams
	} else if !errors.Is(err, io.EOF) {
		return err
	}
	if err := recv(cs, reply); err != nil {
		return err
	}
	if err := cs.RecvMsg(reply); !errors.Is(err, io.EOF) {
		return fmt.Errorf("floor: want the end of the stream after the reply, got %v", err)
	}
	return nil
}

// recv receives one reply and checks that it is a SUCCESS.
func recv(cs grpc.ClientStream, reply *Reply) error {
	if err := cs.RecvMsg(reply); err != nil {
		if errors.Is(err, io.EOF) {
			return ErrNoReply
		}
		return err
	}
	if reply.Result != dnpb.Result_SUCCESS {
		return &ResultError{Result: reply.Result}
	}
	return nil
}

// Stream is one long-lived stream that sends request after request, each answered before the
// next is sent. It is not safe for concurrent use: give each goroutine its own.
type Stream struct {
	cs     grpc.ClientStream
	cancel context.CancelFunc
	req    *Request
}

// OpenStream opens a stream for reused-stream calls; it has no deadline. Close ends it.
func (c *Conn) OpenStream(ctx context.Context) (*Stream, error) {
	ctx, cancel := context.WithCancel(ctx)
	cs, err := c.cc.NewStream(ctx, sendDesc, sendMethod)
	if err != nil {
		cancel()
		return nil, err
	}
	return &Stream{cs: cs, cancel: cancel, req: c.req}, nil
}

// Call sends the request on the stream and checks the reply; after an error the stream is
// unusable.
func (s *Stream) Call(reply *Reply) error {
	if err := s.cs.SendMsg(s.req); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return recv(s.cs, reply)
}

// Close half-closes the stream, reads its end (the DataNode ends it with OK) and releases it.
func (s *Stream) Close() error {
	defer s.cancel()
	_ = s.cs.CloseSend()
	var r Reply
	if err := s.cs.RecvMsg(&r); !errors.Is(err, io.EOF) {
		return fmt.Errorf("floor: want the end of the stream after the half-close, got %v", err)
	}
	return nil
}
