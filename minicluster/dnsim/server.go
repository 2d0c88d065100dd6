package dnsim

import (
	"errors"
	"io"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/keepalive"

	"github.com/dnecho/dnecho/proto/dnpb"
)

func (d *DataNode) newServer() *grpc.Server {
	opts := []grpc.ServerOption{
		grpc.MaxRecvMsgSize(MaxMessageSize),
		// Stop must not return while a handler still runs: tests check for
		// leaked goroutines, and Restart reuses the port.
		grpc.WaitForHandlers(true),
		streamWorkers,
	}
	if d.tls != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(d.tls.serverConfig())))
	}
	if d.maxConnectionAge > 0 {
		opts = append(opts, grpc.KeepaliveParams(keepalive.ServerParameters{MaxConnectionAge: d.maxConnectionAge}))
	}
	srv := grpc.NewServer(opts...)
	dnpb.RegisterXceiverClientProtocolServiceServer(srv, xceiver{d: d})
	return srv
}

// streamWorkers serves streams on long-lived goroutines instead of a new one per stream. A new
// stream per call is what freon's Java client does, and a fresh goroutine grew its stack for the
// handler on every call: about a tenth of the emulator's CPU (runtime.newstack, copystack), which
// the load tools on the same machine then lack. Streams beyond the workers get a goroutine each,
// as without the option.
var streamWorkers = grpc.NumStreamWorkers(64)

// xceiver implements the DataNode's XceiverClientProtocolService.
type xceiver struct {
	dnpb.UnimplementedXceiverClientProtocolServiceServer
	d *DataNode
}

// Send serves one stream the way GrpcXceiverService does (docs/ozone-echo.md#stream-handling): each
// request is dispatched synchronously and answered before the next is read,
// so responses keep request order; the stream ends with OK when the client
// half-closes.
func (x xceiver) Send(stream grpc.BidiStreamingServer[dnpb.ContainerCommandRequestProto, dnpb.ContainerCommandResponseProto]) error {
	d := x.d
	d.stats.streams.Add(1)
	ctx := stream.Context()
	for {
		// The codec's proto.Unmarshal enforces proto2 required fields, so a
		// request without cmdType, containerID or datanodeUuid fails here
		// with a gRPC error, like the Java parser on a real DataNode.
		req := new(dnpb.ContainerCommandRequestProto)
		if err := stream.RecvMsg(req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		d.stats.calls.Add(1)
		resp, err := d.inject(ctx, req)
		if err == nil && resp == nil {
			resp, err = d.dispatch(ctx, req)
		}
		if err != nil {
			return err
		}
		if resp.GetResult() == dnpb.Result_SUCCESS {
			d.stats.successes.Add(1)
		} else {
			d.stats.failures.Add(1)
		}
		if err := stream.Send(resp); err != nil {
			return err
		}
		if delay := d.Faults().EndDelay; delay > 0 {
			t := time.NewTimer(delay)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			}
		}
	}
}
