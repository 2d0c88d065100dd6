// Package raftsimtest starts an emulated pipeline for tests: DataNodes (minicluster/dnsim), each
// with its own options, serving one Raft group (minicluster/raftsim), and the pipeline as SCM would
// list it. Tests that need a whole cluster (SCM included) use minicluster instead.
package raftsimtest

import (
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/minicluster/dnsim"
	"github.com/dnecho/dnecho/minicluster/raftsim"
	"github.com/dnecho/dnecho/proto/hddspb"
	"github.com/dnecho/dnecho/testsupport/testwait"
)

// Pipeline is a started group over emulated DataNodes.
type Pipeline struct {
	DataNodes []*dnsim.DataNode
	Group     *raftsim.Group
	// ID is the pipeline (group) id; Proto the pipeline as ListPipelines reports it, listing the
	// first leader unless the group starts without one.
	ID    string
	Proto *hddspb.Pipeline
}

// Start starts one DataNode per options value (each holding container 1 unless its options list
// containers) and a group over them, all stopped when the test ends.
func Start(tb testing.TB, opts raftsim.GroupOptions, dnOpts ...dnsim.Options) *Pipeline {
	tb.Helper()
	p := &Pipeline{ID: hddspb.UUIDText(hddspb.NewRandomUUID())}
	pid, err := hddspb.NewPipelineID(p.ID)
	if err != nil {
		tb.Fatal(err)
	}
	p.Proto = &hddspb.Pipeline{Id: pid}
	var replicas []raftsim.Replica
	for _, o := range dnOpts {
		if o.Containers == nil {
			o.Containers = map[int64]int32{1: 0}
		}
		d, err := dnsim.New(o)
		if err != nil {
			tb.Fatal(err)
		}
		if err := d.Start("127.0.0.1:0"); err != nil {
			tb.Fatal(err)
		}
		p.DataNodes = append(p.DataNodes, d)
		replicas = append(replicas, d)
	}
	if p.Group, err = raftsim.NewGroup(p.ID, replicas, opts); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(p.Group.Close)
	for _, d := range p.DataNodes {
		tb.Cleanup(d.Stop)
		if err := d.JoinGroup(p.Group); err != nil {
			tb.Fatal(err)
		}
		p.Proto.Members = append(p.Proto.Members, d.Details())
	}
	if opts.Leader >= 0 {
		p.Proto.LeaderID = proto.String(p.DataNodes[opts.Leader].UUID())
	}
	return p
}

// DataNodes returns n default options (DataNodes holding container 1).
func DataNodes(n int) []dnsim.Options { return make([]dnsim.Options, n) }

// Deadline bounds every wait of tests on an emulated pipeline: the one test deadline.
const Deadline = testwait.Timeout
