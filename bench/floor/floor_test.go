package floor

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/minicluster/dnsim"
	"github.com/dnecho/dnecho/proto/dnpb"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// startDN starts an emulated DataNode holding container 1 and stops it when the test ends.
func startDN(tb testing.TB) *dnsim.DataNode {
	tb.Helper()
	d, err := dnsim.New(dnsim.Options{Containers: map[int64]int32{1: 0}})
	if err != nil {
		tb.Fatal(err)
	}
	if err := d.Start("127.0.0.1:0"); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(d.Stop)
	return d
}

// dial builds a Conn sending an Echo for container to d, closed when the test ends.
func dial(tb testing.TB, d *dnsim.DataNode, container int64) *Conn {
	tb.Helper()
	req, err := NewRequest(container, d.UUID(), 0)
	if err != nil {
		tb.Fatal(err)
	}
	c, err := Dial(d.Addr(), req, Options{Deadline: DefaultDeadline})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	return c
}

func TestCallNewStreamPerCall(t *testing.T) {
	d := startDN(t)
	c := dial(t, d, 1)
	var reply Reply
	for range 3 {
		if err := c.Call(context.Background(), &reply); err != nil {
			t.Fatal(err)
		}
	}
	if st := d.Stats(); st.Streams != 3 || st.Successes != 3 {
		t.Errorf("DataNode saw %d streams, %d successes; want 3, 3", st.Streams, st.Successes)
	}
	if reply.Result != dnpb.Result_SUCCESS || reply.Size == 0 {
		t.Errorf("reply %+v", reply)
	}
}

func TestCallReusedStream(t *testing.T) {
	d := startDN(t)
	c := dial(t, d, 1)
	s, err := c.OpenStream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var reply Reply
	for range 3 {
		if err := s.Call(&reply); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if st := d.Stats(); st.Streams != 1 || st.Successes != 3 {
		t.Errorf("DataNode saw %d streams, %d successes; want 1, 3", st.Streams, st.Successes)
	}
}

func TestCallReportsResult(t *testing.T) {
	d := startDN(t)
	c := dial(t, d, 7) // not held by the DataNode
	var reply Reply
	err := c.Call(context.Background(), &reply)
	var re *ResultError
	if !errors.As(err, &re) || re.Result != dnpb.Result_CONTAINER_NOT_FOUND {
		t.Fatalf("Call = %v, want a CONTAINER_NOT_FOUND ResultError", err)
	}
	s, err := c.OpenStream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Call(&reply); !errors.As(err, &re) || re.Result != dnpb.Result_CONTAINER_NOT_FOUND {
		t.Fatalf("Stream.Call = %v, want a CONTAINER_NOT_FOUND ResultError", err)
	}
}

func TestCallFailsWithoutDataNode(t *testing.T) {
	d := startDN(t)
	c := dial(t, d, 1)
	d.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Call(ctx, new(Reply)); err == nil {
		t.Fatal("Call to a stopped DataNode: no error")
	}
}

// Benchmarks run the floor and one emulated DataNode in one process over loopback. allocs/op and
// cpu-ns/op (process user+system CPU per call) therefore include the emulator's share;
// BenchmarkGeneratedStub is the same loop through grpc-go's generated stub and proto codec, so the
// difference is what the codec saves. The client's own allocations per call are printed by
// bench/rawecho against a DataNode in another process.
//
//	go test -run '^$' -bench . -benchmem ./bench/floor/

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measure runs op b.N times and reports CPU per call.
func measure(b *testing.B, op func() error) {
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		if err := op(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}

func BenchmarkFloor(b *testing.B) {
	b.Run("new-stream", func(b *testing.B) {
		c := dial(b, startDN(b), 1)
		var reply Reply
		ctx := context.Background()
		measure(b, func() error { return c.Call(ctx, &reply) })
	})
	b.Run("reused-stream", func(b *testing.B) {
		c := dial(b, startDN(b), 1)
		s, err := c.OpenStream(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		var reply Reply
		measure(b, func() error { return s.Call(&reply) })
	})
}

// BenchmarkGeneratedStub is the loop bench/rawecho ran before this package: generated stub,
// proto codec, a response message per call.
func BenchmarkGeneratedStub(b *testing.B) {
	setup := func(b *testing.B) (dnpb.XceiverClientProtocolServiceClient, *dnpb.ContainerCommandRequestProto) {
		d := startDN(b)
		cc, err := grpc.NewClient("passthrough:///"+d.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = cc.Close() })
		req, err := NewRequest(1, d.UUID(), 0)
		if err != nil {
			b.Fatal(err)
		}
		msg := new(dnpb.ContainerCommandRequestProto)
		if err := proto.Unmarshal(req.Bytes(), msg); err != nil {
			b.Fatal(err)
		}
		return dnpb.NewXceiverClientProtocolServiceClient(cc), msg
	}
	b.Run("new-stream", func(b *testing.B) {
		client, req := setup(b)
		measure(b, func() error {
			ctx, cancel := context.WithTimeout(context.Background(), DefaultDeadline)
			defer cancel()
			s, err := client.Send(ctx)
			if err != nil {
				return err
			}
			if err := s.Send(req); err != nil {
				return err
			}
			_ = s.CloseSend()
			if _, err := s.Recv(); err != nil {
				return err
			}
			_, _ = s.Recv() // io.EOF
			return nil
		})
	})
	b.Run("reused-stream", func(b *testing.B) {
		client, req := setup(b)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		s, err := client.Send(ctx)
		if err != nil {
			b.Fatal(err)
		}
		measure(b, func() error {
			if err := s.Send(req); err != nil {
				return err
			}
			_, err := s.Recv()
			return err
		})
	})
}
