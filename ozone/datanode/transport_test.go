package datanode

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"testing"
)

// testTransport is the transport of every Client the package's tests make with newClient.
var testTransport = flag.String("transport", "", "transport of the package's tests: grpc (the default) or h2")

// TestSuiteOverH2 runs every other test of the package again, in a child process, with the h2
// transport: the same calls, the same expectations.
func TestSuiteOverH2(t *testing.T) {
	if *testTransport != "" {
		t.Skip("already the child run")
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^Test[^S]|^TestS[^u]", "-test.count=1", "-transport=h2")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the package's tests over h2 failed: %v\n%s", err, out)
	}
}

// TestH2AllocatesNothing: a call over h2 allocates nothing once its connection and streams are
// warm, in either stream mode (the DataNode runs in another process, so every allocation
// counted is the client's: the caller, the connection's reader and writer). AllocsPerRun
// rounds down: under -race, where sync.Pool drops a share of what it is given, the check is
// fewer than one allocation per call.
func TestH2AllocatesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts need a build without -race")
	}
	p := childDataNode(t)
	for _, mode := range []StreamMode{StreamPerRequest, StreamReused} {
		t.Run(string(mode), func(t *testing.T) {
			c := newClient(t, p, Options{Transport: TransportH2, Streams: mode})
			prep, err := c.Prepare(Request{ContainerID: 1, ReadOnly: true, PayloadSizeResp: 4096})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			call := func() {
				if res, err := c.Echo(ctx, prep); err != nil || !res.OK() {
					t.Fatalf("%+v %v", res, err)
				}
			}
			for range 100 {
				call()
			}
			if n := testing.AllocsPerRun(2000, call); n != 0 {
				t.Errorf("%v allocations per call, want 0", n)
			}
		})
	}
}

// BenchmarkEchoTransports is one caller's Echo through each transport to a DataNode in another
// process: cpu-ns/op and allocs/op are the client's alone.
func BenchmarkEchoTransports(b *testing.B) {
	p := childDataNode(b)
	for _, tr := range Transports {
		for _, mode := range []StreamMode{StreamPerRequest, StreamReused} {
			b.Run(string(tr)+"/"+string(mode), func(b *testing.B) {
				c := newClient(b, p, Options{Transport: tr, Streams: mode})
				prep, err := c.Prepare(Request{ContainerID: 1, ReadOnly: true})
				if err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				measure(b, func() {
					if _, err := c.Echo(ctx, prep); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}
