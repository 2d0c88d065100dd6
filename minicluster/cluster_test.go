package minicluster_test

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/dnecho/dnecho/minicluster"
	"github.com/dnecho/dnecho/ozone/config"
	"github.com/dnecho/dnecho/ozone/echo"
	"github.com/dnecho/dnecho/testsupport/testdeps"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestDefaultClusterEchoesOnEveryContainer(t *testing.T) {
	testdeps.SkipShort(t, "a mini cluster")
	c, err := minicluster.Start(minicluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	dir := t.TempDir()
	if err := c.WriteConf(dir); err != nil {
		t.Fatal(err)
	}
	var info minicluster.Info
	b, err := os.ReadFile(filepath.Join(dir, minicluster.ClusterFile))
	if err != nil || json.Unmarshal(b, &info) != nil {
		t.Fatalf("cluster.json: %v", err)
	}
	if len(info.DataNodes) != 3 || len(info.Containers) != 3 {
		t.Fatalf("info %+v", info)
	}
	for _, id := range minicluster.DefaultContainers {
		sess, err := echo.Open(context.Background(), echo.Spec{Cluster: echo.Cluster{ConfDir: dir}, ContainerID: id,
			Target: echo.TargetAll, Request: echo.Request{PayloadResp: 10}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3; i++ {
			if r := sess.Echo(context.Background(), 0); !r.OK() || r.BytesReceived == 0 {
				t.Fatalf("container %d call %d: %+v", id, i, r)
			}
		}
		sess.Close()
	}
	for i, dn := range c.DataNodes() {
		if got := dn.Stats().Successes; got != 3 {
			t.Errorf("DataNode %d: %d successes, want 3 (one per container)", i, got)
		}
	}
}

func TestHAConfigResolvesEveryNode(t *testing.T) {
	testdeps.SkipShort(t, "a mini cluster")
	c, err := minicluster.Start(minicluster.Options{SCMs: 3, DataNodes: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	dir := t.TempDir()
	if err := c.WriteConf(dir); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := cfg.SCMNodes()
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 3 {
		t.Fatalf("nodes %v", nodes)
	}
	for i, n := range nodes {
		if n.Address() != c.SCMAddrs()[i] {
			t.Errorf("node %d: %s, want %s", i, n.Address(), c.SCMAddrs()[i])
		}
	}
}

// A cluster that cannot start (its SCM port is taken) returns an error, and stops the DataNodes it
// had already started (goleak in TestMain checks nothing is left running).
func TestFailedStartCleansUp(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	c, err := minicluster.Start(minicluster.Options{SCMAddr: busy.Addr().String()})
	if err == nil {
		c.Close()
		t.Fatal("started on a port already in use")
	}
}

func TestRejectsBadOptions(t *testing.T) {
	for _, o := range []minicluster.Options{{DataNodes: -1}, {Containers: []int64{0}}, {SCMs: -2}} {
		if c, err := minicluster.Start(o); err == nil {
			c.Close()
			t.Errorf("%+v accepted", o)
		}
	}
}
