// Command rawecho is the floor for `make bench`: the smallest grpc-go loop that sends the same Echo
// request to one DataNode, with no retries, no statistics beyond a counter and no error
// classification. dnecho's CPU per call is reported as a ratio to this program's.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/proto/dnpb"
)

// oneCall is one Echo on a new stream: send, half-close, receive, read the end of the stream.
func oneCall(ctx context.Context, client dnpb.XceiverClientProtocolServiceClient, req *dnpb.ContainerCommandRequestProto, deadline time.Duration) bool {
	if deadline > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, deadline)
		defer cancel()
	}
	s, err := client.Send(ctx)
	if err != nil {
		return false
	}
	if err := s.Send(req); err != nil {
		return false
	}
	_ = s.CloseSend()
	resp, err := s.Recv()
	if err != nil || resp.GetResult() != dnpb.Result_SUCCESS {
		return false
	}
	_, _ = s.Recv() // io.EOF: the stream is over
	return true
}

func main() {
	addr := flag.String("addr", "127.0.0.1:9859", "DataNode address")
	uuid := flag.String("uuid", "", "DataNode uuid")
	container := flag.Int64("container", 1, "container id")
	n := flag.Int("n", 100000, "calls")
	threads := flag.Int("t", 1, "goroutines")
	reuse := flag.Bool("reuse", false, "one stream per goroutine instead of one per call")
	respKB := flag.Int("resp-kb", 0, "response payload KiB")
	// Java sends every Echo with a deadline (grpc-timeout header, ozone.client.read.timeout), so
	// the floor does too by default: both then put the same bytes on the wire.
	deadline := flag.Duration("deadline", 30*time.Second, "per-call deadline (0: none)")
	flag.Parse()

	cc, err := grpc.NewClient(*addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(32<<20)))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer cc.Close()
	client := dnpb.NewXceiverClientProtocolServiceClient(cc)
	req := &dnpb.ContainerCommandRequestProto{
		CmdType: dnpb.Type_Echo.Enum(), TraceID: proto.String(""), ContainerID: container,
		DatanodeUuid: uuid, Version: proto.Uint32(3),
		Echo: &dnpb.EchoRequestProto{Payload: []byte{}, PayloadSizeResp: proto.Int32(int32(*respKB * 1024)),
			SleepTimeMs: proto.Int32(0), ReadOnly: proto.Bool(true)},
	}
	var next, failed atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < *threads; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			var stream grpc.BidiStreamingClient[dnpb.ContainerCommandRequestProto, dnpb.ContainerCommandResponseProto]
			for next.Add(1) <= int64(*n) {
				if *reuse {
					if stream == nil {
						s, err := client.Send(ctx)
						if err != nil {
							failed.Add(1)
							continue
						}
						stream = s
					}
					if err := stream.Send(req); err != nil {
						failed.Add(1)
						stream = nil
						continue
					}
					if resp, err := stream.Recv(); err != nil || resp.GetResult() != dnpb.Result_SUCCESS {
						failed.Add(1)
						stream = nil
					}
					continue
				}
				if !oneCall(ctx, client, req, *deadline) {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	fmt.Printf("calls=%d failed=%d seconds=%.3f calls_per_s=%.1f\n", *n, failed.Load(), el.Seconds(), float64(*n)/el.Seconds())
}
