package dnsim

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/dnpb"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const testUUID = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"

// startDN starts a DataNode on a random loopback port and stops it when the
// test ends.
func startDN(t *testing.T, opts Options) *DataNode {
	t.Helper()
	d, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if err := d.Start("127.0.0.1:0"); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(d.Stop)
	return d
}

// dial connects a plain grpc-go client to d.
func dial(t *testing.T, d *DataNode) *grpc.ClientConn {
	t.Helper()
	creds := insecure.NewCredentials()
	if pem := d.CACertPEM(); pem != nil {
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		creds = credentials.NewTLS(&tls.Config{RootCAs: pool})
	}
	cc, err := grpc.NewClient("passthrough:///"+d.Addr(), grpc.WithTransportCredentials(creds),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxMessageSize), grpc.MaxCallSendMsgSize(MaxMessageSize)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return cc
}

type stream = grpc.BidiStreamingClient[dnpb.ContainerCommandRequestProto, dnpb.ContainerCommandResponseProto]

func openStream(t *testing.T, cc *grpc.ClientConn) (stream, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	s, err := dnpb.NewXceiverClientProtocolServiceClient(cc).Send(ctx)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	return s, cancel
}

// call sends one request on a new stream, half-closes, and returns the first
// response or the stream's error. It does not touch t, so goroutines may use it.
func call(_ *testing.T, cc *grpc.ClientConn, req *dnpb.ContainerCommandRequestProto) (*dnpb.ContainerCommandResponseProto, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := dnpb.NewXceiverClientProtocolServiceClient(cc).Send(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.Send(req); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	_ = s.CloseSend()
	return s.Recv()
}

// echoReq is the V1 request of docs/ozone-echo.md#test-vectors with the given container.
func echoReq(containerID int64) *dnpb.ContainerCommandRequestProto {
	return &dnpb.ContainerCommandRequestProto{
		CmdType:      dnpb.Type_Echo.Enum(),
		TraceID:      proto.String(""),
		ContainerID:  proto.Int64(containerID),
		DatanodeUuid: proto.String(testUUID),
		Version:      proto.Uint32(3),
		Echo: &dnpb.EchoRequestProto{
			Payload:         []byte{},
			PayloadSizeResp: proto.Int32(0),
			SleepTimeMs:     proto.Int32(0),
			ReadOnly:        proto.Bool(true),
		},
	}
}

// rawCodec sends pre-encoded bytes, so tests can put on the wire what a
// strict proto2 marshaller refuses to produce.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(v.([]byte))}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*(v.(*[]byte)) = data.Materialize()
	return nil
}

func (rawCodec) Name() string { return "" }
