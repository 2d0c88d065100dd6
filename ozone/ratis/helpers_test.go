package ratis_test

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"
	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/minicluster/dnsim"
	"github.com/dnecho/dnecho/minicluster/raftsim"
	"github.com/dnecho/dnecho/ozone/datanode"
	"github.com/dnecho/dnecho/ozone/ratis"
	"github.com/dnecho/dnecho/proto/hddspb"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testDeadline bounds every wait of these tests.
const testDeadline = 20 * time.Second

// quick is a retry policy with the default's shape and millisecond sleeps, so that tests that
// go through LeaderNotReady or broken streams do not wait seconds.
var quick = &ratis.RetryPolicy{
	Multilinear: []ratis.Step{{Sleep: time.Millisecond, Count: 1000}},
	ExpBase:     time.Millisecond, ExpMax: 2 * time.Millisecond, ExpMaxRetries: 1000,
	WriteTimeout: time.Minute, WatchTimeout: time.Minute,
}

// pipeline is an emulated Raft group over emulated DataNodes, and the pipeline SCM lists.
type pipeline struct {
	dns   []*dnsim.DataNode
	g     *raftsim.Group
	proto *hddspb.Pipeline
}

// startPipeline starts one DataNode per options value (holding container 1 unless said
// otherwise) and a group led by member leader, which SCM lists as the leader.
func startPipeline(t testing.TB, opts raftsim.GroupOptions, dnOpts ...dnsim.Options) *pipeline {
	t.Helper()
	id := hddspb.UUIDText(hddspb.NewRandomUUID())
	p := &pipeline{}
	var replicas []raftsim.Replica
	for _, o := range dnOpts {
		if o.Containers == nil {
			o.Containers = map[int64]int32{1: 0}
		}
		d, err := dnsim.New(o)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Start("127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		p.dns = append(p.dns, d)
		replicas = append(replicas, d)
	}
	g, err := raftsim.NewGroup(id, replicas, opts)
	if err != nil {
		t.Fatal(err)
	}
	p.g = g
	t.Cleanup(g.Close)
	pid, _ := hddspb.NewPipelineID(id)
	p.proto = &hddspb.Pipeline{Id: pid}
	for _, d := range p.dns {
		t.Cleanup(d.Stop)
		if err := d.JoinGroup(g); err != nil {
			t.Fatal(err)
		}
		p.proto.Members = append(p.proto.Members, d.Details())
	}
	if opts.Leader >= 0 {
		p.proto.LeaderID = proto.String(p.dns[opts.Leader].UUID())
	}
	return p
}

func dns(n int) []dnsim.Options { return make([]dnsim.Options, n) }

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

// waitFor polls cond until it holds or the test deadline passes.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testDeadline)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not reached within %s", what, testDeadline)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
