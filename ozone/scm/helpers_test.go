package scm

import (
	"context"
	"net"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/dnecho/dnecho/minicluster/rpcserver"
	"github.com/dnecho/dnecho/minicluster/scmsim"
	"github.com/dnecho/dnecho/ozone/hadooprpc"
	"github.com/dnecho/dnecho/proto/hddspb"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The test cluster:
//
//	container 1: OPEN on pipelineA (one DataNode)       - the happy path
//	container 2: CLOSED, no pipeline, replica on dn1     - freon fails, with-pipeline reads replicas
//	container 3: OPEN, pipelineGone is not listed        - freon fails
//	container 4: OPEN on pipelineB, listed by uuid128 only
const (
	pipelineA    = "5c3e1f0a-2b4d-4e6f-8a9b-0c1d2e3f4a5b"
	pipelineB    = "11111111-2222-4333-8444-555555555555"
	pipelineGone = "99999999-2222-4333-8444-555555555555"
	dn1UUID      = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
)

type cluster interface {
	AddContainer(scmsim.Container) error
	AddPipeline(*hddspb.Pipeline) error
}

func populate(t testing.TB, c cluster) *hddspb.DatanodeDetailsProto {
	t.Helper()
	dn, err := scmsim.Datanode(dn1UUID, "10.0.0.11", "dn1.example.com", scmsim.DefaultStandalonePort)
	must(t, err)
	pa, err := scmsim.Pipeline(pipelineA, hddspb.PipelineState_PIPELINE_OPEN, dn)
	must(t, err)
	pb, err := scmsim.Pipeline(pipelineB, hddspb.PipelineState_PIPELINE_OPEN, dn)
	must(t, err)
	pb.Id.Id = nil // only uuid128 on the list side
	must(t, c.AddPipeline(pa))
	must(t, c.AddPipeline(pb))
	must(t, c.AddContainer(scmsim.Container{ID: 1, PipelineID: pipelineA}))
	must(t, c.AddContainer(scmsim.Container{ID: 2, State: hddspb.LifeCycleState_CLOSED,
		Replicas: []*hddspb.DatanodeDetailsProto{dn}}))
	must(t, c.AddContainer(scmsim.Container{ID: 3, PipelineID: pipelineGone}))
	must(t, c.AddContainer(scmsim.Container{ID: 4, PipelineID: pipelineB}))
	return dn
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func startSCM(t testing.TB, cfg scmsim.Config) *scmsim.SCM {
	t.Helper()
	s, err := scmsim.New(cfg)
	must(t, err)
	must(t, s.Start(""))
	t.Cleanup(func() { s.Close() })
	populate(t, s)
	return s
}

func startHA(t testing.TB, n int) *scmsim.HA {
	t.Helper()
	h, err := scmsim.NewHA(n, scmsim.Config{})
	must(t, err)
	t.Cleanup(func() { h.Close() })
	populate(t, h)
	return h
}

// fastOptions retries quickly so failure paths finish in milliseconds.
func fastOptions(user string, addrs ...string) Options {
	return Options{
		Addresses:     addrs,
		RPC:           hadooprpc.Options{User: user},
		RetryInterval: 5 * time.Millisecond,
		MaxRetries:    10,
	}
}

func newClient(t testing.TB, o Options) *Client {
	t.Helper()
	c, err := New(o)
	must(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func closedPort(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	addr := l.Addr().String()
	l.Close()
	return addr
}

// fakeSCM is a bare Hadoop RPC server (rpcserver) whose handler the test scripts.
func fakeSCM(t testing.TB, h rpcserver.Handler) string {
	t.Helper()
	s, err := rpcserver.New(rpcserver.Options{})
	must(t, err)
	s.Register(Protocol, 1, "submitRequest", h)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	done := make(chan struct{})
	go func() { defer close(done); s.Serve(l) }()
	t.Cleanup(func() { s.Close(); <-done })
	return l.Addr().String()
}

func uuidString(u *hddspb.UUID) string { return u.Text() }
