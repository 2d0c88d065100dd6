package datanode

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/dnecho/dnecho/minicluster/dnsim"
	"github.com/dnecho/dnecho/proto/dnpb"
)

// outcome is what a batch of calls came to, the way a load tool counts it.
type outcome struct {
	ok       int
	labels   map[string]int // Ozone result or gRPC code of the failures
	messages map[string]int // the DataNode's messages of the failures with an Ozone result
	attempts int
	received int
	median   time.Duration
}

func (o outcome) String() string {
	return fmt.Sprintf("ok %d, failures %v %v, attempts %d, received %d, median %s", o.ok, o.labels, o.messages, o.attempts, o.received, o.median)
}

// agrees compares everything but the latency, which only has to be within a factor 2.
func (o outcome) agrees(p outcome, exact bool) bool {
	if o.ok != p.ok || !maps.Equal(o.labels, p.labels) || !maps.Equal(o.messages, p.messages) {
		return false
	}
	return !exact || (o.attempts == p.attempts && o.received == p.received)
}

// batch runs n calls of r from workers goroutines; during, when not nil, runs once after a
// quarter of the calls have returned.
func batch(t *testing.T, c *Client, r Request, n, workers int, during func()) outcome {
	t.Helper()
	p, err := c.Prepare(r)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	o := outcome{labels: map[string]int{}, messages: map[string]int{}}
	var lat []time.Duration
	var next, done atomic.Int64
	var once sync.Once
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				res, _ := c.Echo(context.Background(), p)
				if during != nil && done.Add(1) == int64(n/4) {
					once.Do(during)
				}
				mu.Lock()
				o.attempts += res.Attempts
				o.received += res.BytesReceived
				lat = append(lat, res.RTT)
				switch {
				case res.OK():
					o.ok++
				case res.GRPCCode == codes.OK:
					o.labels[res.Code.String()]++
					o.messages[res.Message]++
				default:
					o.labels[CodeName(res.GRPCCode)]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	slices.Sort(lat)
	o.median = lat[len(lat)/2]
	return o
}

// TestTransportsAgree sends the same calls through grpc-go and h2 to the emulated DataNode:
// payloads from 0 B to 3 MiB both ways, new and reused streams, Ozone errors, gRPC statuses,
// deadlines, a DataNode that sends GOAWAY, a DataNode killed mid-run. The counts, results and
// messages must be the same, the median latencies within a factor 2 of each other.
func TestTransportsAgree(t *testing.T) {
	if *testTransport != "" {
		t.Skip("compares both transports itself")
	}
	holds := func(f dnsim.Faults) dnsim.Options {
		return dnsim.Options{Containers: map[int64]int32{1: 0}, Faults: f}
	}
	tests := []struct {
		name    string
		dns     []dnsim.Options
		opts    Options
		req     Request
		n       int
		exact   bool                        // attempts and bytes must agree too
		during  func(dns []*dnsim.DataNode) // mid-run
		latency bool                        // compare the medians
	}{
		{"empty, 10 ms DataNode", []dnsim.Options{holds(dnsim.Faults{Latency: 10 * time.Millisecond})}, Options{}, Request{ContainerID: 1}, 200, true, nil, true},
		{"1 KiB both ways", []dnsim.Options{holds(dnsim.Faults{})}, Options{}, Request{ContainerID: 1, Payload: make([]byte, 1024), PayloadSizeResp: 1024}, 200, true, nil, false},
		{"1 MiB reply", []dnsim.Options{holds(dnsim.Faults{})}, Options{}, Request{ContainerID: 1, PayloadSizeResp: 1 << 20}, 40, true, nil, false},
		{"2 MiB - 1 reply, freon's cap", []dnsim.Options{holds(dnsim.Faults{})}, Options{}, Request{ContainerID: 1, PayloadSizeResp: 2097151}, 20, true, nil, false},
		{"3 MiB reply, uncapped", []dnsim.Options{holds(dnsim.Faults{})}, Options{}, Request{ContainerID: 1, PayloadSizeResp: 3 << 20}, 20, true, nil, false},
		{"2 MiB request", []dnsim.Options{holds(dnsim.Faults{})}, Options{}, Request{ContainerID: 1, Payload: make([]byte, 2<<20)}, 20, true, nil, false},
		{"reply over MaxMessageSize", []dnsim.Options{holds(dnsim.Faults{})}, Options{MaxMessageSize: 1 << 20, NoRetry: true}, Request{ContainerID: 1, PayloadSizeResp: 2 << 20}, 10, true, nil, false},
		{"unknown container", []dnsim.Options{holds(dnsim.Faults{})}, Options{NoRetry: true}, Request{ContainerID: 404}, 50, true, nil, false},
		{"injected Ozone error", []dnsim.Options{holds(dnsim.Faults{ErrorRate: 1, ErrorResult: dnpb.Result_CONTAINER_INTERNAL_ERROR, ErrorMessage: "disk 3 failed"})}, Options{}, Request{ContainerID: 1}, 50, true, nil, false},
		{"UNAUTHENTICATED, not retried", []dnsim.Options{holds(dnsim.Faults{ErrorRate: 1, ErrorCode: codes.Unauthenticated}), holds(dnsim.Faults{})}, Options{}, Request{ContainerID: 1}, 50, true, nil, false},
		{"deadline, retried on the next member", []dnsim.Options{holds(dnsim.Faults{Stall: true}), holds(dnsim.Faults{})}, Options{Timeout: 100 * time.Millisecond}, Request{ContainerID: 1}, 20, true, nil, false},
		{"deadline on every member", []dnsim.Options{holds(dnsim.Faults{}), holds(dnsim.Faults{})}, Options{Timeout: 100 * time.Millisecond}, Request{ContainerID: 1, SleepTimeMs: 300}, 8, true, nil, false},
		{"GOAWAY every 30 ms", []dnsim.Options{{Containers: map[int64]int32{1: 0}, MaxConnectionAge: 30 * time.Millisecond}}, Options{NoRetry: true}, Request{ContainerID: 1}, 3000, true, nil, false},
		{"first member killed mid-run", []dnsim.Options{holds(dnsim.Faults{}), holds(dnsim.Faults{})}, Options{}, Request{ContainerID: 1}, 400, false,
			func(dns []*dnsim.DataNode) { dns[0].Stop() }, false},
	}
	for _, mode := range []StreamMode{StreamPerRequest, StreamReused} {
		for _, tt := range tests {
			t.Run(string(mode)+"/"+tt.name, func(t *testing.T) {
				var got [2]outcome
				for i, tr := range Transports {
					dns := startDNs(t, tt.dns...)
					opts := tt.opts
					opts.Streams, opts.Transport = mode, tr
					c := newClient(t, pipelineOf(dns...), opts)
					var during func()
					if tt.during != nil {
						during = func() { tt.during(dns) }
					}
					got[i] = batch(t, c, tt.req, tt.n, 8, during)
				}
				t.Logf("grpc: %v; h2: %v", got[0], got[1])
				if !got[0].agrees(got[1], tt.exact) {
					t.Fatalf("grpc: %v\nh2:   %v", got[0], got[1])
				}
				if tt.latency && (got[1].median > 2*got[0].median || got[0].median > 2*got[1].median) {
					t.Errorf("median latency grpc %s, h2 %s: not within a factor 2", got[0].median, got[1].median)
				}
			})
		}
	}
}
