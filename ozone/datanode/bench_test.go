package datanode

import (
	"context"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/dnecho/dnecho/proto/dnpb"
)

// Benchmarks run the client and one emulated DataNode in one process over
// loopback. Besides ns/op (wall time of a sequential call) they report
// cpu-ns/op, the process CPU time (user+system, client and emulator) per
// call, which is what the raw grpc-go baseline is compared on:
//
//	go test -run '^$' -bench . -benchtime 20000x ./ozone/datanode/
//
// The target is Echo's cpu-ns/op at most 1.15x the baseline of the same
// stream mode.

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measure runs op b.N times and reports CPU per call.
func measure(b *testing.B, op func()) {
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		op()
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}

func BenchmarkEcho(b *testing.B) {
	for _, mode := range []StreamMode{StreamPerRequest, StreamReused} {
		b.Run(string(mode), func(b *testing.B) {
			dns := startDNs(b, holding(1)...)
			c := newClient(b, pipelineOf(dns...), Options{Streams: mode})
			p, err := c.Prepare(Request{ContainerID: 1, ReadOnly: true})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			measure(b, func() {
				if _, err := c.Echo(ctx, p); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkRawGRPC is the baseline: the same request and emulator driven by
// bare grpc-go calls, with the same 30 s deadline per request in
// per-request mode and nothing else (no member logic, no Result).
func BenchmarkRawGRPC(b *testing.B) {
	for _, mode := range []StreamMode{StreamPerRequest, StreamReused} {
		b.Run(string(mode), func(b *testing.B) {
			dns := startDNs(b, holding(1)...)
			cc, err := grpc.NewClient("passthrough:///"+dns[0].Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				b.Fatal(err)
			}
			defer cc.Close()
			req := NewEchoRequest(Request{ContainerID: 1, ReadOnly: true}, dns[0].UUID())
			ctx := context.Background()
			if mode == StreamReused {
				sctx, cancel := context.WithCancel(ctx)
				defer cancel()
				cs, err := cc.NewStream(sctx, sendDesc, sendMethod)
				if err != nil {
					b.Fatal(err)
				}
				measure(b, func() {
					resp := new(dnpb.ContainerCommandResponseProto)
					if err := cs.SendMsg(req); err != nil {
						b.Fatal(err)
					}
					if err := cs.RecvMsg(resp); err != nil {
						b.Fatal(err)
					}
				})
				return
			}
			measure(b, func() {
				cctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
				defer cancel()
				cs, err := cc.NewStream(cctx, sendDesc, sendMethod)
				if err != nil {
					b.Fatal(err)
				}
				resp := new(dnpb.ContainerCommandResponseProto)
				if err := cs.SendMsg(req); err != nil {
					b.Fatal(err)
				}
				_ = cs.CloseSend()
				if err := cs.RecvMsg(resp); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
