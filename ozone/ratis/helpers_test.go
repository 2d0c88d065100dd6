package ratis_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/dnecho/dnecho/minicluster/dnsim"
	"github.com/dnecho/dnecho/minicluster/raftsim"
	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/ozone/ratis"
	"github.com/dnecho/dnecho/proto/hddspb"
	"github.com/dnecho/dnecho/testsupport/raftsimtest"
	"github.com/dnecho/dnecho/testsupport/testwait"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testDeadline bounds every wait of these tests.
const testDeadline = raftsimtest.Deadline

// quick is a retry policy with the default's shape and millisecond sleeps, so that tests that
// go through LeaderNotReady or broken streams do not wait seconds.
var quick = &ratis.RetryPolicy{
	Multilinear: []ratis.Step{{Sleep: time.Millisecond, Count: 1000}},
	ExpBase:     time.Millisecond, ExpMax: 2 * time.Millisecond, ExpMaxRetries: 1000,
	WriteTimeout: time.Minute, WatchTimeout: time.Minute,
}

// pipeline is an emulated pipeline and the test's shorthands for it.
type pipeline struct {
	dns   []*dnsim.DataNode
	g     *raftsim.Group
	proto *hddspb.Pipeline
}

// startPipeline starts an emulated pipeline (see raftsimtest.Start).
func startPipeline(t testing.TB, opts raftsim.GroupOptions, dnOpts ...dnsim.Options) *pipeline {
	t.Helper()
	p := raftsimtest.Start(t, opts, dnOpts...)
	return &pipeline{dns: p.DataNodes, g: p.Group, proto: p.Proto}
}

func dns(n int) []dnsim.Options { return raftsimtest.DataNodes(n) }

// newClient builds a Client and closes it when the test ends.
func newClient(t testing.TB, p *hddspb.Pipeline, o ratis.Options) *ratis.Client {
	t.Helper()
	c, err := ratis.New(p, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// echo sends r once with the test deadline.
func echo(t testing.TB, c *ratis.Client, r datanode.Request) (datanode.Result, error) {
	t.Helper()
	p, err := c.Prepare(r)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	return c.Echo(ctx, p)
}

var (
	read  = datanode.Request{ContainerID: 1, ReadOnly: true}
	write = datanode.Request{ContainerID: 1}
)

// writesAcrossLeaderMove sends n copies of the prepared write at once while member 0 leads and
// the others hold what they log (p's Delays), moves leadership to member 1 once all n are
// logged, lets it apply, and returns the errors of the calls once every one has ended.
func writesAcrossLeaderMove(t *testing.T, p *pipeline, c *ratis.Client, pw *ratis.Prepared, n int) []error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			if _, err := c.Echo(ctx, pw); err != nil {
				errs <- err
			}
		})
	}
	testwait.Eventually(t, testwait.Timeout, "all writes logged", func() bool { return p.g.Stats().LastIndex == 1+uint64(n) })
	if err := p.g.TransferLeadership(1); err != nil {
		t.Fatal(err)
	}
	if err := p.g.SetDelay(1, 0); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(errs)
	var out []error
	for err := range errs {
		out = append(out, err)
	}
	return out
}
