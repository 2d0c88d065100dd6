package datanode

import (
	"context"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/dnecho/dnecho/minicluster/dnsim"
	"github.com/dnecho/dnecho/proto/hddspb"
)

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) != "" {
		serveDataNode() // the child of childDataNode
		return
	}
	goleak.VerifyTestMain(m)
}

// startDNs starts one emulated DataNode per options value and stops them when
// the test ends.
func startDNs(tb testing.TB, opts ...dnsim.Options) []*dnsim.DataNode {
	tb.Helper()
	dns := make([]*dnsim.DataNode, len(opts))
	for i, o := range opts {
		d, err := dnsim.New(o)
		if err != nil {
			tb.Fatalf("dnsim.New: %v", err)
		}
		if err := d.Start("127.0.0.1:0"); err != nil {
			tb.Fatalf("dnsim.Start: %v", err)
		}
		tb.Cleanup(d.Stop)
		dns[i] = d
	}
	return dns
}

// holding returns n DataNode options that all hold container 1.
func holding(n int) []dnsim.Options {
	opts := make([]dnsim.Options, n)
	for i := range opts {
		opts[i] = dnsim.Options{Containers: map[int64]int32{1: 0}}
	}
	return opts
}

// pipelineOf lists the DataNodes as SCM would in a pipeline.
func pipelineOf(dns ...*dnsim.DataNode) *hddspb.Pipeline {
	p := &hddspb.Pipeline{}
	for _, d := range dns {
		p.Members = append(p.Members, d.Details())
	}
	return p
}

// newClient builds a Client and closes it when the test ends.
func newClient(tb testing.TB, p *hddspb.Pipeline, opts Options) *Client {
	tb.Helper()
	if opts.Transport == "" {
		opts.Transport = Transport(*testTransport)
	}
	c, err := New(p, opts)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// echo prepares r and sends it once.
func echo(tb testing.TB, c *Client, r Request) (Result, error) {
	tb.Helper()
	p, err := c.Prepare(r)
	if err != nil {
		tb.Fatalf("Prepare: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return c.Echo(ctx, p)
}
