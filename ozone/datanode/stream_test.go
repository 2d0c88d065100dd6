package datanode

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/dnecho/dnecho/minicluster/dnsim"
	"github.com/dnecho/dnecho/proto/dnpb"
	"github.com/dnecho/dnecho/proto/hddspb"
	"github.com/dnecho/dnecho/testsupport/testwait"
)

func TestReusedStream(t *testing.T) {
	dns := startDNs(t, dnsim.Options{Containers: map[int64]int32{1: 0}})
	c := newClient(t, pipelineOf(dns...), Options{Streams: StreamReused})
	ok, _ := c.Prepare(Request{ContainerID: 1, PayloadSizeResp: 16, ReadOnly: true})
	bad, _ := c.Prepare(Request{ContainerID: 404, ReadOnly: true})
	ctx := context.Background()
	for i := 0; i < 10; i++ {
		p := ok
		if i%3 == 2 {
			p = bad // an error result must not break the stream
		}
		res, err := c.Echo(ctx, p)
		if (err == nil) != (p == ok) {
			t.Fatalf("call %d: %+v %v", i, res, err)
		}
	}
	if st := dns[0].Stats(); st.Streams != 1 || st.Calls != 10 {
		t.Fatalf("sequential calls: %+v, want 1 stream for 10 calls", st)
	}

	// Concurrent callers each borrow their own stream.
	const workers, calls = 4, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < calls; i++ {
				if _, err := c.Echo(ctx, ok); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if st := dns[0].Stats(); st.Streams > 1+workers || st.Calls != 10+workers*calls {
		t.Fatalf("concurrent calls: %+v", st)
	}
}

func TestDeadline(t *testing.T) {
	for _, mode := range []StreamMode{StreamPerRequest, StreamReused} {
		t.Run(string(mode), func(t *testing.T) {
			dns := startDNs(t, holding(2)...)
			c := newClient(t, pipelineOf(dns...), Options{Streams: mode, Timeout: 100 * time.Millisecond})
			p, _ := c.Prepare(Request{ContainerID: 1, ReadOnly: true})
			if _, err := c.Echo(context.Background(), p); err != nil { // warm a reused stream
				t.Fatal(err)
			}

			dns[0].SetFaults(dnsim.Faults{Stall: true})
			res, err := c.Echo(context.Background(), p)
			if err != nil || res.Attempts != 2 || res.DataNode.UUID != dns[1].UUID() {
				t.Fatalf("stall on the first member: %+v %v, want success on the second", res, err)
			}
			// The member that timed out is charged its attempt, the whole deadline; the one that
			// answered only its own part.
			checkEarlier(t, res, dns)
			if a := res.Earlier[0]; a.GRPCCode != codes.DeadlineExceeded || a.Took < 100*time.Millisecond {
				t.Errorf("stall on the first member: attempts %+v, last %s of %s", res.Earlier, res.LastTook(), res.RTT)
			}

			dns[1].SetFaults(dnsim.Faults{Stall: true})
			res, err = c.Echo(context.Background(), p)
			if status.Code(err) != codes.DeadlineExceeded || res.GRPCCode != codes.DeadlineExceeded || res.Attempts != 2 {
				t.Fatalf("both stalled: %+v %v", res, err)
			}

			dns[0].SetFaults(dnsim.Faults{})
			dns[1].SetFaults(dnsim.Faults{})
			if res, err := c.Echo(context.Background(), p); err != nil || res.Attempts != 1 {
				t.Fatalf("after release: %+v %v", res, err)
			}
		})
	}
}

func TestCallerCancel(t *testing.T) {
	for _, mode := range []StreamMode{StreamPerRequest, StreamReused} {
		t.Run(string(mode), func(t *testing.T) {
			dns := startDNs(t, dnsim.Options{Containers: map[int64]int32{1: 0}, Faults: dnsim.Faults{Stall: true}})
			dns = append(dns, startDNs(t, holding(1)...)...)
			c := newClient(t, pipelineOf(dns...), Options{Streams: mode})
			p, _ := c.Prepare(Request{ContainerID: 1, ReadOnly: true})
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			res, err := c.Echo(ctx, p)
			if status.Code(err) != codes.DeadlineExceeded || res.Attempts != 1 {
				t.Fatalf("%+v %v: want DEADLINE_EXCEEDED without retry", res, err)
			}
		})
	}
}

func TestMaxOutstanding(t *testing.T) {
	dns := startDNs(t, dnsim.Options{Containers: map[int64]int32{1: 0}, Faults: dnsim.Faults{Stall: true}})
	c := newClient(t, pipelineOf(dns...), Options{MaxOutstanding: 1})
	p, _ := c.Prepare(Request{ContainerID: 1, ReadOnly: true})
	done := make(chan error, 1)
	go func() {
		_, err := c.Echo(context.Background(), p)
		done <- err
	}()
	testwait.Eventually(t, testwait.Timeout, "first call held", func() bool { return dns[0].Stats().Stalled == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if res, err := c.Echo(ctx, p); status.Code(err) != codes.DeadlineExceeded || res.GRPCCode != codes.DeadlineExceeded || res.Attempts != 0 {
		t.Fatalf("second call: %+v %v, want to wait for a slot and time out", res, err)
	}
	if got := dns[0].Stats().Calls; got != 1 {
		t.Fatalf("DataNode saw %d calls, want 1", got)
	}
	dns[0].SetFaults(dnsim.Faults{})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestTLS(t *testing.T) {
	dns := startDNs(t, dnsim.Options{Containers: map[int64]int32{1: 0}, TLS: true})
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, dns[0].CACertPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	other := startDNs(t, dnsim.Options{TLS: true})[0] // a CA that did not sign dns[0]
	tests := []struct {
		name string
		opts Options
		code codes.Code
	}{
		{"CA file, IP SAN", Options{TLS: &TLSOptions{CAFiles: []string{caFile}}}, codes.OK},
		{"CA PEM, test cert authority", Options{TLS: &TLSOptions{CAPEM: dns[0].CACertPEM(), TestCert: true}}, codes.OK},
		{"untrusted CA", Options{TLS: &TLSOptions{CAPEM: other.CACertPEM()}}, codes.Unavailable},
		{"plaintext to a TLS port", Options{}, codes.Unavailable},
	}
	for _, mode := range []StreamMode{StreamPerRequest, StreamReused} {
		for _, tt := range tests {
			t.Run(string(mode)+"/"+tt.name, func(t *testing.T) {
				tt.opts.Streams = mode
				res, err := echo(t, newClient(t, pipelineOf(dns...), tt.opts), Request{ContainerID: 1, PayloadSizeResp: 10, ReadOnly: true})
				if status.Code(err) != tt.code || res.GRPCCode != tt.code {
					t.Fatalf("%+v %v, want %v", res, err, tt.code)
				}
			})
		}
	}
}

// TestRestart stops and restarts a DataNode in the middle of a run: calls
// fail while it is down and the same Client recovers once it is back. The
// calls keep the default deadline: a refused connection fails them at once
// (Unavailable), and a 1 s deadline failed the first call, which dials, on a
// busy machine.
func TestRestart(t *testing.T) {
	for _, mode := range []StreamMode{StreamPerRequest, StreamReused} {
		t.Run(string(mode), func(t *testing.T) {
			d := startDNs(t, holding(1)...)[0]
			c := newClient(t, pipelineOf(d), Options{Streams: mode})
			p, _ := c.Prepare(Request{ContainerID: 1, ReadOnly: true})
			ctx := context.Background()
			for i := 0; i < 3; i++ {
				if _, err := c.Echo(ctx, p); err != nil {
					t.Fatal(err)
				}
			}
			d.Stop()
			if res, err := c.Echo(ctx, p); err == nil || res.GRPCCode != codes.Unavailable {
				t.Fatalf("while down: %+v %v", res, err)
			}
			if err := d.Restart(); err != nil {
				t.Fatal(err)
			}
			testwait.Eventually(t, testwait.Timeout, "recovery", func() bool {
				_, err := c.Echo(ctx, p)
				return err == nil
			})
			if mode == StreamReused {
				before := d.Stats().Streams
				for i := 0; i < 5; i++ {
					if _, err := c.Echo(ctx, p); err != nil {
						t.Fatal(err)
					}
				}
				if d.Stats().Streams != before {
					t.Fatal("reused stream not reused after recovery")
				}
			}
		})
	}
}

// TestRestartIdleReusedStream: a reused stream that died while idle is
// replaced without failing the call, because its request never left.
func TestRestartIdleReusedStream(t *testing.T) {
	d := startDNs(t, holding(1)...)[0]
	c := newClient(t, pipelineOf(d), Options{Streams: StreamReused})
	p, _ := c.Prepare(Request{ContainerID: 1, ReadOnly: true})
	if _, err := c.Echo(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	d.SetFaults(dnsim.Faults{ErrorRate: 1, ErrorCode: codes.Internal}) // ends the stream
	if _, err := c.Echo(context.Background(), p); status.Code(err) != codes.Internal {
		t.Fatalf("injected error: %v", err)
	}
	d.SetFaults(dnsim.Faults{})
	if res, err := c.Echo(context.Background(), p); err != nil || res.Attempts != 1 {
		t.Fatalf("after a broken stream: %+v %v", res, err)
	}
}

// noReply ends every stream with status OK without answering.
type noReply struct {
	dnpb.UnimplementedXceiverClientProtocolServiceServer
}

func (noReply) Send(s grpc.BidiStreamingServer[dnpb.ContainerCommandRequestProto, dnpb.ContainerCommandResponseProto]) error {
	_, err := s.Recv()
	return err
}

func TestNoReply(t *testing.T) {
	lis, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	dnpb.RegisterXceiverClientProtocolServiceServer(srv, noReply{})
	served := make(chan struct{})
	go func() { defer close(served); _ = srv.Serve(lis) }()
	defer func() { srv.Stop(); <-served }()
	port := uint32(lis.Addr().(*net.TCPAddr).Port)
	p := &hddspb.Pipeline{Members: []*hddspb.DatanodeDetailsProto{detail(testUUID, "127.0.0.1", port, hddspb.NodeOperationalState_IN_SERVICE)}}

	for _, mode := range []StreamMode{StreamPerRequest, StreamReused} {
		t.Run(string(mode), func(t *testing.T) {
			res, err := echo(t, newClient(t, p, Options{Streams: mode}), Request{ContainerID: 1})
			if !errors.Is(err, ErrNoReply) || res.GRPCCode != codes.OK || res.Code != 0 {
				t.Fatalf("%+v %v, want ErrNoReply", res, err)
			}
		})
	}
}
