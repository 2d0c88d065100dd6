package hadooprpc_test

import (
	"testing"

	"github.com/dnecho/dnecho/minicluster/rpcserver"
	"github.com/dnecho/dnecho/ozone/hadooprpc"
)

// BenchmarkCall measures one loopback round trip through client and server.
func BenchmarkCall(b *testing.B) {
	c := newTestClient(b, echoServer(b, rpcserver.Options{}, nil), hadooprpc.Options{})
	ctx := testCtx(b)
	if _, err := echo(ctx, c, "warm", ""); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := echo(ctx, c, "ping", ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallParallel measures multiplexed calls from many goroutines.
func BenchmarkCallParallel(b *testing.B) {
	c := newTestClient(b, echoServer(b, rpcserver.Options{}, nil), hadooprpc.Options{})
	ctx := testCtx(b)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := echo(ctx, c, "ping", ""); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
